// Worker-thread entry of bench/load-thread.ts: runs one load job at a time on requests built by the
// benchmark and posts back its result.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parentPort } from 'node:worker_threads';

import { runClosedLoop, runFixedRate } from './load.js';
import type { LoadJob } from './load-thread.js';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

parentPort?.on('message', (job: LoadJob) => {
  collectGarbage();
  const request = (i: number) => job.requests[i % job.requests.length]!;
  const result =
    job.kind === 'open'
      ? runFixedRate({
          origin: job.origin,
          rate: job.rate,
          seconds: job.seconds,
          connections: job.connections,
          makeRequest: request,
        })
      : runClosedLoop({ origin: job.origin, inFlight: job.inFlight, seconds: job.seconds, makeRequest: request });
  result.then(
    (value) => parentPort?.postMessage({ ok: true, value }),
    (error: unknown) => parentPort?.postMessage({ ok: false, message: String(error) }),
  );
});
