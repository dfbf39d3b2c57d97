// Amounts in the app are integer cents. Choice cards take whole dollars within the design's range.
import { type Refused, refused } from './refusal.js';

export const REFUND_WINDOWS = [30, 60, 90] as const;

export type AmountCheck =
  | { ok: true; cents: number }
  | Refused<'amount_missing' | 'not_a_number' | 'not_whole_dollars' | 'amount_too_small' | 'amount_too_large'>;

/**
 * Parses what the user typed in the amount field ("25", "25.00", "$25", "1,000"): whole dollars only.
 * A comma is read only as a thousands separator: "2,5" is refused, never read as 25.
 */
export function parseWholeDollars(input: unknown): AmountCheck {
  if (input !== null && input !== undefined && typeof input !== 'string')
    return refused('not_a_number', 'Enter the amount as a number of whole dollars, e.g. 25.');
  let text = (input ?? '').trim().replace(/^\$/, '');
  if (text === '') return refused('amount_missing', 'Enter an amount in whole dollars.');
  if (text.includes(',')) {
    if (!/^\d{1,3}(,\d{3})+(\.\d{1,2})?$/.test(text))
      return refused(
        'not_a_number',
        'Enter the amount as a number of whole dollars, e.g. 25 (a comma only between thousands, as in 1,000).',
      );
    text = text.replace(/,/g, '');
  }
  const match = /^(\d{1,7})(?:\.(\d{1,2}))?$/.exec(text);
  if (!match) return refused('not_a_number', 'Enter the amount as a number of whole dollars, e.g. 25.');
  if (match[2] !== undefined && !/^0+$/.test(match[2])) {
    return refused('not_whole_dollars', 'Gift cards take whole dollars only (no cents).');
  }
  const cents = Number(match[1]) * 100;
  if (cents <= 0) return refused('amount_too_small', 'The amount must be at least $1.');
  return { ok: true, cents };
}

/** Checks a per-recipient amount against a design's [min, max] range (cents, inclusive). */
export function checkAmountInRange(cents: number, range: { minCents: number; maxCents: number }): AmountCheck {
  if (cents % 100 !== 0) return refused('not_whole_dollars', 'Gift cards take whole dollars only (no cents).');
  if (cents < range.minCents || cents > range.maxCents) {
    return refused(
      cents < range.minCents ? 'amount_too_small' : 'amount_too_large',
      `This design takes ${formatUsd(range.minCents)} to ${formatUsd(range.maxCents)} per person.`,
    );
  }
  return { ok: true, cents };
}

/** Total of a send: per-recipient amount times number of recipients, exact. */
export function totalCents(amountCents: number, recipientCount: number): number {
  return amountCents * recipientCount;
}

/** "$1,234.50" from cents; whole dollars print without cents ("$25"). */
export function formatUsd(cents: number, currency = 'USD'): string {
  const negative = cents < 0;
  const abs = Math.abs(cents);
  const dollars = Math.floor(abs / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const rest = abs % 100;
  const body = rest === 0 ? dollars : `${dollars}.${String(rest).padStart(2, '0')}`;
  const symbol = currency === 'USD' ? '$' : `${currency} `;
  return `${negative ? '-' : ''}${symbol}${body}`;
}

/** Decimal string for the API from cents: 2500 -> "25.00". */
export function centsToDecimal(cents: number): string {
  const abs = Math.abs(cents);
  return `${cents < 0 ? '-' : ''}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}
