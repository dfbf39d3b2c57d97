// Cancelling a scheduled send from Slack: only its sender or an admin; the API enforces the
// 10-minute window (ORDER_NOT_CANCELABLE), and we record who cancelled.
//
// The intent is recorded before the API call (cancel_requested_by/at). When the API accepted the
// cancel but recording it failed (the database was unreachable, the process died), the kudos would
// stay `scheduled` in the sender's spend and list: the write is retried at once, and the background
// sweep (reconcileCancelIntents, every 30 s) looks up the order of any kudos with a recorded intent
// and records the cancel, by whom it was asked, as soon as the order says CANCELED.
import { and, eq, isNotNull, lt, sql } from 'drizzle-orm';

import type { Logger } from '../../config/logger.js';
import type { Database } from '../../db/client.js';
import { kudos, type KudosRow } from '../../db/schema/index.js';
import { RewardsApiError, type RewardsClient } from '../../rewards/index.js';
import type { RewardsAccounts } from '../accounts/rewards-accounts.js';
import { describeForUser } from '../accounts/rewards-failures.js';
import { decidedByText, type NamingText } from '../common/ports.js';
import { type Refused, refused } from '../common/refusal.js';
import { MIN_SCHEDULE_LEAD_MS } from '../common/zoned-time.js';
import { orderIdsOf } from './kudos-parts.js';
import { getKudosOf, markCanceled } from './kudos-store.js';

/** A refusal carries the send when there is one, so that the list can grey out its Cancel. */
export type CancelOutcome =
  | { ok: true; row: KudosRow }
  | (Refused<
      'not_found' | 'forbidden' | 'already_canceled' | 'not_scheduled' | 'too_late' | 'database_error' | 'api_error',
      NamingText
    > & { row?: KudosRow });

/** Cancellable as far as our clock knows; the API has the final word. */
export function isCancellable(row: Pick<KudosRow, 'status' | 'scheduledAt'>, now: Date): boolean {
  return (
    row.status === 'scheduled' &&
    row.scheduledAt !== null &&
    row.scheduledAt.getTime() - now.getTime() >= MIN_SCHEDULE_LEAD_MS
  );
}

export async function cancelScheduledSend(
  deps: { db: Database; rewards: RewardsAccounts; logger: Logger },
  input: { kudosId: string; teamId: string; actorUserId: string; actorIsAdmin: boolean; now: Date },
): Promise<CancelOutcome> {
  // Read within the clicker's workspace: another workspace's send is one that does not exist.
  const row = await getKudosOf(deps.db, { teamId: input.teamId }, input.kudosId);
  if (!row) return refused('not_found', 'That send no longer exists.');
  if (row.senderUserId !== input.actorUserId && !input.actorIsAdmin) {
    return { ...refused('forbidden', 'Only the sender or an admin can cancel this send.'), row };
  }
  if (row.status === 'canceled')
    return { ...refused('already_canceled', decidedByText('Already cancelled', row.canceledBy, '.')), row };
  if (row.status !== 'scheduled' || !row.orderId)
    return { ...refused('not_scheduled', 'This send is not scheduled any more.'), row };
  if (!isCancellable(row, input.now)) {
    return { ...refused('too_late', 'Too late to cancel: it goes out in less than 10 minutes.'), row };
  }
  const log = deps.logger.child({ kudosId: row.id, orderId: row.orderId });
  const orderId = row.orderId;
  // The intent first: if this write fails, nothing was asked of the API.
  try {
    await deps.db
      .update(kudos)
      .set({ cancelRequestedBy: input.actorUserId, cancelRequestedAt: sql`now()`, updatedAt: sql`now()` })
      .where(and(eq(kudos.id, row.id), eq(kudos.status, 'scheduled')));
  } catch (error) {
    log.warn('recording the cancel intent failed; not cancelling', { error });
    return {
      ...refused('database_error', 'Could not cancel right now (our database did not answer). Try again in a minute.'),
      row,
    };
  }
  let canceled: Awaited<ReturnType<RewardsClient['orders']['cancel']>> | undefined;
  // A send of several orders: every part is cancelled, in order (an order already cancelled, by an
  // earlier try whose answer was lost, answers as cancelled: the client looks it up).
  const orderIds = orderIdsOf(row);
  let done = 0;
  try {
    // The row's own workspace's account: another workspace's order id is never sent to this one's.
    const rewards = await deps.rewards.for(row);
    for (const id of orderIds) {
      const result = await rewards.orders.cancel(id);
      canceled ??= result;
      done++;
    }
  } catch (error) {
    log.warn('cancel refused', { error, partsCanceled: done, parts: orderIds.length });
    const tooLate = (error as { code?: string }).code === 'ORDER_NOT_CANCELABLE';
    // A refusal is final: the intent goes. A lost answer keeps it, and the sweep looks the order up.
    // Some parts already cancelled: the intent stays, so that the sweep finishes the rest.
    if (
      done === 0 &&
      error instanceof RewardsApiError &&
      error.status >= 400 &&
      error.status < 500 &&
      error.status !== 429
    )
      await clearCancelIntent(deps.db, row.id).catch(() => {});
    const message = describeForUser(error, 'cancel');
    return {
      ...refused(
        tooLate && done === 0 ? 'too_late' : 'api_error',
        done > 0
          ? `${message} ${done} of its ${orderIds.length} orders are cancelled; Kudos keeps cancelling the others.`
          : message,
      ),
      row,
    };
  }
  const details = {
    orderId,
    ...(orderIds.length > 1 ? { orderIds } : {}),
    canceledAt: canceled?.canceledAt?.toISOString() ?? null,
  };
  // The order is cancelled (and refunded): recording it is retried; if it still fails, the sweep
  // records it from the intent. The person is told the truth either way: it is cancelled.
  for (let attempt = 1; ; attempt++) {
    try {
      const updated = await markCanceled(deps.db, row, input.actorUserId, details);
      log.info('scheduled send cancelled', { by: input.actorUserId });
      return { ok: true, row: updated };
    } catch (error) {
      if (attempt >= CANCEL_WRITE_ATTEMPTS) {
        log.error('the order is cancelled but recording it failed; the sweep will record it', { error });
        return {
          ok: true,
          row: { ...row, status: 'canceled', canceledBy: input.actorUserId, orderStatus: 'CANCELED' },
        };
      }
      log.warn('recording the cancel failed; trying again', { error, attempt });
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
}

/** Tries of the write that records an accepted cancel, in the request, before the sweep's turn. */
const CANCEL_WRITE_ATTEMPTS = 3;
/** A cancel intent is looked at by the sweep once it is this old (the request path had its turn). */
const CANCEL_INTENT_GRACE_MS = 20_000;
/** A cancel intent whose order is not cancelled after this long was not applied: it is dropped. */
const CANCEL_INTENT_EXPIRY_MS = 10 * 60_000;

async function clearCancelIntent(db: Database, id: string): Promise<void> {
  await db.update(kudos).set({ cancelRequestedBy: null, cancelRequestedAt: null }).where(eq(kudos.id, id));
}

/**
 * The sweep's part: scheduled kudos with a cancel intent older than the grace are looked up; an order
 * CANCELED is recorded as cancelled by whoever asked (with the audit row); one still scheduled long
 * after the intent keeps its send (the cancel was never applied) and the intent is dropped.
 */
export async function reconcileCancelIntents(
  deps: { db: Database; rewards: RewardsAccounts; logger: Logger },
  opts: { graceMs?: number; expiryMs?: number; limit?: number; signal?: AbortSignal } = {},
): Promise<number> {
  const graceMs = opts.graceMs ?? CANCEL_INTENT_GRACE_MS;
  const rows = await deps.db
    .select()
    .from(kudos)
    .where(
      and(
        eq(kudos.status, 'scheduled'),
        isNotNull(kudos.cancelRequestedAt),
        isNotNull(kudos.orderId),
        lt(kudos.cancelRequestedAt, sql`now() - ${`${graceMs} milliseconds`}::interval`),
      ),
    )
    .limit(opts.limit ?? 20);
  let recorded = 0;
  for (const row of rows) {
    const log = deps.logger.child({ kudosId: row.id, orderId: row.orderId });
    try {
      const rewards = await deps.rewards.for(row);
      const signal = opts.signal ? { signal: opts.signal } : undefined;
      // Every part of a send of several orders: those not cancelled yet are cancelled now (the intent
      // is the sender's or an admin's, recorded before any part was); the send is cancelled once all are.
      let order = await rewards.orders.get(row.orderId!, signal);
      for (const id of orderIdsOf(row).slice(1)) {
        if (order.status !== 'CANCELED') break;
        const part = await rewards.orders.get(id, signal);
        order =
          part.status === 'CANCELED' ? part : { ...part, status: (await rewards.orders.cancel(id, signal)).status };
      }
      if (order.status === 'CANCELED') {
        await markCanceled(deps.db, row, row.cancelRequestedBy ?? 'unknown', {
          orderId: row.orderId,
          canceledAt: null,
          recordedBy: 'sweep',
        });
        log.warn('recorded a cancel the API had accepted', { by: row.cancelRequestedBy });
        recorded++;
      } else if (Date.now() - row.cancelRequestedAt!.getTime() > (opts.expiryMs ?? CANCEL_INTENT_EXPIRY_MS)) {
        await clearCancelIntent(deps.db, row.id);
        log.info('a cancel intent was never applied; the send stays scheduled');
      }
    } catch (error) {
      log.warn('looking up a cancelled order failed; will try again', { error });
    }
  }
  return recorded;
}
