import { createPeriodicJob, type PeriodicJob } from '../lib/periodic-job.js';
import type { Clock } from './clock.js';

/**
 * Background work as a queue of jobs keyed by emulator time. With real time a timer runs what
 * falls due; `advanceBy` moves the clock and runs every job due by the target in time order
 * (stamping the clock at each job's due time) before returning. One runner at a time.
 */
export interface Job {
  dueAt: number;
  seq: number;
  label: string;
  run: () => void | Promise<void>;
}

export class JobQueue {
  private jobs: Job[] = [];
  private seq = 0;
  private running: Promise<void> = Promise.resolve();
  private runner: PeriodicJob<void> | undefined;
  private generation = 0;

  constructor(
    private readonly clock: Clock,
    private readonly onError: (label: string, err: unknown) => void = () => {},
  ) {}

  schedule(dueAt: number, label: string, run: Job['run']): void {
    this.jobs.push({ dueAt, seq: this.seq++, label, run });
  }

  pending(): ReadonlyArray<Pick<Job, 'dueAt' | 'label'>> {
    return [...this.jobs].sort(byDue).map(({ dueAt, label }) => ({ dueAt, label }));
  }

  /** Drops every job (reset). Jobs already running finish, but their follow-ups are discarded. */
  clear(): void {
    this.jobs = [];
    this.generation++;
  }

  /** Starts the real-time runner. */
  startTimer(intervalMs = 200): void {
    if (this.runner) return;
    this.runner = createPeriodicJob({ name: 'emulator job runner', periodMs: intervalMs, step: () => this.runDue() });
    this.runner.start();
  }

  stopTimer(): void {
    void this.runner?.stop();
    this.runner = undefined;
  }

  /** Runs every job due at or before the current time. */
  runDue(): Promise<void> {
    return this.exclusive(() => this.drain(this.clock.nowMs()));
  }

  /** Moves the clock by `seconds` and runs everything that falls due on the way, in time order. */
  advanceBy(seconds: number): Promise<void> {
    return this.exclusive(async () => {
      const target = this.clock.nowMs() + Math.round(seconds * 1000);
      await this.drain(target);
      this.clock.moveTo(target);
    });
  }

  /** Waits for the runner to be idle (used by close). */
  idle(): Promise<void> {
    return this.exclusive(async () => {});
  }

  private exclusive(work: () => Promise<void>): Promise<void> {
    const next = this.running.then(work, work);
    this.running = next.catch(() => {});
    return next;
  }

  private async drain(until: number): Promise<void> {
    const generation = this.generation;
    for (;;) {
      if (generation !== this.generation) return;
      const job = this.takeNext(until);
      if (!job) return;
      this.clock.moveTo(job.dueAt);
      try {
        await job.run();
      } catch (err) {
        this.onError(job.label, err);
      }
    }
  }

  private takeNext(until: number): Job | undefined {
    let best = -1;
    for (let i = 0; i < this.jobs.length; i++) {
      const job = this.jobs[i]!;
      if (job.dueAt > until) continue;
      if (best < 0 || byDue(job, this.jobs[best]!) < 0) best = i;
    }
    if (best < 0) return undefined;
    return this.jobs.splice(best, 1)[0];
  }
}

function byDue(a: Job, b: Job): number {
  return a.dueAt - b.dueAt || a.seq - b.seq;
}
