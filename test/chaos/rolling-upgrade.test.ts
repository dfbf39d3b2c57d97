// A rolling upgrade (PostgreSQL only: two instances share one database): an instance of this version
// serves, an instance of the next version starts beside it and applies its migration (a column added,
// under the migration lock), and both serve kudos on the one schema. The old version can also start
// again after the migration (a rollback, or an old instance restarted mid-upgrade). The next version
// is this build plus one migration, laid out as an image has it (dist/ beside migrations/).
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { connectDatabase, type DatabaseConnection, rowsOf } from '../../src/db/client.js';
import { createScratchDatabase, type ScratchDatabase } from '../../src/db/scratch.js';
import { type SlackSimulator, startSlackSimulator } from '../../src/simulator/slack.js';
import { TEST_SIGNING_SECRET } from '../support/app.js';
import { startTestEmulator, type TestEmulator } from '../support/emulator.js';
import { appEnv, type AppProcess, ensureBuilt, REPO_ROOT, START_NODE_FLAGS, startAppProcess } from './app-process.js';
import { submitKudosForm } from './send-form.js';

const NEXT_MIGRATION = 'ALTER TABLE "kudos" ADD COLUMN "upgrade_probe" text;';

let emulator: TestEmulator;
let sim: SlackSimulator;
let database: ScratchDatabase;
let reader: DatabaseConnection;
let nextVersionDir: string;
const apps: AppProcess[] = [];

/** This build with one more migration: dist/, migrations/ (journal entry and SQL), package.json, node_modules. */
function layOutNextVersion(dir: string): void {
  cpSync(join(REPO_ROOT, 'dist'), join(dir, 'dist'), { recursive: true });
  cpSync(join(REPO_ROOT, 'migrations'), join(dir, 'migrations'), { recursive: true });
  cpSync(join(REPO_ROOT, 'package.json'), join(dir, 'package.json'));
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const journalPath = join(dir, 'migrations', 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as {
    entries: Array<{ idx: number; version: string; when: number; tag: string; breakpoints: boolean }>;
  };
  const last = journal.entries.at(-1)!;
  const tag = `${String(last.idx + 1).padStart(4, '0')}_upgrade_probe`;
  journal.entries.push({ ...last, idx: last.idx + 1, when: last.when + 60_000, tag });
  writeFileSync(journalPath, JSON.stringify(journal, null, 2));
  writeFileSync(join(dir, 'migrations', `${tag}.sql`), NEXT_MIGRATION);
}

async function startInstance(version: 'this' | 'next'): Promise<AppProcess> {
  const env = appEnv({
    emulatorUrl: emulator.url,
    slackApiUrl: sim.apiUrl,
    botToken: sim.botToken,
    signingSecret: TEST_SIGNING_SECRET,
    databaseUrl: database.url,
  });
  const app = await startAppProcess(env, {
    startTimeoutMs: 180_000,
    ...(version === 'next' ? { script: join(nextVersionDir, 'dist', 'main.js'), nodeArgs: START_NODE_FLAGS } : {}),
  });
  apps.push(app);
  return app;
}

/** A kudos sent through `app` and placed (by whichever instance's worker claims it). */
async function sendThrough(app: AppProcess, recipient: string): Promise<void> {
  sim.setAppUrl(app.url);
  await submitKudosForm(sim, recipient);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const [row] = rowsOf<{ status: string }>(
      await reader.db.execute(
        sql`select status from kudos where recipients @> ${JSON.stringify([{ slackUserId: recipient }])}::jsonb`,
      ),
    );
    if (row?.status === 'placed') return;
    if (Date.now() > deadline) throw new Error(`the kudos to ${recipient} is ${row?.status ?? 'missing'}, not placed`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function columns(): Promise<string[]> {
  const rows = rowsOf<{ column_name: string }>(
    await reader.db.execute(
      sql`select column_name from information_schema.columns where table_name = 'kudos' and column_name = 'upgrade_probe'`,
    ),
  );
  return rows.map((r) => r.column_name);
}

async function readyz(app: AppProcess): Promise<number> {
  return (await fetch(`${app.url}/readyz`)).status;
}

async function sigterm(app: AppProcess): Promise<number | null> {
  app.kill('SIGTERM');
  return (await app.exited).code;
}

describe.skipIf(!process.env.DATABASE_URL)('a rolling upgrade', () => {
  beforeAll(async () => {
    [emulator, sim, database] = await Promise.all([
      startTestEmulator(),
      startSlackSimulator({ signingSecret: TEST_SIGNING_SECRET }),
      createScratchDatabase(process.env.DATABASE_URL!, 'kudos_upgrade'),
      ensureBuilt(),
    ]);
    reader = await connectDatabase({ databaseUrl: database.url, maxConnections: 2 });
    nextVersionDir = mkdtempSync(join(tmpdir(), 'kudos-next-version-'));
    layOutNextVersion(nextVersionDir);
  }, 180_000);

  afterAll(async () => {
    for (const app of apps.splice(0)) {
      app.kill('SIGKILL');
      await app.exited;
    }
    await reader?.close();
    await database?.drop();
    await Promise.all([sim?.close(), emulator?.close()]);
    if (nextVersionDir) rmSync(nextVersionDir, { recursive: true, force: true });
  });

  it('runs the old and the new version side by side across an added column', async () => {
    const old = await startInstance('this');
    await sendThrough(old, 'U_EMP1');
    expect(await columns()).toEqual([]);

    // The next version starts beside it and applies its migration; the old one keeps serving.
    const next = await startInstance('next');
    expect(await columns()).toEqual(['upgrade_probe']);
    expect([await readyz(old), await readyz(next)]).toEqual([200, 200]);
    await sendThrough(old, 'U_EMP2');
    await sendThrough(next, 'U_EMP3');

    // The old version starts again on the newer schema (a rollback): it applies nothing and serves.
    expect(await sigterm(old)).toBe(0);
    const restarted = await startInstance('this');
    expect(await readyz(restarted)).toBe(200);
    await sendThrough(restarted, 'U_EMP4');

    const placed = rowsOf<{ status: string; order_id: string }>(
      await reader.db.execute(sql`select status, order_id from kudos`),
    );
    expect(placed.map((r) => r.status)).toEqual(['placed', 'placed', 'placed', 'placed']);
    expect(new Set(placed.map((r) => r.order_id)).size).toBe(4);
    const errors = apps.flatMap((app) => app.logs.filter((line) => line.level === 'error'));
    expect(errors).toEqual([]);
    expect([await sigterm(restarted), await sigterm(next)]).toEqual([0, 0]);
  }, 600_000);
});
