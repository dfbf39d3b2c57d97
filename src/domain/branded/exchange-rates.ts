// The exchange rates a workspace learned from its own branded orders (db: learned_exchange_rates), and
// the USD estimate of a card built on them (usd-cost.ts). A rate is learned from an order's `totalCost`
// (USD charged) and its face total; per workspace and currency the most recent order wins, so an
// order checked late never replaces a newer rate. USD is never stored: it costs its face value.
import { and, eq, sql } from 'drizzle-orm';

import type { Database } from '../../db/client.js';
import { learnedExchangeRates } from '../../db/schema/index.js';
import { type OrderSummary, toCents } from '../../rewards/index.js';
import type { Workspace } from '../common/workspace.js';
import { estimateFromRate, type LearnedRate, usable, type UsdEstimate } from './usd-cost.js';

/**
 * Records what a branded order of `currency` cost: `costCents` USD for `faceCents` of the currency,
 * charged at `learnedAt`. Returns whether it became the workspace's rate (false: USD, an unusable
 * pair, or a newer rate already known).
 */
export async function learnRate(db: Database, ws: Workspace, rate: LearnedRate): Promise<boolean> {
  if (rate.currency === 'USD' || !usable(rate)) return false;
  const t = learnedExchangeRates;
  const values = {
    faceCents: rate.faceCents,
    costCents: rate.costCents,
    orderId: rate.orderId ?? null,
    learnedAt: rate.learnedAt,
  };
  const rows = await db
    .insert(t)
    .values({ teamId: ws.teamId, enterpriseId: ws.enterpriseId ?? null, currency: rate.currency, ...values })
    .onConflictDoUpdate({
      target: [t.teamId, t.currency],
      set: { ...values, updatedAt: sql`now()` },
      setWhere: sql`${t.learnedAt} <= excluded.learned_at`,
    })
    .returning({ id: t.id });
  return rows.length > 0;
}

/**
 * Learns from a placed branded order: its `totalCost` (USD) for the face total Kudos ordered, in
 * cents of `currency`. An order whose cost is missing or not in USD teaches nothing (false).
 */
export async function learnRateFromOrder(
  db: Database,
  ws: Workspace,
  ordered: { currency: string; faceCents: number },
  order: Pick<OrderSummary, 'orderId'> & Partial<Pick<OrderSummary, 'totalCost' | 'createdAt'>>,
  now: Date = new Date(),
): Promise<boolean> {
  const cost = order.totalCost;
  if (!cost || cost.currency !== 'USD') return false;
  let costCents: number;
  try {
    costCents = toCents(cost.amount);
  } catch {
    return false;
  }
  return learnRate(db, ws, {
    currency: ordered.currency,
    faceCents: ordered.faceCents,
    costCents,
    learnedAt: order.createdAt ?? now,
    orderId: order.orderId,
  });
}

/** The workspace's learned rate for `currency`, if any. */
export async function learnedRate(db: Database, ws: Workspace, currency: string): Promise<LearnedRate | undefined> {
  const t = learnedExchangeRates;
  const [row] = await db
    .select({ faceCents: t.faceCents, costCents: t.costCents, learnedAt: t.learnedAt, orderId: t.orderId })
    .from(t)
    .where(and(eq(t.teamId, ws.teamId), eq(t.currency, currency)));
  return row ? { currency, ...row } : undefined;
}

/**
 * The USD cost of a card of `faceCents` (cents of `currency`) in workspace `ws`: exact for USD, from the
 * learned rate with its age and the judged cost (safety margin) otherwise, or `unknown` when no rate
 * is known (the caller then says plainly that the exact cost is known after ordering).
 */
export async function estimateUsdCents(
  db: Database,
  ws: Workspace,
  currency: string,
  faceCents: number,
  now: Date = new Date(),
): Promise<UsdEstimate> {
  if (currency === 'USD') return estimateFromRate(currency, faceCents, undefined, now);
  return estimateFromRate(currency, faceCents, await learnedRate(db, ws, currency), now);
}
