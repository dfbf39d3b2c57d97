// The USD cost of a branded card before it is ordered. The catalog gives no exchange rate and the API
// charges the face total converted at its current rate, rounded half up to the cent once per order
// (spec 4.3). So the cost is estimated from a rate learned from an earlier order (USD charged for a
// face total), and every rule that guards money (approval threshold, budget, allowance, spending limit)
// judges the estimate plus a safety margin, rounded up: the judged cost is at least the actual cost as
// long as the rate has not risen by more than the margin since it was learned. USD is exact.
// Pure; the stored rates are exchange-rates.ts. docs/money.md, "Branded cards and their USD cost".

/** The safety margin on a learned rate, in percent (docs/money.md). */
export const SAFETY_MARGIN_PERCENT = 5;

/** A rate learned from an order: `costCents` USD were charged for `faceCents` of `currency`. */
export interface LearnedRate {
  currency: string;
  faceCents: number;
  costCents: number;
  learnedAt: Date;
  orderId?: string | null | undefined;
}

/** What a card of `faceCents` will cost in USD, as far as Kudos can tell before ordering. */
export type UsdEstimate =
  /** A USD product: the cost is the face value. */
  | { basis: 'exact'; estimateCents: number; judgedCents: number }
  /**
   * A non-USD product with a learned rate: `estimateCents` is the cost at that rate (shown), and
   * `judgedCents` the cost with the safety margin, rounded up (what thresholds and budgets judge).
   */
  | {
      basis: 'learned';
      estimateCents: number;
      judgedCents: number;
      learnedAt: Date;
      /** How old the rate is, in milliseconds, at the time of the estimate. */
      rateAgeMs: number;
      /** USD per unit of the currency, as a decimal string for people ("1.27"). */
      usdPerUnit: string;
    }
  /** No rate known for the currency: say plainly that the exact cost is known after ordering. */
  | { basis: 'unknown' };

/** The cost at `rate`, rounded half up to the cent as the API rounds it: what the order would be charged. */
export function costAtRate(faceCents: number, rate: Pick<LearnedRate, 'faceCents' | 'costCents'>): number {
  const numerator = BigInt(faceCents) * BigInt(rate.costCents);
  const denominator = BigInt(rate.faceCents);
  return Number((numerator * 2n + denominator) / (denominator * 2n));
}

/** The cost at `rate` plus the safety margin, rounded up to the cent: never below `costAtRate`. */
export function judgedAtRate(faceCents: number, rate: Pick<LearnedRate, 'faceCents' | 'costCents'>): number {
  const numerator = BigInt(faceCents) * BigInt(rate.costCents) * BigInt(100 + SAFETY_MARGIN_PERCENT);
  const denominator = BigInt(rate.faceCents) * 100n;
  return Number((numerator + denominator - 1n) / denominator);
}

/** The estimate of a card's USD cost from the currency's learned rate (undefined: none known). */
export function estimateFromRate(
  currency: string,
  faceCents: number,
  rate: LearnedRate | undefined,
  now: Date,
): UsdEstimate {
  if (!Number.isSafeInteger(faceCents) || faceCents < 0) throw new RangeError(`Not a face amount: ${faceCents}`);
  if (currency === 'USD') return { basis: 'exact', estimateCents: faceCents, judgedCents: faceCents };
  if (!rate || rate.currency !== currency || !usable(rate)) return { basis: 'unknown' };
  return {
    basis: 'learned',
    estimateCents: costAtRate(faceCents, rate),
    judgedCents: judgedAtRate(faceCents, rate),
    learnedAt: rate.learnedAt,
    rateAgeMs: Math.max(0, now.getTime() - rate.learnedAt.getTime()),
    usdPerUnit: usdPerUnit(rate),
  };
}

/** The learned rate as USD per unit, six decimals at most, trailing zeros dropped ("1.27", "0.0067"). */
export function usdPerUnit(rate: Pick<LearnedRate, 'faceCents' | 'costCents'>): string {
  const micros = (BigInt(rate.costCents) * 1_000_000n * 2n + BigInt(rate.faceCents)) / (BigInt(rate.faceCents) * 2n);
  const whole = micros / 1_000_000n;
  const fraction = String(micros % 1_000_000n)
    .padStart(6, '0')
    .replace(/0+$/, '');
  return fraction === '' ? String(whole) : `${whole}.${fraction}`;
}

/** A rate worth learning from or estimating with: positive whole cents on both sides. */
export function usable(rate: Pick<LearnedRate, 'faceCents' | 'costCents'>): boolean {
  return (
    Number.isSafeInteger(rate.faceCents) &&
    Number.isSafeInteger(rate.costCents) &&
    rate.faceCents > 0 &&
    rate.costCents > 0
  );
}
