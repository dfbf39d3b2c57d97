// Places recorded sends with the Rewards API and tells people the outcome.
//
// Each loop claims one row (FOR UPDATE SKIP LOCKED + lease), maps recipients to the address book,
// calls orders.createChoice with the row's own idempotency key (the client resolves a 409 through
// clientOrderId, so a retry or a resumed row never orders twice), records the order, then notifies.
// It wakes at once when a send is recorded in this process and polls for other instances' rows.
import { randomUUID } from 'node:crypto';
import type { AppConfig } from '../config/index.js';
import type { Logger } from '../config/logger.js';
import type { Database } from '../db/client.js';
import type { KudosRow } from '../db/schema/index.js';
import { toCents, type RewardsClient } from '../rewards/index.js';
import { buildAnnouncement, buildConfirmation, buildFailure } from '../slack/blocks/messages.js';
import type { SlackGateway } from '../slack/gateway.js';
import { claimNext, markNotified, releaseClaim, scheduleRetry, updateKudos } from './kudos-store.js';
import { centsToDecimal } from './money.js';
import { ensureRecipientMapping } from './recipients.js';
import { classifyRewardsFailure } from './rewards-errors.js';

export interface WorkerDeps {
  db: Database;
  rewards: RewardsClient;
  slack: SlackGateway;
  config: Pick<AppConfig, 'notifyChannel'>;
  logger: Logger;
  /** Called once an order is placed (webhooks issue: schedules its completion check). */
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
  /** How long a claimed row stays ours before someone else may resume it. */
  leaseMs?: number;
  /** Parallel loops in this process. */
  concurrency?: number;
  /** Transient failures before a send is given up. */
  maxAttempts?: number;
  /** Backoff before retry n (1-based). */
  backoffMs?: (attempt: number) => number;
}

export interface KudosWorker {
  readonly id: string;
  start(): void;
  /** Something was recorded: look now. */
  wake(): void;
  /** Stops claiming; waits for rows in progress (at most `graceMs`), then releases the rest. */
  stop(graceMs?: number): Promise<void>;
}

const defaultBackoff = (attempt: number) => Math.min(5 * 60_000, 1000 * 2 ** Math.max(0, attempt - 1));

export function createWorker(deps: WorkerDeps, opts: WorkerOptions = {}): KudosWorker {
  const id = `worker-${randomUUID().slice(0, 8)}`;
  const pollIntervalMs = opts.pollIntervalMs ?? 300;
  const leaseMs = opts.leaseMs ?? 120_000;
  const concurrency = opts.concurrency ?? 2;
  const maxAttempts = opts.maxAttempts ?? 10;
  const backoffMs = opts.backoffMs ?? defaultBackoff;
  const log = deps.logger.child({ worker: id });

  let running = false;
  let wakeUp: (() => void) | undefined;
  let wakePending = false;
  const loops: Promise<void>[] = [];
  const inProgress = new Map<string, AbortController>();

  function sleep(ms: number): Promise<void> {
    if (wakePending) {
      wakePending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        if (wakeUp === done) wakeUp = undefined;
        resolve();
      }
      const previous = wakeUp;
      wakeUp = () => {
        previous?.();
        done();
      };
    });
  }

  async function loop(): Promise<void> {
    while (running) {
      let row: KudosRow | undefined;
      try {
        row = await claimNext(deps.db, id, leaseMs);
        if (row && row.status === 'pending' && row.attempts === 1 && deps.onPickup) {
          const due = Math.max(row.createdAt.getTime(), row.nextAttemptAt.getTime());
          deps.onPickup((Date.now() - due) / 1000);
        }
      } catch (error) {
        if (running) log.error('claiming work failed', { error });
      }
      if (!row) {
        if (running) await sleep(pollIntervalMs);
        continue;
      }
      const controller = new AbortController();
      inProgress.set(row.id, controller);
      try {
        await processRow(row, controller.signal);
      } catch (error) {
        log.error('processing kudos failed', { kudosId: row.id, error });
      } finally {
        inProgress.delete(row.id);
      }
    }
  }

  async function processRow(row: KudosRow, signal: AbortSignal): Promise<void> {
    const kudosLog = log.child({ kudosId: row.id });
    if (row.status === 'pending') {
      row = await place(row, signal, kudosLog);
      if (row.status === 'pending') return; // retry later
    }
    await notify(row, kudosLog);
  }

  async function place(row: KudosRow, signal: AbortSignal, kudosLog: Logger): Promise<KudosRow> {
    kudosLog.info('placing order', { attempt: row.attempts, recipients: row.recipientCount, totalCents: row.totalCents, scheduled: Boolean(row.scheduledAt) });
    try {
      const recipients = await mapRecipients(row);
      if (recipients !== row.recipients) row = await updateKudos(deps.db, row.id, { recipients });
      const { order, recovered } = await deps.rewards.orders.createChoice(
        {
          productId: row.productId,
          recipients: row.recipients.map((r) => ({
            email: r.email,
            amount: centsToDecimal(row.amountCents),
            ...(r.firstName ? { firstName: r.firstName } : {}),
            ...(r.lastName ? { lastName: r.lastName } : {}),
          })),
          emailSetting: {
            senderName: row.senderName,
            subject: `${row.senderName} sent you kudos`,
            ...(row.message.trim() !== '' ? { message: row.message } : {}),
          },
          ...(row.scheduledAt && row.scheduleLocal && row.scheduleTimezone
            ? { sendTiming: { type: 'SCHEDULED' as const, scheduledAt: row.scheduleLocal, timezone: row.scheduleTimezone } }
            : { sendTiming: { type: 'IMMEDIATE' as const } }),
          ...(row.refundOptionDays ? { refundOption: true, refundOptionDays: row.refundOptionDays as 30 | 60 | 90 } : {}),
        },
        { idempotencyKey: row.idempotencyKey, signal },
      );
      const cost = order.totalCost;
      const placed = await updateKudos(deps.db, row.id, {
        status: row.scheduledAt ? 'scheduled' : 'placed',
        orderId: order.orderId,
        orderStatus: order.status,
        costCents: cost ? toCents(cost.amount, { rounding: 'half-up' }) : row.totalCents,
        costCurrency: cost?.currency ?? row.currency,
        placedAt: new Date(),
        errorCode: null,
        errorMessage: null,
      });
      kudosLog.info('order placed', { orderId: order.orderId, orderStatus: order.status, recovered });
      await deps.onOrderPlaced?.(placed).catch((error: unknown) => kudosLog.warn('scheduling the completion check failed', { error }));
      return placed;
    } catch (error) {
      if (signal.aborted) {
        kudosLog.warn('placing interrupted by shutdown; the row will be resumed with the same key');
        await releaseClaim(deps.db, row.id, id);
        return { ...row, status: 'pending' };
      }
      const verdict = classifyRewardsFailure(error);
      if (verdict.permanent || row.attempts >= maxAttempts) {
        kudosLog.warn('order failed', { code: verdict.code, attempts: row.attempts, error });
        return updateKudos(deps.db, row.id, {
          status: 'failed',
          errorCode: verdict.code,
          errorMessage: verdict.permanent ? verdict.userMessage : 'the Rewards API did not accept it after several tries.',
          claimedUntil: null,
          claimedBy: null,
        });
      }
      const delay = backoffMs(row.attempts);
      kudosLog.warn('order attempt failed; will retry', { code: verdict.code, attempts: row.attempts, retryInMs: delay, error });
      return scheduleRetry(deps.db, row.id, delay, { code: verdict.code, message: verdict.userMessage });
    }
  }

  /**
   * Slack users get their address-book recipient id (found or created once, mapping stored) and the
   * mapping's address, which is a corrected one when a sender fixed a bounce for them.
   */
  async function mapRecipients(row: KudosRow): Promise<KudosRow['recipients']> {
    if (row.recipients.every((r) => r.recipientId || !r.slackUserId)) return row.recipients;
    const mapped = [];
    for (const r of row.recipients) {
      if (r.recipientId || !r.slackUserId) {
        mapped.push(r);
        continue;
      }
      const { recipientId, email } = await ensureRecipientMapping(
        { db: deps.db, rewards: deps.rewards },
        { teamId: row.teamId, enterpriseId: row.enterpriseId },
        { slackUserId: r.slackUserId, email: r.email, firstName: r.firstName, lastName: r.lastName },
      );
      mapped.push({ ...r, recipientId, email });
    }
    return mapped;
  }

  async function notify(row: KudosRow, kudosLog: Logger): Promise<void> {
    // At most once: whoever marks the row notified posts; a crash after this loses a message, never doubles it.
    if (!(await markNotified(deps.db, row.id))) return;
    try {
      if (row.status === 'failed') {
        const toldElsewhere = await (deps.onOrderFailed?.(row) ?? false);
        if (!toldElsewhere) await deps.slack.sendDirectMessage(row.senderUserId, buildFailure(row, row.errorMessage ?? 'the Rewards API refused it.'));
        return;
      }
      const confirmation = await deps.slack.sendDirectMessage(row.senderUserId, buildConfirmation(row));
      await updateKudos(deps.db, row.id, { confirmationChannel: confirmation.channel, confirmationTs: confirmation.ts });
      // A scheduled send is announced when it goes out (order notifications), not when it is booked.
      if (deps.config.notifyChannel && row.status === 'placed') {
        const announcement = await deps.slack.postMessage(deps.config.notifyChannel, buildAnnouncement(row));
        await updateKudos(deps.db, row.id, { announcementChannel: announcement.channel, announcementTs: announcement.ts });
      }
    } catch (error) {
      kudosLog.error('telling Slack about the kudos failed', { status: row.status, error });
    }
  }

  return {
    id,
    start() {
      if (running) return;
      running = true;
      for (let i = 0; i < concurrency; i++) loops.push(loop());
      log.info('worker started', { concurrency, pollIntervalMs });
    },
    wake() {
      if (wakeUp) wakeUp();
      else wakePending = true;
    },
    async stop(graceMs = 8000) {
      if (!running) return;
      running = false;
      wakeUp?.();
      const finished = Promise.allSettled(loops);
      const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), graceMs).unref());
      if ((await Promise.race([finished, timeout])) === 'timeout') {
        // Abort calls in flight; their rows are released and resumed elsewhere with the same key.
        for (const controller of inProgress.values()) controller.abort();
        await finished;
      }
      loops.length = 0;
      log.info('worker stopped');
    },
  };
}
