// The settle step: a send's outcome (a part, placed, failed, a retry, given back) written fenced on its
// claim, so that a worker whose lease was lost writes nothing; the placed orders' checks come with it.
import type { Logger } from '../../config/logger.js';
import type { KudosRow } from '../../db/schema/index.js';
import { toCents } from '../../rewards/index.js';
import { learnRateFromOrder } from '../branded/exchange-rates.js';
import { orderIdsOf, partCount, partsOf, RECIPIENTS_PER_ORDER } from './kudos-parts.js';
import {
  type ClaimFence,
  markPartPlaced,
  markPlaced,
  releaseClaim,
  scheduleRetry,
  updateClaimed,
} from './kudos-store.js';
import { scheduleKudosCheck } from './order-check-schedule.js';
import type { WorkerDeps } from './worker-deps.js';

/** One send under one claim: what placing and settling it share. */
export interface SendPass {
  readonly deps: WorkerDeps;
  readonly workerId: string;
  readonly leaseMs: number;
  /** Order calls failed without a refusal before the send is given up, and the backoff before retry n. */
  readonly maxAttempts: number;
  readonly backoffMs: (attempt: number) => number;
  /** Aborted when the lease is lost, or when the worker stops past its grace. */
  readonly signal: AbortSignal;
  /** True once the lease was lost (keepClaim in claim-sends.ts): someone else holds the row. */
  readonly leaseLost: () => boolean;
  readonly log: Logger;
}

/** An order as the Rewards API answered it (created now, or found by its key). */
export interface PlacedOrder {
  orderId: string;
  status: string;
  totalCost?: { amount: string; currency: string } | undefined;
}

/**
 * A part's order exists: recorded at once (a refusal of a later part, or a crash, never loses a paid
 * part), the lease renewed, and the row goes on `pending` to the next part under the same claim.
 */
export async function recordPart(pass: SendPass, row: KudosRow, fence: ClaimFence, index: number, order: PlacedOrder) {
  const cost = order.totalCost;
  await learnFromBrandedOrder(pass, row, partsOf(row.recipients)[index]?.length ?? 0, order);
  const recorded = await markPartPlaced(pass.deps.db, row.id, fence, {
    index,
    orderId: order.orderId,
    orderStatus: order.status,
    costCents: cost
      ? toCents(cost.amount, { rounding: 'half-up' })
      : Math.min(RECIPIENTS_PER_ORDER, row.recipientCount - index * RECIPIENTS_PER_ORDER) * row.amountCents,
    costCurrency: cost?.currency ?? row.currency,
    leaseMs: pass.leaseMs,
  });
  if (!recorded) return undefined;
  // Each part's completion check is scheduled with the others once the send is settled (onOrderPlaced).
  return { row: { ...recorded, recipients: row.recipients }, fence: { ...fence, status: 'pending' as const } };
}

export async function recordPlaced(
  pass: SendPass,
  row: KudosRow,
  fence: ClaimFence,
  order: PlacedOrder,
): Promise<KudosRow | undefined> {
  const { deps } = pass;
  const cost = order.totalCost;
  // A send of several parts: its cost is the sum recorded part by part (recordPart).
  const several = partCount(row) > 1;
  if (!several) await learnFromBrandedOrder(pass, row, row.recipientCount, order);
  // Every order of the send (all its parts, the send being settled now) gets its completion check in
  // the statement that records it: placed and watched, or neither (a lost claim).
  const placed = await markPlaced(
    deps.db,
    row.id,
    fence,
    {
      recipients: row.recipients,
      status: row.scheduledAt ? 'scheduled' : 'placed',
      orderId: order.orderId,
      orderStatus: order.status,
      costCents: several
        ? (row.costCents ?? row.totalCents)
        : cost
          ? toCents(cost.amount, { rounding: 'half-up' })
          : row.totalCents,
      costCurrency: several ? (row.costCurrency ?? row.currency) : (cost?.currency ?? row.currency),
      orderIds: several ? orderIdsOf(row) : [order.orderId],
    },
    deps.firstCheckDelayMs === undefined ? {} : { checks: { firstDelayMs: deps.firstCheckDelayMs } },
  );
  if (!placed) return fencedOut(pass, undefined);
  await deps
    .onOrderPlaced?.(placed)
    .catch((error: unknown) => pass.log.warn('the placed-order hook failed', { error }));
  return placed;
}

export async function fail(
  pass: SendPass,
  row: KudosRow,
  fence: ClaimFence,
  code: string,
  message: string,
): Promise<KudosRow | undefined> {
  const { deps } = pass;
  // The lease stays until the sender is told (markNotified), so that no one else tells them too.
  // A send with parts already created is partial, never failed: those parts are paid and delivered.
  const status = row.partsPlaced > 0 ? 'partial' : 'failed';
  const settled = fencedOut(
    pass,
    await updateClaimed(deps.db, row.id, fence, { status, errorCode: code, errorMessage: message }),
  );
  // The parts created are watched to completion like any order (a rare path: its own statement).
  if (settled?.status === 'partial') {
    const firstDelayMs = deps.firstCheckDelayMs;
    await (firstDelayMs === undefined ? Promise.resolve() : scheduleKudosCheck(deps.db, settled, firstDelayMs))
      .then(() => deps.onOrderPlaced?.(settled))
      .catch((error: unknown) => pass.log.warn('scheduling the completion checks failed', { error }));
  }
  return settled;
}

/** The send is looked at again after `delayMs` (the same key), `unknown` while its last call's outcome is. */
export async function retryLater(
  pass: SendPass,
  row: KudosRow,
  fence: ClaimFence,
  delayMs: number,
  error: { code: string; message: string },
  status?: 'pending' | 'unknown',
): Promise<KudosRow | undefined> {
  return fencedOut(pass, await scheduleRetry(pass.deps.db, row.id, fence, delayMs, error, status));
}

export function fencedOut(pass: SendPass, row: KudosRow | undefined): KudosRow | undefined {
  if (!row) pass.log.warn("the claim was lost before the outcome was written; the row's new holder finishes it");
  return row;
}

/** The call was cut short: a lost lease writes nothing; a stop gives the row back to be resumed with the same key. */
export async function interrupted(pass: SendPass, row: KudosRow): Promise<KudosRow | undefined> {
  if (pass.leaseLost()) return undefined; // someone else holds the row: nothing to write
  pass.log.warn('placing interrupted by shutdown; the row will be resumed with the same key');
  await releaseClaim(pass.deps.db, row.id, pass.workerId);
  return { ...row, status: 'pending' };
}

/**
 * What a branded order (placed now, or found by its key) was charged teaches the workspace's rate of
 * its currency, before the send's next part is judged on it. A failure only costs the lesson.
 */
async function learnFromBrandedOrder(pass: SendPass, row: KudosRow, people: number, order: PlacedOrder) {
  if (row.cardType !== 'BRANDED_CARD' || !row.faceCurrency || !row.faceCents || people === 0) return;
  const face = { currency: row.faceCurrency, faceCents: row.faceCents * people };
  await learnRateFromOrder(pass.deps.db, row, face, order).catch((error: unknown) =>
    pass.log.warn('learning the exchange rate from an order failed', { error }),
  );
}
