// A fresh, migrated database for a test file: PGlite in memory, or (when DATABASE_URL is set) a
// new uniquely named PostgreSQL database created from DATABASE_URL and dropped on close.
// PGlite takes seconds to start: create one per file (beforeAll) and truncateAll() between tests.
import { createHash } from 'node:crypto';
import {
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach } from 'vitest';

import { connectDatabase, type Database, type DatabaseConnection, rowsOf } from '../../src/db/client.js';
import { migrateDatabase, MIGRATIONS_FOLDER } from '../../src/db/migrate.js';
import { createScratchDatabase } from '../../src/db/scratch.js';

export interface TestDatabase {
  db: Database;
  driver: 'postgres' | 'pglite';
  /** Connection string of the test database (PostgreSQL only), e.g. for a second app instance. */
  url: string | undefined;
  truncateAll(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The usual set-up of a test file: one database for the file (beforeAll), emptied before each test,
 * closed (and dropped) after the file. The returned handle is usable inside hooks and tests.
 */
export function useTestDatabase(): TestDatabase {
  let current: TestDatabase | undefined;
  beforeAll(async () => {
    current = await createTestDatabase();
  });
  afterAll(async () => {
    await current?.close();
  });
  beforeEach(async () => {
    await ready().truncateAll();
  });
  function ready(): TestDatabase {
    if (!current) throw new Error('the test database is created in beforeAll: use it inside hooks and tests');
    return current;
  }
  return {
    get db() {
      return ready().db;
    },
    get driver() {
      return ready().driver;
    },
    get url() {
      return ready().url;
    },
    truncateAll: () => ready().truncateAll(),
    close: () => ready().close(),
  };
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const baseUrl = process.env.DATABASE_URL;
  if (!baseUrl) {
    const conn = await connectPgliteFromTemplate();
    await migrateDatabase(conn);
    return {
      db: conn.db,
      driver: 'pglite',
      url: undefined,
      truncateAll: () => truncateAll(conn.db),
      close: conn.close,
    };
  }
  const scratch = await createScratchDatabase(baseUrl, 'kudos_test');
  const conn = await connectDatabase({ databaseUrl: scratch.url, maxConnections: 10 });
  await migrateDatabase(conn);
  return {
    db: conn.db,
    driver: 'postgres',
    url: scratch.url,
    truncateAll: () => truncateAll(conn.db),
    async close() {
      await conn.close();
      await scratch.drop();
    },
  };
}

/**
 * initdb of a fresh PGlite takes seconds; loading a dumped, already migrated data directory is several
 * times faster. The first test file to need one dumps it to the temp folder, keyed by the migrations.
 */
async function connectPgliteFromTemplate(): Promise<DatabaseConnection> {
  const files = readdirSync(MIGRATIONS_FOLDER, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
  const hash = createHash('sha256');
  for (const file of files) hash.update(file).update(readFileSync(file));
  const templatePath = join(tmpdir(), `kudos-pglite-template-${hash.digest('hex').slice(0, 16)}.tar`);
  if (existsSync(templatePath)) {
    try {
      const conn = await connectDatabase({
        pgliteDir: 'memory://',
        pgliteDataDir: new Blob([readFileSync(templatePath)]),
      });
      utimesSync(templatePath, new Date(), new Date()); // in use: see the clean-up below
      return conn;
    } catch {
      // A damaged template: fall through and rebuild it.
    }
  }
  const conn = await connectDatabase({ pgliteDir: 'memory://' });
  await migrateDatabase(conn);
  const dump = await conn.pglite!.dumpDataDir('none');
  const partial = `${templatePath}.${process.pid}.tmp`;
  writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
  renameSync(partial, templatePath); // atomic: parallel test files never read half a file
  // Templates of older migration sets are dead weight (40 MB each); one used within the day may belong
  // to another checkout (a worktree on other migrations) running beside this one, so it is kept.
  const dayAgo = Date.now() - 24 * 60 * 60 * 1000;
  for (const name of readdirSync(tmpdir())) {
    const path = join(tmpdir(), name);
    if (!/^kudos-pglite-template-[0-9a-f]{16}\.tar$/.test(name) || path === templatePath) continue;
    if ((statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0) < dayAgo) rmSync(path, { force: true });
  }
  return conn;
}

async function truncateAll(db: Database): Promise<void> {
  const rows = rowsOf<{ tablename: string }>(
    await db.execute(sql`select tablename from pg_tables where schemaname = 'public'`),
  );
  if (rows.length === 0) return;
  const list = rows.map((row) => `"public"."${row.tablename}"`).join(', ');
  await db.execute(sql.raw(`TRUNCATE ${list} RESTART IDENTITY CASCADE`));
}
