// The benchmarks' load on a thread of its own: the requests are built before the clock starts and
// sent from a worker thread with its own event loop and heap, so neither the request building nor
// the benchmark's other work (its fake Slack, its bookkeeping, its garbage collection) delays a
// request and shows up as the server's latency. The worker is bench/load-worker.ts, compiled as the
// app is (plain JavaScript, no loader).
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

import { build } from 'esbuild';

import { REPO_ROOT } from '../test/chaos/app-process.js';
import type { ClosedLoopResult, FixedRateRequest, FixedRateResult } from './load.js';

export type LoadJob =
  | { kind: 'open'; origin: string; rate: number; seconds: number; connections: number; requests: FixedRateRequest[] }
  | { kind: 'closed'; origin: string; inFlight: number; seconds: number; requests: FixedRateRequest[] };

export interface LoadThread {
  open(job: Omit<Extract<LoadJob, { kind: 'open' }>, 'kind'>): Promise<FixedRateResult>;
  /** Requests are reused from the start when the loop sends more than were built. */
  closed(job: Omit<Extract<LoadJob, { kind: 'closed' }>, 'kind'>): Promise<ClosedLoopResult>;
  stop(): Promise<void>;
}

export async function startLoadThread(): Promise<LoadThread> {
  const outfile = join(REPO_ROOT, 'dist', 'bench', 'load-worker.js');
  await build({
    entryPoints: [join(REPO_ROOT, 'bench', 'load-worker.ts')],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  const worker = new Worker(outfile);
  let failure: Error | undefined;
  worker.on('error', (error) => {
    failure = error;
  });
  // One job at a time: each answer belongs to the job posted before it.
  const run = <T>(job: LoadJob): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (failure) return reject(failure);
      const onError = (error: Error) => reject(error);
      worker.once('error', onError);
      worker.once('message', (answer: { ok: true; value: T } | { ok: false; message: string }) => {
        worker.off('error', onError);
        if (answer.ok) resolve(answer.value);
        else reject(new Error(`load thread: ${answer.message}`));
      });
      worker.postMessage(job);
    });
  return {
    open: (job) => run<FixedRateResult>({ kind: 'open', ...job }),
    closed: (job) => run<ClosedLoopResult>({ kind: 'closed', ...job }),
    stop: async () => {
      await worker.terminate();
    },
  };
}
