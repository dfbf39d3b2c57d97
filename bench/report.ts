// One row of the benchmark table: a figure beside its baseline measured in the same run.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface BenchRow {
  section: string;
  metric: string;
  value: number;
  unit: string;
  baseline?: number;
  baselineName?: string;
  target?: string;
  meetsTarget?: boolean;
}

export function ratio(row: BenchRow): string {
  if (row.baseline === undefined || !Number.isFinite(row.baseline) || row.baseline === 0) return '';
  return `${(row.value / row.baseline).toFixed(2)}x`;
}

export function printTable(rows: BenchRow[]): void {
  const header = ['section', 'metric', 'value', 'baseline', 'ratio', 'target'];
  const lines = rows.map((row) => [
    row.section,
    row.metric,
    `${row.value} ${row.unit}`,
    row.baseline === undefined ? '' : `${row.baseline} ${row.unit} (${row.baselineName ?? 'baseline'})`,
    ratio(row),
    row.target === undefined ? '' : `${row.target} ${row.meetsTarget ? 'met' : 'MISSED'}`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const format = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ');
  console.log(format(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
  for (const line of lines) console.log(format(line));
}

export function writeResults(rows: BenchRow[], meta: Record<string, unknown>): string {
  const dir = join(process.cwd(), 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify({ ...meta, rows }, null, 2));
  return file;
}
