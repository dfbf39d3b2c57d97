// Load for the benchmarks. Open loop at a fixed offered rate: request i is due at start + i/rate and
// its latency is counted from that due time, so a slow server cannot hide its queueing (no coordinated
// omission). Closed loop: a fixed number of requests in flight, answers per second.
import { Pool } from 'undici';

import { type LatencySummary, summarize } from './stats.js';

export interface FixedRateRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface FixedRateResult extends LatencySummary {
  offeredRate: number;
  seconds: number;
  ok: number;
  failed: number;
  achievedRate: number;
  /** Every latency, ms (to pool several runs before taking percentiles). */
  samples: number[];
  /** How late each request left the load generator, ms: its own delays, counted in the latencies. */
  sendLag: number[];
}

export async function runFixedRate(options: {
  origin: string;
  rate: number;
  seconds: number;
  makeRequest: (i: number) => FixedRateRequest;
  connections?: number;
}): Promise<FixedRateResult> {
  const pool = new Pool(options.origin, { connections: options.connections ?? 64, pipelining: 1 });
  const total = Math.round(options.rate * options.seconds);
  const latencies: number[] = [];
  const sendLag: number[] = [];
  let ok = 0;
  let failed = 0;
  const inFlight: Promise<void>[] = [];
  const start = performance.now();
  try {
    for (let i = 0; i < total; i++) {
      const due = start + (i * 1000) / options.rate;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      const request = options.makeRequest(i);
      sendLag.push(Math.max(0, performance.now() - due));
      inFlight.push(
        pool
          .request({ method: 'POST', path: request.path, headers: request.headers, body: request.body })
          .then(async (response) => {
            await response.body.dump();
            latencies.push(performance.now() - due);
            if (response.statusCode < 300) ok++;
            else failed++;
          })
          .catch(() => {
            failed++;
          }),
      );
    }
    await Promise.all(inFlight);
  } finally {
    await pool.close();
  }
  const elapsed = (performance.now() - start) / 1000;
  return {
    ...summarize(latencies),
    offeredRate: options.rate,
    seconds: options.seconds,
    ok,
    failed,
    achievedRate: ok / elapsed,
    samples: latencies,
    sendLag,
  };
}

export interface ClosedLoopResult {
  perSecond: number;
  ok: number;
  failed: number;
}

/** `inFlight` requests at a time for `seconds` (or until `total` were sent): answers (2xx) per second. */
export async function runClosedLoop(options: {
  origin: string;
  inFlight: number;
  seconds: number;
  total?: number;
  makeRequest: (i: number) => FixedRateRequest;
}): Promise<ClosedLoopResult> {
  const pool = new Pool(options.origin, { connections: options.inFlight, pipelining: 1 });
  let ok = 0;
  let failed = 0;
  let next = 0;
  const start = performance.now();
  const until = start + options.seconds * 1000;
  try {
    await Promise.all(
      Array.from({ length: options.inFlight }, async () => {
        while (performance.now() < until && next < (options.total ?? Infinity)) {
          const request = options.makeRequest(next++);
          try {
            const response = await pool.request({
              method: 'POST',
              path: request.path,
              headers: request.headers,
              body: request.body,
            });
            await response.body.dump();
            if (response.statusCode < 300) ok++;
            else failed++;
          } catch {
            failed++;
          }
        }
      }),
    );
  } finally {
    await pool.close();
  }
  return { perSecond: ok / ((performance.now() - start) / 1000), ok, failed };
}
