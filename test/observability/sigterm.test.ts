// SIGTERM on `src/main.ts` in a child process: it stops taking new work, finishes or releases the
// order being placed, and exits within 10 s with code 0 (main.ts exits 1 only on its hard limit).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { connectDatabase } from '../../src/db/client.js';
import { kudos, type KudosRow } from '../../src/db/schema/index.js';
import { type SlackSimulator, startSlackSimulator } from '../../src/simulator/slack.js';
import { appEnv, type AppProcess, startAppProcess } from '../chaos/app-process.js';
import { submitKudosForm } from '../chaos/send-form.js';
import { TEST_SIGNING_SECRET } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { startTestEmulator, type TestEmulator } from '../support/emulator.js';
import { untilNoneHeld } from '../support/held-requests.js';

const ORDER_PATH = '^/api/v1/orders/choice-cards$';
let emulator: TestEmulator;
let sim: SlackSimulator;
let pgDb: TestDatabase | undefined;
let pgliteDir: string | undefined;
const apps: AppProcess[] = [];

beforeAll(async () => {
  [emulator, sim] = await Promise.all([
    startTestEmulator(),
    startSlackSimulator({ signingSecret: TEST_SIGNING_SECRET }),
  ]);
});
afterAll(async () => {
  await sim?.close();
  await emulator?.close();
});
beforeEach(async () => {
  await emulator.reset();
  if (process.env.DATABASE_URL) pgDb = await createTestDatabase();
  else pgliteDir = mkdtempSync(join(tmpdir(), 'kudos-sigterm-'));
});
afterEach(async () => {
  for (const app of apps.splice(0)) {
    app.kill('SIGKILL');
    await app.exited;
  }
  await pgDb?.close();
  pgDb = undefined;
  if (pgliteDir) rmSync(pgliteDir, { recursive: true, force: true });
  pgliteDir = undefined;
});

async function startApp(): Promise<AppProcess> {
  const env = appEnv({
    emulatorUrl: emulator.url,
    slackApiUrl: sim.apiUrl,
    botToken: sim.botToken,
    signingSecret: TEST_SIGNING_SECRET,
    ...(pgDb?.url ? { databaseUrl: pgDb.url } : { pgliteDir: pgliteDir! }),
    // 'placing order' (the moment to send SIGTERM) is a debug line.
    extra: { LOG_LEVEL: 'debug' },
  });
  // A cold start (PGlite's migrations, the build's first run) took over a minute at load average 26.
  const app = await startAppProcess(env, { startTimeoutMs: 180_000 });
  apps.push(app);
  sim.setAppUrl(app.url);
  return app;
}

/** Reads the rows once the app process is gone (an embedded database has one owner at a time). */
async function rowsAfterExit(): Promise<KudosRow[]> {
  const conn = await connectDatabase(
    pgDb?.url ? { databaseUrl: pgDb.url, maxConnections: 1 } : { pgliteDir: pgliteDir! },
  );
  try {
    return await conn.db.select().from(kudos);
  } finally {
    await conn.close();
  }
}

const submitKudos = (recipient: string) => submitKudosForm(sim, recipient);

async function sigterm(app: AppProcess): Promise<{ code: number | null; ms: number }> {
  const sentAt = performance.now();
  app.kill('SIGTERM');
  const { code, at } = await app.exited;
  return { code, ms: at - sentAt };
}

async function orderCount(): Promise<number> {
  const token = await fetch(`${emulator.url}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: 'production-client',
      client_secret: 'production-secret',
      scope: 'orders.read',
    }),
  }).then((r) => r.json() as Promise<{ access_token: string }>);
  const list = await fetch(`${emulator.url}/api/v1/orders?pageSize=100`, {
    headers: { authorization: `Bearer ${token.access_token}` },
  }).then((r) => r.json() as Promise<{ totalCount?: number; data?: unknown[] }>);
  return list.totalCount ?? list.data?.length ?? 0;
}

describe('SIGTERM', () => {
  it('finishes the order being placed, refuses new work, and exits 0 within 10 s', async () => {
    const app = await startApp();
    // The order request takes 2 s to be answered: SIGTERM lands while it is in flight.
    await emulator.faults({ method: 'POST', path: ORDER_PATH, delayMs: 2000 });
    await submitKudos('U_EMP1');
    await app.waitForLog((l) => l.msg === 'placing order', 60_000);

    const exit = sigterm(app);
    await app.waitForLog((l) => l.msg === 'stopping');
    // New work is refused: the listener is closed (connection refused) or draining (503).
    const late = await fetch(`${app.url}/healthz`).then(
      (r) => r.status,
      () => 'refused',
    );
    expect(late).not.toBe(200);

    // Exit code 0 is the graceful close finished: main.ts's hard limit, armed when it logs 'stopping',
    // exits 1 after 10 s. (The time the test sees adds its own wait for the child's exit, which on a
    // loaded machine is no measure of the app: it is not asserted.)
    const { code } = await exit;
    expect(code).toBe(0);
    await app.waitForLog((l) => l.msg === 'kudos app stopped', 10_000); // its last line may be read after the exit
    const [row] = await rowsAfterExit();
    expect(row!.status).toBe('placed');
    expect(row!.orderId).toBeTruthy();
    expect(row!.claimedUntil).toBeNull();
    expect(await orderCount()).toBe(1);
  }, 300_000);

  it('releases a lease it cannot finish in time, so another instance resumes it with the same key', async () => {
    const first = await startApp();
    // Longer than the shutdown grace: the call is aborted and the row released.
    await emulator.faults({ method: 'POST', path: ORDER_PATH, delayMs: 12_000 });
    await submitKudos('U_EMP2');
    await first.waitForLog((l) => l.msg === 'placing order', 60_000);

    const { code } = await sigterm(first);
    expect(code).toBe(0); // within main.ts's 10 s hard limit (see above)
    await first.waitForLog((l) => l.msg === 'kudos app stopped', 10_000);
    const [released] = await rowsAfterExit();
    expect(released!.status).toBe('pending');
    expect(released!.claimedUntil).toBeNull();
    expect(released!.claimedBy).toBeNull();

    // A new instance resumes it with the same idempotency key: one order, even though the emulator
    // still applies the delayed first request.
    const second = await startApp();
    await second.waitForLog((l) => l.msg === 'order placed', 60_000);
    const exit = await sigterm(second);
    expect(exit.code).toBe(0);
    const [placed] = await rowsAfterExit();
    expect(placed!.status).toBe('placed');
    expect(placed!.idempotencyKey).toBe(released!.idempotencyKey);
    // The emulator applies the delayed first request 12 s after it arrived (real time: the fault
    // delay does not follow the emulator's clock): counted once it has been applied.
    await untilNoneHeld(emulator.url);
    expect(await orderCount()).toBe(1);
  }, 360_000);
});
