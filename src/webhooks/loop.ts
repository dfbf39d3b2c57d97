// A background loop that does one unit of work at a time, sleeps when there is none, and can be
// woken early (e.g. when the receiver stored an event). Several loops may share one job function:
// the work itself is claimed in the database (FOR UPDATE SKIP LOCKED), never held in memory.
import type { Logger } from '../config/logger.js';

export interface PollingLoop {
  start(): void;
  wake(): void;
  /** Stops after the unit in progress (waits at most graceMs for it). */
  stop(graceMs?: number): Promise<void>;
}

/**
 * `step` returns true when it did something (look again at once) and false when there was nothing
 * to do (sleep `idleMs`, or until woken).
 */
export function createPollingLoop(opts: {
  name: string;
  concurrency: number;
  idleMs: number;
  logger: Logger;
  step: (signal: AbortSignal) => Promise<boolean>;
}): PollingLoop {
  let running = false;
  const sleepers = new Set<() => void>();
  let pendingWakes = 0;
  const loops: Promise<void>[] = [];
  const controller = new AbortController();

  function sleep(ms: number): Promise<void> {
    if (pendingWakes > 0) {
      pendingWakes--;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      sleepers.add(done);
    });
  }

  async function run(): Promise<void> {
    while (running) {
      let didWork = false;
      try {
        didWork = await opts.step(controller.signal);
      } catch (error) {
        if (running) opts.logger.error(`${opts.name} step failed`, { error });
      }
      if (running && !didWork) await sleep(opts.idleMs);
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      for (let i = 0; i < opts.concurrency; i++) loops.push(run());
    },
    wake() {
      if (sleepers.size === 0) {
        pendingWakes = Math.min(pendingWakes + 1, opts.concurrency);
        return;
      }
      for (const wakeOne of sleepers) wakeOne();
    },
    async stop(graceMs = 5000) {
      if (!running) return;
      running = false;
      for (const wakeOne of [...sleepers]) wakeOne();
      const finished = Promise.allSettled(loops);
      const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), graceMs).unref());
      if ((await Promise.race([finished, timeout])) === 'timeout') {
        // Abort calls in flight; their rows are claimed with a lease and resumed later by anyone.
        controller.abort();
        await finished;
      }
      loops.length = 0;
    },
  };
}
