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
  /**
   * Ends a pause now, or within `withinMs` (never later than it would end). When nobody pauses, a busy
   * worker keeps the wake for its next pause (one per worker at most), counted from the wake.
   */
  wake(withinMs?: number): void;
  /** One step now, outside the schedule (tests): resolves with its result, rejects with its failure. */
  runOnce(): Promise<T>;
  /** Stops after the steps in progress; past `graceMs` (default unbounded) aborts them and waits. */
  stop(graceMs?: number): Promise<void>;
}

/** A worker's pause: ends at `endsAt`, or sooner when woken. */
interface Pause {
  endsAt: number;
  woken: boolean;
  timer?: NodeJS.Timeout;
  resolve: (woken: boolean) => void;
}

export function createPeriodicJob<T>(opts: PeriodicJobOptions<T>): PeriodicJob<T> {
  const concurrency = opts.concurrency ?? 1;
  const rate = (opts.cadence ?? 'rate') === 'rate';
  let running = false;
  let startedAt = 0;
  let controller = new AbortController();
  const pauses = new Set<Pause>();
  /** When the wakes that found nobody pausing want a step by (ms since the epoch), soonest first. */
  const pendingWakes: number[] = [];
  const workers: Promise<void>[] = [];
  const outside = new Set<Promise<unknown>>();

  function endPause(pause: Pause): void {
    clearTimeout(pause.timer);
    pauses.delete(pause);
    pause.resolve(pause.woken);
  }

  function endPauseAt(pause: Pause, endsAt: number): void {
    clearTimeout(pause.timer);
    pause.endsAt = endsAt;
    const ms = endsAt - Date.now();
    // A pause that runs its course ends on a timer, even at 0 ms: a loop that never waits still yields.
    if (ms <= 0 && pause.woken) return endPause(pause);
    pause.timer = setTimeout(() => endPause(pause), Math.max(0, ms));
    pause.timer.unref();
  }

  /** Resolves true when the pause was cut short by wake(). */
  function sleep(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const pause: Pause = { endsAt: Infinity, woken: false, resolve };
      pauses.add(pause);
      const endsAt = Date.now() + ms;
      const wakeBy = pendingWakes.shift() ?? Infinity;
      pause.woken = wakeBy < endsAt;
      endPauseAt(pause, Math.min(wakeBy, endsAt));
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
    wake(withinMs = 0) {
      const by = Date.now() + withinMs;
      if (pauses.size === 0) {
        // A worker in its step may have read before what woke it: it steps again after this one.
        pendingWakes.push(by);
        pendingWakes.sort((a, b) => a - b);
        if (pendingWakes.length > concurrency) pendingWakes.pop();
        return;
      }
      for (const pause of [...pauses]) {
        if (by >= pause.endsAt) continue;
        pause.woken = true;
        endPauseAt(pause, by);
      }
    },
    runOnce() {
      const step = opts.step({ signal: controller.signal, woken: false });
      outside.add(step);
      void step.finally(() => outside.delete(step)).catch(() => {});
      return step;
    },
    async stop(graceMs = Infinity) {
      running = false;
      for (const pause of [...pauses]) endPause(pause);
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
