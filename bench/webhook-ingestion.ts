// Webhook ingestion: signed order.created events at a fixed offered rate (open loop, undici Pool on
// 127.0.0.1) into the app's POST /webhooks/rewards, which verifies, validates and stores each event
// before answering; beside a bare node:http server that only verifies the signature and answers 200,
// measured in the same run. The database is DATABASE_URL (a fresh, dropped-after database) or PGlite.
// Background processing is off: this measures the acknowledgement path, not the Rewards API.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { startApp } from '../src/app.js';
import { loadConfig } from '../src/config/index.js';
import { createLogger } from '../src/config/logger.js';
import { connectDatabase, rowsOf, type DatabaseConnection } from '../src/db/client.js';
import { migrateDatabase } from '../src/db/migrate.js';
import { createScratchDatabase } from '../src/db/scratch.js';
import { signWebhookBody, verifyWebhookSignature } from '../src/rewards/index.js';
import { runFixedRate, type FixedRateRequest } from './load.js';
import type { BenchRow } from './report.js';
import { round } from './stats.js';

const SECRET = 'bench-signing-secret';
const RATE = 500;
const SECONDS = 10;
const WARMUP_SECONDS = 1;

/** Pre-signed deliveries, so that the generator does no HMAC work while timing. */
function makeDeliveries(count: number): FixedRateRequest[] {
  return Array.from({ length: count }, (_, i) => {
    const body = JSON.stringify({
      eventId: randomUUID(),
      eventType: 'order.created',
      createdAt: new Date().toISOString().slice(0, 19),
      data: { orderId: `OR${String(i).padStart(10, '0')}`, cardType: 'CHOICE_CARD', totalAmount: '25.00', currency: 'USD', recipientCount: 1 },
    });
    return { path: '/webhooks/rewards', headers: { 'content-type': 'application/json', 'x-service-signature': signWebhookBody(body, SECRET) }, body };
  });
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
      const ok = verifyWebhookSignature(Buffer.concat(chunks), req.headers['x-service-signature'] as string | undefined, SECRET);
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
    worker: { enabled: false },
    webhooks: { enabled: false },
  });
  const bare = await startBareServer();
  try {
    const total = RATE * (SECONDS + WARMUP_SECONDS);
    const appDeliveries = makeDeliveries(total);
    const bareDeliveries = makeDeliveries(total);
    await runFixedRate({ origin: app.url, rate: RATE, seconds: WARMUP_SECONDS, makeRequest: (i) => appDeliveries[i]! });
    await runFixedRate({ origin: bare.url, rate: RATE, seconds: WARMUP_SECONDS, makeRequest: (i) => bareDeliveries[i]! });
    const offset = RATE * WARMUP_SECONDS;
    const before = await countEvents(database.conn);
    const measured = await runFixedRate({ origin: app.url, rate: RATE, seconds: SECONDS, makeRequest: (i) => appDeliveries[offset + i]! });
    const stored = (await countEvents(database.conn)) - before;
    const baseline = await runFixedRate({ origin: bare.url, rate: RATE, seconds: SECONDS, makeRequest: (i) => bareDeliveries[offset + i]! });

    const section = `webhook ingestion (${RATE}/s for ${SECONDS} s, ${database.label})`;
    const baselineName = 'bare node:http + HMAC';
    const p99 = round(measured.p99, 2);
    return [
      { section, metric: 'events acknowledged', value: round(measured.achievedRate, 1), unit: 'events/s', baseline: round(baseline.achievedRate, 1), baselineName },
      { section, metric: 'events stored', value: round(stored / SECONDS, 1), unit: 'events/s' },
      { section, metric: 'failed or refused', value: measured.failed, unit: 'requests', baseline: baseline.failed, baselineName },
      { section, metric: 'p50 ack latency', value: round(measured.p50, 2), unit: 'ms', baseline: round(baseline.p50, 2), baselineName },
      { section, metric: 'p99 ack latency', value: p99, unit: 'ms', baseline: round(baseline.p99, 2), baselineName, target: '< 50 ms', meetsTarget: p99 < 50 },
      { section, metric: 'max ack latency', value: round(measured.max, 2), unit: 'ms', baseline: round(baseline.max, 2), baselineName },
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
