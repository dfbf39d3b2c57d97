// Exact money for the Rewards API client.
//
// The API sends amounts as JSON numbers ({amount: 25, currency: "USD"}). A JSON number that a human
// typed as 25.10 arrives as the double nearest to 25.1, whose shortest round-trip text is "25.1": we go
// number -> shortest text -> integer minor units, so no float arithmetic ever touches money.
// Inside the client amounts are exact decimal strings ("25.10"); inside the app they are integer cents.

/** Amount of money as it crosses the client boundary: exact decimal string plus ISO 4217 currency. */
export interface Money {
  amount: string;
  currency: string;
}

const DECIMAL_PATTERN = /^([+-])?(\d+)(?:\.(\d*))?$/;

/** Text of an amount given as a decimal string or a JSON number, without float arithmetic. */
function decimalText(value: string | number): string {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError(`Not a finite amount: ${value}`);
    const text = String(value); // shortest text that round-trips to the same double
    if (/e/i.test(text)) throw new RangeError(`Amount out of range: ${text}`);
    return text;
  }
  const text = value.trim();
  if (!DECIMAL_PATTERN.test(text)) throw new RangeError(`Not a decimal amount: ${JSON.stringify(value)}`);
  return text;
}

/** True if the value is a finite decimal (string or number) usable as an amount. */
export function isDecimal(value: unknown): value is string | number {
  if (typeof value === 'number') return Number.isFinite(value) && !/e/i.test(String(value));
  return typeof value === 'string' && DECIMAL_PATTERN.test(value.trim());
}

/**
 * Canonical exact decimal string with at least two fraction digits: 25 -> "25.00", "7.5" -> "7.50",
 * 12.345 -> "12.345" (extra precision is kept, never rounded away), "-0.5" -> "-0.50".
 */
export function normalizeDecimal(value: string | number): string {
  const match = DECIMAL_PATTERN.exec(decimalText(value))!;
  const sign = match[1] === '-' ? '-' : '';
  const whole = match[2]!.replace(/^0+(?=\d)/, '');
  let fraction = (match[3] ?? '').replace(/0+$/, '');
  if (fraction.length < 2) fraction = fraction.padEnd(2, '0');
  const isZero = /^0+$/.test(whole) && /^0+$/.test(fraction);
  return `${isZero ? '' : sign}${whole}.${fraction}`;
}

export interface ToCentsOptions {
  /**
   * What to do with precision below one cent ("12.345"). `exact` (default) throws a RangeError;
   * `half-up` rounds half away from zero (12.345 -> 1235, -12.345 -> -1235).
   */
  rounding?: 'exact' | 'half-up';
}

/** Integer minor units (cents) of an amount: "25.10" -> 2510, 25.1 -> 2510, "-3" -> -300. */
export function toCents(amount: string | number, options: ToCentsOptions = {}): number {
  const match = DECIMAL_PATTERN.exec(decimalText(amount))!;
  const negative = match[1] === '-';
  const fraction = match[3] ?? '';
  const kept = fraction.slice(0, 2).padEnd(2, '0');
  const dropped = fraction.slice(2);
  let cents = BigInt(match[2]!) * 100n + BigInt(kept);
  if (/[1-9]/.test(dropped)) {
    if ((options.rounding ?? 'exact') === 'exact') {
      throw new RangeError(`Amount has precision below one cent: ${String(amount)}`);
    }
    if (dropped.charCodeAt(0) >= '5'.charCodeAt(0)) cents += 1n;
  }
  const result = Number(negative ? -cents : cents);
  if (!Number.isSafeInteger(result)) throw new RangeError(`Amount out of range: ${String(amount)}`);
  return result === 0 ? 0 : result; // never -0
}

/** Exact decimal string of integer cents: 2510 -> "25.10", -5 -> "-0.05". */
export function fromCents(cents: number): string {
  if (!Number.isSafeInteger(cents)) throw new RangeError(`Cents must be a safe integer: ${cents}`);
  const negative = cents < 0;
  const digits = String(Math.abs(cents)).padStart(3, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

/** A Money value from integer cents. */
export function moneyFromCents(cents: number, currency = 'USD'): Money {
  return { amount: fromCents(cents), currency };
}

/**
 * The JSON number the API expects for an amount given as decimal string or number. Exact for every
 * amount with at most 15 significant digits (any realistic amount), since the shortest text of the
 * resulting double is the same decimal.
 */
export function toApiNumber(amount: string | number): number {
  return Number(normalizeDecimal(amount));
}
