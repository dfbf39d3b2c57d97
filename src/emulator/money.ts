/**
 * Money is integer cents inside the emulator. It leaves as a JSON number of units
 * (2500 -> 25, 2550 -> 25.5, 1099 -> 10.99) and, where the spec says "decimal string"
 * (webhook totalAmount), as a string with two decimals ("25.00").
 */
export interface MoneyJson {
  amount: number;
  currency: string;
}

/** Cents from a JSON number; undefined if it has more than two decimals or is not finite. */
export function centsFromNumber(value: number): number | undefined {
  if (!Number.isFinite(value)) return undefined;
  const cents = Math.round(value * 100);
  if (Math.abs(value * 100 - cents) > 1e-6) return undefined;
  if (!Number.isSafeInteger(cents)) return undefined;
  return cents;
}

export function numberFromCents(cents: number): number {
  // Division of an integer by 100 yields the nearest double to the decimal, which JSON prints exactly.
  return cents / 100;
}

export function money(cents: number, currency = 'USD'): MoneyJson {
  return { amount: numberFromCents(cents), currency };
}

export function decimalString(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** Exchange rates are integer micro-units (USD per 1 unit of the currency x 1e6). */
export const RATE_SCALE = 1_000_000;

/** Converts cents of a currency to USD cents at `rateMicros`, rounding half up. */
export function toUsdCents(cents: number, rateMicros: number): number {
  const product = BigInt(cents) * BigInt(rateMicros);
  const scale = BigInt(RATE_SCALE);
  const q = product / scale;
  const r = product % scale;
  return Number(r * 2n >= scale ? q + 1n : q);
}
