// Places recorded sends with the Rewards API and tells people the outcome.
//
// One poller claims due rows in batches (FOR UPDATE SKIP LOCKED + lease, one statement) as long as
// it has free slots, and runs each row in its own task: map recipients to the address book, call
// orders.createChoice with the row's own idempotency key (the client resolves a 409 through
// clientOrderId, so a retry or a resumed row never orders twice), record the order, then post the
// confirmation and the announcement through the notice outbox (exactly once, see outbox.ts).
// The poller wakes at once when a send is recorded in this process or a slot frees up, and polls
// for other instances' rows; it also finishes notices whose poster died. Idle, its polls back off
// (up to idlePollMaxMs) and only read when the next row is due, claiming once one is.
import { announcementChannelOf, followAnnouncement } from './announce.js';
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { Logger } from '../../config/logger.js';
import type { KudosRow, NotificationRow } from '../../db/schema/index.js';
import { isRewardsError, toCents } from '../../rewards/index.js';
import {
  claimBatch,
  claimPending,
  fenceOf,
  nextClaimableInMs,
  markNotified,
  markNotifiedStatement,
  markPartPlaced,
  markPlaced,
  releaseClaim,
  renewClaim,
  scheduleRetry,
  updateClaimed,
  type ClaimFence,
} from './kudos-store.js';
import {
  orderIdsOf,
  partCount,
  partialNoticeSubject,
  partsOf,
  kudosPartKey,
  RECIPIENTS_PER_ORDER,
} from './kudos-parts.js';
import { centsToDecimal, formatUsd } from '../common/money.js';
import { MIN_SCHEDULE_LEAD_MS } from '../common/zoned-time.js';
import { findNotification, postAllOnce, resumeStalledNotices } from '../notices/outbox.js';
import { isChatRefusal } from '../common/ports.js';
import { scheduleKudosCheck } from './order-check-schedule.js';
import { ensureRecipientMapping, ensureRecipientMappings } from './recipients.js';
import { classifyRewardsFailure, mayHaveReachedApi } from '../accounts/rewards-failures.js';
import type { BackgroundDeps } from '../notices/background-deps.js';
import { asWorkspace } from '../pacing/workspace-turns.js';
import { createPeriodicJob } from '../../lib/periodic-job.js';

export interface WorkerDeps extends BackgroundDeps {
  /**
   * An order placed is watched to completion: each order's check is first due this long after it was
   * placed (or after its send time), scheduled in the statement that records the order (markPlaced).
   * Unset: no checks are scheduled (tests of the worker alone).
   */
  firstCheckDelayMs?: number;
  /** Called once an order is placed and its checks scheduled (the low-balance decision, the order poller's wake-up). */
  onOrderPlaced?: (row: KudosRow) => Promise<void>;
  /**
   * Called once when the API refused an order for good (approvals issue: an approved send refused for
   * a fixable reason goes back to the approvers). True when it told the sender itself, so the worker's
   * generic failure message is not sent as well.
   */
  onOrderFailed?: (row: KudosRow) => Promise<boolean>;
  /** Metrics hook (src/observability): seconds from a send becoming due to its first claim. */
  onPickup?: (seconds: number) => void;
}

export interface WorkerOptions {
  /** How often to look for rows recorded by other instances. */
  pollIntervalMs?: number;
  /**
   * While the polls find nothing to claim (and nothing wakes the worker), they back off: each wait
   * doubles from `pollIntervalMs` up to this, and never lasts past the next retry's due time.
   */
  idlePollMaxMs?: number;
  /** How long a claimed row stays ours before someone else may resume it. */
  leaseMs?: number;
  /** Sends in progress at once in this process (each waits on the network most of the time). */
  concurrency?: number;
  /**
   * Beyond `concurrency`, slots only for workspaces with no send in progress anywhere: while a
   * backlog holds every slot (its sends waiting for the account's rate budget), another workspace's
   * kudos is still claimed at the next poll, then waits one turn in the budget. Default concurrency / 4.
   */
  spareSlots?: number;
  /** How often to look for notices whose poster died (their lease ran out). */
  noticeSweepMs?: number;
  /**
   * Sends whose confirmation and announcement are posted at once. Placing comes first (the order is
   * what the sender waits for); telling runs in its own lane so that it never holds a placing slot.
   */
  notifyConcurrency?: number;
  /** Order calls failed without a refusal before a send is given up (looked up by its key). */
  maxAttempts?: number;
  /** Backoff before retry n (1-based: after the n-th failed call). */
  backoffMs?: (attempt: number) => number;
}

export interface KudosWorker {
  readonly id: string;
  start(): void;
  /** Something was recorded: look now. */
  wake(): void;
  /** A send was recorded in this process: claim and place it at once (no polling delay). */
  placeNow(id: string): void;
  /** Stops claiming; waits for rows in progress (at most `graceMs`), then releases the rest. */
  stop(graceMs?: number): Promise<void>;
}

/** Address-book recipients created at once for one send. */
const MAPPING_CONCURRENCY = 16;
/** Sends of up to this many people are mapped one person at a time; bigger ones in batches. */
const MAP_ONE_BY_ONE = 10;

/**
 * An idle worker's wait after the `emptyPolls`-th poll in a row that found nothing to claim: doubling
 * from the poll interval up to `maxMs`, and not past the next row's due time (`dueInMs`, read from the
 * queue; null when nothing is waiting), so that a retry is claimed when it is due.
 */
export function idlePollWait(
  emptyPolls: number,
  dueInMs: number | null,
  pollIntervalMs: number,
  maxMs: number,
): number {
  const backedOff = Math.min(maxMs, pollIntervalMs * 2 ** Math.min(16, Math.max(0, emptyPolls - 1)));
  // A few milliseconds past it, so that the database's clock has reached it when we look.
  return dueInMs === null ? backedOff : Math.max(1, Math.min(backedOff, Math.ceil(dueInMs) + 5));
}

const defaultBackoff = (attempt: number) => Math.min(5 * 60_000, 1000 * 2 ** Math.max(0, attempt - 1));

export function createWorker(deps: WorkerDeps, opts: WorkerOptions = {}): KudosWorker {
  const id = `worker-${randomUUID().slice(0, 8)}`;
  const pollIntervalMs = opts.pollIntervalMs ?? 300;
  const idlePollMaxMs = Math.max(pollIntervalMs, opts.idlePollMaxMs ?? 3000);
  const leaseMs = opts.leaseMs ?? 120_000;
  const concurrency = opts.concurrency ?? 16;
  const spareSlots = opts.spareSlots ?? Math.max(1, Math.floor(concurrency / 4));
  const maxAttempts = opts.maxAttempts ?? 10;
  const backoffMs = opts.backoffMs ?? defaultBackoff;
  const noticeSweepMs = opts.noticeSweepMs ?? 5000;
  const log = deps.logger.child({ worker: id });

  const notifyConcurrency = opts.notifyConcurrency ?? 8;
  // Beyond this many sends waiting to be told, stop claiming more (memory stays bounded).
  const maxNotifyBacklog = 500;
  // A finished send wakes the poller only once this many slots are free: a claim is one statement
  // of several index scans per workspace with work, so a backlog is claimed a few slots at a time
  // rather than one claim per finished send. Below it, the next poll fills them.
  const claimBatchMin = Math.max(1, Math.floor(concurrency / 4));
  let pausedForNotices = false;

  let running = false;
  let noticeSweep: Promise<void> | undefined;
  const placing = new Set<Promise<void>>();
  const inProgress = new Map<string, AbortController>();
  const lostClaims = new WeakSet<AbortSignal>();
  const notifyQueue: KudosRow[] = [];
  const notifying = new Set<Promise<void>>();
  let lastNoticeSweep = 0;

  const idleWait = (emptyPolls: number, dueInMs: number | null) =>
    idlePollWait(emptyPolls, dueInMs, pollIntervalMs, idlePollMaxMs);

  // Polls in a row that found nothing to claim with free slots, and nothing woke us since: the
  // worker is idle, and its polls back off (idleWait). Any wake-up (something was recorded, a slot
  // freed, stopping) starts again from the interval.
  let emptyPolls = 0;
  const poller = createPeriodicJob<number>({
    name: 'claiming sends',
    logger: log,
    cadence: 'after-step',
    periodMs: pollIntervalMs,
    firstDelayMs: 0,
    next: (pauseMs) => pauseMs ?? pollIntervalMs,
    step: async ({ woken }) => {
      if (woken) emptyPolls = 0;
      return poll();
    },
  });
  const wake = () => poller.wake();

  /** One poll: claims what it may, and answers how long to pause before the next. It logs its own failures. */
  async function poll(): Promise<number> {
    const free = concurrency - placing.size;
    const spare = concurrency + spareSlots - placing.size;
    if (spare <= 0 || notifyQueue.length >= maxNotifyBacklog) {
      pausedForNotices = notifyQueue.length >= maxNotifyBacklog;
      emptyPolls = 0;
      return pollIntervalMs; // a finishing task wakes us
    }
    let rows: KudosRow[] = [];
    let dueInMs: number | null = null;
    try {
      // Idle: look when the next row is due (one cheap read), and claim only once one is; rows
      // another instance recorded, and retries, are claimed at most idlePollMaxMs late.
      if (free > 0 && emptyPolls > 0) dueInMs = await nextClaimableInMs(deps.db);
      if (emptyPolls === 0 || free <= 0 || (dueInMs !== null && dueInMs <= 0)) {
        // Every slot busy: only a workspace with nothing in progress gets one of the spare slots.
        rows =
          free > 0
            ? await claimBatch(deps.db, id, leaseMs, free)
            : await claimBatch(deps.db, id, leaseMs, spare, { idleWorkspacesOnly: true });
        dueInMs = null;
      }
    } catch (error) {
      if (running) log.error('claiming work failed', { error });
    }
    // Only the ordinary claim backs off: the spare slots' claim runs beside a backlog (not idle).
    emptyPolls = free > 0 && rows.length === 0 ? emptyPolls + 1 : 0;
    for (const row of rows) {
      if (row.status === 'pending' || row.status === 'unknown') startPlacing(row);
      else enqueueNotify(row); // placed or failed earlier, the sender not told yet (a crash, a restart)
    }
    if (Date.now() - lastNoticeSweep >= noticeSweepMs && !noticeSweep) {
      lastNoticeSweep = Date.now();
      // Beside the claims, one sweep at a time: its posts are paced (a channel takes a post a second).
      noticeSweep = resumeStalledNotices({ db: deps.db, chat: deps.chat, logger: log })
        .then(() => undefined)
        .catch((error: unknown) => log.error('resuming stalled notices failed', { error }))
        .finally(() => {
          noticeSweep = undefined;
        });
    }
    // Even after a full batch: its slots are taken, so looking again at once would only make the
    // spare slots' claim, which the batch just made redundant (it ranks idle workspaces first).
    // Slots freeing up wake the poller (claimBatchMin); the spare slots wait for the next poll.
    return emptyPolls > 0 ? idleWait(emptyPolls, dueInMs) : pollIntervalMs;
  }

  function startPlacing(row: KudosRow): void {
    if (row.status === 'pending' && row.attempts === 1 && deps.onPickup) {
      const due = Math.max(row.createdAt.getTime(), row.nextAttemptAt.getTime());
      deps.onPickup((Date.now() - due) / 1000);
    }
    const controller = new AbortController();
    // A big send's address-book creations run MAPPING_CONCURRENCY requests on this one signal.
    setMaxListeners(4 * MAPPING_CONCURRENCY, controller.signal);
    inProgress.set(row.id, controller);
    const fence = fenceOf(row, id);
    const kudosLog = log.child({ kudosId: row.id });
    const stopRenewing = keepClaim(row.id, fence, controller, kudosLog);
    // Its Rewards requests take the account's rate budget in its workspace's turn (workspace-turns.ts).
    const work = asWorkspace(row.teamId, () =>
      row.status === 'unknown'
        ? resolveUnknown(row, fence, controller.signal, kudosLog)
        : place(row, fence, controller.signal, kudosLog),
    );
    const task = work
      .then((placed) => {
        // pending: retried later; undefined: the claim was lost, whoever holds the row now tells.
        if (placed && placed.status !== 'pending') enqueueNotify(placed);
      })
      .catch((error: unknown) => log.error('placing kudos failed', { kudosId: row.id, error }))
      .finally(() => {
        stopRenewing();
        inProgress.delete(row.id);
        placing.delete(task);
        if (concurrency - placing.size >= claimBatchMin) wake();
      });
    placing.add(task);
  }

  /**
   * Renews the lease while the order call is in flight (a call with retries and rate-limit waits can
   * outlast any fixed lease). When the lease is lost (renewal finds the row re-claimed, or the database
   * was unreachable until the lease ran out) the call is aborted: nothing this task does afterwards is
   * written, and the row's new holder resumes it with the same key.
   */
  function keepClaim(kudosId: string, fence: ClaimFence, controller: AbortController, kudosLog: Logger): () => void {
    let heldUntil = Date.now() + leaseMs;
    const timer = setInterval(
      () => {
        const asked = Date.now();
        renewClaim(deps.db, kudosId, fence, leaseMs)
          .then((held) => {
            if (held) heldUntil = asked + leaseMs;
            else lose('the row was claimed by someone else');
          })
          .catch((error: unknown) => {
            if (Date.now() >= heldUntil) lose('the lease ran out while the database was unreachable');
            else kudosLog.warn('renewing the lease failed; will try again', { error });
          });
      },
      Math.max(50, Math.floor(leaseMs / 3)),
    );
    function lose(why: string): void {
      if (controller.signal.aborted) return;
      kudosLog.warn(`lease lost (${why}); aborting the call, the row will be resumed with the same key`);
      lostClaims.add(controller.signal);
      controller.abort();
    }
    return () => clearInterval(timer);
  }

  function enqueueNotify(row: KudosRow): void {
    notifyQueue.push(row);
    drainNotifyQueue();
  }

  function drainNotifyQueue(): void {
    while (notifying.size < notifyConcurrency && notifyQueue.length > 0) {
      const row = notifyQueue.shift()!;
      const task = notify(row, log.child({ kudosId: row.id, ...(row.orderId ? { orderId: row.orderId } : {}) }))
        .catch((error: unknown) => log.error('telling Slack about the kudos failed', { kudosId: row.id, error }))
        .finally(() => {
          notifying.delete(task);
          drainNotifyQueue();
          // Claiming waits on the notices only when too many were waiting to be told.
          if (pausedForNotices && notifyQueue.length < maxNotifyBacklog) {
            pausedForNotices = false;
            wake();
          }
        });
      notifying.add(task);
    }
  }

  async function place(
    row: KudosRow,
    fence: ClaimFence,
    signal: AbortSignal,
    kudosLog: Logger,
  ): Promise<KudosRow | undefined> {
    kudosLog.debug('placing order', {
      attempt: row.attempts,
      recipients: row.recipientCount,
      totalCents: row.totalCents,
      scheduled: Boolean(row.scheduledAt),
      partsPlaced: row.partsPlaced,
    });
    if (row.scheduledAt && row.scheduledAt.getTime() - Date.now() < MIN_SCHEDULE_LEAD_MS)
      return missedLead(row, fence, signal, kudosLog);
    try {
      // Stored with the order below: a resumed row finds the same mappings (stored by Slack user).
      const recipients = await mapRecipients(row, signal);
      row = { ...row, recipients };
      const rewards = await deps.rewards.for(row);
      const parts = partsOf(row.recipients);
      if (parts.length > 1 && row.partsPlaced === 0 && row.attempts > 1) {
        // An earlier attempt may have created the first part with its answer lost: the balance read
        // now would count that order against the send. Look it up by its key before judging anything.
        const first = await rewards.orders.findByClientOrderId(kudosPartKey(row, 0), { signal });
        if (signal.aborted) return interrupted(row, signal, kudosLog);
        if (first) {
          kudosLog.info('first part found by its key', { orderId: first.orderId, orderStatus: first.status });
          const recorded = await recordPart(row, fence, 0, first);
          if (!recorded) return fencedOut(undefined, kudosLog);
          return place(recorded.row, recorded.fence, signal, kudosLog);
        }
      }
      if (parts.length > 1 && row.partsPlaced === 0) {
        // Before the first part: the whole send must fit the balance, so that a big send is not cut
        // short half-way for want of money (the known spending limits were checked when it was recorded).
        const balance = await rewards.balance.get({ signal });
        const available = toCents(balance.availableBalance.amount, { rounding: 'half-up' });
        if (available < row.totalCents) {
          kudosLog.warn('the balance does not cover the whole send; nothing placed', {
            availableCents: available,
            totalCents: row.totalCents,
          });
          return fail(
            row,
            fence,
            'INSUFFICIENT_BALANCE',
            `the Rewards balance (${formatUsd(available)}) does not cover ${formatUsd(row.totalCents)} for ${row.recipientCount} people. Nothing was charged; ask an admin to top it up, then send again.`,
            kudosLog,
          );
        }
      }
      for (let index = row.partsPlaced; index < parts.length; index++) {
        const { order, recovered } = await rewards.orders.createChoice(orderParams(row, parts[index]!), {
          idempotencyKey: kudosPartKey(row, index),
          signal,
        });
        if (signal.aborted) return interrupted(row, signal, kudosLog);
        kudosLog.info('order placed', {
          orderId: order.orderId,
          orderStatus: order.status,
          recovered,
          attempt: row.attempts,
          totalCents: row.totalCents,
          ...(parts.length > 1 ? { part: index + 1, parts: parts.length } : {}),
        });
        if (parts.length === 1) return recordPlaced(row, fence, order, kudosLog);
        const recorded = await recordPart(row, fence, index, order);
        if (!recorded) return fencedOut(undefined, kudosLog);
        ({ row, fence } = recorded);
      }
      return recordPlaced(
        row,
        fence,
        { orderId: orderIdsOf(row)[0]!, status: row.orderStatus ?? 'PENDING', totalCost: undefined },
        kudosLog,
      );
    } catch (error) {
      if (signal.aborted || stoppedWaiting(error)) return interrupted(row, signal, kudosLog);
      const verdict = classifyRewardsFailure(error);
      // Restarts, lost leases and stops are claims, not failures: only failed calls lengthen the wait.
      const failedCalls = row.failedCalls + 1;
      if (!verdict.permanent && failedCalls < maxAttempts) {
        const delay = backoffMs(failedCalls);
        kudosLog.warn('order attempt failed; will retry with the same key', {
          code: verdict.code,
          failedCalls,
          attempts: row.attempts,
          retryInMs: delay,
          partsPlaced: row.partsPlaced,
          error,
        });
        return fencedOut(
          await scheduleRetry(deps.db, row.id, fence, delay, { code: verdict.code, message: verdict.userMessage }),
          kudosLog,
        );
      }
      // Never called failed while the order may exist: look it up by its key first.
      if (mayHaveReachedApi(error)) return resolveUnknown(row, fence, signal, kudosLog);
      kudosLog.warn('order failed', {
        code: verdict.code,
        failedCalls,
        attempts: row.attempts,
        partsPlaced: row.partsPlaced,
        error,
      });
      const reason = verdict.permanent
        ? refusalOfPart(row, error, verdict.userMessage)
        : 'the Rewards API did not accept it after several tries.';
      return fail(row, fence, verdict.code, reason, kudosLog);
    }
  }

  /** The choice-card order of one part (all of a one-part send). */
  function orderParams(row: KudosRow, recipients: KudosRow['recipients']) {
    return {
      productId: row.productId,
      recipients: recipients.map((r) => ({
        email: r.email,
        amount: centsToDecimal(row.amountCents),
        ...(r.firstName ? { firstName: r.firstName } : {}),
        ...(r.lastName ? { lastName: r.lastName } : {}),
      })),
      emailSetting: {
        senderName: row.emailSenderName ?? row.senderName,
        subject: row.emailSubject ?? `${row.senderName} sent you kudos`,
        ...(row.message.trim() !== '' ? { message: row.message } : {}),
        ...(row.emailTemplateId ? { templateId: row.emailTemplateId } : {}),
      },
      ...(row.scheduledAt && row.scheduleLocal && row.scheduleTimezone
        ? { sendTiming: { type: 'SCHEDULED' as const, scheduledAt: row.scheduleLocal, timezone: row.scheduleTimezone } }
        : { sendTiming: { type: 'IMMEDIATE' as const } }),
      ...(row.refundOptionDays ? { refundOption: true, refundOptionDays: row.refundOptionDays as 30 | 60 | 90 } : {}),
    };
  }

  /**
   * A part's order exists: recorded at once (a refusal of a later part, or a crash, never loses a paid
   * part), the lease renewed, and the row goes on `pending` to the next part under the same claim.
   */
  async function recordPart(
    row: KudosRow,
    fence: ClaimFence,
    index: number,
    order: { orderId: string; status: string; totalCost?: { amount: string; currency: string } | undefined },
  ) {
    const cost = order.totalCost;
    const recorded = await markPartPlaced(deps.db, row.id, fence, {
      index,
      orderId: order.orderId,
      orderStatus: order.status,
      costCents: cost
        ? toCents(cost.amount, { rounding: 'half-up' })
        : Math.min(RECIPIENTS_PER_ORDER, row.recipientCount - index * RECIPIENTS_PER_ORDER) * row.amountCents,
      costCurrency: cost?.currency ?? row.currency,
      leaseMs,
    });
    if (!recorded) return undefined;
    // Each part's completion check is scheduled with the others once the send is settled (onOrderPlaced).
    return { row: { ...recorded, recipients: row.recipients }, fence: { ...fence, status: 'pending' as const } };
  }

  /**
   * A refusal, said exactly: a part after the first names what went out before it; a validation error
   * about the recipients of an order says plainly that the API refused an order of that size.
   */
  function refusalOfPart(row: KudosRow, error: unknown, userMessage: string): string {
    const parts = partCount(row);
    const detail = error instanceof Error ? error.message : '';
    const aboutRecipients = isRewardsError(error, 'VALIDATION_ERROR') && /recipient/i.test(detail);
    if (parts === 1 && !aboutRecipients) return userMessage;
    const size = Math.min(RECIPIENTS_PER_ORDER, row.recipientCount - row.partsPlaced * RECIPIENTS_PER_ORDER);
    const why = aboutRecipients
      ? `the Rewards API refused an order of ${size} recipients (${detail.slice(0, 200)}); its largest order is not documented, and Kudos sends at most ${RECIPIENTS_PER_ORDER} people per order.`
      : userMessage;
    return parts === 1 ? why : `order ${row.partsPlaced + 1} of ${parts} was refused: ${why}`;
  }

  /**
   * The last attempt's answer was lost (or the row is `unknown` from an earlier pass): the order is
   * looked up by its clientOrderId. Found: placed. Certainly absent: failed (the sender may send
   * again). The lookup itself failing: `unknown`, visible to the sender, looked up again later.
   */
  async function resolveUnknown(
    row: KudosRow,
    fence: ClaimFence,
    signal: AbortSignal,
    kudosLog: Logger,
  ): Promise<KudosRow | undefined> {
    let order;
    try {
      order = await (
        await deps.rewards.for(row)
      ).orders.findByClientOrderId(kudosPartKey(row, row.partsPlaced), { signal });
    } catch (error) {
      if (signal.aborted || stoppedWaiting(error)) return interrupted(row, signal, kudosLog);
      const delay = backoffMs(maxAttempts);
      kudosLog.warn('order outcome unknown; will look it up again', { retryInMs: delay, error });
      return fencedOut(
        await scheduleRetry(
          deps.db,
          row.id,
          fence,
          delay,
          {
            code: 'OUTCOME_UNKNOWN',
            message: 'the Rewards API did not say whether the order was created; Kudos keeps checking.',
          },
          'unknown',
        ),
        kudosLog,
      );
    }
    if (signal.aborted) return interrupted(row, signal, kudosLog);
    if (order) {
      kudosLog.info('order found by its key after an unknown outcome', {
        orderId: order.orderId,
        orderStatus: order.status,
        part: row.partsPlaced + 1,
      });
      if (partCount(row) > 1) {
        // One part of several: recorded, then the send goes on with the next part under the same claim.
        const recorded = await recordPart(row, fence, row.partsPlaced, order);
        if (!recorded) return fencedOut(undefined, kudosLog);
        return place(recorded.row, recorded.fence, signal, kudosLog);
      }
      return recordPlaced(
        { ...row, recipients: row.status === 'unknown' ? row.recipients : await mapRecipients(row, signal) },
        fence,
        order,
        kudosLog,
      );
    }
    kudosLog.warn('no order was created with this key; the send failed', { attempts: row.attempts });
    return fail(
      row,
      fence,
      row.errorCode ?? 'NOT_CREATED',
      'the Rewards API did not accept it after several tries.',
      kudosLog,
    );
  }

  /**
   * A scheduled send whose placing was delayed (retries, backoff) past the API's 10-minute lead: the
   * API would refuse it. An earlier attempt may have booked it, so look first; otherwise it was not
   * sent, and the sender is told why in plain words (not the API's validation error).
   */
  async function missedLead(
    row: KudosRow,
    fence: ClaimFence,
    signal: AbortSignal,
    kudosLog: Logger,
  ): Promise<KudosRow | undefined> {
    if (row.attempts > 1) {
      const found = await deps.rewards
        .for(row)
        .then((rewards) => rewards.orders.findByClientOrderId(kudosPartKey(row, row.partsPlaced), { signal }))
        .catch(() => 'unknown' as const);
      if (found === 'unknown') return resolveUnknown(row, fence, signal, kudosLog);
      if (found && partCount(row) > 1) {
        const recorded = await recordPart(row, fence, row.partsPlaced, found);
        if (!recorded) return fencedOut(undefined, kudosLog);
        return missedLead(recorded.row, recorded.fence, signal, kudosLog);
      }
      if (found) return recordPlaced(row, fence, found, kudosLog);
    }
    if (row.partsPlaced >= partCount(row))
      return recordPlaced(row, fence, { orderId: orderIdsOf(row)[0]!, status: row.orderStatus ?? 'PENDING' }, kudosLog);
    kudosLog.warn('scheduled send could not be booked before the 10-minute cutoff', {
      scheduledAt: row.scheduledAt,
      attempts: row.attempts,
    });
    return fail(
      row,
      fence,
      'SCHEDULE_TOO_LATE',
      row.partsPlaced > 0
        ? `the Rewards API could not be reached until less than 10 minutes before the time you chose, and scheduled sends must be booked at least 10 minutes ahead: orders 1 to ${row.partsPlaced} of ${partCount(row)} are booked, the rest was not sent (nothing charged for it). Send it to the others again now.`
        : 'the Rewards API could not be reached until less than 10 minutes before the time you chose, and scheduled sends must be booked at least 10 minutes ahead. Nothing was charged: send it again now.',
      kudosLog,
    );
  }

  async function recordPlaced(
    row: KudosRow,
    fence: ClaimFence,
    order: { orderId: string; status: string; totalCost?: { amount: string; currency: string } | undefined },
    kudosLog: Logger,
  ): Promise<KudosRow | undefined> {
    const cost = order.totalCost;
    // A send of several parts: its cost is the sum recorded part by part (recordPart).
    const several = partCount(row) > 1;
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
    if (!placed) return fencedOut(undefined, kudosLog);
    await deps
      .onOrderPlaced?.(placed)
      .catch((error: unknown) => kudosLog.warn('the placed-order hook failed', { error }));
    return placed;
  }

  async function fail(
    row: KudosRow,
    fence: ClaimFence,
    code: string,
    message: string,
    kudosLog: Logger,
  ): Promise<KudosRow | undefined> {
    // The lease stays until the sender is told (markNotified), so that no one else tells them too.
    // A send with parts already created is partial, never failed: those parts are paid and delivered.
    const status = row.partsPlaced > 0 ? 'partial' : 'failed';
    const settled = fencedOut(
      await updateClaimed(deps.db, row.id, fence, { status, errorCode: code, errorMessage: message }),
      kudosLog,
    );
    // The parts created are watched to completion like any order (a rare path: its own statement).
    if (settled?.status === 'partial') {
      const firstDelayMs = deps.firstCheckDelayMs;
      await (firstDelayMs === undefined ? Promise.resolve() : scheduleKudosCheck(deps.db, settled, firstDelayMs))
        .then(() => deps.onOrderPlaced?.(settled))
        .catch((error: unknown) => kudosLog.warn('scheduling the completion checks failed', { error }));
    }
    return settled;
  }

  function fencedOut(row: KudosRow | undefined, kudosLog: Logger): KudosRow | undefined {
    if (!row) kudosLog.warn("the claim was lost before the outcome was written; the row's new holder finishes it");
    return row;
  }

  /** The app is stopping and the call was still waiting for its turn (src/domain/pacing/rewards-rate-budget.ts): nothing was sent. */
  function stoppedWaiting(error: unknown): boolean {
    return isRewardsError(error, 'ABORTED');
  }

  async function interrupted(row: KudosRow, signal: AbortSignal, kudosLog: Logger): Promise<KudosRow | undefined> {
    if (lostClaims.has(signal)) return undefined; // someone else holds the row: nothing to write
    kudosLog.warn('placing interrupted by shutdown; the row will be resumed with the same key');
    await releaseClaim(deps.db, row.id, id);
    return { ...row, status: 'pending' };
  }

  /**
   * Slack users get their address-book recipient id (found or created once, mapping stored) and the
   * mapping's address, which is a corrected one when a sender fixed a bounce for them.
   */
  async function mapRecipients(row: KudosRow, signal?: AbortSignal): Promise<KudosRow['recipients']> {
    if (row.recipients.every((r) => r.recipientId || !r.slackUserId)) return row.recipients;
    const rewards = await deps.rewards.for(row);
    const ws = { teamId: row.teamId, enterpriseId: row.enterpriseId };
    const people = row.recipients
      .filter((r) => !r.recipientId && r.slackUserId)
      .map((r) => ({ slackUserId: r.slackUserId!, email: r.email, firstName: r.firstName, lastName: r.lastName }));
    // A big group's first send creates hundreds of recipients: in batches, a few calls at a time, each
    // taking its slot of the account's rate budget; stored batch by batch, so a send resumed after a
    // crash goes on from there (recipients.ts).
    let mapped: Map<string, { recipientId: string; email: string }>;
    if (people.length > MAP_ONE_BY_ONE)
      mapped = await ensureRecipientMappings({ db: deps.db, rewards }, ws, people, {
        signal,
        concurrency: MAPPING_CONCURRENCY,
      });
    else {
      mapped = new Map();
      for (const p of people)
        mapped.set(p.slackUserId, await ensureRecipientMapping({ db: deps.db, rewards }, ws, p, { signal }));
    }
    return row.recipients.map((r) => {
      const m = r.recipientId || !r.slackUserId ? undefined : mapped.get(r.slackUserId);
      return m ? { ...r, recipientId: m.recipientId, email: m.email } : r;
    });
  }

  async function notify(row: KudosRow, kudosLog: Logger): Promise<void> {
    // Each message goes through the notice outbox: posted exactly once, even if this process dies
    // half-way (the row is resumed after its lease and the outbox skips what was already posted).
    const ws = { teamId: row.teamId, enterpriseId: row.enterpriseId };
    const notices: Parameters<typeof postAllOnce>[1] = [];
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
    } else {
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
          notice: { to: { channel }, message: deps.present({ type: 'kudos.announced', kudos: row }) },
        });
      }
    }
    // A send of one order: the row is marked told in the statement that records where its notices
    // went. One of several parts may have an earlier announcement to edit first (followEarlierAnnouncement).
    if (partCount(row) === 1) {
      await postAllOnce(deps, notices, {
        andThen: (settled) => markNotifiedStatement(row.id, toldMessages(row, notices, settled, kudosLog)),
      });
      return;
    }
    const results = await postAllOnce(deps, notices);
    await followEarlierAnnouncement(row, notices, results, kudosLog);
    await markNotified(deps.db, row.id, toldMessages(row, notices, results, kudosLog));
  }

  /** Where the confirmation and the announcement went (posted now, or recorded before), for the row; logs what Slack did not take. */
  function toldMessages(
    row: KudosRow,
    notices: Parameters<typeof postAllOnce>[1],
    results: Awaited<ReturnType<typeof postAllOnce>>,
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
    row: KudosRow,
    notices: Parameters<typeof postAllOnce>[1],
    results: Awaited<ReturnType<typeof postAllOnce>>,
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
    const outcome = await followAnnouncement(
      deps,
      row,
      announced,
      deps.present({ type: 'kudos.announced', kudos: row }),
    );
    if (outcome !== 'unchanged' && outcome !== 'recorded')
      kudosLog.info('the announcement follows the send, which reached more people', {
        outcome,
        partsPlaced: row.partsPlaced,
      });
  }

  return {
    id,
    start() {
      if (running) return;
      running = true;
      poller.start();
      log.info('worker started', { concurrency, pollIntervalMs, idlePollMaxMs });
    },
    wake,
    placeNow(kudosId) {
      // Past twice the slots, leave it to the poller (memory and connections stay bounded).
      if (!running || placing.size >= 2 * concurrency) return wake();
      claimPending(deps.db, kudosId, id, leaseMs)
        .then(async (row) => {
          if (row && running) startPlacing(row);
          else if (row) await releaseClaim(deps.db, row.id, id); // stopping meanwhile: someone else places it
        })
        .catch((error: unknown) => {
          log.warn('claiming a recorded send failed; the poller will', { kudosId, error });
          wake();
        });
    },
    async stop(graceMs = 8000) {
      if (!running) return;
      running = false;
      await poller.stop();
      await noticeSweep;
      const deadline = Date.now() + graceMs;
      const timeout = () =>
        new Promise<'timeout'>((resolve) =>
          setTimeout(() => resolve('timeout'), Math.max(0, deadline - Date.now())).unref(),
        );
      if ((await Promise.race([Promise.allSettled([...placing]), timeout()])) === 'timeout') {
        // Abort calls in flight; their rows are released and resumed elsewhere with the same key.
        for (const controller of inProgress.values()) controller.abort();
        await Promise.allSettled([...placing]);
      }
      // Sends not yet told: give them back at once (another instance tells them); finish those under way.
      const untold = notifyQueue.splice(0);
      await Promise.allSettled(untold.map((row) => releaseClaim(deps.db, row.id, id)));
      await Promise.race([Promise.allSettled([...notifying]), timeout()]);
      log.info('worker stopped', { released: untold.length });
    },
  };
}
