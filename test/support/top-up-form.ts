/** Slack state values of a filled-in top-up form (block id → action id → value), for `amount` dollars. */
export function topUpValues(amount: string): Record<string, Record<string, unknown>> {
  const text = (value: string) => ({ value: { type: 'plain_text_input', value } });
  return {
    topup_amount: text(amount),
    topup_note: text('Q4 awards'),
    topup_company: text('Acme Inc.'),
    topup_phone: text('+1 555 0100'),
    topup_address: text('1 Main St'),
    topup_city: text('Springfield'),
    topup_state: text('IL'),
    topup_country: text('us'),
    topup_zip: text('62701'),
    topup_ein: text('12-3456789'),
    topup_website: text(''),
  };
}
