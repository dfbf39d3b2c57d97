// The databases a benchmark runs the app on: embedded PGlite (a temporary folder, since the app runs
// in its own process) and, when DATABASE_URL is set, a fresh PostgreSQL database dropped afterwards.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { connectDatabase, type DatabaseConnection } from '../src/db/client.js';
import { createScratchDatabase } from '../src/db/scratch.js';

export type DatabaseKind = 'pglite' | 'postgresql';

export interface BenchDatabase {
  kind: DatabaseKind;
  /** DATABASE_URL or PGLITE_DIR for the app process. */
  env: Record<string, string>;
  /** A connection of our own (PGlite: only while no app process holds the folder). */
  connect(): Promise<DatabaseConnection>;
  dispose(): Promise<void>;
}

/** Which databases to run on: both when DATABASE_URL is set, unless `--db pglite|postgresql` picks one. */
export function databasesToRun(argv: string[] = process.argv): DatabaseKind[] {
  const i = argv.indexOf('--db');
  const wanted = i >= 0 ? argv[i + 1] : undefined;
  const available: DatabaseKind[] = process.env.DATABASE_URL ? ['pglite', 'postgresql'] : ['pglite'];
  return wanted === 'pglite' || wanted === 'postgresql' ? available.filter((k) => k === wanted) : available;
}

export async function createBenchDatabase(kind: DatabaseKind): Promise<BenchDatabase> {
  if (kind === 'pglite') {
    const dir = mkdtempSync(join(tmpdir(), 'kudos-bench-'));
    return {
      kind,
      env: { PGLITE_DIR: dir },
      connect: () => connectDatabase({ pgliteDir: dir }),
      async dispose() {
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const baseUrl = process.env.DATABASE_URL;
  if (!baseUrl) throw new Error('postgresql benchmarks need DATABASE_URL');
  const scratch = await createScratchDatabase(baseUrl, 'kudos_bench');
  return {
    kind,
    env: { DATABASE_URL: scratch.url },
    connect: () => connectDatabase({ databaseUrl: scratch.url, maxConnections: 2 }),
    dispose: () => scratch.drop(),
  };
}
