// Open-loop load at a fixed offered rate over any async call (e.g. the simulator's signed slash
// command): call i is due at start + i/rate and its latency counts from that due time, so a slow
// server cannot hide its queueing (no coordinated omission). See load.ts for raw HTTP requests.
import { monitorEventLoopDelay } from 'node:perf_hooks';

import { type LatencySummary, summarize } from './stats.js';

export interface OpenLoopResult extends LatencySummary {
  offeredRate: number;
  seconds: number;
  ok: number;
  failed: number;
  /**
   * The longest the load generator's own event loop was blocked during the run (GC, the simulator
   * answering in the same process), ms: a latency spike of about this size is the generator's, not
   * the server's.
   */
  generatorStallMaxMs: number;
}

export async function runOpenLoop(options: {
  rate: number;
  seconds: number;
  call: (i: number) => Promise<boolean>;
}): Promise<OpenLoopResult> {
  const total = Math.round(options.rate * options.seconds);
  const latencies: number[] = [];
  let ok = 0;
  let failed = 0;
  const inFlight: Promise<void>[] = [];
  const stalls = monitorEventLoopDelay({ resolution: 10 });
  stalls.enable();
  const start = performance.now();
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / options.rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    inFlight.push(
      options.call(i).then(
        (success) => {
          latencies.push(performance.now() - due);
          if (success) ok++;
          else failed++;
        },
        () => {
          latencies.push(performance.now() - due);
          failed++;
        },
      ),
    );
  }
  await Promise.all(inFlight);
  stalls.disable();
  return {
    ...summarize(latencies),
    offeredRate: options.rate,
    seconds: options.seconds,
    ok,
    failed,
    generatorStallMaxMs: stalls.max / 1e6,
  };
}

/** Runs `fn` over `items` with at most `concurrency` in flight. */
export async function mapLimit<T, R>(
  items: T[],
  concurrency: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!, i);
    }
  });
  await Promise.all(workers);
  return results;
}
