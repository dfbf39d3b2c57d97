// A throwaway PostgreSQL database next to the one DATABASE_URL names: tests and benchmarks each get
// their own, so parallel runs never share tables, and it is dropped (even with open sessions) after.
import { randomBytes } from 'node:crypto';

import postgres from 'postgres';

export interface ScratchDatabase {
  /** Connection string of the new database. */
  url: string;
  drop(): Promise<void>;
}

export async function createScratchDatabase(baseUrl: string, prefix: string): Promise<ScratchDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = postgres(baseUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end({ timeout: 5 });
    },
  };
}
