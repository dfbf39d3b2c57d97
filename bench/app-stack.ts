// Everything the app benchmarks run against: the Rewards emulator (behind a recording proxy), the
// Slack simulator (seeded workspace plus `extraUsers` people with e-mails) and the app itself as
// production runs it (`npm start`: the compiled dist/main.js, built once per run) in a child process
// (so its memory is its own), on one benchmark database.
import { type RunningEmulator, startEmulator } from '../src/emulator/server.js';
import { seedWorkspace, type Workspace } from '../src/simulator/seed.js';
import { type SlackSimulator, startSlackSimulator } from '../src/simulator/slack.js';
import { appEnv, type AppProcess, startAppProcess } from '../test/chaos/app-process.js';
import type { BenchDatabase } from './databases.js';
import { type RewardsProxy, startRewardsProxy } from './rewards-proxy.js';

export const BENCH_SIGNING_SECRET = 'bench-signing-secret';
export const NOTIFY_CHANNEL = 'C_KUDOS';

export interface AppStack {
  emulator: RunningEmulator;
  proxy: RewardsProxy;
  sim: SlackSimulator;
  app: AppProcess;
  /** Stops the app with SIGTERM (graceful) and everything else. */
  close(): Promise<void>;
}

export function benchUserId(i: number): string {
  return `U_BENCH${String(i).padStart(4, '0')}`;
}

export function benchWorkspace(extraUsers: number): Workspace {
  const ws = seedWorkspace();
  for (let i = 0; i < extraUsers; i++) {
    ws.users.push({
      id: benchUserId(i),
      name: `bench${i}`,
      realName: `Bench Person${i}`,
      displayName: `Bench${i}`,
      email: `bench-${i}@example.com`,
      tz: 'America/New_York',
      isAdmin: false,
      isOwner: false,
      isBot: false,
      deleted: false,
      role: 'benchmark user',
    });
  }
  return ws;
}

async function control(emulatorUrl: string, path: string, body: unknown): Promise<void> {
  const res = await fetch(`${emulatorUrl}/_emulator${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`emulator ${path}: ${res.status} ${await res.text()}`);
}

/** Slack's rate limits times this in the throughput benchmarks (simulator and app alike). */
export const BENCH_SLACK_RATE_SCALE = 1000;

export async function startAppStack(
  db: BenchDatabase,
  opts: {
    extraUsers: number;
    env?: Record<string, string>;
    nodeArgs?: string[];
    /** Instead of the build, e.g. `src/main.ts` (through tsx). */
    script?: string;
    /** The app also holds a Socket Mode connection to the simulator (SLACK_APP_TOKEN beside the signing secret). */
    socketMode?: boolean;
  },
): Promise<AppStack> {
  // The real API allows 1000 requests per 10 s; the benchmark measures the app, not that limit
  // (docs/operations.md discusses what it means for throughput), so the emulator's is lifted.
  const emulator = await startEmulator({
    port: 0,
    host: '127.0.0.1',
    env: { EMULATOR_RATE_LIMIT: '100000000', EMULATOR_RATE_WINDOW_S: '10' },
  });
  await control(emulator.url, '/balance', { amount: 10_000_000, environment: 'production' });
  await control(emulator.url, '/limits', {
    dailyLimitUsd: 10_000_000,
    monthlyLimitUsd: 100_000_000,
    environment: 'production',
  });
  const proxy = await startRewardsProxy(emulator.url);
  // Slack's limits would hold the announcements of 1,000 sends in one channel to one a second; this
  // benchmark measures the app, so the simulator's and the app's pacing are raised alike, out of the way.
  const sim = await startSlackSimulator({
    signingSecret: BENCH_SIGNING_SECRET,
    workspace: benchWorkspace(opts.extraUsers),
    socketMode: opts.socketMode ?? false,
    rateLimits: { scale: BENCH_SLACK_RATE_SCALE },
  });
  const env = appEnv({
    emulatorUrl: proxy.url,
    slackApiUrl: sim.apiUrl,
    botToken: sim.botToken,
    signingSecret: BENCH_SIGNING_SECRET,
    ...(db.env.DATABASE_URL ? { databaseUrl: db.env.DATABASE_URL } : { pgliteDir: db.env.PGLITE_DIR! }),
    extra: {
      KUDOS_NOTIFY_CHANNEL: NOTIFY_CHANNEL,
      KUDOS_SLACK_RATE_SCALE: String(BENCH_SLACK_RATE_SCALE),
      ...(opts.socketMode ? { SLACK_APP_TOKEN: sim.socketMode.appToken } : {}),
      ...opts.env,
    },
  });
  const app = await startAppProcess(env, {
    quietAfterStart: true,
    ...(opts.nodeArgs ? { nodeArgs: opts.nodeArgs } : {}),
    ...(opts.script ? { script: opts.script } : {}),
  });
  sim.setAppUrl(app.url);
  if (opts.socketMode) await sim.socketMode.waitForConnections(1, 30_000);
  return {
    emulator,
    proxy,
    sim,
    app,
    async close() {
      app.kill('SIGTERM');
      await app.exited;
      await sim.close();
      await proxy.close();
      await emulator.close();
    },
  };
}
