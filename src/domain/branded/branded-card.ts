// A branded card picked for a send (the form, the one-line command, an automation, the workflow step,
// reward links): the brand still in the catalog, the amount one the product offers in its own
// currency, and the USD cost judged before anything is recorded (usd-cost.ts). The judged cost is what
// approvals, budgets, allowances and spending limits see; with no learned rate it is unknown, and the
// send waits for an approver who is told so (never a send that passes a threshold on a guess).
import type { Database } from '../../db/client.js';
import type { UsdBasis } from '../../db/schema/index.js';
import { type Refused, refused } from '../common/refusal.js';
import type { Workspace } from '../common/workspace.js';
import type { Brand, BrandCatalog } from './brand-catalog.js';
import { parseFaceAmount } from './currency.js';
import { estimateUsdCents } from './exchange-rates.js';
import { checkBrandedAmount } from './prices.js';
import type { UsdEstimate } from './usd-cost.js';

/** A branded card checked for a send of `count` cards. */
export interface CheckedBrandedCard {
  brand: Brand;
  /** Per card, in cents of `brand.currency`. */
  faceCents: number;
  /** The estimate of one card's USD cost. */
  estimate: UsdEstimate;
  basis: UsdBasis;
  /** One card's judged USD cost in cents (the estimate plus the safety margin, rounded up); 0 when unknown. */
  judgedCents: number;
}

export type BrandedCardCheck =
  { ok: true; card: CheckedBrandedCard } | (Refused<'brand_gone' | 'bad_amount'> & { field: 'design' | 'amount' });

export const BRAND_GONE = 'That brand is no longer in the Rewards catalog; pick another, or a choice card.';

/**
 * Checks a branded pick: `amount` as typed in the brand's currency ("25", "£25") or as cents of it.
 * `fresh` reads the brand from the API now rather than from a recent read (a send that waited for
 * approval, or a stored automation: the product may have been removed since).
 */
export async function checkBrandedCard(
  deps: { db: Database; brands: BrandCatalog },
  ws: Workspace,
  pick: { productId: string; amount: string | { faceCents: number } },
  opts: { fresh?: boolean; now?: Date } = {},
): Promise<BrandedCardCheck> {
  const brand = opts.fresh
    ? await deps.brands.readNow(pick.productId, { timeoutMs: 1200 })
    : await deps.brands.get(pick.productId);
  if (!brand) return { ...refused('brand_gone', BRAND_GONE), field: 'design' };
  let faceCents: number;
  if (typeof pick.amount === 'string') {
    const parsed = parseFaceAmount(pick.amount, brand.currency);
    if (!parsed.ok) return { ...refused('bad_amount', parsed.message), field: 'amount' };
    faceCents = parsed.faceCents;
  } else faceCents = pick.amount.faceCents;
  const offered = checkBrandedAmount(brand.prices, faceCents);
  if (!offered.ok) return { ...refused('bad_amount', offered.message), field: 'amount' };
  const estimate = await estimateUsdCents(deps.db, ws, brand.currency, faceCents, opts.now);
  return {
    ok: true,
    card: {
      brand,
      faceCents,
      estimate,
      basis: estimate.basis,
      judgedCents: estimate.basis === 'unknown' ? 0 : estimate.judgedCents,
    },
  };
}

/** Why a send of a card whose USD cost is unknown waits for an approver, in plain words. */
export function unknownCostReason(currency: string): string {
  return `Kudos has not yet learned what ${currency} cards cost in USD, so the exact cost is known only after ordering.`;
}
