// `npm run db:migrate`: applies migrations/ to DATABASE_URL, or to the embedded PGlite database.
import { connectDatabase } from './client.js';
import { migrateDatabase } from './migrate.js';

const databaseUrl = process.env.DATABASE_URL || undefined;
const pgliteDir = process.env.PGLITE_DIR || './.data/pglite';
const conn = await connectDatabase({ databaseUrl, pgliteDir, maxConnections: 2 });
try {
  await migrateDatabase(conn);
  console.log(`migrations applied to ${databaseUrl ? 'PostgreSQL' : `PGlite at ${pgliteDir}`}`);
} catch (error) {
  console.error(`migration failed: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await conn.close();
}
