// Idle memory of the app process (issue 8: < 150 MiB): started against the emulator and simulator,
// migrated, then left alone for IDLE_SECONDS; RSS from /proc, heap and external memory from the
// app's own /metrics. The production start (`npm start`: compiled dist/main.js with its node flags)
// is measured beside the former start (`tsx src/main.ts`, the baseline) in the same run, each on a
// fresh database. `--idle-flags "<node flags>"` adds a variant of the production start with extra
// node flags (for trying flags before putting them in package.json).
import { startAppStack } from './app-stack.js';
import { createBenchDatabase, databasesToRun } from './databases.js';
import { readRssBytes, toMiB } from './memory.js';
import type { BenchRow } from './report.js';

const IDLE_SECONDS = 10;
const TARGET_MIB = 150;

interface Variant {
  name: string;
  script?: string;
  nodeArgs?: string[];
}

function variants(argv: string[] = process.argv): Variant[] {
  const list: Variant[] = [{ name: 'tsx src/main.ts (former npm start)', script: 'src/main.ts' }, { name: 'node dist/main.js (npm start)' }];
  const i = argv.indexOf('--idle-flags');
  const flags = i >= 0 ? (argv[i + 1] ?? '').trim().split(/\s+/).filter(Boolean) : [];
  if (flags.length > 0) list.push({ name: `npm start + ${flags.join(' ')}`, nodeArgs: flags });
  return list;
}

async function metricsOf(url: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^(kudos_[a-z_]+_bytes)(\{[^}]*\})? ([0-9.e+]+)$/.exec(line);
    if (m && !m[2]) values.set(m[1]!, Number(m[3]));
  }
  return values;
}

export async function benchIdleMemory(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const kind of databasesToRun()) {
    const section = `idle memory (${kind})`;
    let baseline: number | undefined;
    for (const variant of variants()) {
      const db = await createBenchDatabase(kind);
      try {
        const stack = await startAppStack(db, { extraUsers: 0, ...(variant.script ? { script: variant.script } : {}), ...(variant.nodeArgs ? { nodeArgs: variant.nodeArgs } : {}) });
        try {
          await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
          const rss = toMiB(readRssBytes(stack.app.pid) ?? 0);
          const m = await metricsOf(stack.app.metricsUrl);
          const heapUsed = toMiB(m.get('kudos_nodejs_heap_size_used_bytes') ?? 0);
          const heapTotal = toMiB(m.get('kudos_nodejs_heap_size_total_bytes') ?? 0);
          const external = toMiB(m.get('kudos_nodejs_external_memory_bytes') ?? 0);
          console.error(`bench: ${section} ${variant.name}: RSS ${rss} MiB, heap ${heapUsed}/${heapTotal} MiB, external ${external} MiB`);
          const compare = baseline === undefined ? {} : { baseline, baselineName: 'tsx src/main.ts' };
          rows.push(
            {
              section,
              metric: `RSS after ${IDLE_SECONDS} s idle: ${variant.name}`,
              value: rss,
              unit: 'MiB',
              ...compare,
              ...(variant.script ? {} : { target: `< ${TARGET_MIB} MiB`, meetsTarget: rss < TARGET_MIB }),
            },
            { section, metric: `V8 heap used / total: ${variant.name}`, value: heapUsed, unit: `MiB (of ${heapTotal})` },
            { section, metric: `external (ArrayBuffers, WASM): ${variant.name}`, value: external, unit: 'MiB' },
          );
          baseline ??= rss;
        } finally {
          await stack.close();
        }
      } finally {
        await db.dispose();
      }
    }
  }
  return rows;
}
