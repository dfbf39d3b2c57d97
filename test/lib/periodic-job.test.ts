import { afterEach, describe, expect, it, vi } from 'vitest';

import { createPeriodicJob } from '../../src/lib/periodic-job.js';

const quiet = { warn: vi.fn(), error: vi.fn() };

describe('createPeriodicJob', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.clearAllMocks();
  });

  it('steps on the grid start() lays down, skipping the ticks that fall in a step', async () => {
    vi.useFakeTimers();
    const starts: number[] = [];
    const job = createPeriodicJob({
      name: 'pass',
      logger: quiet,
      periodMs: 1000,
      step: async () => {
        starts.push(Date.now());
        await new Promise((resolve) => setTimeout(resolve, 1500));
      },
    });
    const t0 = Date.now();
    job.start();
    await vi.advanceTimersByTimeAsync(5000);
    const stopping = job.stop(); // waits for the step started at 5000
    await vi.advanceTimersByTimeAsync(1500);
    await stopping;
    expect(starts.map((t) => t - t0)).toEqual([1000, 3000, 5000]);
  });

  it('runs at start() with firstDelayMs 0, and paces after each step with after-step', async () => {
    vi.useFakeTimers();
    const starts: number[] = [];
    const job = createPeriodicJob({
      name: 'poll',
      logger: quiet,
      cadence: 'after-step',
      periodMs: 1000,
      firstDelayMs: 0,
      step: async () => {
        starts.push(Date.now());
        await new Promise((resolve) => setTimeout(resolve, 500));
      },
    });
    const t0 = Date.now();
    job.start();
    expect(starts).toEqual([t0]);
    await vi.advanceTimersByTimeAsync(3000);
    const stopping = job.stop();
    await vi.advanceTimersByTimeAsync(500);
    await stopping;
    expect(starts.map((t) => t - t0)).toEqual([0, 1500, 3000]);
  });

  it('goes on at once after a step that did work, and wake() ends a pause', async () => {
    vi.useFakeTimers();
    let work = 3;
    let steps = 0;
    const job = createPeriodicJob({
      name: 'worker',
      logger: quiet,
      cadence: 'after-step',
      periodMs: 60_000,
      firstDelayMs: 0,
      next: (didWork) => (didWork ? 'again' : 60_000),
      step: async () => {
        steps++;
        return work-- > 0;
      },
    });
    job.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(steps).toBe(4);
    job.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(steps).toBe(5);
    await job.stop();
  });

  it('wake(withinMs) ends a pause that soon, never later, and is kept for a worker in its step', async () => {
    vi.useFakeTimers();
    const starts: number[] = [];
    let release: (() => void) | undefined;
    const job = createPeriodicJob({
      name: 'poller',
      logger: quiet,
      cadence: 'after-step',
      periodMs: 10_000,
      step: async () => {
        starts.push(Date.now());
        if (starts.length === 1) await new Promise<void>((resolve) => (release = resolve));
      },
    });
    const t0 = Date.now();
    job.start();
    await vi.advanceTimersByTimeAsync(2000);
    job.wake(1000); // the pause ends at 3000 instead of 10_000
    await vi.advanceTimersByTimeAsync(500);
    job.wake(5000); // would end it later: no change
    await vi.advanceTimersByTimeAsync(500);
    expect(starts.map((t) => t - t0)).toEqual([3000]);
    job.wake(1000); // during the step: the pause after it ends by 4000
    await vi.advanceTimersByTimeAsync(500);
    release?.();
    await vi.advanceTimersByTimeAsync(500);
    expect(starts.map((t) => t - t0)).toEqual([3000, 4000]);
    await vi.advanceTimersByTimeAsync(9999);
    expect(starts).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(starts).toHaveLength(3);
    await job.stop();
  });

  it('logs a failed step and goes on; runOnce() answers with the step itself', async () => {
    vi.useFakeTimers();
    let fail = true;
    const job = createPeriodicJob({
      name: 'sweep',
      logger: quiet,
      failureLevel: 'warn',
      periodMs: 1000,
      step: async () => {
        if (fail) throw new Error('down');
        return 'done';
      },
    });
    job.start();
    await vi.advanceTimersByTimeAsync(1000);
    expect(quiet.warn).toHaveBeenCalledWith('sweep failed', { error: new Error('down') });
    await expect(job.runOnce()).rejects.toThrow('down');
    fail = false;
    await expect(job.runOnce()).resolves.toBe('done');
    expect(quiet.warn).toHaveBeenCalledOnce();
    await job.stop();
  });

  it('stop() waits for the step in progress, and aborts it past the grace', async () => {
    vi.useFakeTimers();
    let aborted = false;
    const job = createPeriodicJob({
      name: 'claims',
      logger: quiet,
      quietWhenStopping: true,
      periodMs: 1000,
      firstDelayMs: 0,
      step: ({ signal }) =>
        new Promise<void>((_, reject) =>
          signal.addEventListener('abort', () => {
            aborted = true;
            reject(new Error('aborted'));
          }),
        ),
    });
    job.start();
    let stopped = false;
    const stopping = job.stop(2000).then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(1999);
    expect(stopped).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await stopping;
    expect(aborted).toBe(true);
    expect(quiet.error).not.toHaveBeenCalled();
  });
});
