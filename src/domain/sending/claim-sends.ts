// The claim step: a poll claims due sends in batches (FOR UPDATE SKIP LOCKED + lease, kudos-store.ts)
// as slots free up, backs off while idle, and a claimed send's lease is kept while it is placed.
import type { Logger } from '../../config/logger.js';
import type { Database } from '../../db/client.js';
import type { KudosRow } from '../../db/schema/index.js';
import { claimBatch, type ClaimFence, nextClaimableInMs, renewClaim } from './kudos-store.js';

/** The claim step's settings, and what it remembers from one poll to the next. */
export interface Claiming {
  readonly db: Database;
  readonly workerId: string;
  /** How long a claimed row stays ours before someone else may resume it. */
  readonly leaseMs: number;
  readonly concurrency: number;
  readonly spareSlots: number;
  readonly pollIntervalMs: number;
  readonly idlePollMaxMs: number;
  readonly log: Logger;
  /** False once the worker is stopping: a claim failing then is not worth an error. */
  readonly running: () => boolean;
  /**
   * Polls in a row that found nothing to claim with free slots, and nothing woke us since: the worker
   * is idle, and its polls back off (idlePollWait). Any wake-up (something was recorded, a slot freed,
   * stopping) starts again from the interval.
   */
  emptyPolls: number;
  /** The signals of the sends whose lease was lost (keepClaim): their task writes nothing more. */
  readonly lostClaims: WeakSet<AbortSignal>;
}

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

/**
 * One poll's claim, with `busy` sends in progress: the due rows it claimed, and when the next row is
 * due if it only looked (idle). It logs its own failure and then claims nothing.
 */
export async function claimDue(c: Claiming, busy: number): Promise<{ rows: KudosRow[]; dueInMs: number | null }> {
  const free = c.concurrency - busy;
  const spare = c.concurrency + c.spareSlots - busy;
  let rows: KudosRow[] = [];
  let dueInMs: number | null = null;
  try {
    // Idle: look when the next row is due (one cheap read), and claim only once one is; rows
    // another instance recorded, and retries, are claimed at most idlePollMaxMs late.
    if (free > 0 && c.emptyPolls > 0) dueInMs = await nextClaimableInMs(c.db);
    if (c.emptyPolls === 0 || free <= 0 || (dueInMs !== null && dueInMs <= 0)) {
      // Every slot busy: only a workspace with nothing in progress gets one of the spare slots.
      rows =
        free > 0
          ? await claimBatch(c.db, c.workerId, c.leaseMs, free)
          : await claimBatch(c.db, c.workerId, c.leaseMs, spare, { idleWorkspacesOnly: true });
      dueInMs = null;
    }
  } catch (error) {
    if (c.running()) c.log.error('claiming work failed', { error });
  }
  // Only the ordinary claim backs off: the spare slots' claim runs beside a backlog (not idle).
  c.emptyPolls = free > 0 && rows.length === 0 ? c.emptyPolls + 1 : 0;
  return { rows, dueInMs };
}

/**
 * The pause after a poll. Even after a full batch, the interval: its slots are taken, so looking again
 * at once would only make the spare slots' claim, which the batch just made redundant (it ranks idle
 * workspaces first). Slots freeing up wake the poller; the spare slots wait for the next poll.
 */
export function pauseAfterPoll(c: Claiming, dueInMs: number | null): number {
  return c.emptyPolls > 0 ? idlePollWait(c.emptyPolls, dueInMs, c.pollIntervalMs, c.idlePollMaxMs) : c.pollIntervalMs;
}

/**
 * Renews the lease while the order call is in flight (a call with retries and rate-limit waits can
 * outlast any fixed lease). When the lease is lost (renewal finds the row re-claimed, or the database
 * was unreachable until the lease ran out) the call is aborted: nothing this task does afterwards is
 * written, and the row's new holder resumes it with the same key. Returns what stops the renewals.
 */
export function keepClaim(
  c: Claiming,
  kudosId: string,
  fence: ClaimFence,
  controller: AbortController,
  kudosLog: Logger,
): () => void {
  const { leaseMs } = c;
  let heldUntil = Date.now() + leaseMs;
  const timer = setInterval(
    () => {
      const asked = Date.now();
      renewClaim(c.db, kudosId, fence, leaseMs)
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
    c.lostClaims.add(controller.signal);
    controller.abort();
  }
  return () => clearInterval(timer);
}
