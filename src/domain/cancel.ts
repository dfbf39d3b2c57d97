// Cancelling a scheduled send from Slack: only its sender or an admin; the API enforces the
// 10-minute window (ORDER_NOT_CANCELABLE), and we record who cancelled.
import type { Logger } from '../config/logger.js';
import type { Database } from '../db/client.js';
import type { KudosRow } from '../db/schema/index.js';
import type { RewardsClient } from '../rewards/index.js';
import { getKudos, markCanceled } from './kudos-store.js';
import { describeForUser } from './rewards-errors.js';
import { MIN_SCHEDULE_LEAD_MS } from './schedule.js';

export type CancelOutcome = { ok: true; row: KudosRow } | { ok: false; reason: 'not_found' | 'forbidden' | 'not_scheduled' | 'too_late' | 'api_error'; message: string; row?: KudosRow };

/** Cancellable as far as our clock knows; the API has the final word. */
export function isCancellable(row: Pick<KudosRow, 'status' | 'scheduledAt'>, now: Date): boolean {
  return row.status === 'scheduled' && row.scheduledAt !== null && row.scheduledAt.getTime() - now.getTime() >= MIN_SCHEDULE_LEAD_MS;
}

export async function cancelScheduledSend(
  deps: { db: Database; rewards: RewardsClient; logger: Logger },
  input: { kudosId: string; teamId: string; actorUserId: string; actorIsAdmin: boolean; now: Date },
): Promise<CancelOutcome> {
  const row = await getKudos(deps.db, input.kudosId);
  if (!row || row.teamId !== input.teamId) return { ok: false, reason: 'not_found', message: 'That send no longer exists.' };
  if (row.senderUserId !== input.actorUserId && !input.actorIsAdmin) {
    return { ok: false, reason: 'forbidden', message: 'Only the sender or an admin can cancel this send.', row };
  }
  if (row.status === 'canceled') return { ok: false, reason: 'not_scheduled', message: `Already cancelled${row.canceledBy ? ` by <@${row.canceledBy}>` : ''}.`, row };
  if (row.status !== 'scheduled' || !row.orderId) return { ok: false, reason: 'not_scheduled', message: 'This send is not scheduled any more.', row };
  if (!isCancellable(row, input.now)) {
    return { ok: false, reason: 'too_late', message: 'Too late to cancel: it goes out in less than 10 minutes.', row };
  }
  const log = deps.logger.child({ kudosId: row.id, orderId: row.orderId });
  try {
    const canceled = await deps.rewards.orders.cancel(row.orderId);
    const updated = await markCanceled(deps.db, row, input.actorUserId, { orderId: row.orderId, canceledAt: canceled.canceledAt?.toISOString() ?? null });
    log.info('scheduled send cancelled', { by: input.actorUserId });
    return { ok: true, row: updated };
  } catch (error) {
    log.warn('cancel refused', { error });
    const tooLate = (error as { code?: string }).code === 'ORDER_NOT_CANCELABLE';
    return { ok: false, reason: tooLate ? 'too_late' : 'api_error', message: describeForUser(error, 'cancel'), row };
  }
}
