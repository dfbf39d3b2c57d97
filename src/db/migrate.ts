// Applies the committed SQL migrations in ./migrations with drizzle's migrator for the driver in use.
import { fileURLToPath } from 'node:url';

import type { PgliteDatabase } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import type { PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';

import type { DatabaseConnection, Schema } from './client.js';

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../migrations', import.meta.url));

// Several app instances may start together on one PostgreSQL: one applies, the others wait.
const MIGRATION_LOCK_KEY = 726_173_001;

export async function migrateDatabase(conn: DatabaseConnection): Promise<void> {
  const config = { migrationsFolder: MIGRATIONS_FOLDER };
  if (conn.driver === 'pglite') {
    await migratePglite(conn.db as unknown as PgliteDatabase<Schema>, config);
    return;
  }
  const db = conn.db as unknown as PostgresJsDatabase<Schema>;
  // The advisory lock is per session: hold one reserved connection for lock, migrate and unlock.
  const client = (db as unknown as { $client: import('postgres').Sql }).$client;
  const reserved = await client.reserve();
  try {
    await reserved`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
    await migratePostgres(db, config);
  } finally {
    await reserved`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.catch(() => {});
    reserved.release();
  }
}
