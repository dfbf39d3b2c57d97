// The tell step: a settled send's sender and channel told through the notice outbox (exactly once,
// outbox.ts), in a lane of its own so that telling never holds a placing slot; and the periodic sweep
// that finishes notices whose poster died.
import type { Logger } from '../../config/logger.js';
import type { KudosRow, NotificationRow } from '../../db/schema/index.js';
import { isChatRefusal } from '../common/ports.js';
import { findNotification, postAllOnce, resumeStalledNotices } from '../notices/outbox.js';
import { announcementChannelOf, announcementNotice, followAnnouncement } from './announce.js';
import { partCount, partialNoticeSubject } from './kudos-parts.js';
import { markNotified, markNotifiedStatement } from './kudos-store.js';
import { recipientDmItems, settleRecipientDms } from './recipient-dms.js';
import { APPROVAL_WAITING_KIND, earlierSenderDm, senderDmNotice, updateSenderDm } from './sender-dm.js';
import type { WorkerDeps } from './worker-deps.js';

type Notices = Parameters<typeof postAllOnce>[1];
type Posted = Awaited<ReturnType<typeof postAllOnce>>;

/** The sends waiting to be told and those being told, with the lane's bounds. */
export interface TellLane {
  readonly deps: WorkerDeps;
  readonly log: Logger;
  /** Sends whose confirmation and announcement are posted at once. */
  readonly concurrency: number;
  /** Beyond this many sends waiting to be told, claiming pauses (memory stays bounded). */
  readonly maxBacklog: number;
  /** Wakes the claim step (once the backlog it paused for has room again). */
  readonly wake: () => void;
  readonly queue: KudosRow[];
  readonly telling: Set<Promise<void>>;
  /** A poll found the backlog full: claiming waits until the lane has room. */
  pausedClaims: boolean;
}

export function backlogFull(lane: TellLane): boolean {
  return lane.queue.length >= lane.maxBacklog;
}

export function enqueueTell(lane: TellLane, row: KudosRow): void {
  lane.queue.push(row);
  drainTellQueue(lane);
}

function drainTellQueue(lane: TellLane): void {
  const { log } = lane;
  while (lane.telling.size < lane.concurrency && lane.queue.length > 0) {
    const row = lane.queue.shift()!;
    const task = tellOutcome(
      lane.deps,
      row,
      log.child({ kudosId: row.id, ...(row.orderId ? { orderId: row.orderId } : {}) }),
    )
      .catch((error: unknown) => log.error('telling Slack about the kudos failed', { kudosId: row.id, error }))
      .finally(() => {
        lane.telling.delete(task);
        drainTellQueue(lane);
        // Claiming waits on the notices only when too many were waiting to be told.
        if (lane.pausedClaims && lane.queue.length < lane.maxBacklog) {
          lane.pausedClaims = false;
          lane.wake();
        }
      });
    lane.telling.add(task);
  }
}

/** The sweep of notices whose poster died (their lease ran out): at most one at a time, every `everyMs`. */
export interface NoticeSweep {
  readonly deps: WorkerDeps;
  readonly log: Logger;
  readonly everyMs: number;
  last: number;
  running: Promise<void> | undefined;
}

export function sweepStalledNotices(sweep: NoticeSweep): void {
  if (Date.now() - sweep.last < sweep.everyMs || sweep.running) return;
  const { deps, log } = sweep;
  sweep.last = Date.now();
  // Beside the claims, one sweep at a time: its posts are paced (a channel takes a post a second).
  sweep.running = resumeStalledNotices({ db: deps.db, chat: deps.chat, logger: log })
    .then(() => undefined)
    .catch((error: unknown) => log.error('resuming stalled notices failed', { error }))
    .finally(() => {
      sweep.running = undefined;
    });
}

/**
 * Tells a settled send's outcome. Each message goes through the notice outbox: posted exactly once,
 * even if this process dies half-way (the row is resumed after its lease and the outbox skips what was
 * already posted).
 */
export async function tellOutcome(deps: WorkerDeps, row: KudosRow, kudosLog: Logger): Promise<void> {
  const ws = { teamId: row.teamId, enterpriseId: row.enterpriseId };
  // A send that waited for approval has its sender's DM already: each outcome edits it in place.
  const earlier = await earlierSenderDm(deps.db, row);
  if (earlier?.kind === APPROVAL_WAITING_KIND)
    await deps
      .beforeOutcomeEdit?.(row)
      .catch((error: unknown) => kudosLog.warn('telling the decision before the outcome failed', { error }));
  if (row.status === 'unknown' && earlier) {
    await updateSenderDm(deps, row, outcomeStep(row), deps.present({ type: 'kudos.outcome_unknown', kudos: row }));
    return;
  }
  if (row.status === 'unknown') {
    // Said once; the row stays in the queue (looked up again) and its outcome is told when known.
    await postAllOnce(deps, [
      {
        key: { kind: 'kudos.unknown', subject: row.id, ...ws },
        notice: {
          to: { userId: row.senderUserId },
          message: deps.present({ type: 'kudos.outcome_unknown', kudos: row }),
        },
      },
    ]);
    return;
  }
  const notices = await outcomeNotices(deps, row, kudosLog);
  // The sender's DM posted earlier is edited (recorded before the row is marked told, so that a crash
  // in between only repeats this, once per step); its place is the send's confirmation.
  const edited = earlier ? await editEarlierDm(deps, row, notices) : {};
  const told = (results: Posted) => ({ ...edited, ...toldMessages(row, notices, results, kudosLog) });
  // A send of one order: the row is marked told in the statement that records where its notices
  // went. One of several parts may have an earlier announcement to edit first (followEarlierAnnouncement).
  if (partCount(row) === 1) {
    const results = await postAllOnce(deps, notices, {
      andThen: (settled) => markNotifiedStatement(row.id, told(settled)),
    });
    await tellSenderWhoWasNotTold(deps, row, notices, results);
    return;
  }
  const results = await postAllOnce(deps, notices);
  await followEarlierAnnouncement(deps, row, notices, results, kudosLog);
  await markNotified(deps.db, row.id, told(results));
  await tellSenderWhoWasNotTold(deps, row, notices, results);
}

/** The sender's notices of an outcome (a confirmation, a partial send, a failure). */
const SENDER_OUTCOME_KINDS = new Set(['kudos.confirmation', 'kudos.partial', 'kudos.failed']);

/**
 * Each outcome of a send edits its sender's earlier DM once: per attempt (a re-approved send has a new
 * key) and per part placed (a send in parts is told again when a part turns up later).
 */
const outcomeStep = (row: KudosRow) => `${row.status}:${row.idempotencyKey}:${row.partsPlaced}`;

/**
 * Takes the sender's notice out of `notices` and makes it an edit of their earlier DM instead; returns
 * where that DM is (the send's confirmation: a thank-you goes in its thread).
 */
async function editEarlierDm(
  deps: WorkerDeps,
  row: KudosRow,
  notices: Notices,
): Promise<Parameters<typeof markNotified>[2]> {
  const i = notices.findIndex((n) => SENDER_OUTCOME_KINDS.has(n.key.kind));
  if (i < 0) return {};
  const [own] = notices.splice(i, 1);
  const dm = await updateSenderDm(deps, row, outcomeStep(row), own!.notice.message);
  return dm ? { confirmationChannel: dm.channel, confirmationTs: dm.ts } : {};
}

/** Recipients Slack would not let Kudos tell: recorded, and the sender's DM says so (the card still goes out). */
async function tellSenderWhoWasNotTold(deps: WorkerDeps, row: KudosRow, notices: Notices, results: Posted) {
  const untold = await settleRecipientDms(deps.db, notices, results);
  if (untold.length === 0) return;
  await updateSenderDm(deps, row, 'untold', deps.present(await senderDmNotice(deps.db, row, false)));
}

/** The sender's confirmation (placed, partial) or failure, and the channel's announcement when there is one. */
async function outcomeNotices(deps: WorkerDeps, row: KudosRow, kudosLog: Logger): Promise<Notices> {
  const ws = { teamId: row.teamId, enterpriseId: row.enterpriseId };
  const notices: Notices = [];
  if (row.status === 'failed') {
    const toldElsewhere = await (deps.onOrderFailed?.(row) ?? Promise.resolve(false)).catch((error: unknown) => {
      kudosLog.error('handling the refused order failed', { error });
      return false;
    });
    if (!toldElsewhere) {
      notices.push({
        key: { kind: 'kudos.failed', subject: row.id, ...ws },
        notice: {
          to: { userId: row.senderUserId },
          message: deps.present({
            type: 'kudos.failed',
            kudos: row,
            reason: row.errorMessage ?? 'the Rewards API refused it.',
          }),
        },
      });
    }
    return notices;
  }
  // A partial send: the sender learns exactly which part went out and why the rest did not (once).
  const confirmation =
    row.status === 'partial'
      ? {
          key: { kind: 'kudos.partial', subject: partialNoticeSubject(row), ...ws },
          notice: {
            to: { userId: row.senderUserId },
            message: deps.present({
              type: 'kudos.partial',
              kudos: row,
              reason: row.errorMessage ?? 'the Rewards API refused it.',
            }),
          },
        }
      : {
          key: { kind: 'kudos.confirmation', subject: row.id, ...ws },
          notice: { to: { userId: row.senderUserId }, message: deps.present({ type: 'kudos.placed', kudos: row }) },
        };
  notices.push(confirmation);
  // A scheduled send is announced when it goes out (order notifications), not when it is booked;
  // a partial one for the people it reached.
  const channel = await announcementChannelOf(row, ws, deps.notifyChannelOf);
  if (channel && (row.status === 'placed' || (row.status === 'partial' && !row.scheduledAt))) {
    notices.push({
      key: { kind: 'kudos.announcement', subject: row.id, ...ws },
      notice: { to: { channel }, message: deps.present(await announcementNotice(deps.db, row)) },
    });
  }
  // The recipients are told when their cards go out: a scheduled send's once it is delivered.
  if (row.status === 'placed' || (row.status === 'partial' && !row.scheduledAt))
    notices.push(...recipientDmItems(row, deps.present));
  return notices;
}

/** Where the confirmation and the announcement went (posted now, or recorded before), for the row; logs what Slack did not take. */
function toldMessages(
  row: KudosRow,
  notices: Notices,
  results: Posted,
  kudosLog: Logger,
): Parameters<typeof markNotified>[2] {
  const messages: Parameters<typeof markNotified>[2] = {};
  results.forEach((result, i) => {
    const kind = notices[i]!.key.kind;
    if (result.status === 'rejected') {
      // Paced or rate-limited: recorded, and the outbox posts it at its time (outbox.ts).
      if (isChatRefusal(result.reason, 'rate_limited'))
        kudosLog.info(`the ${kind} notice waits for its turn in Slack`, {
          retryAfterSeconds: result.reason.retryAfterSeconds,
        });
      else
        kudosLog.error(`telling Slack about the kudos failed (${kind})`, {
          status: row.status,
          error: result.reason,
        });
      return;
    }
    const posted = result.value.posted
      ? result.value.message
      : result.value.existing?.ts && result.value.existing.channel
        ? { channel: result.value.existing.channel, ts: result.value.existing.ts }
        : undefined;
    if (!posted) return;
    if (kind === 'kudos.confirmation' || kind === 'kudos.partial')
      Object.assign(messages, { confirmationChannel: posted.channel, confirmationTs: posted.ts });
    if (kind === 'kudos.announcement')
      Object.assign(messages, { announcementChannel: posted.channel, announcementTs: posted.ts });
  });
  return messages;
}

/**
 * A send in parts told again because a part turned up later (kudos-store.ts promoteFoundPart): its
 * announcement, recorded at the earlier outcome (by this pass's predecessor, or for a scheduled send
 * when it went out), names fewer people than it reached now, and is edited (announce.ts). Recorded
 * before the row is marked told, so that a crash in between only repeats this (once per key).
 */
async function followEarlierAnnouncement(
  deps: WorkerDeps,
  row: KudosRow,
  notices: Notices,
  results: Posted,
  kudosLog: Logger,
): Promise<void> {
  if (partCount(row) === 1 || !(row.status === 'placed' || row.status === 'partial' || row.status === 'scheduled'))
    return;
  // Recorded before this pass (not posted by it), or, for a scheduled send, posted when it went out.
  let announced: NotificationRow | undefined;
  const i = notices.findIndex((n) => n.key.kind === 'kudos.announcement');
  const result = results[i];
  if (result?.status === 'fulfilled' && !result.value.posted) announced = result.value.existing;
  else if (i < 0 && row.scheduledAt) announced = await findNotification(deps.db, 'kudos.announcement', row.id);
  if (!announced) return;
  const message = deps.present(await announcementNotice(deps.db, row));
  const outcome = await followAnnouncement(deps, row, announced, message);
  if (outcome !== 'unchanged' && outcome !== 'recorded')
    kudosLog.info('the announcement follows the send, which reached more people', {
      outcome,
      partsPlaced: row.partsPlaced,
    });
}
