// Client overhead: the typed Rewards client (token cache, rate-limit budget, zod validation,
// error mapping) against a plain undici request to the same emulator endpoint, same run.
import { Pool } from 'undici';

import { startEmulator } from '../src/emulator/server.js';
import { createRewardsClient } from '../src/rewards/index.js';
import type { BenchRow } from './report.js';
import { round, summarize } from './stats.js';

const CALLS = 2_000;
const WARMUP = 200;

async function timeSequential(calls: number, fn: () => Promise<void>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < calls; i++) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  return samples;
}

export async function benchClientOverhead(): Promise<BenchRow[]> {
  // A limit the benchmark cannot reach, so neither side is slowed by the emulator's rate limit.
  const emulator = await startEmulator({ env: { EMULATOR_RATE_LIMIT: '100000000', EMULATOR_RATE_WINDOW_S: '10' } });
  const client = createRewardsClient({
    baseUrl: emulator.url,
    clientId: 'production-client',
    clientSecret: 'production-secret',
  });
  const tokenResponse = await fetch(`${emulator.url}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: 'production-client',
      client_secret: 'production-secret',
      scope: 'balance.read catalog.read',
    }),
  });
  const { access_token: token } = (await tokenResponse.json()) as { access_token: string };
  const pool = new Pool(emulator.url, { connections: 10 });
  const plain = async () => {
    const response = await pool.request({
      method: 'GET',
      path: '/api/v1/balance',
      headers: { authorization: `Bearer ${token}` },
    });
    await response.body.json();
  };
  const typed = async () => {
    await client.balance.get();
  };
  try {
    await timeSequential(WARMUP, plain);
    await timeSequential(WARMUP, typed);
    // Interleave the two so that machine noise hits both alike.
    const plainSamples: number[] = [];
    const typedSamples: number[] = [];
    for (let round_ = 0; round_ < 4; round_++) {
      plainSamples.push(...(await timeSequential(CALLS / 4, plain)));
      typedSamples.push(...(await timeSequential(CALLS / 4, typed)));
    }
    const p = summarize(plainSamples);
    const t = summarize(typedSamples);
    const section = 'client overhead (GET balance)';
    return [
      {
        section,
        metric: 'mean latency per call',
        value: round(t.mean, 3),
        unit: 'ms',
        baseline: round(p.mean, 3),
        baselineName: 'plain undici',
      },
      {
        section,
        metric: 'p50 latency per call',
        value: round(t.p50, 3),
        unit: 'ms',
        baseline: round(p.p50, 3),
        baselineName: 'plain undici',
      },
      {
        section,
        metric: 'p99 latency per call',
        value: round(t.p99, 3),
        unit: 'ms',
        baseline: round(p.p99, 3),
        baselineName: 'plain undici',
      },
      { section, metric: 'overhead per call (p50 difference)', value: round((t.p50 - p.p50) * 1000, 1), unit: 'µs' },
    ];
  } finally {
    await pool.close();
    await emulator.close();
  }
}
