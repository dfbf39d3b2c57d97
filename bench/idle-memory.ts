// Idle memory of the app process (goal: < 150 MiB): started against the emulator and simulator,
// migrated, then left alone for IDLE_SECONDS; RSS from /proc, heap and external memory from the
// app's own /metrics. The production start (`npm start`: compiled dist/main.js with its node flags)
// is measured beside the former start (`tsx src/main.ts`, the baseline) in the same run, each on a
// fresh database. `--idle-flags "<node flags>"` adds a variant of the production start with extra
// node flags (for trying flags before putting them in package.json).
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ensureBuilt, REPO_ROOT } from '../test/chaos/app-process.js';
import { startAppStack } from './app-stack.js';
import { createBenchDatabase, databasesToRun } from './databases.js';
import { readPssBytes, readRssBytes, toMiB } from './memory.js';
import type { BenchRow } from './report.js';

const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS) || 10;
const TARGET_MIB = 150;
/**
 * `npm run dev` on PGlite: under 150 MiB RSS of the app's own process (`stack.app.pid`), not of npm
 * above it; the target is read on the dev process. The whole tree (npm's
 * own ~53 MiB with it) is reported beside it.
 */
const DEV_TARGET_MIB = 150;
/**
 * The dev process as `npm run dev` started it before its memory flags of docs/operations.md (Idle
 * memory): measured beside it in the same run, without npm (compare the dev process alone).
 */
const FORMER_DEV_COMMAND = ['node', '--liftoff-only', '--max-semi-space-size=4', 'dist/dev/main.js'];
/** Production `npm start` on PostgreSQL. */
const PRODUCTION_POSTGRES_TARGET_MIB = 120;

/** Every process below `pid` (from /proc), with `pid` itself. */
function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const visit = (p: number) => {
    out.push(p);
    for (const child of children.get(p) ?? []) visit(child);
  };
  visit(pid);
  return out;
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
  } catch {
    return '?';
  }
}

interface TreeMemory {
  /** RSS summed over the tree (counts pages the processes share once each). */
  totalBytes: number;
  /** PSS summed over the tree: shared pages counted once in all. */
  totalPssBytes: number;
  parts: Array<{ command: string; bytes: number; pssBytes: number }>;
}

/**
 * `npm run dev` as a user starts it (npm, its shell, and whatever they start), on a fresh PGlite
 * folder, until it prints its URL and IDLE_SECONDS more; RSS and PSS summed over the process tree.
 * The same for the former `tsx src/dev/main.ts` script (a development start without a build) and the dev
 * process with its former flags, in the same run.
 */
async function devTreeRss(command: string[]): Promise<TreeMemory> {
  const dir = mkdtempSync(join(tmpdir(), 'kudos-bench-dev-'));
  const child = spawn(command[0]!, command.slice(1), {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', PGLITE_DIR: join(dir, 'pglite') },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  try {
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const deadline = Date.now() + 120_000;
    while (!output.includes('Kudos is running offline')) {
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error(`${command.join(' ')} did not start:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
    const parts = processTree(child.pid!).map((pid) => ({
      command: commandOf(pid),
      bytes: readRssBytes(pid) ?? 0,
      pssBytes: readPssBytes(pid) ?? 0,
    }));
    return {
      totalBytes: parts.reduce((sum, p) => sum + p.bytes, 0),
      totalPssBytes: parts.reduce((sum, p) => sum + p.pssBytes, 0),
      parts,
    };
  } finally {
    // The whole group (npm, sh, node): as Ctrl-C in a terminal.
    try {
      process.kill(-child.pid!, 'SIGINT');
    } catch {
      // already gone
    }
    // A child that has exited already (it did not start) fires no more 'exit': waiting would leave
    // the bench with nothing to do, and node would end it (exit 13) with the error unprinted.
    if (child.exitCode === null && child.signalCode === null)
      await new Promise((resolve) => child.once('exit', resolve).once('error', resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}

async function benchDevMemory(): Promise<BenchRow[]> {
  const section = 'idle memory of npm run dev (PGlite, whole process tree)';
  const rows: BenchRow[] = [];
  // The former-flags variant runs dist/ directly: on a fresh clone nothing has built it yet.
  await ensureBuilt();
  const former = await devTreeRss(['node_modules/.bin/tsx', 'src/dev/main.ts']);
  const formerFlags = await devTreeRss(FORMER_DEV_COMMAND);
  const dev = await devTreeRss(['npm', 'run', 'dev']);
  for (const [name, run] of [
    ['former tsx src/dev/main.ts', former],
    ['dev process with its former flags', formerFlags],
    ['npm run dev', dev],
  ] as const) {
    const parts = run.parts
      .map((p) => `${p.command.slice(0, 60)} ${toMiB(p.bytes)} (PSS ${toMiB(p.pssBytes)})`)
      .join(' + ');
    console.error(
      `bench: ${section}: ${name}: RSS ${toMiB(run.totalBytes)} MiB, PSS ${toMiB(run.totalPssBytes)} MiB = ${parts}`,
    );
  }
  const largest = dev.parts.reduce((a, b) => (b.bytes > a.bytes ? b : a));
  const formerAlone = formerFlags.parts.reduce((a, b) => (b.bytes > a.bytes ? b : a));
  rows.push(
    {
      section,
      metric: `RSS after ${IDLE_SECONDS} s idle: npm run dev (npm + sh + node)`,
      value: toMiB(dev.totalBytes),
      unit: 'MiB',
      baseline: toMiB(former.totalBytes),
      baselineName: 'tsx src/dev/main.ts, tree (without npm)',
    },
    {
      section,
      metric: `PSS after ${IDLE_SECONDS} s idle: npm run dev (npm + sh + node; shared pages counted once)`,
      value: toMiB(dev.totalPssBytes),
      unit: 'MiB',
      baseline: toMiB(former.totalPssBytes),
      baselineName: 'tsx src/dev/main.ts, tree (without npm)',
    },
    {
      section,
      metric: "RSS of the dev process alone (node dist/dev/main.js): the app's process, as the issue's figure",
      value: toMiB(largest.bytes),
      unit: 'MiB',
      baseline: toMiB(formerAlone.bytes),
      baselineName: FORMER_DEV_COMMAND.join(' '),
      target: `< ${DEV_TARGET_MIB} MiB`,
      meetsTarget: toMiB(largest.bytes) < DEV_TARGET_MIB,
    },
    {
      section,
      metric: 'PSS of the dev process alone (node dist/dev/main.js)',
      value: toMiB(largest.pssBytes),
      unit: 'MiB',
      baseline: toMiB(formerAlone.pssBytes),
      baselineName: FORMER_DEV_COMMAND.join(' '),
    },
  );
  return rows;
}
interface Variant {
  name: string;
  script?: string;
  nodeArgs?: string[];
}

function variants(argv: string[] = process.argv): Variant[] {
  const list: Variant[] = [
    { name: 'tsx src/main.ts (former npm start)', script: 'src/main.ts' },
    { name: 'node dist/main.js (npm start)' },
  ];
  const i = argv.indexOf('--idle-flags');
  const flags = i >= 0 ? (argv[i + 1] ?? '').trim().split(/\s+/).filter(Boolean) : [];
  if (flags.length > 0) list.push({ name: `npm start + ${flags.join(' ')}`, nodeArgs: flags });
  return list;
}

function targetOf(kind: string, rss: number): { target: string; meetsTarget: boolean } {
  const mib = kind === 'postgresql' ? PRODUCTION_POSTGRES_TARGET_MIB : TARGET_MIB;
  return { target: `< ${mib} MiB`, meetsTarget: rss < mib };
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
  // `npm run dev` is PGlite only: measured unless `--db postgresql` leaves PGlite out.
  const rows: BenchRow[] = databasesToRun().includes('pglite') ? await benchDevMemory() : [];
  for (const kind of databasesToRun()) {
    const section = `idle memory (${kind})`;
    let baseline: number | undefined;
    for (const variant of variants()) {
      const db = await createBenchDatabase(kind);
      try {
        const stack = await startAppStack(db, {
          extraUsers: 0,
          ...(variant.script ? { script: variant.script } : {}),
          ...(variant.nodeArgs ? { nodeArgs: variant.nodeArgs } : {}),
        });
        try {
          await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
          const rss = toMiB(readRssBytes(stack.app.pid) ?? 0);
          const m = await metricsOf(stack.app.metricsUrl);
          const heapUsed = toMiB(m.get('kudos_nodejs_heap_size_used_bytes') ?? 0);
          const heapTotal = toMiB(m.get('kudos_nodejs_heap_size_total_bytes') ?? 0);
          const external = toMiB(m.get('kudos_nodejs_external_memory_bytes') ?? 0);
          console.error(
            `bench: ${section} ${variant.name}: RSS ${rss} MiB, heap ${heapUsed}/${heapTotal} MiB, external ${external} MiB`,
          );
          const compare = baseline === undefined ? {} : { baseline, baselineName: 'tsx src/main.ts' };
          rows.push(
            {
              section,
              metric: `RSS after ${IDLE_SECONDS} s idle: ${variant.name}`,
              value: rss,
              unit: 'MiB',
              ...compare,
              ...(variant.script ? {} : targetOf(kind, rss)),
            },
            {
              section,
              metric: `V8 heap used / total: ${variant.name}`,
              value: heapUsed,
              unit: `MiB (of ${heapTotal})`,
            },
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
