// Scale under the Rewards API's rate limit (issue 20), in process: app instances (src/app.ts) on one
// database, one emulator account with a low limit, the Slack simulator. Figures beside baselines of
// the same run:
//   - 2 instances on one account, a limit below the worker concurrency (10 requests/s; 16 sends in
//     flight per instance): placing throughput against the announced rate, 429s seen, Rewards
//     requests per kudos (orders, recipients, completion checks), each instance's share of the
//     orders. Baseline: the same run with each client pacing itself (no shared budget, as before).
//   - a single kudos of another workspace beside a backlog: its queueing delay (due -> placed),
//     beside the same kudos placed on an idle app.
// `--quick` halves the sizes.
import { count, eq, isNotNull } from 'drizzle-orm';
import { startApp, type RunningApp } from '../src/app.js';
import { loadConfig } from '../src/config/index.js';
import { createLogger } from '../src/config/logger.js';
import { connectDatabase, type DatabaseConnection } from '../src/db/client.js';
import { migrateDatabase } from '../src/db/migrate.js';
import { createScratchDatabase } from '../src/db/scratch.js';
import { kudos, orderChecks } from '../src/db/schema/index.js';
import { startEmulator } from '../src/emulator/server.js';
import { startSlackSimulator } from '../src/simulator/slack.js';
import { pendingKudosValues } from '../test/support/kudos-row.js';
import type { BenchRow } from './report.js';

const SECTION = 'scale';
const quick = process.argv.includes('--quick');

interface Stack {
  apps: RunningApp[];
  conn: DatabaseConnection;
  close(): Promise<void>;
}

async function openDatabase(): Promise<{ conn: DatabaseConnection; drop(): Promise<void> }> {
  if (process.env.DATABASE_URL) {
    const scratch = await createScratchDatabase(process.env.DATABASE_URL, 'kudos_bench_scale');
    const conn = await connectDatabase({ databaseUrl: scratch.url, maxConnections: 20 });
    await migrateDatabase(conn);
    return { conn, drop: () => scratch.drop() };
  }
  const conn = await connectDatabase({ pgliteDir: 'memory://' });
  await migrateDatabase(conn);
  return { conn, drop: async () => undefined };
}

async function startStack(instances: number, emulatorEnv: Record<string, string>, shared: boolean): Promise<Stack> {
  const opened = await openDatabase();
  const conn = opened.conn;
  const emulator = await startEmulator({ port: 0, host: '127.0.0.1', env: emulatorEnv });
  const sim = await startSlackSimulator({ signingSecret: 'bench', emulatorUrl: emulator.url });
  const config = loadConfig({
    SLACK_SIGNING_SECRET: 'bench',
    SLACK_BOT_TOKEN: sim.botToken,
    SLACK_API_URL: sim.apiUrl,
    REWARDS_API_URL: emulator.url,
    REWARDS_CLIENT_ID: 'production-client',
    REWARDS_CLIENT_SECRET: 'production-secret',
    REWARDS_WEBHOOK_SECRET: 'emulator-signing-secret',
    KUDOS_NOTIFY_CHANNEL: 'C_KUDOS',
  });
  const apps: RunningApp[] = [];
  for (let i = 0; i < instances; i++) {
    apps.push(
      await startApp({
        config,
        port: 0,
        metricsPort: 0,
        host: '127.0.0.1',
        db: conn.db,
        logger: createLogger({ level: 'silent' }),
        worker: { pollIntervalMs: 100 },
        webhooks: { pollIntervalMs: 200 },
        ...(shared ? {} : { rateBudget: false as const }),
      }),
    );
  }
  sim.setAppUrl(apps[0]!.url);
  return {
    apps,
    conn,
    async close() {
      await Promise.all(apps.map((a) => a.close()));
      await sim.close();
      await emulator.close();
      await conn.close();
      await opened.drop();
    },
  };
}

/** Sum of kudos_rewards_api_calls_total samples matching `filter`, from one app's /metrics. */
async function rewardsCalls(app: RunningApp, filter: (labels: string) => boolean): Promise<number> {
  const text = await (await fetch(`${app.metricsUrl}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n')) {
    const match = /^kudos_rewards_api_calls_total\{([^}]*)\} (\S+)$/.exec(line);
    if (match && filter(match[1]!)) total += Number(match[2]);
  }
  return total;
}

async function until(probe: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await probe()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

const isApi = (labels: string) => labels.includes('endpoint="/api/');

async function shareRun(shared: boolean, sends: number): Promise<{ perSecond: number; limitPerSecond: number; rateLimited: number; perKudos: number; shares: number[]; checksDone: boolean }> {
  const LIMIT = 30;
  const WINDOW_S = 3;
  const stack = await startStack(2, { EMULATOR_RATE_LIMIT: String(LIMIT), EMULATOR_RATE_WINDOW_S: String(WINDOW_S) }, shared);
  try {
    const db = stack.conn.db;
    const started = Date.now();
    for (let i = 0; i < sends; i += 200) await db.insert(kudos).values(Array.from({ length: Math.min(200, sends - i) }, () => pendingKudosValues()));
    for (const app of stack.apps) app.worker.wake();
    const placedAll = await until(async () => (await db.select({ n: count() }).from(kudos).where(isNotNull(kudos.orderId)))[0]!.n >= sends, 180_000);
    const seconds = (Date.now() - started) / 1000;
    const placed = (await db.select({ n: count() }).from(kudos).where(isNotNull(kudos.orderId)))[0]!.n;
    const checksDone = await until(async () => (await db.select({ n: count() }).from(orderChecks).where(isNotNull(orderChecks.doneAt)))[0]!.n >= sends, 120_000);
    const shares = await Promise.all(stack.apps.map((app) => rewardsCalls(app, (l) => l.includes('endpoint="/api/v1/orders/choice-cards"') && l.includes('status="201"'))));
    const rateLimited = (await Promise.all(stack.apps.map((app) => rewardsCalls(app, (l) => isApi(l) && l.includes('status="429"'))))).reduce((a, b) => a + b, 0);
    const answered = (await Promise.all(stack.apps.map((app) => rewardsCalls(app, (l) => isApi(l) && !l.includes('status="429"'))))).reduce((a, b) => a + b, 0);
    if (!placedAll) console.error(`scale: only ${placed} of ${sends} placed within the time limit`);
    return {
      perSecond: Math.round((placed / seconds) * 100) / 100,
      limitPerSecond: LIMIT / WINDOW_S,
      rateLimited,
      perKudos: Math.round((answered / Math.max(1, placed)) * 100) / 100,
      shares: shares.map((s) => Math.round((s / Math.max(1, placed)) * 100)),
      checksDone,
    };
  } finally {
    await stack.close();
  }
}

async function queueingRun(backlog: number): Promise<{ withBacklog: number; idle: number }> {
  const stack = await startStack(1, { EMULATOR_RATE_LIMIT: '100', EMULATOR_RATE_WINDOW_S: '2' }, true);
  try {
    const db = stack.conn.db;
    const app = stack.apps[0]!;
    const single = async (): Promise<number> => {
      const [row] = await db
        .insert(kudos)
        .values(pendingKudosValues({ teamId: 'T_OTHER' }))
        .returning();
      app.worker.wake();
      await until(async () => Boolean((await db.select().from(kudos).where(eq(kudos.id, row!.id)))[0]?.placedAt), 120_000);
      const [placed] = await db.select().from(kudos).where(eq(kudos.id, row!.id));
      return (placed!.placedAt!.getTime() - placed!.createdAt.getTime()) / 1000;
    };
    const idle = await single();
    for (let i = 0; i < backlog; i += 200) await db.insert(kudos).values(Array.from({ length: Math.min(200, backlog - i) }, () => pendingKudosValues({ teamId: 'T_BIG' })));
    app.worker.wake();
    await until(async () => (await db.select({ n: count() }).from(kudos).where(isNotNull(kudos.orderId)))[0]!.n >= 20, 60_000);
    const withBacklog = await single();
    return { withBacklog: Math.round(withBacklog * 1000) / 1000, idle: Math.round(idle * 1000) / 1000 };
  } finally {
    await stack.close();
  }
}

export async function benchScale(): Promise<BenchRow[]> {
  const sends = quick ? 60 : 120;
  const rows: BenchRow[] = [];
  const before = await shareRun(false, sends);
  const after = await shareRun(true, sends);
  const label = `2 instances, 1 account, limit 30/3 s, ${sends} sends`;
  rows.push(
    {
      section: SECTION,
      metric: `${label}: orders placed per second (limit: 10 requests/s)`,
      value: after.perSecond,
      unit: 'kudos/s',
      baseline: before.perSecond,
      baselineName: 'each client pacing itself',
    },
    {
      section: SECTION,
      metric: `${label}: 429s seen`,
      value: after.rateLimited,
      unit: '429s',
      baseline: before.rateLimited,
      baselineName: 'each client pacing itself',
      target: '0',
      meetsTarget: after.rateLimited === 0,
    },
    {
      section: SECTION,
      metric: `${label}: Rewards requests per kudos (429s excluded; order, completion checks)`,
      value: after.perKudos,
      unit: 'requests',
      baseline: before.perKudos,
      baselineName: 'each client pacing itself',
      target: '<= 1.1',
      meetsTarget: after.perKudos <= 1.1,
    },
    { section: SECTION, metric: `${label}: instance 1's share of the orders`, value: after.shares[0] ?? 0, unit: '%', baseline: before.shares[0] ?? 0, baselineName: 'each client pacing itself' },
    { section: SECTION, metric: `${label}: instance 2's share of the orders`, value: after.shares[1] ?? 0, unit: '%', baseline: before.shares[1] ?? 0, baselineName: 'each client pacing itself' },
  );
  const backlog = quick ? 200 : 400;
  const queue = await queueingRun(backlog);
  rows.push({
    section: SECTION,
    metric: `another workspace's single kudos beside a ${backlog}-send backlog (limit 100/2 s): due -> placed`,
    value: queue.withBacklog,
    unit: 's',
    baseline: queue.idle,
    baselineName: 'the same kudos on an idle app',
    target: '< 1 s',
    meetsTarget: queue.withBacklog < 1,
  });
  return rows;
}
