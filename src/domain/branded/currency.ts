// Amounts in a branded product's own currency. Inside the app a face value is integer cents
// (hundredths) of its currency, as the Rewards client reads every amount ("25.10" -> 2510): for a
// currency without decimals (JPY) a valid amount is a whole number of hundreds (¥1,000 = 100000).
// How many decimals a currency has comes from Intl (ISO 4217's minor units), never a hand list.
import { centsToDecimal } from '../common/money.js';

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

function formatter(currency: string, locale: string): Intl.NumberFormat {
  return new Intl.NumberFormat(locale, { style: 'currency', currency });
}
