// Counts what a database handle sends to its driver (every statement, prepared or not, and every
// transaction begun), whichever driver: postgres.js (`unsafe`, `begin`) or PGlite (`query`, `exec`,
// `transaction`). For asserting that a cached lookup costs no query at all, or how often one kind of
// statement runs (its SQL text, when the driver was given one).
import type { Database } from '../../src/db/client.js';

const METHODS = ['unsafe', 'begin', 'query', 'exec', 'transaction'] as const;

export function countQueries(db: Database): { count(): number; statements(): string[]; restore(): void } {
  const client = (db as unknown as { $client: Record<string, unknown> }).$client;
  let count = 0;
  const texts: string[] = [];
  const originals: Array<[string, unknown]> = [];
  for (const method of METHODS) {
    const original = client[method];
    if (typeof original !== 'function') continue;
    originals.push([method, original]);
    client[method] = function (this: unknown, ...args: unknown[]) {
      count++;
      if (typeof args[0] === 'string') texts.push(args[0]);
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    };
  }
  return {
    count: () => count,
    statements: () => [...texts],
    restore() {
      for (const [method, original] of originals) client[method] = original;
    },
  };
}
