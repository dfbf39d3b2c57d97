// Database connection factory: PostgreSQL through postgres.js when a URL is given, embedded
// PGlite otherwise. The handle is returned to the caller and passed down; there is no singleton.
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import * as schema from './schema/index.js';

export type Schema = typeof schema;
/** Either driver's drizzle handle; code above this module never knows which one it has. */
export type Database = PgDatabase<PgQueryResultHKT, Schema>;

export interface DatabaseConnection {
  db: Database;
  driver: 'postgres' | 'pglite';
  /** The embedded database itself (PGlite only), e.g. to dump its data directory. */
  pglite?: PGlite;
  close(): Promise<void>;
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

export async function connectDatabase(opts: ConnectOptions): Promise<DatabaseConnection> {
  if (opts.databaseUrl) {
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
  if (!dir.startsWith('memory://')) mkdirSync(dir, { recursive: true });
  const client = await PGlite.create(dir, opts.pgliteDataDir ? { loadDataDir: opts.pgliteDataDir } : {});
  const db = drizzlePglite(client, { schema }) as unknown as Database;
  return { db, driver: 'pglite', pglite: client, close: () => client.close() };
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
