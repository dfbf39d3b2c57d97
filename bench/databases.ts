// The databases a benchmark runs the app on: embedded PGlite (a temporary folder, since the app runs
// in its own process) and, when DATABASE_URL is set, a fresh PostgreSQL database dropped afterwards.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { connectDatabase, type DatabaseConnection } from '../src/db/client.js';

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
  const name = `kudos_bench_${randomBytes(6).toString('hex')}`;
  const admin = postgres(baseUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    kind,
    env: { DATABASE_URL: url.toString() },
    connect: () => connectDatabase({ databaseUrl: url.toString(), maxConnections: 2 }),
    async dispose() {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end({ timeout: 5 });
    },
  };
}
