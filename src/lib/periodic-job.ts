// Every background loop of the app: a step run again and again, with a pause between steps, that
// can be woken early and stopped. A step's failure is logged and the loop goes on; stop() waits for the
// step in progress, then aborts it past a grace period. Several workers may share one job (the work
// itself is claimed in the database, FOR UPDATE SKIP LOCKED, never held in memory).

/** Where a failed step is reported (the app's Logger fits). */
export interface JobLogger {
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export interface PeriodicJobOptions<T> {
  /** Logged as `${name} failed` when a step throws. */
  name: string;
  /** Where a failed step is logged; a job without one has steps that report their own failures. */
  logger?: JobLogger;
  /** Default error. */
  failureLevel?: 'warn' | 'error';
  /** A step failing once stop() was called is not logged (stopping aborts the steps). Default false. */
  quietWhenStopping?: boolean;
  /**
   * The pause. 'rate' (default): steps start every `periodMs` from start(), as setInterval would; a
   * tick that falls in a step is skipped. 'after-step': `periodMs` after each step ends (or `next()`).
   */
  periodMs: number;
  cadence?: 'rate' | 'after-step';
  /** Before the first step. Default `periodMs`; 0 runs one step at start(). */
  firstDelayMs?: number;
  /** With 'after-step': the pause after a step, from its result (undefined when it threw); 'again': none. */
  next?: (result: NoInfer<T> | undefined) => number | 'again';
  /** Workers running the step side by side. Default 1. */
  concurrency?: number;
  /** `woken`: the pause before it was cut short by wake(). */
  step: (run: { signal: AbortSignal; woken: boolean }) => Promise<T>;
}

export interface PeriodicJob<T> {
  /** Starts the workers; does nothing while they run. */
  start(): void;
  /** Ends a pause now; a worker busy when nobody pauses skips its next pause (one per worker at most). */
  wake(): void;
  /** One step now, outside the schedule (tests): resolves with its result, rejects with its failure. */
  runOnce(): Promise<T>;
  /** Stops after the steps in progress; past `graceMs` (default unbounded) aborts them and waits. */
  stop(graceMs?: number): Promise<void>;
}

export function createPeriodicJob<T>(opts: PeriodicJobOptions<T>): PeriodicJob<T> {
  const concurrency = opts.concurrency ?? 1;
  const rate = (opts.cadence ?? 'rate') === 'rate';
  let running = false;
  let startedAt = 0;
  let controller = new AbortController();
  const sleepers = new Set<(woken: boolean) => void>();
  let pendingWakes = 0;
  const workers: Promise<void>[] = [];
  const outside = new Set<Promise<unknown>>();

  function sleep(ms: number): Promise<boolean> {
    if (pendingWakes > 0) {
      pendingWakes--;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(false), ms);
      timer.unref();
      const done = (woken: boolean) => {
        clearTimeout(timer);
        sleepers.delete(done);
        resolve(woken);
      };
      sleepers.add(done);
    });
  }

  function pauseAfter(result: T | undefined): number | 'again' {
    if (!rate) return opts.next ? opts.next(result) : opts.periodMs;
    // The next tick of the grid start() laid down, as setInterval's next tick after this step.
    return opts.periodMs - ((Date.now() - startedAt) % opts.periodMs);
  }

  async function work(): Promise<void> {
    const firstDelayMs = opts.firstDelayMs ?? opts.periodMs;
    let woken = firstDelayMs > 0 && (await sleep(firstDelayMs)) && running;
    while (running) {
      let result: T | undefined;
      try {
        result = await opts.step({ signal: controller.signal, woken });
      } catch (error) {
        if (running || !opts.quietWhenStopping)
          opts.logger?.[opts.failureLevel ?? 'error'](`${opts.name} failed`, { error });
      }
      if (!running) break;
      const pause = pauseAfter(result);
      woken = pause === 'again' ? false : await sleep(pause);
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      startedAt = Date.now();
      if (controller.signal.aborted) controller = new AbortController();
      for (let i = 0; i < concurrency; i++) workers.push(work());
    },
    wake() {
      if (sleepers.size === 0) {
        pendingWakes = Math.min(pendingWakes + 1, concurrency);
        return;
      }
      for (const done of [...sleepers]) done(true);
    },
    runOnce() {
      const step = opts.step({ signal: controller.signal, woken: false });
      outside.add(step);
      void step.finally(() => outside.delete(step)).catch(() => {});
      return step;
    },
    async stop(graceMs = Infinity) {
      running = false;
      for (const done of [...sleepers]) done(true);
      const finished = Promise.allSettled([...workers, ...outside]);
      if (graceMs !== Infinity) {
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<'timeout'>((resolve) => {
          timer = setTimeout(() => resolve('timeout'), graceMs);
          timer.unref();
        });
        const outcome = await Promise.race([finished, timeout]);
        clearTimeout(timer);
        // Steps in flight are aborted; work claimed with a lease is resumed later by anyone.
        if (outcome === 'timeout') controller.abort();
      }
      await finished;
      workers.length = 0;
    },
  };
}
