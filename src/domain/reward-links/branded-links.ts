// Reward links of a branded product (`/kudos links N AMOUNT brand NAME`): the brand found in the
// workspace's brand catalog, the amount per link one of the product's prices in its own currency, and
// the USD cost judged before anything is recorded (branded-card.ts). The request's amount is the
// judged USD cost of one link (what approvals, budgets and limits see); with no learned rate it is 0
// and the request waits for an approver, told that the exact cost is known after charging. Before a
// request's first part is created the brand is read again from the API (it may have been removed, or
// its prices changed, while the request waited for approval) and the learned rate is checked against
// what was judged (it may have risen beyond the safety margin).
import type { Database } from '../../db/client.js';
import type { RewardLinkRequestRow } from '../../db/schema/index.js';
import { type OrderSummary, type RewardsClient, toCents } from '../../rewards/index.js';
import type { BrandCatalog } from '../branded/brand-catalog.js';
import { createBrandCatalog } from '../branded/brand-catalog.js';
import { checkBrandedCard, type CheckedBrandedCard, unknownCostReason } from '../branded/branded-card.js';
import { formatFace } from '../branded/currency.js';
import { learnedRate } from '../branded/exchange-rates.js';
import { checkBrandedAmount } from '../branded/prices.js';
import { costAtRate } from '../branded/usd-cost.js';
import { formatUsd } from '../common/money.js';
import { type Refused, refused } from '../common/refusal.js';
import type { Workspace } from '../common/workspace.js';

export type BrandedLinksCheck = { ok: true; card: CheckedBrandedCard; waitReason?: string } | Refused<'bad_brand'>;

/**
 * The brand named by `words` (its product id, else the first brand the catalog's search finds) and an
 * amount per link as typed in its currency ("20", "£20"), checked against the product's prices.
 */
export async function checkBrandedLinks(
  deps: { db: Database; brands: BrandCatalog },
  ws: Workspace,
  pick: { words: string; amount: string },
  now?: Date,
): Promise<BrandedLinksCheck> {
  const words = pick.words.trim();
  if (words === '') return refused('bad_brand', 'Name the brand after `brand`, e.g. `brand Tesco`.');
  const found = (await deps.brands.search({ query: words })).brands;
  const brand =
    found.find((b) => b.productId.toLowerCase() === words.toLowerCase()) ??
    found[0] ??
    // A product id the search does not find by name ("BR-TESCO").
    (/^\S+$/.test(words) ? await deps.brands.get(words).catch(() => undefined) : undefined);
  if (!brand) return refused('bad_brand', `No brand in the Rewards catalog matches "${words}".`);
  const checked = await checkBrandedCard(
    deps,
    ws,
    { productId: brand.productId, amount: pick.amount },
    now ? { now } : {},
  );
  if (!checked.ok) return refused('bad_brand', checked.message);
  return {
    ok: true,
    card: checked.card,
    ...(checked.card.basis === 'unknown' ? { waitReason: unknownCostReason(brand.currency) } : {}),
  };
}

/** The face value of one link as people read it: "£20" (a branded link) or "$25" (a choice link). */
export function linkFace(
  request: Pick<RewardLinkRequestRow, 'cardType' | 'faceCurrency' | 'faceCents' | 'amountCents'>,
) {
  return request.cardType === 'BRANDED_CARD' && request.faceCurrency && request.faceCents !== null
    ? formatFace(request.faceCents, request.faceCurrency)
    : formatUsd(request.amountCents);
}

/**
 * Why a branded request's first part must not be created now, in plain words (nothing was charged);
 * undefined when it may go. The brand is read from the API now: removed, no longer offering the amount
 * or in another currency, the request fails. With a learned rate, a rate risen beyond the safety
 * margin since the request was judged fails it too (it would cost more than was approved).
 */
export async function brandedLinksBlocked(
  db: Database,
  rewards: RewardsClient,
  row: RewardLinkRequestRow,
): Promise<{ code: 'BRAND_UNAVAILABLE' | 'RATE_MOVED'; reason: string } | undefined> {
  const unavailable = (reason: string) => ({ code: 'BRAND_UNAVAILABLE' as const, reason });
  if (row.cardType !== 'BRANDED_CARD' || !row.faceCurrency || row.faceCents === null) return undefined;
  const brand = await createBrandCatalog(rewards).readNow(row.productId, { timeoutMs: 5000 });
  if (!brand)
    return unavailable(
      `${row.designName} is no longer in the Rewards catalog, so no links were created and nothing was charged. Ask for links of another brand.`,
    );
  const face = formatFace(row.faceCents, row.faceCurrency);
  if (brand.currency !== row.faceCurrency || !checkBrandedAmount(brand.prices, row.faceCents).ok)
    return unavailable(
      `${row.designName} no longer offers ${face} links, so none were created and nothing was charged. Ask again with an amount it offers.`,
    );
  const moved = await brandedRateMoved(db, row, row.quantity);
  return moved ? { code: 'RATE_MOVED', reason: moved } : undefined;
}

/**
 * A request judged on a learned rate (amount > 0, not USD): whether the rate learned since (from its
 * own created parts or another order) says that what it charged plus its `linksLeft` would now cost
 * more than was judged (and approved); the reason in plain words, or undefined when it may go on.
 */
export async function brandedRateMoved(
  db: Database,
  row: RewardLinkRequestRow,
  linksLeft: number,
): Promise<string | undefined> {
  if (row.cardType !== 'BRANDED_CARD' || !row.faceCurrency || row.faceCents === null) return undefined;
  if (row.faceCurrency === 'USD' || row.amountCents === 0) return undefined;
  const rate = await learnedRate(db, row, row.faceCurrency);
  if (!rate) return undefined;
  const estimate = (row.partsCreated > 0 ? (row.costCents ?? 0) : 0) + costAtRate(row.faceCents * linksLeft, rate);
  const judged = row.amountCents * row.quantity;
  if (estimate <= judged) return undefined;
  const now = `the ${row.faceCurrency} rate rose by more than the safety margin since the links were asked for: they would cost about ${formatUsd(estimate)} in USD, not ${formatUsd(judged)}.`;
  return row.partsCreated === 0 ? `${now} Nothing was charged; ask again to judge them at today's rate.` : now;
}

/** What an order was charged, in USD cents; undefined when the answer does not say (or not in USD). */
export function chargedCents(order: Pick<OrderSummary, 'totalCost'>): number | undefined {
  const cost = order.totalCost;
  if (!cost || cost.currency !== 'USD') return undefined;
  try {
    return toCents(cost.amount, { rounding: 'half-up' });
  } catch {
    return undefined;
  }
}
