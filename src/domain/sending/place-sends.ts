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
//
// Each send goes through four steps, each in its own file: claim (claim-sends.ts: the poll, the
// lease kept), place (place-order-parts.ts), settle (settle-send.ts: every write fenced on the claim)
// and tell (tell-sends.ts: the notices' lane). This file holds the worker's state and runs the cycle.
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';

import type { Logger } from '../../config/logger.js';
import type { KudosRow } from '../../db/schema/index.js';
import { createPeriodicJob, type PeriodicJob } from '../../lib/periodic-job.js';
import { asWorkspace } from '../pacing/workspace-turns.js';
import { claimDue, type Claiming, keepClaim, pauseAfterPoll } from './claim-sends.js';
import { claimPending, fenceOf, releaseClaim } from './kudos-store.js';
import { MAPPING_CONCURRENCY, placeSend, resolveUnknown } from './place-order-parts.js';
import type { SendPass } from './settle-send.js';
import { backlogFull, enqueueTell, type NoticeSweep, sweepStalledNotices, type TellLane } from './tell-sends.js';
import type { WorkerDeps } from './worker-deps.js';

export type { WorkerDeps };
export { idlePollWait } from './claim-sends.js';

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

const defaultBackoff = (attempt: number) => Math.min(5 * 60_000, 1000 * 2 ** Math.max(0, attempt - 1));

/** One worker: its settings, and the state its steps share (each step's own in its object). */
interface Worker {
  readonly id: string;
  readonly deps: WorkerDeps;
  readonly log: Logger;
  readonly concurrency: number;
  readonly maxAttempts: number;
  readonly backoffMs: (attempt: number) => number;
  /**
   * A finished send wakes the poller only once this many slots are free: a claim is one statement of
   * several index scans per workspace with work, so a backlog is claimed a few slots at a time rather
   * than one claim per finished send. Below it, the next poll fills them.
   */
  readonly claimBatchMin: number;
  /** Between start() and stop(): claimed rows are placed, not given back. */
  running: boolean;
  readonly poller: PeriodicJob<number>;
  readonly claiming: Claiming;
  /** The sends being placed, and their calls' controllers by kudos id (stop() aborts them past its grace). */
  readonly placing: Set<Promise<void>>;
  readonly inProgress: Map<string, AbortController>;
  readonly telling: TellLane;
  readonly sweep: NoticeSweep;
}

export function createWorker(deps: WorkerDeps, opts: WorkerOptions = {}): KudosWorker {
  const id = `worker-${randomUUID().slice(0, 8)}`;
  const pollIntervalMs = opts.pollIntervalMs ?? 300;
  const idlePollMaxMs = Math.max(pollIntervalMs, opts.idlePollMaxMs ?? 3000);
  const leaseMs = opts.leaseMs ?? 120_000;
  const concurrency = opts.concurrency ?? 16;
  const spareSlots = opts.spareSlots ?? Math.max(1, Math.floor(concurrency / 4));
  const log = deps.logger.child({ worker: id });

  const poller = createPeriodicJob<number>({
    name: 'claiming sends',
    logger: log,
    cadence: 'after-step',
    periodMs: pollIntervalMs,
    firstDelayMs: 0,
    next: (pauseMs) => pauseMs ?? pollIntervalMs,
    step: async ({ woken }) => {
      if (woken) w.claiming.emptyPolls = 0;
      return poll(w);
    },
  });
  const w: Worker = {
    id,
    deps,
    log,
    concurrency,
    maxAttempts: opts.maxAttempts ?? 10,
    backoffMs: opts.backoffMs ?? defaultBackoff,
    claimBatchMin: Math.max(1, Math.floor(concurrency / 4)),
    running: false,
    poller,
    claiming: {
      db: deps.db,
      workerId: id,
      leaseMs,
      concurrency,
      spareSlots,
      pollIntervalMs,
      idlePollMaxMs,
      log,
      running: () => w.running,
      emptyPolls: 0,
      lostClaims: new WeakSet(),
    },
    placing: new Set(),
    inProgress: new Map(),
    telling: {
      deps,
      log,
      concurrency: opts.notifyConcurrency ?? 8,
      // Bounds the memory of sends waiting to be told.
      maxBacklog: 500,
      wake: () => poller.wake(),
      queue: [],
      telling: new Set(),
      pausedClaims: false,
    },
    sweep: { deps, log, everyMs: opts.noticeSweepMs ?? 5000, last: 0, running: undefined },
  };

  return {
    id,
    start() {
      if (w.running) return;
      w.running = true;
      poller.start();
      log.info('worker started', { concurrency, pollIntervalMs, idlePollMaxMs });
    },
    wake: () => poller.wake(),
    placeNow: (kudosId) => placeNow(w, kudosId),
    stop: (graceMs) => stopWorker(w, graceMs),
  };
}

/** One poll: claims what it may, and answers how long to pause before the next. It logs its own failures. */
async function poll(w: Worker): Promise<number> {
  const { claiming, telling } = w;
  if (claiming.concurrency + claiming.spareSlots - w.placing.size <= 0 || backlogFull(telling)) {
    telling.pausedClaims = backlogFull(telling);
    claiming.emptyPolls = 0;
    return claiming.pollIntervalMs; // a finishing task wakes us
  }
  const { rows, dueInMs } = await claimDue(claiming, w.placing.size);
  for (const row of rows) {
    if (row.status === 'pending' || row.status === 'unknown') startPlacing(w, row);
    else enqueueTell(telling, row); // placed or failed earlier, the sender not told yet (a crash, a restart)
  }
  sweepStalledNotices(w.sweep);
  return pauseAfterPoll(claiming, dueInMs);
}

/** A claimed send's task: placed (or its unknown outcome looked up) under a kept lease, then told. */
function startPlacing(w: Worker, row: KudosRow): void {
  const { deps } = w;
  if (row.status === 'pending' && row.attempts === 1 && deps.onPickup) {
    const due = Math.max(row.createdAt.getTime(), row.nextAttemptAt.getTime());
    deps.onPickup((Date.now() - due) / 1000);
  }
  const controller = new AbortController();
  // A big send's address-book creations run MAPPING_CONCURRENCY requests on this one signal.
  setMaxListeners(4 * MAPPING_CONCURRENCY, controller.signal);
  w.inProgress.set(row.id, controller);
  const fence = fenceOf(row, w.id);
  const kudosLog = w.log.child({ kudosId: row.id });
  const stopRenewing = keepClaim(w.claiming, row.id, fence, controller, kudosLog);
  const pass: SendPass = {
    deps,
    workerId: w.id,
    leaseMs: w.claiming.leaseMs,
    maxAttempts: w.maxAttempts,
    backoffMs: w.backoffMs,
    signal: controller.signal,
    leaseLost: () => w.claiming.lostClaims.has(controller.signal),
    log: kudosLog,
  };
  // Its Rewards requests take the account's rate budget in its workspace's turn (workspace-turns.ts).
  const work = asWorkspace(row.teamId, () =>
    row.status === 'unknown' ? resolveUnknown(pass, row, fence) : placeSend(pass, row, fence),
  );
  const task = work
    .then((placed) => {
      // pending: retried later; undefined: the claim was lost, whoever holds the row now tells.
      if (placed && placed.status !== 'pending') enqueueTell(w.telling, placed);
    })
    .catch((error: unknown) => w.log.error('placing kudos failed', { kudosId: row.id, error }))
    .finally(() => {
      stopRenewing();
      w.inProgress.delete(row.id);
      w.placing.delete(task);
      if (w.concurrency - w.placing.size >= w.claimBatchMin) w.poller.wake();
    });
  w.placing.add(task);
}

/** A send recorded in this process: claimed by id and placed at once. */
function placeNow(w: Worker, kudosId: string): void {
  // Past twice the slots, leave it to the poller (memory and connections stay bounded).
  if (!w.running || w.placing.size >= 2 * w.concurrency) return w.poller.wake();
  claimPending(w.deps.db, kudosId, w.id, w.claiming.leaseMs)
    .then(async (row) => {
      if (row && w.running) startPlacing(w, row);
      else if (row) await releaseClaim(w.deps.db, row.id, w.id); // stopping meanwhile: someone else places it
    })
    .catch((error: unknown) => {
      w.log.warn('claiming a recorded send failed; the poller will', { kudosId, error });
      w.poller.wake();
    });
}

async function stopWorker(w: Worker, graceMs = 8000): Promise<void> {
  if (!w.running) return;
  w.running = false;
  await w.poller.stop();
  await w.sweep.running;
  const deadline = Date.now() + graceMs;
  const timeout = () =>
    new Promise<'timeout'>((resolve) =>
      setTimeout(() => resolve('timeout'), Math.max(0, deadline - Date.now())).unref(),
    );
  if ((await Promise.race([Promise.allSettled([...w.placing]), timeout()])) === 'timeout') {
    // Abort calls in flight; their rows are released and resumed elsewhere with the same key.
    for (const controller of w.inProgress.values()) controller.abort();
    await Promise.allSettled([...w.placing]);
  }
  // Sends not yet told: give them back at once (another instance tells them); finish those under way.
  const untold = w.telling.queue.splice(0);
  await Promise.allSettled(untold.map((row) => releaseClaim(w.deps.db, row.id, w.id)));
  await Promise.race([Promise.allSettled([...w.telling.telling]), timeout()]);
  w.log.info('worker stopped', { released: untold.length });
}
