// Amounts in a branded product's own currency. Inside the app a face value is integer cents
// (hundredths) of its currency, as the Rewards client reads every amount ("25.10" -> 2510): for a
// currency without decimals (JPY) a valid amount is a whole number of hundreds (¥1,000 = 100000).
// How many decimals a currency has comes from Intl (ISO 4217's minor units), never a hand list.
import { centsToDecimal } from '../common/money.js';
import { type Refused, refused } from '../common/refusal.js';

const digitsMemo = new Map<string, number>();

/** The currency's number of decimals (ISO 4217 minor units): GBP 2, JPY 0. At most 2 (our cents). */
export function minorUnitDigits(currency: string): number {
  let digits = digitsMemo.get(currency);
  if (digits === undefined) {
    digits = Math.min(2, formatter(currency, 'en-US').resolvedOptions().maximumFractionDigits ?? 2);
    digitsMemo.set(currency, digits);
  }
  return digits;
}

/** The smallest amount of the currency, in cents: 1 for GBP (£0.01), 100 for JPY (¥1). */
export function minorUnitCents(currency: string): number {
  return 10 ** (2 - minorUnitDigits(currency));
}

/** True for a well-formed ISO 4217 code Intl can format ("GBP"); false for "gbp", "£" or "". */
export function isCurrencyCode(currency: string): boolean {
  if (!/^[A-Z]{3}$/.test(currency)) return false;
  try {
    formatter(currency, 'en-US');
    return true;
  } catch {
    return false;
  }
}

/**
 * An amount in its own currency as people read it: "£25", "€10.50", "¥1,000", "$25". Whole amounts
 * print without decimals; others with the currency's decimals. `faceCents` must be a safe integer.
 */
export function formatFace(faceCents: number, currency: string, locale = 'en-US'): string {
  // An amount finer than the currency's smallest unit (¥1,000.50, refused by the price rules) shows as it is.
  const digits = faceCents % minorUnitCents(currency) === 0 ? minorUnitDigits(currency) : 2;
  const whole = faceCents % 100 === 0;
  const format = new Intl.NumberFormat(locale, {
    style: 'currency',
    currency,
    minimumFractionDigits: whole ? 0 : digits,
    maximumFractionDigits: whole ? 0 : digits,
  });
  // A decimal string keeps the amount exact (no float division of money).
  return format.format(centsToDecimal(faceCents) as `${number}`);
}

/** "£10, £20, or £50": a list of amounts for a message ("or" between the last two). */
export function formatFaceList(facesCents: readonly number[], currency: string): string {
  return new Intl.ListFormat('en', { type: 'disjunction' }).format(facesCents.map((c) => formatFace(c, currency)));
}

export type FaceAmountParse =
  { ok: true; faceCents: number } | Refused<'amount_missing' | 'not_a_number' | 'too_many_decimals'>;

/**
 * What someone typed as an amount in `currency` ("25", "£25", "25.50 GBP", "1,000", "¥1000"), in
 * cents of that currency. The currency's symbol or code may come before or after the number; a
 * comma is read only between thousands; at most the currency's decimals (none for JPY). Whether the
 * product offers the amount is `checkBrandedAmount`'s question.
 */
export function parseFaceAmount(input: string | null | undefined, currency: string): FaceAmountParse {
  const example = formatFace(2500 * minorUnitCents(currency), currency);
  const hint = `Enter the amount in ${currency}, e.g. ${example}.`;
  let text = (input ?? '').trim();
  if (text === '') return refused('amount_missing', hint);
  for (const mark of currencyMarks(currency)) {
    const upper = text.toUpperCase();
    if (upper.startsWith(mark.toUpperCase())) text = text.slice(mark.length).trim();
    else if (upper.endsWith(mark.toUpperCase())) text = text.slice(0, -mark.length).trim();
    else continue;
    break;
  }
  const match = /^(\d{1,9}|\d{1,3}(?:,\d{3}){1,2})(?:\.(\d+))?$/.exec(text);
  if (!match) return refused('not_a_number', hint);
  const decimals = (match[2] ?? '').replace(/0+$/, '');
  const digits = minorUnitDigits(currency);
  if (decimals.length > digits)
    return refused(
      'too_many_decimals',
      digits === 0
        ? `${currency} amounts are whole, e.g. ${example}.`
        : `${currency} amounts have at most ${digits} decimals, e.g. ${formatFace(2550, currency)}.`,
    );
  const faceCents = Number(match[1]!.replace(/,/g, '')) * 100 + Number(decimals.padEnd(2, '0'));
  if (faceCents === 0) return refused('not_a_number', hint);
  return { ok: true, faceCents };
}

/** The ways an amount may name its currency: the symbol ("CA$"), the narrow symbol ("$"), the code. */
function currencyMarks(currency: string): string[] {
  const marks = new Set<string>();
  for (const currencyDisplay of ['symbol', 'narrowSymbol'] as const) {
    const parts = new Intl.NumberFormat('en-US', { style: 'currency', currency, currencyDisplay }).formatToParts(1);
    const symbol = parts.find((part) => part.type === 'currency')?.value;
    if (symbol) marks.add(symbol);
  }
  marks.add(currency);
  // Longest first: "CA$" before "$".
  return [...marks].sort((a, b) => b.length - a.length);
}

function formatter(currency: string, locale: string): Intl.NumberFormat {
  return new Intl.NumberFormat(locale, { style: 'currency', currency });
}
