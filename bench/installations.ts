// Many installations: the app in distribution mode with 1, 1,000 and 10,000 installations
// stored (sealed tokens: the first written by the installationStore, the rest rows of the same shape), `/kudos` acks signed by the
// benchmark and spread over the workspaces as production traffic would be (most requests from a hot
// 5% of workspaces, the rest from any workspace, so the authorize cache is mostly warm and sometimes
// cold), at a fixed offered rate (open loop). Every figure is beside the 1-installation figure of the
// same run. Memory: the app's RSS after the load, then after a full GC (asked for over the inspector
// protocol), and the V8 heap used after that GC; "per workspace" is the growth over 1 installation
// divided by the workspaces installed (each one sent a request first, so that every per-workspace
// cache holds as much as its bound lets it).
// The workspaces have no Rewards account connected: `/kudos` acks and then opens the "not connected"
// modal with the workspace's token (views.open), so the request path is the installation lookup,
// the connection lookup and the gateway, with no Rewards API involved.
// Before anything is measured every app has finished its warm-up's work (its CPU has gone quiet),
// then all sit idle for a while (the CPU of their background passes alone, a figure of its own), then
// the measured rounds, in which the sizes take turns (each round starts with the next one).
// `npm run bench -- installations` (`--quick`: 1 and 1,000 installations, shorter phases; `--db`).
// BENCH_PROFILE_DIR=/tmp/prof: CPU profiles of each app over the idle window and over the measured
// rounds (installations-N-idle/load.cpuprofile; `npx tsx scripts/profile-summary.ts FILE` sums them up).
// BENCH_HEAP_SNAPSHOT_DIR=/tmp/heap: a heap snapshot of each app after the GC (installations-N.heapsnapshot).
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import { sql } from 'drizzle-orm';
import WebSocket from 'ws';

import { rowsOf } from '../src/db/client.js';
import { migrateDatabase } from '../src/db/migrate.js';
import { installations } from '../src/db/schema/index.js';
import { installationTokenContext } from '../src/db/sealed-columns.js';
import { generateKey, parseKeyRing } from '../src/secrets/key-ring.js';
import { formEncode, signedHeaders } from '../src/simulator/signing.js';
import { createInstallationStore, teamKey } from '../src/slack/install/installation-store.js';
import { type AppProcess, startAppProcess } from '../test/chaos/app-process.js';
import { type BenchDatabase, createBenchDatabase, databasesToRun } from './databases.js';
import { type FixedRateRequest, runClosedLoop, runFixedRate } from './load.js';
import { readCpuMs, readRssBytes, toMiB } from './memory.js';
import type { BenchRow } from './report.js';
import { round, summarize } from './stats.js';

const quick = process.argv.includes('--quick');
// BENCH_INSTALL_SIZES="1,10000" picks the sizes (a profiling run); the first is the baseline.
const SIZES = process.env.BENCH_INSTALL_SIZES?.split(',').map(Number) ?? (quick ? [1, 1000] : [1, 1000, 10_000]);
// Below what the app holds on a loaded 2-core machine (CPU ~5 ms per `/kudos` here with the modal), so queueing does not hide the lookup.
const RATE = Number(process.env.BENCH_INSTALL_RATE) || 100;
const ROUNDS = quick ? 2 : 5;
const SLICE_SECONDS = 4;
/** Every app idle this long after the warm-up: the CPU its background passes take. */
const IDLE_SECONDS = quick ? 5 : 10;
/** Requests from the hot workspaces; the rest from any workspace. */
const HOT_SHARE = 0.8;
const HOT_FRACTION = 0.05;
const SIGNING_SECRET = 'bench-installations-signing-secret';
const ENCRYPTION_KEY = generateKey('bench');

const teamId = (i: number) => `TB${String(i).padStart(6, '0')}`;

/** A Slack Web API that answers every call at once: the benchmark measures the app, not Slack. */
async function startFakeSlack(): Promise<{ url: string; calls: () => number; close(): Promise<void> }> {
  let calls = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      calls++;
      const method = (req.url ?? '').split('/').pop()?.split('?')[0] ?? '';
      const body =
        method === 'users.info'
          ? { ok: true, user: { id: 'U_BENCH', tz: 'America/New_York', is_admin: false, profile: {} } }
          : method === 'views.open'
            ? { ok: true, view: { id: `V${calls}` } }
            : { ok: true };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`,
    calls: () => calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function installationOf(i: number, expiresAt: number) {
  return {
    team: { id: teamId(i), name: `Bench ${i}` },
    enterprise: undefined,
    user: { id: 'U_INSTALLER', token: undefined, scopes: undefined },
    bot: {
      token: `xoxb-${i}-${randomBytes(12).toString('hex')}`,
      refreshToken: `xoxe-1-${randomBytes(16).toString('hex')}`,
      expiresAt,
      scopes: ['commands', 'chat:write'],
      id: `B${i}`,
      userId: `UBOT${i}`,
    },
    appId: 'A_BENCH',
    isEnterpriseInstall: false,
    authVersion: 'v2' as const,
    tokenType: 'bot' as const,
  };
}

/**
 * N workspace installations with rotating tokens: the first through the installationStore's own code,
 * the rest as rows of the same shape (its row, with each workspace's own key and tokens sealed under
 * that row's context) inserted 500 at a time: one INSERT per installation takes minutes at 10,000.
 */
async function storeInstallations(db: BenchDatabase, n: number): Promise<void> {
  const conn = await db.connect();
  try {
    await migrateDatabase(conn);
    const keyRing = parseKeyRing(ENCRYPTION_KEY);
    const store = createInstallationStore({ db: conn.db, keyRing, retentionDays: 30 });
    const expiresAt = Math.floor(Date.now() / 1000) + 12 * 3600;
    await store.storeInstallation(installationOf(0, expiresAt));
    const [template] = await conn.db.select().from(installations);
    const rows = Array.from({ length: n - 1 }, (_, j) => {
      const i = j + 1;
      const install = installationOf(i, expiresAt);
      const key = teamKey(install.team.id);
      return {
        ...template!,
        installationKey: key,
        teamId: install.team.id,
        teamName: install.team.name,
        botId: install.bot.id,
        botUserId: install.bot.userId,
        botToken: keyRing.seal(install.bot.token, installationTokenContext(key, 'bot')),
        botRefreshToken: keyRing.seal(install.bot.refreshToken, installationTokenContext(key, 'bot-refresh')),
        // Installed before the app started, as in production: with the template's time (just now) the
        // app's change feed reported every row as changed for its first seconds (its look-back and
        // overlap) and evicted what the warm-up had just cached, more or fewer depending on timing.
        updatedAt: new Date(Date.now() - 3600_000),
      };
    });
    for (let i = 0; i < rows.length; i += 500) await conn.db.insert(installations).values(rows.slice(i, i + 500));
  } finally {
    await conn.close();
  }
}

/** A session on the app's inspector (it was started with `--inspect` on a free port). */
async function inspect(app: AppProcess): Promise<{
  send(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  close(): void;
}> {
  const line = await app.waitForLog(
    (l) => typeof l.msg === 'string' && l.msg.includes('Debugger listening on ws://'),
    5000,
  );
  const url = /ws:\/\/\S+/.exec(String(line.msg))![0];
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  let id = 0;
  const send = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const mine = ++id;
      const onMessage = (data: WebSocket.RawData) => {
        const message = JSON.parse(String(data)) as { id?: number; result?: Record<string, unknown> };
        if (message.id !== mine) return;
        ws.off('message', onMessage);
        resolve(message.result ?? {});
      };
      ws.on('message', onMessage);
      ws.send(JSON.stringify({ id: mine, method, params }));
    });
  return { send, close: () => ws.close() };
}

/** Full GC in the app (inspector protocol), then its heap used. */
async function collectGarbage(app: AppProcess): Promise<number> {
  const session = await inspect(app);
  try {
    await session.send('HeapProfiler.collectGarbage');
    await session.send('HeapProfiler.collectGarbage');
    const usage = await session.send('Runtime.evaluate', {
      expression: 'process.memoryUsage().heapUsed',
      returnByValue: true,
    });
    return Number((usage.result as { value?: number } | undefined)?.value ?? NaN);
  } finally {
    session.close();
  }
}

/**
 * BENCH_HEAP_SNAPSHOT_DIR: a heap snapshot of each app after the load and the GC
 * (installations-N.heapsnapshot; `npx tsx scripts/heap-summary.ts` compares two by constructor).
 */
async function writeHeapSnapshot(size: RunningSize): Promise<void> {
  const dir = process.env.BENCH_HEAP_SNAPSHOT_DIR;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `installations-${size.n}.heapsnapshot`);
  const session = await inspect(size.app);
  try {
    await session.send('Runtime.evaluate', {
      expression: `process.getBuiltinModule('node:v8').writeHeapSnapshot(${JSON.stringify(file)})`,
      returnByValue: true,
    });
  } finally {
    session.close();
  }
  console.error(`bench: installations: heap snapshot written to ${file}`);
}

/**
 * BENCH_PROFILE_DIR: a CPU profile of each app over one phase only (the idle window, the measured
 * rounds), taken over the inspector, so the sizes are compared on the same work (a whole-process
 * `--cpu-prof` also holds the warm-up, 10,000 requests at 10,000 installations and one at 1).
 */
async function profiled<T>(apps: RunningSize[], phase: string, run: () => Promise<T>): Promise<T> {
  const dir = process.env.BENCH_PROFILE_DIR;
  if (!dir) return run();
  const sessions = await Promise.all(apps.map((size) => inspect(size.app)));
  for (const session of sessions) {
    await session.send('Profiler.enable');
    await session.send('Profiler.start');
  }
  try {
    return await run();
  } finally {
    mkdirSync(dir, { recursive: true });
    for (const [i, session] of sessions.entries()) {
      const { profile } = await session.send('Profiler.stop');
      writeFileSync(join(dir, `installations-${apps[i]!.n}-${phase}.cpuprofile`), JSON.stringify(profile));
      session.close();
    }
    console.error(`bench: installations: ${phase} profiles written to ${dir}`);
  }
}

/** Waits until the app has used under 5% of a core over a second (at most `maxMs`): the warm-up's tail is not measured. */
async function settle(app: AppProcess, maxMs = 30_000): Promise<void> {
  const until = Date.now() + maxMs;
  while (Date.now() < until) {
    const before = readCpuMs(app.pid) ?? 0;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    if ((readCpuMs(app.pid) ?? 0) - before < 50) return;
  }
}

interface SizeResult {
  n: number;
  cpuPerCommand: number;
  /** CPU the app used per second with no request coming (its background passes), ms. */
  idleCpuPerSecond: number;
  /** PostgreSQL: the app's database transactions from the idle window to the end of the rounds (background included), per /kudos. */
  transactionsPerCommand: number | undefined;
  p50: number;
  p99: number;
  max: number;
  failed: number;
  rssAfterLoad: number;
  rssAfterGc: number;
  heapAfterGc: number;
}

interface RunningSize {
  n: number;
  db: BenchDatabase;
  /** PostgreSQL: transactions committed or rolled back in the app's database so far (pg_stat_database). */
  transactions(): Promise<number | undefined>;
  app: AppProcess;
  request(team: number): FixedRateRequest;
  spread(): number;
  hot: number;
  close(): Promise<void>;
}

async function startSize(kind: BenchDatabase['kind'], n: number, slack: { url: string }): Promise<RunningSize> {
  const db = await createBenchDatabase(kind);
  console.error(`bench: installations (${kind}): storing ${n}`);
  await storeInstallations(db, n);
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
      // Never reached: no workspace has a Rewards account connected.
      REWARDS_API_URL: 'http://127.0.0.1:9',
      LOG_LEVEL: 'info',
      ...db.env,
    },
    // The inspector on a free port, for the GC between measurements (it costs nothing until used).
    {
      quietAfterStart: true,
      nodeArgs: ['--inspect=127.0.0.1:0', ...(process.env.BENCH_APP_NODE_ARGS?.split(' ').filter(Boolean) ?? [])],
    },
  );
  // PostgreSQL only: PGlite's folder is the app's alone while it runs.
  const statsConn = kind === 'postgresql' ? await db.connect() : undefined;
  const transactions = async () => {
    if (!statsConn) return undefined;
    const [row] = rowsOf<{ n: string | number }>(
      await statsConn.db.execute(
        sql`select xact_commit + xact_rollback as n from pg_stat_database where datname = current_database()`,
      ),
    );
    return Number(row?.n);
  };
  const hot = Math.max(1, Math.round(n * HOT_FRACTION));
  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const request = (team: number): FixedRateRequest => {
    const body = formEncode({
      token: 'bench',
      team_id: teamId(team),
      team_domain: `bench${team}`,
      channel_id: 'C_GENERAL',
      channel_name: 'general',
      user_id: 'U_BENCH',
      user_name: 'bench',
      command: '/kudos',
      text: '',
      api_app_id: 'A_BENCH',
      is_enterprise_install: 'false',
      response_url: `${slack.url.replace(/\/api\/$/, '')}/response/1`,
      trigger_id: `${team}.${random().toString(36).slice(2)}`,
    });
    return {
      path: '/slack/events',
      headers: signedHeaders(SIGNING_SECRET, body, 'application/x-www-form-urlencoded', Date.now() / 1000),
      body,
    };
  };
  return {
    n,
    db,
    app,
    hot,
    transactions,
    request,
    spread: () => (random() < HOT_SHARE ? Math.floor(random() * hot) : Math.floor(random() * n)),
    async close() {
      app.kill('SIGTERM');
      await app.exited;
      await statsConn?.close();
      await db.dispose();
    },
  };
}

/**
 * All sizes run side by side and take turns in short slices (ROUNDS of SLICE_SECONDS each), so the
 * machine's noise (other processes on a shared machine) falls on every size alike.
 */
async function measureSizes(kind: BenchDatabase['kind'], slack: { url: string }): Promise<SizeResult[]> {
  const running: RunningSize[] = [];
  try {
    for (const n of SIZES) running.push(await startSize(kind, n, slack));
    for (const size of running) {
      // Every workspace once (each per-workspace cache as full as its bound allows), then the hot ones.
      // A few at a time, as fast as the app answers: at a fixed 400/s the 10,000 queued up on the
      // loaded machine, and the app was still working through them when the measuring began.
      // The warm-up: every installation once, no backlog whatever the machine's load.
      await runClosedLoop({
        origin: size.app.url,
        total: size.n,
        seconds: Infinity,
        inFlight: 16,
        makeRequest: (i) => size.request(i),
      });
      await runFixedRate({
        origin: size.app.url,
        rate: RATE,
        seconds: 2,
        makeRequest: () => size.request(Math.floor(Math.random() * size.hot)),
      });
    }
    // The warm-up's tail (views.open after the last acks, reloads) is over before anything is measured.
    for (const size of running) await settle(size.app);
    const transactionsBefore = await Promise.all(running.map((size) => size.transactions()));
    // Background passes alone: every app idle for the same window.
    const idleCpu = new Map<number, number>();
    await profiled(running, 'idle', async () => {
      const before = running.map((size) => readCpuMs(size.app.pid) ?? 0);
      await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
      running.forEach((size, i) => idleCpu.set(size.n, ((readCpuMs(size.app.pid) ?? 0) - before[i]!) / IDLE_SECONDS));
    });
    const latencies = new Map<number, number[]>(running.map((s) => [s.n, []]));
    const failed = new Map<number, number>(running.map((s) => [s.n, 0]));
    const cpuMs = new Map<number, number>(running.map((s) => [s.n, 0]));
    console.error(
      `bench: installations (${kind}): /kudos at ${RATE}/s, ${ROUNDS} rounds of ${SLICE_SECONDS} s per size`,
    );
    await profiled(running, 'load', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        // Each round starts with the next size, so no size always follows the same one.
        for (let k = 0; k < running.length; k++) {
          const size = running[(round + k) % running.length]!;
          const cpuBefore = readCpuMs(size.app.pid) ?? 0;
          const result = await runFixedRate({
            origin: size.app.url,
            rate: RATE,
            seconds: SLICE_SECONDS,
            makeRequest: () => size.request(size.spread()),
          });
          // The work after the last acks (views.open) counts too.
          await new Promise((resolve) => setTimeout(resolve, 500));
          cpuMs.set(size.n, cpuMs.get(size.n)! + (readCpuMs(size.app.pid) ?? 0) - cpuBefore);
          latencies.get(size.n)!.push(...result.samples);
          failed.set(size.n, failed.get(size.n)! + result.failed);
        }
      }
    });
    // PostgreSQL reports a backend's counts up to ~10 s after its transactions.
    if (running.some((size) => size.db.kind === 'postgresql'))
      await new Promise((resolve) => setTimeout(resolve, 11_000));
    const transactionsAfter = await Promise.all(running.map((size) => size.transactions()));
    const results: SizeResult[] = [];
    for (const [i, size] of running.entries()) {
      const summary = summarize(latencies.get(size.n)!);
      const rssAfterLoad = readRssBytes(size.app.pid) ?? NaN;
      const heapAfterGc = await collectGarbage(size.app);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const rssAfterGc = readRssBytes(size.app.pid) ?? NaN;
      // After the RSS is read: writing a snapshot grows it.
      await writeHeapSnapshot(size);
      const cpuPerCommand = cpuMs.get(size.n)! / Math.max(1, summary.count);
      const before = transactionsBefore[i];
      const after = transactionsAfter[i];
      const transactionsPerCommand =
        before === undefined || after === undefined ? undefined : (after - before) / Math.max(1, summary.count);
      console.error(
        `bench:   ${size.n} installations: p50 ${round(summary.p50, 1)} p99 ${round(summary.p99, 1)} max ${round(summary.max, 1)} failed ${failed.get(size.n)}, app CPU ${round(cpuPerCommand, 2)} ms per /kudos, ${round(idleCpu.get(size.n)!, 1)} ms/s idle, ${transactionsPerCommand === undefined ? '-' : round(transactionsPerCommand, 2)} DB transactions per /kudos; RSS ${toMiB(rssAfterLoad)} -> ${toMiB(rssAfterGc)} MiB after GC, heap ${toMiB(heapAfterGc)} MiB`,
      );
      if (process.env.BENCH_SHOW_LOGS) {
        const said = new Map<string, number>();
        for (const line of size.app.logs)
          said.set(
            `${line.level} ${String(line.msg).slice(0, 160)}`,
            (said.get(`${line.level} ${String(line.msg).slice(0, 160)}`) ?? 0) + 1,
          );
        console.error([...said].sort((a, b) => b[1] - a[1]).slice(0, 12));
      }
      results.push({
        n: size.n,
        cpuPerCommand,
        idleCpuPerSecond: idleCpu.get(size.n)!,
        transactionsPerCommand,
        p50: summary.p50,
        p99: summary.p99,
        max: summary.max,
        failed: failed.get(size.n)!,
        rssAfterLoad,
        rssAfterGc,
        heapAfterGc,
      });
    }
    return results;
  } finally {
    for (const size of running) await size.close();
  }
}

export async function benchInstallations(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const slack = await startFakeSlack();
  try {
    for (const kind of databasesToRun()) {
      const section = `many installations (${kind}, /kudos at ${RATE}/s for ${ROUNDS * SLICE_SECONDS} s each, interleaved, ${Math.round(HOT_SHARE * 100)}% from the hottest ${Math.round(HOT_FRACTION * 100)}%)`;
      const results = await measureSizes(kind, slack);
      const one = results[0]!;
      const baselineName = '1 installation';
      for (const r of results.slice(1)) {
        const at = `${r.n.toLocaleString('en-US')} installations`;
        const perWorkspaceKiB = (bytes: number) => round(bytes / (r.n - one.n) / 1024, 2);
        rows.push(
          {
            section,
            metric: `ack p50, ${at}`,
            value: round(r.p50, 1),
            unit: 'ms',
            baseline: round(one.p50, 1),
            baselineName,
          },
          {
            section,
            metric: `ack p99, ${at}`,
            value: round(r.p99, 1),
            unit: 'ms',
            baseline: round(one.p99, 1),
            baselineName,
            target: '<= 1.1x of 1 installation',
            meetsTarget: r.p99 <= one.p99 * 1.1 && r.failed === 0,
          },
          {
            section,
            metric: `ack max, ${at}`,
            value: round(r.max, 1),
            unit: 'ms',
            baseline: round(one.max, 1),
            baselineName,
          },
          {
            section,
            metric: `app CPU per /kudos (ack + views.open), ${at}`,
            value: round(r.cpuPerCommand, 2),
            unit: 'ms',
            baseline: round(one.cpuPerCommand, 2),
            baselineName,
          },
          {
            section,
            metric: `app CPU while idle (background passes), ${at}`,
            value: round(r.idleCpuPerSecond, 1),
            unit: 'ms/s',
            baseline: round(one.idleCpuPerSecond, 1),
            baselineName,
          },
          ...(r.transactionsPerCommand !== undefined && one.transactionsPerCommand !== undefined
            ? [
                {
                  section,
                  metric: `DB transactions per /kudos (background included), ${at}`,
                  value: round(r.transactionsPerCommand, 2),
                  unit: 'xact',
                  baseline: round(one.transactionsPerCommand, 2),
                  baselineName,
                },
              ]
            : []),
          { section, metric: `failed, ${at}`, value: r.failed, unit: 'req', baseline: one.failed, baselineName },
          {
            section,
            metric: `app RSS after the load, ${at}`,
            value: toMiB(r.rssAfterLoad),
            unit: 'MiB',
            baseline: toMiB(one.rssAfterLoad),
            baselineName,
          },
          {
            section,
            metric: `app RSS after a full GC, ${at}`,
            value: toMiB(r.rssAfterGc),
            unit: 'MiB',
            baseline: toMiB(one.rssAfterGc),
            baselineName,
          },
          {
            section,
            metric: `V8 heap used after a full GC, ${at}`,
            value: toMiB(r.heapAfterGc),
            unit: 'MiB',
            baseline: toMiB(one.heapAfterGc),
            baselineName,
          },
          {
            section,
            metric: `heap growth per workspace, ${at}`,
            value: perWorkspaceKiB(r.heapAfterGc - one.heapAfterGc),
            unit: 'KiB',
            target: '< 4 KiB',
            meetsTarget: (r.heapAfterGc - one.heapAfterGc) / (r.n - one.n) < 4096,
          },
          {
            section,
            metric: `RSS growth per workspace (after GC), ${at}`,
            value: perWorkspaceKiB(r.rssAfterGc - one.rssAfterGc),
            unit: 'KiB',
          },
        );
      }
    }
  } finally {
    await slack.close();
  }
  return rows;
}
