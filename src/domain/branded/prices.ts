// A branded product's price rules (spec 2.11 and 4.3): a FIXED product offers its denominations, a
// RANGE product any amount from min to max on its price step. Pure: the same rules the Rewards API
// applies, checked before anything is recorded, with a reason people can act on.
import { type BrandedProduct, toCents } from '../../rewards/index.js';
import { type Refused, refused } from '../common/refusal.js';
import { formatFace, formatFaceList, isCurrencyCode, minorUnitCents } from './currency.js';

/** A branded product's prices, in cents (hundredths) of its own currency. */
export type BrandedPrices =
  | { productId: string; currency: string; priceType: 'FIXED'; denominationsCents: readonly number[] }
  | {
      productId: string;
      currency: string;
      priceType: 'RANGE';
      minCents: number;
      maxCents: number;
      /** The price step; the currency's smallest unit when the catalog gives none. */
      stepCents: number;
    };

export type BrandedAmountCheck =
  | { ok: true; faceCents: number }
  | Refused<'not_an_amount' | 'not_offered' | 'amount_too_small' | 'amount_too_large' | 'off_step'>;

/**
 * The prices of a catalog product, or undefined when they cannot be trusted to price a card: no or a
 * malformed currency code, an unknown price type, no denominations, a range without [min, max] or with
 * min above max, a step that is not positive, an amount finer than the currency's smallest unit.
 * Such a product is not offered rather than guessed at (money is never sent on a guess).
 */
export function brandedPricesOf(product: BrandedProduct): BrandedPrices | undefined {
  const currency = product.currencyCode;
  if (currency === undefined || !isCurrencyCode(currency)) return undefined;
  const unit = minorUnitCents(currency);
  const cents = (amount: string) => {
    try {
      const value = toCents(amount);
      return value > 0 && value % unit === 0 ? value : undefined;
    } catch {
      return undefined;
    }
  };
  const prices = product.prices.map(cents);
  if (prices.length === 0 || prices.some((p) => p === undefined)) return undefined;
  const known = prices as number[];
  if (product.priceType === 'FIXED') {
    return {
      productId: product.productId,
      currency,
      priceType: 'FIXED',
      denominationsCents: [...new Set(known)].sort((a, b) => a - b),
    };
  }
  if (product.priceType !== 'RANGE' || known.length !== 2) return undefined;
  const [minCents, maxCents] = known as [number, number];
  const step = product.priceStep === null || product.priceStep === undefined ? unit : cents(product.priceStep);
  if (step === undefined || minCents > maxCents) return undefined;
  return { productId: product.productId, currency, priceType: 'RANGE', minCents, maxCents, stepCents: step };
}

/** Every amount a FIXED product offers; for a RANGE product its min and max. Ascending cents. */
export function offeredAmountsCents(prices: BrandedPrices): number[] {
  return prices.priceType === 'FIXED' ? [...prices.denominationsCents] : [prices.minCents, prices.maxCents];
}

/** The rule in words: "£10, £20, or £50" or "between £5 and £500, in steps of £5". */
export function describePrices(prices: BrandedPrices): string {
  if (prices.priceType === 'FIXED') return formatFaceList(prices.denominationsCents, prices.currency);
  const f = (c: number) => formatFace(c, prices.currency);
  const range = `between ${f(prices.minCents)} and ${f(prices.maxCents)}`;
  return prices.stepCents === minorUnitCents(prices.currency) ? range : `${range}, in steps of ${f(prices.stepCents)}`;
}

/**
 * Whether `faceCents` (cents of the product's currency) is a price the product offers, with a plain
 * reason when it is not: "£25 is not offered; pick £10, £20, or £50." or "£7 is not on the price
 * step: pick £5 or £10 (between £5 and £500, in steps of £5)."
 */
export function checkBrandedAmount(prices: BrandedPrices, faceCents: number): BrandedAmountCheck {
  const f = (c: number) => formatFace(c, prices.currency);
  if (!Number.isSafeInteger(faceCents) || faceCents <= 0)
    return refused(
      'not_an_amount',
      `Enter an amount in ${prices.currency}, e.g. ${f(offeredAmountsCents(prices)[0]!)}.`,
    );
  if (prices.priceType === 'FIXED') {
    if (prices.denominationsCents.includes(faceCents)) return { ok: true, faceCents };
    return refused('not_offered', `${f(faceCents)} is not offered; pick ${describePrices(prices)}.`);
  }
  const rule = describePrices(prices);
  if (faceCents < prices.minCents)
    return refused('amount_too_small', `${f(faceCents)} is below the minimum: pick an amount ${rule}.`);
  if (faceCents > prices.maxCents)
    return refused('amount_too_large', `${f(faceCents)} is above the maximum: pick an amount ${rule}.`);
  const offset = (faceCents - prices.minCents) % prices.stepCents;
  if (offset === 0) return { ok: true, faceCents };
  const below = faceCents - offset;
  const above = below + prices.stepCents;
  const nearest = above <= prices.maxCents ? `${f(below)} or ${f(above)}` : f(below);
  return refused('off_step', `${f(faceCents)} is not on the price step: pick ${nearest} (${rule}).`);
}
