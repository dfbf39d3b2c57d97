// Re-seals every sealed column (sealed-columns.ts) under the key ring's first key, in batches.
// Idempotent: a value already under the first key is left alone, so a second run changes nothing
// and an interrupted run is simply run again. Each value is replaced with a conditional update
// (`where key = ? and column = <old value>`), so a secret re-saved meanwhile (an admin reconnecting)
// is never overwritten with an older one. A value that no key of the ring opens is counted and named
// (table, column, row), never printed, and the run goes on; the caller exits non-zero.
import { and, asc, eq, getTableColumns, gt, isNotNull, type SQL } from 'drizzle-orm';

import type { KeyRing } from '../secrets/key-ring.js';
import type { Database } from './client.js';
import { SEALED_COLUMNS, type SealedColumn } from './sealed-columns.js';

export interface RotationReport {
  /** Per column: values re-sealed, already under the first key, changed meanwhile, unreadable. */
  columns: Array<{
    name: string;
    resealed: number;
    current: number;
    skipped: number;
    failed: Array<{ key: string; problem: string }>;
  }>;
}

export async function rotateSealedColumns(
  db: Database,
  ring: KeyRing,
  opts: { batchSize?: number; columns?: readonly SealedColumn[] } = {},
): Promise<RotationReport> {
  const batchSize = opts.batchSize ?? 200;
  const report: RotationReport = { columns: [] };
  for (const entry of opts.columns ?? SEALED_COLUMNS) {
    const line = {
      name: entry.name,
      resealed: 0,
      current: 0,
      skipped: 0,
      failed: [] as Array<{ key: string; problem: string }>,
    };
    let after: string | undefined;
    for (;;) {
      const conditions: SQL[] = [isNotNull(entry.column)];
      if (after !== undefined) conditions.push(gt(entry.key, after));
      const batch = (await db
        .select({ key: entry.key, value: entry.column })
        .from(entry.table)
        .where(and(...conditions))
        .orderBy(asc(entry.key))
        .limit(batchSize)) as Array<{ key: string; value: string }>;
      if (batch.length === 0) break;
      after = batch[batch.length - 1]!.key;
      for (const row of batch) {
        let resealed: string;
        try {
          if (!ring.needsResealing(row.value)) {
            line.current += 1;
            continue;
          }
          const context = entry.context(row.key);
          resealed = ring.seal(ring.open(row.value, context), context);
        } catch (error) {
          line.failed.push({ key: row.key, problem: (error as Error).message });
          continue;
        }
        const updated = (await db
          .update(entry.table)
          .set({ [columnProperty(entry)]: resealed })
          .where(and(eq(entry.key, row.key), eq(entry.column, row.value)))
          .returning({ key: entry.key })) as unknown[];
        if (updated.length === 1) line.resealed += 1;
        else line.skipped += 1;
      }
      if (batch.length < batchSize) break;
    }
    report.columns.push(line);
  }
  return report;
}

/** The drizzle property name of the column (what `.set({...})` takes). */
function columnProperty(entry: SealedColumn): string {
  for (const [property, column] of Object.entries(getTableColumns(entry.table)))
    if (column === entry.column) return property;
  throw new Error(`${entry.name}: column not found on its table`);
}
