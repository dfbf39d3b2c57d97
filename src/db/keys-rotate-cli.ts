// `npm run keys:rotate`: re-seals every stored secret under the first key of KUDOS_ENCRYPTION_KEY
// (docs/security.md, "Rotating the key"). Applies migrations first, so it also works on a database
// the app has not opened yet. Exit code 1 when a value could not be opened with any key of the ring.
import { KeyRingError, parseKeyRing } from '../secrets/key-ring.js';
import { connectDatabase } from './client.js';
import { migrateDatabase } from './migrate.js';
import { rotateSealedColumns } from './rotate-keys.js';

let ring;
try {
  ring = parseKeyRing(process.env.KUDOS_ENCRYPTION_KEY);
} catch (error) {
  console.error(error instanceof KeyRingError ? error.message : String(error));
  process.exit(1);
}
const databaseUrl = process.env.DATABASE_URL || undefined;
const pgliteDir = process.env.PGLITE_DIR || './.data/pglite';
const conn = await connectDatabase({ databaseUrl, pgliteDir, maxConnections: 2 });
try {
  await migrateDatabase(conn);
  const report = await rotateSealedColumns(conn.db, ring);
  for (const c of report.columns) {
    console.log(
      `${c.name}: ${c.resealed} re-sealed under key ${ring.primaryKeyId}, ${c.current} already current, ${c.skipped} changed meanwhile, ${c.failed.length} unreadable`,
    );
    for (const f of c.failed) console.error(`  ${c.name} row ${f.key}: ${f.problem}`);
  }
  if (report.columns.some((c) => c.failed.length > 0)) process.exitCode = 1;
} catch (error) {
  console.error(`keys:rotate failed: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await conn.close();
}
