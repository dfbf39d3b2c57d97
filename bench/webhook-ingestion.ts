// Webhook ingestion: signed order.created events at a fixed offered rate (open loop, undici Pool on
// 127.0.0.1) into the app's POST /webhooks/rewards, which verifies, validates and stores each event
// before answering; beside a bare node:http server that only verifies the signature and answers 200,
// measured in the same run. The database is DATABASE_URL (a fresh, dropped-after database) or PGlite.
// Background processing is off: this measures the acknowledgement path, not the Rewards API.
// Then throughput: INGEST_EVENTS signed deliveries with INGEST_IN_FLIGHT at a time (closed loop); the
// app answers 200 only once the event is committed, so events stored per second is what it durably
// takes in. Its baseline: the same number of rows of the same shape, each a bare single-row INSERT
// (autocommit) into webhook_events, with as many in flight, on the same database and pool, in the
// same run (alternating, each twice, so the machine's noise falls on both).
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import { sql } from 'drizzle-orm';
import { Pool } from 'undici';

import { startApp } from '../src/app.js';
import { loadConfig } from '../src/config/index.js';
import { createLogger } from '../src/config/logger.js';
import { connectDatabase, type DatabaseConnection, rowsOf } from '../src/db/client.js';
import { migrateDatabase } from '../src/db/migrate.js';
import { createScratchDatabase } from '../src/db/scratch.js';
import { signWebhookBody, verifyWebhookSignature } from '../src/rewards/index.js';
import { type FixedRateRequest, runFixedRate } from './load.js';
import { mapLimit } from './open-loop.js';
import type { BenchRow } from './report.js';
import { round } from './stats.js';

const SECRET = 'bench-signing-secret';
const RATE = 500;
const SECONDS = 10;
const WARMUP_SECONDS = 1;
const INGEST_EVENTS = process.argv.includes('--quick') ? 2000 : 5000;
const INGEST_IN_FLIGHT = 64;

/** Pre-signed deliveries, so that the generator does no HMAC work while timing. */
function makeEvent(i: number) {
  return {
    eventId: randomUUID(),
    eventType: 'order.created',
    createdAt: new Date().toISOString().slice(0, 19),
    data: {
      orderId: `OR${String(i).padStart(10, '0')}`,
      cardType: 'CHOICE_CARD',
      totalAmount: '25.00',
      currency: 'USD',
      recipientCount: 1,
    },
  };
}

function makeDeliveries(count: number): FixedRateRequest[] {
  return Array.from({ length: count }, (_, i) => {
    const body = JSON.stringify(makeEvent(i));
    return {
      path: '/webhooks/rewards',
      headers: { 'content-type': 'application/json', 'x-service-signature': signWebhookBody(body, SECRET) },
      body,
    };
  });
}

/** Deliveries through the app, INGEST_IN_FLIGHT at a time; events committed per second. */
async function ingestThroughApp(
  origin: string,
  conn: DatabaseConnection,
): Promise<{ perSecond: number; failed: number }> {
  const deliveries = makeDeliveries(INGEST_EVENTS);
  const pool = new Pool(origin, { connections: INGEST_IN_FLIGHT, pipelining: 1 });
  let failed = 0;
  const before = await countEvents(conn);
  const started = performance.now();
  try {
    await mapLimit(deliveries, INGEST_IN_FLIGHT, async (d) => {
      const res = await pool.request({ method: 'POST', path: d.path, headers: d.headers, body: d.body });
      await res.body.dump();
      if (res.statusCode !== 200) failed++;
    });
  } finally {
    await pool.close();
  }
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: ((await countEvents(conn)) - before) / seconds, failed };
}

/** The baseline: the same rows, one bare INSERT each (autocommit), INGEST_IN_FLIGHT at a time. */
async function ingestByBareInsert(conn: DatabaseConnection): Promise<number> {
  const events = Array.from({ length: INGEST_EVENTS }, (_, i) => makeEvent(i));
  const before = await countEvents(conn);
  const started = performance.now();
  await mapLimit(events, INGEST_IN_FLIGHT, async (e) => {
    await conn.db.execute(
      sql`insert into webhook_events (event_id, event_type, created_at, body) values (${e.eventId}, ${e.eventType}, ${e.createdAt}::timestamptz, ${JSON.stringify(e)}::jsonb)`,
    );
  });
  const seconds = (performance.now() - started) / 1000;
  return ((await countEvents(conn)) - before) / seconds;
}

async function openDatabase(): Promise<{ conn: DatabaseConnection; label: string; drop(): Promise<void> }> {
  const baseUrl = process.env.DATABASE_URL;
  if (!baseUrl) {
    const conn = await connectDatabase({ pgliteDir: 'memory://' });
    await migrateDatabase(conn);
    return { conn, label: 'PGlite', drop: () => conn.close() };
  }
  const scratch = await createScratchDatabase(baseUrl, 'kudos_bench');
  const conn = await connectDatabase({ databaseUrl: scratch.url, maxConnections: 10 });
  await migrateDatabase(conn);
  return {
    conn,
    label: 'PostgreSQL',
    async drop() {
      await conn.close();
      await scratch.drop();
    },
  };
}

async function startBareServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const ok = verifyWebhookSignature(
        Buffer.concat(chunks),
        req.headers['x-service-signature'] as string | undefined,
        SECRET,
      );
      res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' }).end(ok ? '{"ok":true}' : '{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export async function benchWebhookIngestion(): Promise<BenchRow[]> {
  const database = await openDatabase();
  const config = loadConfig({
    SLACK_SIGNING_SECRET: 'bench',
    SLACK_BOT_TOKEN: 'xoxb-bench',
    SLACK_API_URL: 'http://127.0.0.1:9/api/',
    REWARDS_API_URL: 'http://127.0.0.1:9',
    REWARDS_CLIENT_ID: 'bench',
    REWARDS_CLIENT_SECRET: 'bench',
    REWARDS_WEBHOOK_SECRET: SECRET,
  });
  const app = await startApp({
    config,
    port: 0,
    metricsPort: 0,
    host: '127.0.0.1',
    db: database.conn.db,
    logger: createLogger({ level: 'silent' }),
    tuning: { worker: { enabled: false }, webhooks: { enabled: false } },
  });
  const bare = await startBareServer();
  try {
    const total = RATE * (SECONDS + WARMUP_SECONDS);
    const appDeliveries = makeDeliveries(total);
    const bareDeliveries = makeDeliveries(total);
    await runFixedRate({ origin: app.url, rate: RATE, seconds: WARMUP_SECONDS, makeRequest: (i) => appDeliveries[i]! });
    await runFixedRate({
      origin: bare.url,
      rate: RATE,
      seconds: WARMUP_SECONDS,
      makeRequest: (i) => bareDeliveries[i]!,
    });
    const offset = RATE * WARMUP_SECONDS;
    const before = await countEvents(database.conn);
    const measured = await runFixedRate({
      origin: app.url,
      rate: RATE,
      seconds: SECONDS,
      makeRequest: (i) => appDeliveries[offset + i]!,
    });
    const stored = (await countEvents(database.conn)) - before;
    const baseline = await runFixedRate({
      origin: bare.url,
      rate: RATE,
      seconds: SECONDS,
      makeRequest: (i) => bareDeliveries[offset + i]!,
    });

    // Durable throughput, alternating app and bare INSERTs, best of two each.
    const appRuns: Array<{ perSecond: number; failed: number }> = [];
    const bareRuns: number[] = [];
    for (let i = 0; i < 2; i++) {
      console.error(
        `bench: webhook ingestion (${database.label}): ${INGEST_EVENTS} events, ${INGEST_IN_FLIGHT} in flight, round ${i + 1}`,
      );
      appRuns.push(await ingestThroughApp(app.url, database.conn));
      bareRuns.push(await ingestByBareInsert(database.conn));
    }
    const ingestSection = `webhook ingest throughput (${INGEST_EVENTS} events, ${INGEST_IN_FLIGHT} in flight, best of 2, ${database.label})`;
    const appBest = Math.max(...appRuns.map((r) => r.perSecond));
    const bareBest = Math.max(...bareRuns);
    console.error(
      `bench:   app ${appRuns.map((r) => round(r.perSecond, 0)).join(', ')} events/s; bare INSERT ${bareRuns.map((r) => round(r, 0)).join(', ')} rows/s`,
    );

    const section = `webhook ingestion (${RATE}/s for ${SECONDS} s, ${database.label})`;
    const baselineName = 'bare node:http + HMAC';
    const p99 = round(measured.p99, 2);
    return [
      {
        section: ingestSection,
        metric: 'events durably stored per second (signed deliveries, 200 after commit)',
        value: round(appBest, 0),
        unit: 'events/s',
        baseline: round(bareBest, 0),
        baselineName: 'bare single-row INSERTs, same rows, table and pool',
      },
      {
        section: ingestSection,
        metric: 'deliveries not answered 200',
        value: appRuns.reduce((sum, r) => sum + r.failed, 0),
        unit: 'requests',
      },
      {
        section,
        metric: 'events acknowledged',
        value: round(measured.achievedRate, 1),
        unit: 'events/s',
        baseline: round(baseline.achievedRate, 1),
        baselineName,
      },
      { section, metric: 'events stored', value: round(stored / SECONDS, 1), unit: 'events/s' },
      {
        section,
        metric: 'failed or refused',
        value: measured.failed,
        unit: 'requests',
        baseline: baseline.failed,
        baselineName,
      },
      {
        section,
        metric: 'p50 ack latency',
        value: round(measured.p50, 2),
        unit: 'ms',
        baseline: round(baseline.p50, 2),
        baselineName,
      },
      {
        section,
        metric: 'p99 ack latency',
        value: p99,
        unit: 'ms',
        baseline: round(baseline.p99, 2),
        baselineName,
        target: '< 50 ms',
        meetsTarget: p99 < 50,
      },
      {
        section,
        metric: 'max ack latency',
        value: round(measured.max, 2),
        unit: 'ms',
        baseline: round(baseline.max, 2),
        baselineName,
      },
    ];
  } finally {
    await bare.close();
    await app.close();
    await database.drop();
  }
}

async function countEvents(conn: DatabaseConnection): Promise<number> {
  return Number(rowsOf<{ n: number }>(await conn.db.execute(sql`select count(*)::int as n from webhook_events`))[0]!.n);
}
