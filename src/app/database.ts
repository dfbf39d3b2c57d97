// The database part: the caller's handle (tests share one; the caller migrates and closes it), or one
// connected and migrated here and closed last; and the change feed that keeps other instances' caches
// in step with it.
import type { AppConfig } from '../config/index.js';
import type { Logger } from '../config/logger.js';
import { connectDatabase, type Database } from '../db/client.js';
import { migrateDatabase } from '../db/migrate.js';
import { type ChangeFeed, createChangeFeed } from '../domain/workspaces/change-feed.js';
import type { AppPart } from './parts.js';

export interface DatabasePart extends AppPart {
  db: Database;
}

export async function openDatabase(config: AppConfig, given: Database | undefined): Promise<DatabasePart> {
  if (given) return { db: given };
  const conn = await connectDatabase({ databaseUrl: config.databaseUrl, pgliteDir: config.pgliteDir });
  await migrateDatabase(conn);
  return { db: conn.db, release: () => conn.close() };
}

/**
 * What other instances changed (installations, settings, Rewards connections), for the per-workspace
 * caches; undefined with `tuning.changeFeed: false`. Started once its listeners are in place.
 */
export function openChangeFeed(
  db: Database,
  config: AppConfig,
  logger: Logger,
  options: { intervalMs?: number } | false | undefined,
): ChangeFeed | undefined {
  if (options === false) return undefined;
  return createChangeFeed({
    db,
    installations: config.mode === 'distribution',
    ...(options?.intervalMs ? { intervalMs: options.intervalMs } : {}),
    onError: (error) =>
      logger.warn('the change feed could not be read; per-workspace caches keep their short TTLs until it can', {
        error,
      }),
  });
}
