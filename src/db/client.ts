// Database connection factory: PostgreSQL through postgres.js when a URL is given, embedded
// PGlite otherwise. The handle is returned to the caller and passed down; there is no singleton.
// Each driver is imported when first used: a PostgreSQL instance never loads PGlite (its WebAssembly
// build and data files), and a PGlite one never loads postgres.js (docs/operations.md, idle memory).
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

import type { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';

import { createSlots, type Slots } from '../lib/slots.js';
import * as schema from './schema/index.js';

export type Schema = typeof schema;
/** Either driver's drizzle handle; code above this module never knows which one it has. */
export type Database = PgDatabase<PgQueryResultHKT, Schema>;

export interface DatabaseConnection {
  db: Database;
  driver: 'postgres' | 'pglite';
  /** The embedded database itself (PGlite only), e.g. to dump its data directory. */
  pglite?: PGlite;
  close: () => Promise<void>;
}

export interface ConnectOptions {
  databaseUrl?: string | undefined;
  /** PGlite folder, or `memory://` for an in-memory database. */
  pgliteDir?: string | undefined;
  /** postgres.js pool size. */
  maxConnections?: number;
  /** PGlite only: start from this dumped data directory (tests use it to skip initdb). */
  pgliteDataDir?: Blob | File;
}

/**
 * PGlite's shared_buffers (PostgreSQL's default is 128MB): all of it is resident from the start
 * (each MB is a MiB of idle RSS: 16MB held 30 MiB of WebAssembly heap, 1MB holds 14), and a miss
 * only costs a read from the folder (or from memory), which one developer's clicks never notice.
 */
const PGLITE_SHARED_BUFFERS = '1MB';

export async function connectDatabase(opts: ConnectOptions): Promise<DatabaseConnection> {
  if (opts.databaseUrl) {
    const [{ default: postgres }, { drizzle: drizzlePostgres }] = await Promise.all([
      import('postgres'),
      import('drizzle-orm/postgres-js'),
    ]);
    const client = postgres(opts.databaseUrl, {
      max: opts.maxConnections ?? 10,
      onnotice: () => {},
      // Keep timestamps as ISO strings in UTC regardless of the server's TimeZone setting.
      connection: { TimeZone: 'UTC' },
    });
    const db = drizzlePostgres(client, { schema }) as unknown as Database;
    return { db, driver: 'postgres', close: () => client.end({ timeout: 5 }) };
  }
  const dir = opts.pgliteDir ?? './.data/pglite';
  const inMemory = dir.startsWith('memory://');
  if (!inMemory) mkdirSync(dir, { recursive: true });
  const [{ PGlite }, { drizzle: drizzlePglite }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('drizzle-orm/pglite'),
  ]);
  // Memory (docs/operations.md, idle memory): PostgreSQL's default 128 MB of shared buffers live in
  // PGlite's WebAssembly heap, which never shrinks; a development database needs far fewer.
  // (PGlite's `initialMemory` cannot help: the module's own minimum, 128 MiB, is already the default.)
  const options = { startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${PGLITE_SHARED_BUFFERS}`] };
  if (!inMemory && !opts.pgliteDataDir && !existsSync(join(dir, 'PG_VERSION'))) await initPgliteFolder(dir, options);
  const client = await PGlite.create(dir, {
    ...options,
    ...(opts.pgliteDataDir ? { loadDataDir: opts.pgliteDataDir } : {}),
  });
  const db = drizzlePglite(client, { schema }) as unknown as Database;
  return { db, driver: 'pglite', pglite: client, close: () => client.close() };
}

/**
 * initdb for a new PGlite folder, in a child process: an instance that ran initdb holds ~450 MiB more
 * until a major GC happens to free it (and the allocator keeps much of it even then); one opening an
 * existing folder does not. If the child fails before creating the folder, the caller's own
 * PGlite.create runs initdb in process.
 */
async function initPgliteFolder(dir: string, options: { startParams: string[] }): Promise<void> {
  const [{ execFile }, { createRequire }] = await Promise.all([import('node:child_process'), import('node:module')]);
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const script =
    'require(process.argv[1]).PGlite.create(process.argv[2], JSON.parse(process.argv[3])).then((db) => db.close())';
  await new Promise<void>((resolve, reject) => {
    // A bounded wait: initdb takes seconds; a child that hangs must not hang the app's start.
    execFile(
      process.execPath,
      ['-e', script, entry, dir, JSON.stringify(options)],
      { timeout: 120_000, killSignal: 'SIGKILL' },
      (error, _stdout, stderr) => {
        if (!error || !existsSync(join(dir, 'PG_VERSION'))) return resolve();
        reject(new Error(`PGlite initdb in ${dir} failed: ${stderr.trim() || error.message}`));
      },
    );
  });
}

/** The rows of `db.execute(sql...)`: postgres.js answers an array, PGlite `{ rows }`. */
export function rowsOf<T>(result: unknown): T[] {
  const r = result as { rows?: T[] } & T[];
  return r.rows ?? r;
}

/** `select 1`: true when the database answers. */
export async function pingDatabase(db: Database): Promise<boolean> {
  try {
    await db.execute(sql`select 1`);
    return true;
  } catch {
    return false;
  }
}

/** The part of postgres.js' client that drizzle's session calls. */
interface PostgresClient {
  unsafe(
    query: string,
    params?: unknown[],
    options?: unknown,
  ): PromiseLike<unknown> & { values(): PromiseLike<unknown> };
  begin(...args: unknown[]): Promise<unknown>;
  options: { max?: number };
}

/** A query of `client` that takes one of `slots` while it runs (postgres.js queries start when awaited). */
function queryInSlot(
  pending: PromiseLike<unknown> & { values?: () => PromiseLike<unknown> },
  slots: Slots,
): PromiseLike<unknown> & { values(): PromiseLike<unknown> } {
  return {
    values: () => queryInSlot(pending.values!(), slots),
    then: (onFulfilled, onRejected) => slots.run(async () => pending).then(onFulfilled, onRejected),
  };
}

/**
 * `db` for background work that must leave `reserve` of the pool's connections free, so that
 * acknowledgements and /healthz never queue behind it: its queries and transactions take at most
 * (pool size - reserve) connections at once (at least one). PGlite has one connection, served in
 * order: `db` itself (the caller bounds its own concurrency).
 */
export async function leavingConnections(db: Database, reserve: number): Promise<Database> {
  const client = (db as unknown as { $client?: Partial<PostgresClient> }).$client;
  if (!client || typeof client.unsafe !== 'function' || typeof client.begin !== 'function') return db;
  const real = client as PostgresClient;
  const slots = createSlots(Math.max(1, (real.options.max ?? 10) - reserve));
  const limited = new Proxy(real, {
    get(target, prop, receiver) {
      if (prop === 'unsafe')
        return (query: string, params?: unknown[], options?: unknown) =>
          queryInSlot(target.unsafe(query, params, options), slots);
      // A transaction holds its connection throughout: one slot for all of it.
      if (prop === 'begin') return (...args: unknown[]) => slots.run(() => target.begin(...args));
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
  const { drizzle: drizzlePostgres } = await import('drizzle-orm/postgres-js');
  return drizzlePostgres(limited as never, { schema });
}
