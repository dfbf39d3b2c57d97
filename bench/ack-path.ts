// The `/kudos` acknowledgement path beside a minimal Bolt app doing the same (bench/minimal-bolt-app.ts:
// Bolt's receiver, ack, views.open), in the same run, once per database (PGlite; PostgreSQL too when
// DATABASE_URL is set). The app runs as production does (`npm start`'s build and flags) in
// distribution mode with one workspace installed through the installationStore and its Rewards
// account connected, so `/kudos` takes the whole path of a real request: signature, authorize (the
// installation), the connection check, users.info, the settings and views.open of the send form.
// Both talk to the same fake Slack Web API on 127.0.0.1, which answers at once and counts each one's
// views.open by token: a figure counts only if every acked request opened its modal.
// - throughput: 20 requests in flight (closed loop) for a few seconds; acks per second;
// - latency: 500 requests a second offered (open loop, counted from each request's due time); p99.
// The two take turns, phase by phase, for a few rounds (the machine's noise falls on both alike);
// latencies are pooled over the rounds. The load comes from a thread of its own with its requests
// built beforehand (bench/load-thread.ts); how late that thread itself sent is shown beside the p99s. Goals: throughput at least the minimal app's, p99 at most 10 ms.
// `npm run bench -- ack` runs only this section (`--quick`: shorter; `--db`).
// BENCH_APP_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof": profile the app under this load.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import { build } from 'esbuild';

import { migrateDatabase } from '../src/db/migrate.js';
import { createRewardsConnectionStore } from '../src/domain/accounts/rewards-connections.js';
import { generateKey, parseKeyRing } from '../src/secrets/key-ring.js';
import { formEncode, signedHeaders } from '../src/simulator/signing.js';
import { createInstallationStore } from '../src/slack/install/installation-store.js';
import {
  type AppProcess,
  ensureBuilt,
  REPO_ROOT,
  START_NODE_FLAGS,
  startAppProcess,
} from '../test/chaos/app-process.js';
import { type BenchDatabase, createBenchDatabase, databasesToRun } from './databases.js';
import type { FixedRateRequest } from './load.js';
import { type LoadThread, startLoadThread } from './load-thread.js';
import { readCpuMs } from './memory.js';
import type { BenchRow } from './report.js';
import { round, summarize } from './stats.js';

const quick = process.argv.includes('--quick');
const ROUNDS = quick ? 2 : 4;
const IN_FLIGHT = 20;
const THROUGHPUT_SECONDS = quick ? 3 : 5;
/** Built per closed-loop phase (reused from the start past 4,000 answers a second). */
const CLOSED_LOOP_REQUESTS = 4000 * THROUGHPUT_SECONDS;
const RATE = 500;
const RATE_SECONDS = quick ? 3 : 5;
const P99_GOAL_MS = 10;
const SIGNING_SECRET = 'bench-ack-path-signing-secret';
const ENCRYPTION_KEY = generateKey('bench');
const TEAM = 'TACK0001';
const USERS = 500;
const MINIMAL_TOKEN = 'xoxb-minimal-bolt-app';

interface FakeSlack {
  url: string;
  /** views.open calls answered, by the token they carried. */
  opened(token: string): number;
  close(): Promise<void>;
}

/** Slack's Web API answering every call at once (ok), counting views.open per token. */
async function startFakeSlack(): Promise<FakeSlack> {
  const opened = new Map<string, number>();
  let views = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const method = (req.url ?? '').split('/').pop()?.split('?')[0] ?? '';
      const token = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
      let body: Record<string, unknown> = { ok: true };
      if (method === 'views.open') {
        opened.set(token, (opened.get(token) ?? 0) + 1);
        body = { ok: true, view: { id: `V${++views}` } };
      } else if (method === 'users.info') {
        body = {
          ok: true,
          user: { id: 'U_BENCH', name: 'bench', tz: 'America/New_York', is_admin: false, profile: {} },
        };
      } else if (method === 'auth.test') {
        body = {
          ok: true,
          url: 'https://bench.slack.com/',
          team: 'Bench',
          user: 'kudos',
          team_id: TEAM,
          user_id: 'U_BOT',
          bot_id: 'B_BOT',
        };
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`,
    opened: (token) => opened.get(token) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One workspace installed through the installationStore, its Rewards account connected: the bot token. */
async function installWorkspace(db: BenchDatabase): Promise<string> {
  const conn = await db.connect();
  try {
    await migrateDatabase(conn);
    const keyRing = parseKeyRing(ENCRYPTION_KEY);
    const token = `xoxb-ack-${randomBytes(12).toString('hex')}`;
    await createInstallationStore({ db: conn.db, keyRing, retentionDays: 30 }).storeInstallation({
      team: { id: TEAM, name: 'Bench' },
      enterprise: undefined,
      user: { id: 'U_INSTALLER', token: undefined, scopes: undefined },
      bot: { token, scopes: ['commands', 'chat:write'], id: 'B_BOT', userId: 'U_BOT' },
      appId: 'A_BENCH',
      isEnterpriseInstall: false,
      authVersion: 'v2',
      tokenType: 'bot',
    });
    await createRewardsConnectionStore({ db: conn.db, keyRing }).save(
      { teamId: TEAM },
      { clientId: 'bench-client', clientSecret: 'bench-secret', webhookSecret: 'bench-webhook-secret' },
      'U_INSTALLER',
    );
    return token;
  } finally {
    await conn.close();
  }
}

/** The minimal Bolt app, compiled as the app is (esbuild, one module) into dist/ so that it finds node_modules. */
async function buildMinimalApp(): Promise<string> {
  // After the app's build, which removes from dist/ what src/ does not hold.
  await ensureBuilt();
  const outfile = join(REPO_ROOT, 'dist', 'bench', 'minimal-bolt-app.js');
  await build({
    entryPoints: [join(REPO_ROOT, 'bench', 'minimal-bolt-app.ts')],
    outfile,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
  return outfile;
}

interface Side {
  name: string;
  app: AppProcess;
  token: string;
  acked: number;
  request(i: number): FixedRateRequest;
}

function slashRequest(i: number, responseBase: string): FixedRateRequest {
  const body = formEncode({
    token: 'bench',
    team_id: TEAM,
    team_domain: 'bench',
    channel_id: 'C_GENERAL',
    channel_name: 'general',
    user_id: `U_ACK${String(i % USERS).padStart(4, '0')}`,
    user_name: 'bench',
    command: '/kudos',
    text: '',
    api_app_id: 'A_BENCH',
    is_enterprise_install: 'false',
    response_url: `${responseBase}/response/${i}`,
    trigger_id: `${i}.${randomBytes(6).toString('hex')}`,
  });
  return {
    path: '/slack/events',
    headers: signedHeaders(SIGNING_SECRET, body, 'application/x-www-form-urlencoded', Date.now() / 1000),
    body,
  };
}

/** Requests for one phase, built before its clock starts; `first` keeps trigger ids distinct across phases. */
function phaseRequests(side: Side, first: number, count: number): FixedRateRequest[] {
  return Array.from({ length: count }, (_, i) => side.request(first + i));
}

/** Until every acked request of `side` has opened its modal (at most 10 s): how many did not. */
async function modalsMissing(side: Side, slack: FakeSlack): Promise<number> {
  const until = Date.now() + 10_000;
  while (slack.opened(side.token) < side.acked && Date.now() < until)
    await new Promise((resolve) => setTimeout(resolve, 50));
  // Work after the last acks ends before the other side's turn.
  await new Promise((resolve) => setTimeout(resolve, 300));
  return side.acked - slack.opened(side.token);
}

async function benchOnDatabase(
  db: BenchDatabase,
  slack: FakeSlack,
  load: LoadThread,
  minimalScript: string,
): Promise<BenchRow[]> {
  let sent = 0;
  const tag = `(${db.kind})`;
  const section = `/kudos ack path ${tag}`;
  const baselineName = 'minimal Bolt app: ack + views.open';
  const appToken = await installWorkspace(db);
  const responseBase = slack.url.replace(/\/api\/$/, '');
  const nodeArgs = process.env.BENCH_APP_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const app = await startAppProcess(
    {
      PORT: '0',
      METRICS_PORT: '0',
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_CLIENT_ID: '1000.2000',
      SLACK_CLIENT_SECRET: 'bench-client-secret',
      SLACK_STATE_SECRET: 'bench-state-secret',
      KUDOS_ENCRYPTION_KEY: ENCRYPTION_KEY,
      SLACK_API_URL: slack.url,
      // No request of this benchmark reaches the Rewards API (the send form needs none of it).
      REWARDS_API_URL: 'http://127.0.0.1:9',
      LOG_LEVEL: 'info',
      ...db.env,
    },
    { quietAfterStart: true, nodeArgs },
  );
  const minimal = await startAppProcess(
    { SLACK_SIGNING_SECRET: SIGNING_SECRET, SLACK_BOT_TOKEN: MINIMAL_TOKEN, SLACK_API_URL: slack.url },
    { script: minimalScript, quietAfterStart: true, nodeArgs: START_NODE_FLAGS },
  );
  const sides: Side[] = [
    { name: 'app', app, token: appToken, acked: 0, request: (i) => slashRequest(i, responseBase) },
    { name: 'minimal', app: minimal, token: MINIMAL_TOKEN, acked: 0, request: (i) => slashRequest(i, responseBase) },
  ];
  const [appSide, minimalSide] = sides as [Side, Side];
  const throughput = new Map<Side, { ok: number; seconds: number; failed: number }>(
    sides.map((s) => [s, { ok: 0, seconds: 0, failed: 0 }]),
  );
  const latencies = new Map<Side, number[]>(sides.map((s) => [s, []]));
  const sendLag = new Map<Side, number[]>(sides.map((s) => [s, []]));
  const failedAtRate = new Map<Side, number>(sides.map((s) => [s, 0]));
  const missing = new Map<Side, number>(sides.map((s) => [s, 0]));
  const cpuMs = new Map<Side, { ms: number; requests: number }>(sides.map((s) => [s, { ms: 0, requests: 0 }]));
  try {
    // Warm-up (JIT, the installation, the users' Slack profiles), not measured.
    for (const side of sides) {
      const warm = await load.closed({
        origin: side.app.url,
        inFlight: IN_FLIGHT,
        seconds: 2,
        requests: phaseRequests(side, sent, CLOSED_LOOP_REQUESTS),
      });
      sent += CLOSED_LOOP_REQUESTS;
      side.acked += warm.ok;
      await modalsMissing(side, slack);
      side.acked = slack.opened(side.token);
    }
    for (let r = 0; r < ROUNDS; r++) {
      // Each round starts with the other side.
      const order = r % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order) {
        const cpuBefore = readCpuMs(side.app.pid) ?? 0;
        const t = await load.closed({
          origin: side.app.url,
          inFlight: IN_FLIGHT,
          seconds: THROUGHPUT_SECONDS,
          requests: phaseRequests(side, sent, CLOSED_LOOP_REQUESTS),
        });
        sent += CLOSED_LOOP_REQUESTS;
        side.acked += t.ok;
        const acc = throughput.get(side)!;
        acc.ok += t.ok;
        acc.failed += t.failed;
        acc.seconds += t.ok / Math.max(t.perSecond, 1e-9);
        missing.set(side, missing.get(side)! + (await modalsMissing(side, slack)));
        side.acked = slack.opened(side.token);
        const cpu = cpuMs.get(side)!;
        cpu.ms += (readCpuMs(side.app.pid) ?? 0) - cpuBefore;
        cpu.requests += t.ok;
      }
      for (const side of order) {
        const o = await load.open({
          origin: side.app.url,
          rate: RATE,
          seconds: RATE_SECONDS,
          connections: 64,
          requests: phaseRequests(side, sent, RATE * RATE_SECONDS),
        });
        sent += RATE * RATE_SECONDS;
        side.acked += o.ok;
        latencies.get(side)!.push(...o.samples);
        sendLag.get(side)!.push(...o.sendLag);
        failedAtRate.set(side, failedAtRate.get(side)! + o.failed);
        missing.set(side, missing.get(side)! + (await modalsMissing(side, slack)));
        side.acked = slack.opened(side.token);
        console.error(
          `bench: ack path ${tag} round ${r + 1} ${side.name}: ${round(t0(throughput.get(side)!), 0)}/s so far; at ${RATE}/s p50 ${round(o.p50, 1)} p99 ${round(o.p99, 1)} max ${round(o.max, 1)} failed ${o.failed}; sent late: p99 ${round(summarize(o.sendLag).p99, 1)}`,
        );
      }
    }
  } finally {
    for (const side of sides) side.app.kill('SIGTERM');
    await Promise.all(sides.map((side) => side.app.exited));
  }
  const rate = (side: Side) => t0(throughput.get(side)!);
  const appRate = rate(appSide);
  const baseRate = rate(minimalSide);
  const appLat = summarize(latencies.get(appSide)!);
  const baseLat = summarize(latencies.get(minimalSide)!);
  const allOpened = missing.get(appSide) === 0 && missing.get(minimalSide) === 0;
  const noFailures = throughput.get(appSide)!.failed + failedAtRate.get(appSide)! === 0;
  const ratio = appRate / baseRate;
  const cpu = (side: Side) => cpuMs.get(side)!.ms / Math.max(1, cpuMs.get(side)!.requests);
  return [
    {
      section,
      metric: `throughput, ${IN_FLIGHT} in flight (ratio ${round(ratio, 2)}x)`,
      value: round(appRate, 0),
      unit: 'acks/s',
      baseline: round(baseRate, 0),
      baselineName,
      target: '>= 1.0x',
      meetsTarget: ratio >= 1 && allOpened && noFailures,
    },
    {
      section,
      metric: `p50 at ${RATE} req/s`,
      value: round(appLat.p50, 1),
      unit: 'ms',
      baseline: round(baseLat.p50, 1),
      baselineName,
    },
    {
      section,
      metric: `p99 at ${RATE} req/s`,
      value: round(appLat.p99, 1),
      unit: 'ms',
      baseline: round(baseLat.p99, 1),
      baselineName,
      target: `<= ${P99_GOAL_MS} ms`,
      meetsTarget: appLat.p99 <= P99_GOAL_MS && allOpened && noFailures,
    },
    // The floor under both p99s: how late the load thread itself sent (counted in the latencies above).
    {
      section,
      metric: `load thread's own lateness, p99 at ${RATE} req/s`,
      value: round(summarize(sendLag.get(appSide)!).p99, 1),
      unit: 'ms',
      baseline: round(summarize(sendLag.get(minimalSide)!).p99, 1),
      baselineName,
    },
    {
      section,
      metric: `failed requests (all phases)`,
      value: throughput.get(appSide)!.failed + failedAtRate.get(appSide)!,
      unit: 'req',
      baseline: throughput.get(minimalSide)!.failed + failedAtRate.get(minimalSide)!,
      baselineName,
    },
    // Every acked request must have opened its modal, or the acks were bought by skipping the work.
    {
      section,
      metric: 'acked requests whose modal did not open',
      value: missing.get(appSide)!,
      unit: 'req',
      baseline: missing.get(minimalSide)!,
      baselineName,
      target: '0',
      meetsTarget: allOpened,
    },
    {
      section,
      metric: 'CPU per /kudos (closed loop, views.open included)',
      value: round(cpu(appSide), 2),
      unit: 'ms',
      baseline: round(cpu(minimalSide), 2),
      baselineName,
    },
  ];
}

function t0(acc: { ok: number; seconds: number }): number {
  return acc.seconds > 0 ? acc.ok / acc.seconds : 0;
}

export async function benchAckPath(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const slack = await startFakeSlack();
  const minimalScript = await buildMinimalApp();
  const load = await startLoadThread();
  try {
    for (const kind of databasesToRun()) {
      const db = await createBenchDatabase(kind);
      try {
        rows.push(...(await benchOnDatabase(db, slack, load, minimalScript)));
      } finally {
        await db.dispose();
      }
    }
  } finally {
    await load.stop();
    await slack.close();
  }
  return rows;
}
