// Counts what a database handle sends to its driver (every statement, prepared or not, and every
// transaction begun), whichever driver: postgres.js (`unsafe`, `begin`) or PGlite (`query`, `exec`,
// `transaction`). For asserting that a cached lookup costs no query at all.
import type { Database } from '../../src/db/client.js';

const METHODS = ['unsafe', 'begin', 'query', 'exec', 'transaction'] as const;

export function countQueries(db: Database): { count(): number; restore(): void } {
  const client = (db as unknown as { $client: Record<string, unknown> }).$client;
  let count = 0;
  const originals: Array<[string, unknown]> = [];
  for (const method of METHODS) {
    const original = client[method];
    if (typeof original !== 'function') continue;
    originals.push([method, original]);
    client[method] = function (this: unknown, ...args: unknown[]) {
      count++;
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    };
  }
  return {
    count: () => count,
    restore() {
      for (const [method, original] of originals) client[method] = original;
    },
  };
}
