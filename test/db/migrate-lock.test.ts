// Instances that start together on one empty PostgreSQL each migrate it at start: the advisory lock
// in migrateDatabase() lets one apply the migrations while the others wait, then find nothing to do.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { connectDatabase, rowsOf } from '../../src/db/client.js';
import { migrateDatabase, MIGRATIONS_FOLDER } from '../../src/db/migrate.js';
import { createScratchDatabase } from '../../src/db/scratch.js';

const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as {
  entries: unknown[];
};

describe.skipIf(!process.env.DATABASE_URL)('migrations at start', () => {
  it('are applied once when four instances start together on an empty database', async () => {
    const scratch = await createScratchDatabase(process.env.DATABASE_URL!, 'kudos_migrate_lock');
    const conns = await Promise.all(
      Array.from({ length: 4 }, () => connectDatabase({ databaseUrl: scratch.url, maxConnections: 2 })),
    );
    try {
      const outcomes = await Promise.allSettled(conns.map((conn) => migrateDatabase(conn)));
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
      const applied = rowsOf<{ count: number }>(
        await conns[0]!.db.execute(sql`select count(*)::int as count from drizzle.__drizzle_migrations`),
      );
      expect(applied[0]!.count).toBe(journal.entries.length);
    } finally {
      await Promise.all(conns.map((conn) => conn.close()));
      await scratch.drop();
    }
  });
});
