// Scale under the Rewards API's rate limit, once per database (PGlite; PostgreSQL too when
// DATABASE_URL is set, or `--db postgresql`): app instances, the emulator, the Slack simulator. On
// PostgreSQL the fleet's instances run each in a process of its own (bench/scale-instance.ts, the app
// started as `npm start` starts it); `--in-process` (and PGlite, and the share part) runs them in this
// process (src/app.ts, one event loop; each its own connection on PostgreSQL, one PGlite shared).
// Each figure beside a baseline measured in the same run:
//   - fleet: 3 instances, 50 workspaces on the one account of single-workspace mode (the env account
//     all of them share, so every workspace competes in one rate budget), one workspace with a
//     backlog (`--backlog N`, default 500; 5,000 in the issue, scaled down with the limit so a run
//     stays near a minute: 100 requests per 10 s, below what this process places when unlimited,
//     so the budget is what is measured), the other 49 sending one kudos each meanwhile:
//     requests per second against the limit while backlogged, 429s, Rewards requests per kudos (and
//     per endpoint), the single kudos' queueing delay (due -> placed, left to the workers' claim).
//     Baselines: workspace turns with the backlog booking the schedule any distance ahead (before
//     `backlogAheadMs`), the budget without workspace turns (each slot to the request that booked it,
//     first come first served) and each client pacing itself (no shared budget). `--fleet-only`: the
//     fleet with and without the booking horizon, nothing else; `--limit N`: the limit per 10 s.
//   - share: 2 instances on one account at 10 requests/s (100 per 10 s), below the 16 sends in
//     flight per instance: each instance's share of the orders, 429s, requests per kudos; baseline:
//     each client pacing itself.
// `--quick` shrinks the sizes. BENCH_LOG_STATEMENTS=1 (PostgreSQL): every statement of the run's
// databases is logged (ALTER DATABASE ... SET log_min_duration_statement = 0, the database named on
// stderr), to count which statements a kudos costs from the server's log.
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';

import { and, count, eq, inArray, isNotNull, isNull, sql } from 'drizzle-orm';

import { type RunningApp, startApp } from '../src/app.js';
import { loadConfig } from '../src/config/index.js';
import { createLogger } from '../src/config/logger.js';
import { connectDatabase, type DatabaseConnection, rowsOf } from '../src/db/client.js';
import { migrateDatabase } from '../src/db/migrate.js';
import { kudos, orderChecks } from '../src/db/schema/index.js';
import { createScratchDatabase } from '../src/db/scratch.js';
import type { RateBudgetOptions } from '../src/domain/pacing/rewards-rate-budget.js';
import { startEmulator } from '../src/emulator/server.js';
import { startSlackSimulator } from '../src/simulator/slack.js';
import { appEnv, startAppProcess } from '../test/chaos/app-process.js';
import { pendingKudosValues } from '../test/support/kudos-row.js';
import { BENCH_SLACK_RATE_SCALE } from './app-stack.js';
import { type DatabaseKind, databasesToRun } from './databases.js';
import type { BenchRow } from './report.js';
import { round, summarize } from './stats.js';

const quick = process.argv.includes('--quick');

function argNumber(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  const value = i >= 0 ? Number(process.argv[i + 1]) : NaN;
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

type Budget = { kind: 'shared'; options?: RateBudgetOptions } | { kind: 'per-client' };

/** An app instance of the stack: in this process, or a process of its own. */
interface Instance {
  metricsUrl: string;
  /** A process's warnings and errors since it started listening (an instance in this process logs nothing). */
  warnings: () => Array<{ msg?: unknown }>;
  /** Look for work now (an instance in this process); a process polls as it does in production. */
  wake(): void;
}

interface Stack {
  apps: Instance[];
  /** The instances' process ids (instances in processes of their own; empty when in this process). */
  pids: number[];
  db: DatabaseConnection['db'];
  close(): Promise<void>;
}

/** The budget variant as the instance process reads it (bench/scale-instance.ts). */
function budgetEnv(budget: Budget): string {
  return budget.kind === 'per-client' ? 'off' : JSON.stringify(budget.options ?? {});
}

async function startStack(
  kind: DatabaseKind,
  instances: number,
  emulatorEnv: Record<string, string>,
  budget: Budget,
  opts: { processes?: boolean } = {},
): Promise<Stack> {
  // Processes need a database every process can reach: PostgreSQL (PGlite is one process's).
  const processes = Boolean(opts.processes) && kind === 'postgresql';
  let databaseUrl: string | undefined;
  const connections: DatabaseConnection[] = [];
  let drop = async () => undefined as unknown;
  let connect: () => Promise<DatabaseConnection>;
  if (kind === 'postgresql') {
    if (!process.env.DATABASE_URL) throw new Error('postgresql benchmarks need DATABASE_URL');
    const scratch = await createScratchDatabase(process.env.DATABASE_URL, 'kudos_bench_scale');
    drop = () => scratch.drop();
    databaseUrl = scratch.url;
    if (process.env.BENCH_LOG_STATEMENTS) {
      const name = new URL(scratch.url).pathname.slice(1);
      const admin = await connectDatabase({ databaseUrl: process.env.DATABASE_URL, maxConnections: 1 });
      await admin.db.execute(sql.raw(`ALTER DATABASE ${name} SET log_min_duration_statement = 0`));
      await admin.close();
      console.error(`scale: logging every statement of ${name}`);
    }
    // Each instance its own pool, as separate processes would have.
    connect = () => connectDatabase({ databaseUrl: scratch.url, maxConnections: 8 });
  } else {
    const shared = await connectDatabase({ pgliteDir: 'memory://' });
    connect = async () => shared;
  }
  const first = await connect();
  connections.push(first);
  await migrateDatabase(first);
  const emulator = await startEmulator({ port: 0, host: '127.0.0.1', env: emulatorEnv });
  for (const [path, body] of [
    ['/balance', { amount: 10_000_000, environment: 'production' }],
    ['/limits', { dailyLimitUsd: 10_000_000, monthlyLimitUsd: 100_000_000, environment: 'production' }],
  ] as const) {
    await fetch(`${emulator.url}/_emulator${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  }
  // This benchmark is about the Rewards account's limit: Slack's are raised out of the way (simulator and app alike).
  const sim = await startSlackSimulator({
    signingSecret: 'bench',
    emulatorUrl: emulator.url,
    rateLimits: { scale: BENCH_SLACK_RATE_SCALE },
  });
  const config = loadConfig({
    SLACK_SIGNING_SECRET: 'bench',
    SLACK_BOT_TOKEN: sim.botToken,
    SLACK_API_URL: sim.apiUrl,
    REWARDS_API_URL: emulator.url,
    REWARDS_CLIENT_ID: 'production-client',
    REWARDS_CLIENT_SECRET: 'production-secret',
    REWARDS_WEBHOOK_SECRET: 'emulator-signing-secret',
    KUDOS_NOTIFY_CHANNEL: 'C_KUDOS',
    // A deployment watching its balance: the low-balance check runs after orders (far above it here).
    KUDOS_LOW_BALANCE_THRESHOLD: '100',
  });
  if (processes) {
    const env = appEnv({
      emulatorUrl: emulator.url,
      slackApiUrl: sim.apiUrl,
      botToken: sim.botToken,
      signingSecret: 'bench',
      databaseUrl: databaseUrl!,
      extra: {
        KUDOS_NOTIFY_CHANNEL: 'C_KUDOS',
        KUDOS_LOW_BALANCE_THRESHOLD: '100',
        KUDOS_SLACK_RATE_SCALE: String(BENCH_SLACK_RATE_SCALE),
        BENCH_RATE_BUDGET: budgetEnv(budget),
        // Each instance's worker concurrency (default 16) when set: for trying it before changing it.
        ...(process.env.BENCH_WORKER_CONCURRENCY
          ? { KUDOS_WORKER_CONCURRENCY: process.env.BENCH_WORKER_CONCURRENCY }
          : {}),
      },
    });
    // Started together; a start-up takes long on a loaded machine (tsx compiles the app in each).
    // BENCH_PROFILE_DIR: a CPU profile of each instance over its whole life (`scripts/profile-summary.ts` sums one up).
    const profileDir = process.env.BENCH_PROFILE_DIR;
    const nodeArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
    const starting = Array.from({ length: instances }, () =>
      startAppProcess(env, {
        script: 'bench/scale-instance.ts',
        quietAfterStart: true,
        startTimeoutMs: 300_000,
        nodeArgs,
      }),
    );
    const started = await Promise.allSettled(starting);
    const children = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) {
      for (const child of children) child.kill('SIGKILL');
      throw failed.reason;
    }
    sim.setAppUrl(children[0]!.url);
    return {
      apps: children.map((child) => ({
        metricsUrl: child.metricsUrl,
        warnings: () => child.logs.filter((l) => l.level === 'warn' || l.level === 'error'),
        wake: () => undefined,
      })),
      pids: children.map((child) => child.pid),
      db: first.db,
      async close() {
        for (const child of children) child.kill('SIGTERM');
        await Promise.all(children.map((child) => child.exited));
        await sim.close();
        await emulator.close();
        for (const conn of new Set(connections)) await conn.close();
        await drop();
      },
    };
  }
  const apps: RunningApp[] = [];
  for (let i = 0; i < instances; i++) {
    const conn = i === 0 ? first : await connect();
    if (conn !== first) connections.push(conn);
    apps.push(
      await startApp({
        config,
        port: 0,
        metricsPort: 0,
        host: '127.0.0.1',
        db: conn.db,
        logger: createLogger({ level: 'silent' }),
        tuning: {
          worker: { pollIntervalMs: 100 },
          webhooks: { pollIntervalMs: 200 },
          slackPacing: { scale: BENCH_SLACK_RATE_SCALE },
          rateBudget: budget.kind === 'per-client' ? false : (budget.options ?? {}),
        },
      }),
    );
  }
  sim.setAppUrl(apps[0]!.url);
  return {
    apps: apps.map((app) => ({
      metricsUrl: String(app.metricsUrl),
      warnings: () => [],
      wake: () => app.worker.wake(),
    })),
    pids: [],
    db: first.db,
    async close() {
      await Promise.all(apps.map((a) => a.close()));
      await sim.close();
      await emulator.close();
      for (const conn of new Set(connections)) await conn.close();
      await drop();
    },
  };
}

/** kudos_rewards_api_calls_total of every instance, by endpoint and status. */
async function rewardsCalls(
  apps: Instance[],
): Promise<Array<{ endpoint: string; status: string; code: string; n: number }>> {
  const out: Array<{ endpoint: string; status: string; code: string; n: number }> = [];
  for (const app of apps) {
    const text = await (await fetch(`${app.metricsUrl}/metrics`)).text();
    for (const line of text.split('\n')) {
      const match = /^kudos_rewards_api_calls_total\{([^}]*)\} (\S+)$/.exec(line);
      if (!match) continue;
      const label = (name: string) => new RegExp(`${name}="([^"]*)"`).exec(match[1]!)?.[1] ?? '';
      out.push({
        endpoint: `${label('method')} ${label('endpoint')}`,
        status: label('status'),
        code: label('code'),
        n: Number(match[2]),
      });
    }
  }
  return out;
}

const isApi = (c: { endpoint: string }) => c.endpoint.includes(' /api/');
const answered = (calls: Awaited<ReturnType<typeof rewardsCalls>>) =>
  calls.filter((c) => isApi(c) && c.status !== '429').reduce((a, c) => a + c.n, 0);
const limited = (calls: Awaited<ReturnType<typeof rewardsCalls>>) =>
  calls.filter((c) => isApi(c) && c.status === '429').reduce((a, c) => a + c.n, 0);

/** Answers other than 2xx, by endpoint and status (`network TIMEOUT`: no answer in time), e.g. `POST /api/v1/orders/choice-cards 409`. */
function notOk(calls: Awaited<ReturnType<typeof rewardsCalls>>): Map<string, number> {
  const by = new Map<string, number>();
  for (const c of calls) {
    if (!isApi(c) || /^2/.test(c.status) || c.n === 0) continue;
    const key = `${c.endpoint} ${c.status}${c.status === 'network' ? ` ${c.code}` : ''}`;
    by.set(key, (by.get(key) ?? 0) + c.n);
  }
  return by;
}

/** The instances' warnings, counted by message. */
function warningsOf(apps: Instance[]): Map<string, number> {
  const by = new Map<string, number>();
  for (const app of apps)
    for (const line of app.warnings()) by.set(String(line.msg), (by.get(String(line.msg)) ?? 0) + 1);
  return by;
}

function perEndpoint(calls: Awaited<ReturnType<typeof rewardsCalls>>): Map<string, number> {
  const by = new Map<string, number>();
  for (const c of calls) if (isApi(c) && c.status !== '429') by.set(c.endpoint, (by.get(c.endpoint) ?? 0) + c.n);
  return by;
}

async function until(probe: () => Promise<boolean>, timeoutMs: number, everyMs = 100): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await probe()) return true;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return false;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function placedCount(db: Stack['db'], teamId?: string): Promise<number> {
  const where = teamId ? and(isNotNull(kudos.orderId), eq(kudos.teamId, teamId)) : isNotNull(kudos.orderId);
  return (await db.select({ n: count() }).from(kudos).where(where))[0]!.n;
}

async function checksLeft(db: Stack['db']): Promise<number> {
  return (await db.select({ n: count() }).from(orderChecks).where(isNull(orderChecks.doneAt)))[0]!.n;
}

interface FleetResult {
  requestsPerSecond: number;
  ordersPerSecond: number;
  limitPerSecond: number;
  rateLimited: number;
  perKudos: number;
  endpoints: Map<string, number>;
  /** Answers other than 2xx by endpoint and status (429s included). */
  notOk: Map<string, number>;
  /** The instances' warnings by message. */
  warnings: Map<string, number>;
  placed: number;
  singles: { p50: number; p99: number; max: number; count: number };
  seconds: number;
  /** The run's database transactions (the instances' and the bench's own few reads) per kudos placed. */
  dbTransactionsPerKudos: number;
  /** CPU time of PostgreSQL's backends serving the run's database, per kudos placed (PostgreSQL only). */
  dbCpuMsPerKudos: number | undefined;
  /** CPU time of the instances' processes per kudos placed (instances in processes of their own only). */
  instancesCpuMsPerKudos: number | undefined;
  /** CPU time of this process (the Rewards emulator, the Slack simulator, the bench's own queries) per kudos placed. */
  benchCpuMsPerKudos: number;
  /** CPU time of the whole machine (every core busy, whoever used it) per kudos placed. */
  machineCpuMsPerKudos: number;
}

const FLEET_LIMIT = 100;
/** `--limit N`: the fleet's limit per 10 s (the emulator's default is 1,000). */
const fleetLimit = argNumber('--limit', FLEET_LIMIT);
/** `--in-process`: the fleet's instances in this process (one event loop) rather than processes of their own. */
const inProcess = process.argv.includes('--in-process');
const FLEET_WINDOW_S = 10;
const WORKSPACES = 50;

async function fleetRun(kind: DatabaseKind, budget: Budget, backlog: number): Promise<FleetResult> {
  const stack = await startStack(
    kind,
    3,
    { EMULATOR_RATE_LIMIT: String(fleetLimit), EMULATOR_RATE_WINDOW_S: String(FLEET_WINDOW_S) },
    budget,
    { processes: !inProcess },
  );
  try {
    const { db, apps } = stack;
    const big = 'T_WS00';
    const transactionsBefore = await dbTransactions(db);
    const database = await databaseName(db);
    const cpuBefore = kind === 'postgresql' ? postgresCpuMs(database) : undefined;
    const instancesCpuBefore = stack.pids.length ? processesCpuMs(stack.pids) : undefined;
    const benchCpuBefore = process.cpuUsage();
    const machineCpuBefore = machineCpuMs();
    for (let i = 0; i < backlog; i += 500)
      await db
        .insert(kudos)
        .values(Array.from({ length: Math.min(500, backlog - i) }, () => pendingKudosValues({ teamId: big })));
    const started = Date.now();
    for (const app of apps) app.wake();
    // The backlog window: from 5% of it placed to 95% (start-up and the tail left out).
    await until(async () => (await placedCount(db, big)) >= backlog * 0.05, 120_000);
    const windowStart = { at: Date.now(), calls: answered(await rewardsCalls(apps)), placed: await placedCount(db) };
    // The 49 other workspaces each send one kudos meanwhile, spread over about half the backlog's time.
    const expectedSeconds = backlog / ((fleetLimit / FLEET_WINDOW_S) * 0.95);
    const spacingMs = Math.min(400, (expectedSeconds * 500) / (WORKSPACES - 1));
    const singleIds: string[] = [];
    const sending = (async () => {
      for (let w = 1; w < WORKSPACES; w++) {
        const [row] = await db
          .insert(kudos)
          .values(pendingKudosValues({ teamId: `T_WS${String(w).padStart(2, '0')}` }))
          .returning({ id: kudos.id });
        singleIds.push(row!.id);
        apps[w % apps.length]!.wake();
        await sleep(spacingMs);
      }
    })();
    await until(async () => (await placedCount(db, big)) >= backlog * 0.95, 600_000, 250);
    const windowEnd = { at: Date.now(), calls: answered(await rewardsCalls(apps)), placed: await placedCount(db) };
    await sending;
    const total = backlog + WORKSPACES - 1;
    const placedAll = await until(async () => (await placedCount(db)) >= total, 120_000, 250);
    const seconds = (Date.now() - started) / 1000;
    // Completion checks (and what else follows an order) finish before the requests are counted.
    await until(async () => (await checksLeft(db)) === 0, 120_000, 250);
    await sleep(1000);
    const calls = await rewardsCalls(apps);
    const placed = await placedCount(db);
    const transactions = (await dbTransactions(db)) - transactionsBefore;
    const dbCpuMs = cpuBefore === undefined ? undefined : postgresCpuMs(database) - cpuBefore;
    const instancesCpuMs =
      instancesCpuBefore === undefined ? undefined : processesCpuMs(stack.pids) - instancesCpuBefore;
    const benchCpu = process.cpuUsage(benchCpuBefore);
    const machineCpu = machineCpuMs() - machineCpuBefore;
    if (!placedAll) console.error(`scale: only ${placed} of ${total} placed within the time limit`);
    const singles = await db
      .select({ createdAt: kudos.createdAt, placedAt: kudos.placedAt })
      .from(kudos)
      .where(inArray(kudos.id, singleIds));
    const delays = singles.filter((s) => s.placedAt).map((s) => s.placedAt!.getTime() - s.createdAt.getTime());
    const summary = summarize(delays);
    const windowSeconds = (windowEnd.at - windowStart.at) / 1000;
    return {
      requestsPerSecond: round((windowEnd.calls - windowStart.calls) / windowSeconds),
      ordersPerSecond: round((windowEnd.placed - windowStart.placed) / windowSeconds),
      limitPerSecond: fleetLimit / FLEET_WINDOW_S,
      rateLimited: limited(calls),
      perKudos: round(answered(calls) / Math.max(1, placed), 3),
      endpoints: perEndpoint(calls),
      notOk: notOk(calls),
      warnings: warningsOf(apps),
      placed,
      singles: {
        p50: round(summary.p50 / 1000, 3),
        p99: round(summary.p99 / 1000, 3),
        max: round(summary.max / 1000, 3),
        count: summary.count,
      },
      seconds: round(seconds, 1),
      dbTransactionsPerKudos: round(transactions / Math.max(1, placed), 1),
      dbCpuMsPerKudos: dbCpuMs === undefined ? undefined : round(dbCpuMs / Math.max(1, placed), 2),
      instancesCpuMsPerKudos: instancesCpuMs === undefined ? undefined : round(instancesCpuMs / Math.max(1, placed), 2),
      benchCpuMsPerKudos: round((benchCpu.user + benchCpu.system) / 1000 / Math.max(1, placed), 2),
      machineCpuMsPerKudos: round(machineCpu / Math.max(1, placed), 2),
    };
  } finally {
    await stack.close();
  }
}

/** Transactions committed or rolled back in the run's database so far (PostgreSQL's statistics, flushed about once a second). */
async function dbTransactions(db: Stack['db']): Promise<number> {
  const result = await db.execute(
    sql`select (xact_commit + xact_rollback)::float8 as n from pg_stat_database where datname = current_database()`,
  );
  return Number(rowsOf<{ n: number | string }>(result)[0]?.n ?? 0);
}

async function databaseName(db: Stack['db']): Promise<string> {
  return String(rowsOf<{ name: string }>(await db.execute(sql`select current_database() as name`))[0]!.name);
}

/**
 * CPU time (user + system, ms) used so far by this machine's PostgreSQL backends connected to
 * `database` (/proc: a backend's command line names its database). The instances' pools keep their
 * connections for the whole run, so nothing they used is lost with an exiting backend.
 */
function postgresCpuMs(database: string): number {
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (!command.startsWith('postgres: ') || !command.split(' ').includes(database)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
    } catch {
      // gone meanwhile
    }
  }
  return ticks * 10; // USER_HZ is 100 on Linux
}

/** CPU time (user + system, ms, every thread) used so far by these processes (/proc/PID/stat). */
function processesCpuMs(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // exited
    }
  }
  return ticks * 10;
}

/** Busy CPU time (ms) of the whole machine so far, every core: /proc/stat's first line less idle and iowait. */
function machineCpuMs(): number {
  const [, ...values] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  // user nice system idle iowait irq softirq steal (guest time is already inside user)
  const [user, nice, system, , , irq, softirq, steal] = values.map(Number);
  return (user! + nice! + system! + irq! + softirq! + (steal ?? 0)) * 10;
}

interface ShareResult {
  perSecond: number;
  rateLimited: number;
  perKudos: number;
  shares: number[];
}

async function shareRun(kind: DatabaseKind, budget: Budget, sends: number): Promise<ShareResult> {
  const stack = await startStack(kind, 2, { EMULATOR_RATE_LIMIT: '100', EMULATOR_RATE_WINDOW_S: '10' }, budget);
  try {
    const { db, apps } = stack;
    const started = Date.now();
    for (let i = 0; i < sends; i += 200)
      await db.insert(kudos).values(Array.from({ length: Math.min(200, sends - i) }, () => pendingKudosValues()));
    for (const app of apps) app.wake();
    const placedAll = await until(async () => (await placedCount(db)) >= sends, 180_000);
    const seconds = (Date.now() - started) / 1000;
    const placed = await placedCount(db);
    await until(async () => (await checksLeft(db)) === 0, 120_000, 250);
    const shares = await Promise.all(
      apps.map(async (app) =>
        (await rewardsCalls([app]))
          .filter((c) => c.endpoint === 'POST /api/v1/orders/choice-cards' && c.status === '201')
          .reduce((a, c) => a + c.n, 0),
      ),
    );
    const calls = await rewardsCalls(apps);
    if (!placedAll) console.error(`scale: only ${placed} of ${sends} placed within the time limit`);
    return {
      perSecond: round(placed / seconds),
      rateLimited: limited(calls),
      perKudos: round(answered(calls) / Math.max(1, placed), 3),
      shares: shares.map((s) => Math.round((s / Math.max(1, placed)) * 100)),
    };
  } finally {
    await stack.close();
  }
}

const TURNS: Budget = { kind: 'shared' };
// Before the booking horizon: workspace turns, but a backlog's requests booked any distance ahead.
const NO_HORIZON: Budget = { kind: 'shared', options: { backlogAheadMs: Infinity } };
// Before the turns: each booked slot went to the request that booked it, first come first served.
const NO_TURNS: Budget = { kind: 'shared', options: { workspaceTurns: false } };
const PER_CLIENT: Budget = { kind: 'per-client' };

/** The single kudos' queueing delay, p50 and p99, each beside the baseline run's. */
function singleDelayRows(
  section: string,
  label: string,
  fleet: FleetResult,
  base: FleetResult,
  baselineName: string,
): BenchRow[] {
  return (['p50', 'p99'] as const).map((q) => ({
    section,
    metric: `${label}: a single kudos' queueing delay (due -> placed), ${q}${q === 'p99' ? ` of ${fleet.singles.count}` : ''}`,
    value: fleet.singles[q],
    unit: 's',
    baseline: base.singles[q],
    baselineName,
    target: '< 1 s',
    meetsTarget: fleet.singles[q] < 1,
  }));
}

/** Where a run's requests went: each endpoint's requests per kudos placed (and the count). */
function perKudosByEndpoint(r: FleetResult): string {
  const counted = (by: Map<string, number>) =>
    [...by]
      .sort((a, b) => b[1] - a[1])
      .map(([key, n]) => `${key} (${n})`)
      .join(', ') || 'none';
  return `${[...r.endpoints]
    .sort((a, b) => b[1] - a[1])
    .map(([endpoint, n]) => `${endpoint} ${round(n / Math.max(1, r.placed), 3)} (${n})`)
    .join(', ')}; not 2xx: ${counted(r.notOk)}; the instances' warnings: ${counted(r.warnings)}`;
}

/** `--fleet-only` (e.g. the full `--backlog 5000 --limit 1000`): the fleet with and without the booking horizon, nothing else. */
async function fleetOnly(kind: DatabaseKind, backlog: number): Promise<BenchRow[]> {
  const section = `scale (${kind})`;
  console.error(`scale (${kind}): fleet, workspace turns, a backlog booking any distance ahead...`);
  const noHorizon = await fleetRun(kind, NO_HORIZON, backlog);
  console.error(`scale (${kind}): fleet, workspace turns, a backlog booking <= 0.5 s ahead...`);
  const fleet = await fleetRun(kind, TURNS, backlog);
  for (const [name, r] of [
    ['booking <= 0.5 s ahead', fleet],
    ['booking any distance ahead', noHorizon],
  ] as const) {
    console.error(
      `scale (${kind}) ${name}: ${r.placed} placed, ${r.perKudos} requests per kudos: ${perKudosByEndpoint(r)}`,
    );
  }
  const label = `3 instances${inProcess || kind === 'pglite' ? ' in one process' : ', 3 processes'}, ${WORKSPACES} workspaces on 1 account (limit ${fleetLimit}/${FLEET_WINDOW_S} s), a ${backlog}-send backlog + 49 single kudos`;
  const baseline = { baselineName: 'workspace turns, the backlog booking any distance ahead' };
  const ofLimit = (r: FleetResult) => round((r.requestsPerSecond / r.limitPerSecond) * 100, 1);
  return [
    {
      section,
      metric: `${label}: Rewards requests per second while backlogged, of the limit`,
      value: ofLimit(fleet),
      unit: '%',
      baseline: ofLimit(noHorizon),
      ...baseline,
      target: '>= 90%',
      meetsTarget: ofLimit(fleet) >= 90,
    },
    {
      section,
      metric: `${label}: 429s seen`,
      value: fleet.rateLimited,
      unit: '429s',
      baseline: noHorizon.rateLimited,
      ...baseline,
      target: '0',
      meetsTarget: fleet.rateLimited === 0,
    },
    {
      section,
      metric: `${label}: Rewards requests per kudos`,
      value: fleet.perKudos,
      unit: 'requests',
      baseline: noHorizon.perKudos,
      ...baseline,
    },
    ...singleDelayRows(section, label, fleet, noHorizon, baseline.baselineName),
    {
      section,
      metric: `${label}: all placed in`,
      value: fleet.seconds,
      unit: 's',
      baseline: noHorizon.seconds,
      ...baseline,
    },
    {
      section,
      metric: `${label}: orders placed per second while backlogged`,
      value: fleet.ordersPerSecond,
      unit: 'orders/s',
      baseline: noHorizon.ordersPerSecond,
      ...baseline,
    },
    {
      section,
      metric: `${label}: database transactions per kudos`,
      value: fleet.dbTransactionsPerKudos,
      unit: 'transactions',
      baseline: noHorizon.dbTransactionsPerKudos,
      ...baseline,
    },
    ...(fleet.dbCpuMsPerKudos === undefined
      ? []
      : [
          {
            section,
            metric: `${label}: PostgreSQL CPU per kudos (its backends for the run's database)`,
            value: fleet.dbCpuMsPerKudos,
            unit: 'ms',
            ...(noHorizon.dbCpuMsPerKudos === undefined ? {} : { baseline: noHorizon.dbCpuMsPerKudos }),
            ...baseline,
          },
        ]),
    ...(fleet.instancesCpuMsPerKudos === undefined
      ? []
      : [
          {
            section,
            metric: `${label}: the instances' CPU per kudos (their 3 processes)`,
            value: fleet.instancesCpuMsPerKudos,
            unit: 'ms',
            ...(noHorizon.instancesCpuMsPerKudos === undefined ? {} : { baseline: noHorizon.instancesCpuMsPerKudos }),
            ...baseline,
          },
        ]),
    {
      section,
      metric: `${label}: the bench process's CPU per kudos (emulator, simulator, its queries)`,
      value: fleet.benchCpuMsPerKudos,
      unit: 'ms',
      baseline: noHorizon.benchCpuMsPerKudos,
      ...baseline,
    },
    {
      section,
      metric: `${label}: the machine's CPU per kudos (every core, everything running)`,
      value: fleet.machineCpuMsPerKudos,
      unit: 'ms',
      baseline: noHorizon.machineCpuMsPerKudos,
      ...baseline,
    },
    {
      section,
      metric: `${label}: kudos per second the machine's ${cpus().length} cores could carry at that CPU per kudos`,
      value: round((cpus().length * 1000) / Math.max(0.01, fleet.machineCpuMsPerKudos), 1),
      unit: 'kudos/s',
      baseline: round((cpus().length * 1000) / Math.max(0.01, noHorizon.machineCpuMsPerKudos), 1),
      ...baseline,
    },
  ];
}

async function benchOn(kind: DatabaseKind): Promise<BenchRow[]> {
  const section = `scale (${kind})`;
  const rows: BenchRow[] = [];
  const backlog = argNumber('--backlog', quick ? 200 : 500);
  // The baselines first: the first run also warms the process up (compilation, connections).
  if (process.argv.includes('--fleet-only')) return fleetOnly(kind, backlog);
  console.error(`scale (${kind}): fleet, each client pacing itself...`);
  const perClient = await fleetRun(kind, PER_CLIENT, backlog);
  console.error(`scale (${kind}): fleet, no turns...`);
  const noTurns = await fleetRun(kind, NO_TURNS, backlog);
  console.error(`scale (${kind}): fleet, workspace turns, a backlog booking any distance ahead...`);
  const noHorizon = await fleetRun(kind, NO_HORIZON, backlog);
  console.error(`scale (${kind}): fleet, workspace turns, a backlog booking ${'<='} 0.5 s ahead...`);
  const fleet = await fleetRun(kind, TURNS, backlog);
  for (const [name, r] of [
    ['turns', fleet],
    ['turns, no horizon', noHorizon],
    ['no turns', noTurns],
    ['per client', perClient],
  ] as const) {
    console.error(
      `scale (${kind}) ${name}: ${r.placed} placed in ${r.seconds} s, ${r.requestsPerSecond} requests/s while backlogged, ${r.rateLimited} 429s, ${r.perKudos} requests per kudos, single kudos p50 ${r.singles.p50} s / p99 ${r.singles.p99} s; requests per kudos by endpoint: ${perKudosByEndpoint(r)}`,
    );
  }
  const label = `3 instances${inProcess || kind === 'pglite' ? ' in one process' : ', 3 processes'}, ${WORKSPACES} workspaces on 1 account (limit ${fleetLimit}/${FLEET_WINDOW_S} s), a ${backlog}-send backlog + 49 single kudos`;
  rows.push(
    {
      section,
      metric: `${label}: Rewards requests per second while backlogged, of the limit`,
      value: round((fleet.requestsPerSecond / fleet.limitPerSecond) * 100, 1),
      unit: '%',
      baseline: round((perClient.requestsPerSecond / perClient.limitPerSecond) * 100, 1),
      baselineName: 'each client pacing itself',
      target: '>= 90%',
      meetsTarget: fleet.requestsPerSecond >= 0.9 * fleet.limitPerSecond,
    },
    {
      section,
      metric: `${label}: orders placed per second while backlogged (limit ${fleet.limitPerSecond} requests/s)`,
      value: fleet.ordersPerSecond,
      unit: 'kudos/s',
      baseline: perClient.ordersPerSecond,
      baselineName: 'each client pacing itself',
    },
    {
      section,
      metric: `${label}: 429s seen`,
      value: fleet.rateLimited,
      unit: '429s',
      baseline: perClient.rateLimited,
      baselineName: 'each client pacing itself',
      target: '0',
      meetsTarget: fleet.rateLimited === 0,
    },
    {
      section,
      metric: `${label}: Rewards requests per kudos (429s and tokens excluded; orders, completion checks, balance reads)`,
      value: fleet.perKudos,
      unit: 'requests',
      baseline: perClient.perKudos,
      baselineName: 'each client pacing itself',
      target: '<= 1.1',
      meetsTarget: fleet.perKudos <= 1.1,
    },
    ...singleDelayRows(section, label, fleet, noHorizon, 'workspace turns, the backlog booking any distance ahead'),
    {
      section,
      metric: `${label}: a single kudos' queueing delay (due -> placed), p50 / p99, without workspace turns`,
      value: noTurns.singles.p50,
      unit: 's',
      baseline: noTurns.singles.p99,
      baselineName: 'its p99',
    },
    {
      section,
      metric: `${label}: Rewards requests per second while backlogged, workspace turns with the backlog booking any distance ahead, of the limit`,
      value: round((noHorizon.requestsPerSecond / noHorizon.limitPerSecond) * 100, 1),
      unit: '%',
      baseline: round((fleet.requestsPerSecond / fleet.limitPerSecond) * 100, 1),
      baselineName: 'booking <= 0.5 s ahead',
    },
    {
      section,
      metric: `${label}: Rewards requests per second while backlogged, without workspace turns, of the limit`,
      value: round((noTurns.requestsPerSecond / noTurns.limitPerSecond) * 100, 1),
      unit: '%',
      baseline: round((fleet.requestsPerSecond / fleet.limitPerSecond) * 100, 1),
      baselineName: 'with workspace turns',
    },
  );
  for (const [endpoint, n] of fleet.endpoints) {
    rows.push({
      section,
      metric: `${label}: ${endpoint} per kudos`,
      value: round(n / Math.max(1, fleet.placed), 3),
      unit: 'requests',
      baseline: round((perClient.endpoints.get(endpoint) ?? 0) / Math.max(1, perClient.placed), 3),
      baselineName: 'each client pacing itself',
    });
  }

  const sends = quick ? 60 : 120;
  console.error(`scale (${kind}): share, shared budget...`);
  const shared = await shareRun(kind, TURNS, sends);
  console.error(`scale (${kind}): share, each client pacing itself...`);
  const alone = await shareRun(kind, PER_CLIENT, sends);
  const share = `2 instances, 1 account, limit 100/10 s (below 2 x 16 sends in flight), ${sends} sends`;
  rows.push(
    {
      section,
      metric: `${share}: orders placed per second (limit: 10 requests/s)`,
      value: shared.perSecond,
      unit: 'kudos/s',
      baseline: alone.perSecond,
      baselineName: 'each client pacing itself',
    },
    {
      section,
      metric: `${share}: 429s seen`,
      value: shared.rateLimited,
      unit: '429s',
      baseline: alone.rateLimited,
      baselineName: 'each client pacing itself',
      target: '0',
      meetsTarget: shared.rateLimited === 0,
    },
    {
      section,
      metric: `${share}: Rewards requests per kudos`,
      value: shared.perKudos,
      unit: 'requests',
      baseline: alone.perKudos,
      baselineName: 'each client pacing itself',
    },
    {
      section,
      metric: `${share}: instance 1's share of the orders`,
      value: shared.shares[0] ?? 0,
      unit: '%',
      baseline: alone.shares[0] ?? 0,
      baselineName: 'each client pacing itself',
    },
    {
      section,
      metric: `${share}: instance 2's share of the orders`,
      value: shared.shares[1] ?? 0,
      unit: '%',
      baseline: alone.shares[1] ?? 0,
      baselineName: 'each client pacing itself',
    },
  );
  return rows;
}

export async function benchScale(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const kind of databasesToRun()) rows.push(...(await benchOn(kind)));
  return rows;
}
