// The background side of webhooks and notifications, started and stopped with the app:
//   - the event processor: stored webhook events -> processors (order.created);
//   - the completion checker: due order_checks, in batches at the instants of a grid shared by all
//     instances -> the orders list (a GET only where the list cannot say: bounces, reward links) ->
//     notices (two batches at a time);
//   - a sweep every 30 s: checks for placed kudos that have none (crash safety net), reward-link
//     requests left pending, cancels the API accepted but the database did not record, and bounce
//     resends left `resending` by a process that died;
//   - the retention cleanup, hourly: processed events older than 8 days are deleted, and the messages
//     of notices posted more than 7 days ago erased;
//   - with REWARDS_WEBHOOKS=off, the order poller (order-poller.ts) stands in for order.created.
// Every background call to the Rewards API runs in the rate budget's background lane
// (src/domain/pacing/rewards-rate-budget.ts): the account's one budget, shared with the sends, which come first.
// Everything is claimed in the database, so several instances and restarts are safe.
import { randomUUID } from 'node:crypto';

import type { Logger } from '../config/logger.js';
import type { Database } from '../db/client.js';
import type { BackgroundDeps } from '../domain/notices/background-deps.js';
import { expireNoticeMessages } from '../domain/notices/outbox.js';
import { recoverStuckResends } from '../domain/orders/bounce-resend.js';
import {
  CHECK_BATCH_SIZE,
  CHECK_SLOT_MS,
  claimDueChecks,
  dueChecksReady,
  runOrderChecks,
} from '../domain/orders/order-checks.js';
import { inBackgroundLane } from '../domain/pacing/rewards-rate-budget.js';
import { expireIdleSchedules } from '../domain/pacing/slack-call-schedules.js';
import { placeRewardLinkRequest, resumePendingRewardLinkRequests } from '../domain/reward-links/reward-links.js';
import { reconcileCancelIntents } from '../domain/sending/cancel-scheduled.js';
import { DEFAULT_CHECK_DELAYS_MS, scheduleMissingKudosChecks } from '../domain/sending/order-check-schedule.js';
import { createPeriodicJob, type PeriodicJob } from '../lib/periodic-job.js';
import { deleteExpiredEvents } from './event-store.js';
import { orderCreatedProcessor } from './order-created.js';
import { createOrderPoller, type OrderPoller, type OrderPollerOptions } from './order-poller.js';
import { type EventProcessor, processEventBatch } from './processor.js';

export const EVENT_PROCESSORS: readonly EventProcessor[] = [orderCreatedProcessor];

export interface BackgroundProcessingOptions {
  /** Backoff between completion checks; the first entry is also the delay of the first check. Default 5 s, 15 s, 1 min, 5 min, 15 min, 30 min, 1 h. */
  checkDelaysMs?: number[];
  /** How often idle loops look for work left by other instances. Default 1000 ms. */
  pollIntervalMs?: number;
  /** Parallel batches of completion checks in this process. Default 2. */
  checkConcurrency?: number;
  /** Due completion checks claimed and answered together (one orders list page for all). Default 100, a page. */
  checkBatchSize?: number;
  /**
   * The step of the grid due checks are answered on, the same instants on every instance (unless
   * `checkBatchSize` are due at once): a check due at t waits for the next multiple of the step after
   * t, with every other check due by then. Default 4 s (never more than the first check delay): a lone
   * order is asked about 5 to 9 s after it was placed, 7 s on average; a stream shares one list
   * request per step.
   */
  checkBatchIntervalMs?: number;
  /** The background sweep's period (stuck events, leases run out, cancel intents); 0: no timer (tests run `sweep()`). Default 30 s. */
  sweepIntervalMs?: number;
  /** How long a bounce resend holds its row before the sweep takes it over (default 5 min). */
  resendLeaseMs?: number;
  /** How long a reward-link attempt holds its request between renewals (default 2 min; KUDOS_WORKER_LEASE_MS). */
  rewardLinkLeaseMs?: number;
  /** How old a recorded cancel intent is before the sweep looks its order up (default 20 s). */
  cancelIntentGraceMs?: number;
  /** The retention cleanup's period, first at start; 0: no timer. Default 1 h. */
  cleanupIntervalMs?: number;
  /** The order poller's pace (REWARDS_WEBHOOKS=off). */
  polling?: OrderPollerOptions;
  /**
   * With webhooks on, the order poller as the safety net for a lost order.created. Default on; off in
   * tests that poll themselves (`poller.pollNow()`). With webhooks off it is how outcomes are learned, always on.
   */
  safetyNetPolling?: boolean;
}

export interface BackgroundProcessingDeps extends BackgroundDeps {
  /** `off`: order outcomes by polling only (REWARDS_WEBHOOKS). Default on. */
  webhooks?: 'on' | 'off';
}

export interface BackgroundProcessing {
  start(): void;
  /** A webhook event was stored. */
  wakeEvents(): void;
  /** The first completion check of an order, this long after it was placed (the worker schedules a kudos' checks as it records its order). */
  readonly firstCheckDelayMs: number;
  /** The worker placed a kudos order and scheduled its checks: the order poller looks sooner. */
  orderPlaced(): void;
  /** A reward-link request was recorded: create its order(s) now, in the background. */
  placeRewardLinks(requestId: string): void;
  /** One background sweep now, outside its schedule (tests with `sweepIntervalMs: 0`). */
  sweepOnce(): Promise<void>;
  stop(graceMs?: number): Promise<void>;
  /** The order poller (tests poll on demand). */
  poller: OrderPoller;
}

export function createBackgroundProcessing(
  deps: BackgroundProcessingDeps,
  opts: BackgroundProcessingOptions = {},
): BackgroundProcessing {
  const id = `bg-${randomUUID().slice(0, 8)}`;
  const log = deps.logger.child({ part: 'webhooks', processor: id });
  const delays = opts.checkDelaysMs && opts.checkDelaysMs.length > 0 ? opts.checkDelaysMs : DEFAULT_CHECK_DELAYS_MS;
  const firstCheckDelayMs = delays[0]!;
  const pollMs = opts.pollIntervalMs ?? 1000;
  const inFlight = new Set<Promise<unknown>>();
  const controller = new AbortController();
  // With webhooks off the poller is how orders placed elsewhere are learned; with webhooks on it is
  // the safety net for a lost order.created, at a slower pace.
  const pollerPace =
    deps.webhooks === 'off'
      ? opts.polling
      : { activeMs: 60_000, idleMaxMs: 15 * 60_000, firstDelayMs: 60_000, ...opts.polling };
  const poller = createOrderPoller(
    { db: deps.db, rewards: deps.rewards, logger: log, onStored: () => events.wake() },
    pollerPace,
  );

  // A step that did work looks again at once; one that found none waits (or is woken).
  const events = createPeriodicJob<boolean>({
    name: 'webhook event processor step',
    logger: log,
    quietWhenStopping: true,
    cadence: 'after-step',
    periodMs: pollMs,
    firstDelayMs: 0,
    next: (didWork) => (didWork ? 'again' : pollMs),
    step: async ({ signal }) =>
      (await processEventBatch({ ...deps, logger: log, firstCheckDelayMs, signal }, EVENT_PROCESSORS)) > 0,
  });
  const checks = createChecksJob({ ...deps, logger: log }, id, delays, pollMs, opts);

  const linkLease = opts.rewardLinkLeaseMs !== undefined ? { leaseMs: opts.rewardLinkLeaseMs } : {};

  const track = <T>(promise: Promise<T>) => {
    inFlight.add(promise);
    void promise.finally(() => inFlight.delete(promise)).catch(() => {});
    return promise;
  };

  const sweepDeps: SweepDeps = {
    deps: { ...deps, logger: log },
    firstCheckDelayMs,
    signal: controller.signal,
    linkLease,
    opts,
  };
  // sweep() and cleanup() log their own failures.
  const sweeps = createPeriodicJob({
    name: 'background sweep',
    logger: log,
    periodMs: opts.sweepIntervalMs ?? 30_000,
    step: () => sweep(sweepDeps),
  });
  const cleanups = createPeriodicJob({
    name: 'retention cleanup',
    logger: log,
    periodMs: opts.cleanupIntervalMs ?? 3600_000,
    firstDelayMs: 0,
    step: () => cleanup(deps.db, log),
  });

  return {
    start() {
      events.start();
      checks.start();
      if (opts.sweepIntervalMs !== 0) sweeps.start();
      if (opts.cleanupIntervalMs !== 0) cleanups.start();
      if (deps.webhooks === 'off' || opts.safetyNetPolling !== false) poller.start();
      log.info('webhook and notification processing started', {
        orderOutcomes: deps.webhooks === 'off' ? 'polling' : 'webhooks, polling as the safety net',
      });
    },
    wakeEvents: () => events.wake(),
    firstCheckDelayMs,
    orderPlaced() {
      poller.wake();
    },
    poller,
    sweepOnce: () => sweeps.runOnce(),
    placeRewardLinks(requestId) {
      void track(
        placeRewardLinkRequest({ ...deps, logger: log }, requestId, {
          firstCheckDelayMs,
          signal: controller.signal,
          ...linkLease,
        })
          .then(() => checks.wake())
          .catch((error: unknown) => log.error('placing reward links failed', { requestId, error })),
      );
    },
    async stop(graceMs = 5000) {
      // Their passes in flight end once the controller aborts, below.
      const passes = [sweeps.stop(), cleanups.stop()];
      await Promise.all([events.stop(graceMs), checks.stop(graceMs), poller.stop()]);
      controller.abort();
      await Promise.allSettled([...inFlight, ...passes]);
    },
  };
}

/** What the background sweep uses: the deps (logging as the processor), the first check's delay, the stop signal. */
interface SweepDeps {
  deps: BackgroundDeps;
  firstCheckDelayMs: number;
  signal: AbortSignal;
  linkLease: { leaseMs?: number };
  opts: BackgroundProcessingOptions;
}

/**
 * The completion checks of placed orders, claimed in batches: `lastBatchAt` spaces the claims so that
 * one page of the orders list answers a whole batch.
 */
function createChecksJob(
  deps: BackgroundDeps,
  id: string,
  delays: number[],
  pollMs: number,
  opts: BackgroundProcessingOptions,
): PeriodicJob<boolean> {
  const log = deps.logger;
  const firstCheckDelayMs = delays[0]!;
  const slotMs = Math.min(opts.checkBatchIntervalMs ?? CHECK_SLOT_MS, firstCheckDelayMs);
  const batchSize = opts.checkBatchSize ?? CHECK_BATCH_SIZE;
  let lastBatchAt = 0;
  const checksIdleMs = Math.min(pollMs, firstCheckDelayMs);
  return createPeriodicJob<boolean>({
    name: 'order completion checker step',
    logger: log,
    quietWhenStopping: true,
    concurrency: opts.checkConcurrency ?? 2,
    cadence: 'after-step',
    periodMs: checksIdleMs,
    firstDelayMs: 0,
    next: (didWork) => (didWork ? 'again' : checksIdleMs),
    step: async ({ signal }) => {
      // Due checks in batches: one page of the orders list answers up to 100 of them (runOrderChecks),
      // once a batch is full or a grid instant passed since one fell due, whichever instance takes it.
      if (Date.now() - lastBatchAt < slotMs / 8) return false;
      lastBatchAt = Date.now();
      if (!(await dueChecksReady(deps.db, slotMs, batchSize))) return false;
      const checks = await claimDueChecks(deps.db, id, 120_000, batchSize);
      if (checks.length === batchSize) lastBatchAt = 0; // a full batch: more may be due right now
      if (checks.length === 0) return false;
      await inBackgroundLane(() => runOrderChecks(deps, checks, { delaysMs: delays, signal }));
      return true;
    },
  });
}

async function sweep(sweepDeps: SweepDeps): Promise<void> {
  const { deps, firstCheckDelayMs, opts } = sweepDeps;
  const log = deps.logger;
  try {
    const created = await scheduleMissingKudosChecks(deps.db, firstCheckDelayMs);
    if (created > 0) log.warn('scheduled missing completion checks', { created });
    await inBackgroundLane(() => reconcileAndResume(sweepDeps));
    await recoverStuckResends(deps, opts.resendLeaseMs !== undefined ? { leaseMs: opts.resendLeaseMs } : {});
  } catch (error) {
    log.error('background sweep failed', { error });
  }
}

async function reconcileAndResume(sweepDeps: SweepDeps): Promise<void> {
  const { deps, firstCheckDelayMs, signal, linkLease, opts } = sweepDeps;
  await resumePendingRewardLinkRequests(deps, { firstCheckDelayMs, signal, ...linkLease });
  await reconcileCancelIntents(deps, {
    signal,
    ...(opts.cancelIntentGraceMs !== undefined ? { graceMs: opts.cancelIntentGraceMs } : {}),
  });
}

async function cleanup(db: Database, log: Logger): Promise<void> {
  try {
    const deleted = await deleteExpiredEvents(db);
    if (deleted > 0) log.info('deleted expired webhook events', { deleted });
  } catch (error) {
    log.error('webhook event cleanup failed', { error });
  }
  try {
    const erased = await expireNoticeMessages(db);
    if (erased > 0) log.info('erased the messages of old notices', { erased });
  } catch (error) {
    log.error('notice retention cleanup failed', { error });
  }
  try {
    await expireIdleSchedules(db);
  } catch (error) {
    log.error('Slack call schedule cleanup failed', { error });
  }
}
