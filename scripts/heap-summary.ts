// Compares two V8 heap snapshots (.heapsnapshot: `v8.writeHeapSnapshot`, or the installations
// bench's BENCH_HEAP_SNAPSHOT_DIR): objects and self size by constructor (closures by function
// name and source position), the difference per unit (a workspace: `PER` is how many more the second
// snapshot holds), largest first. `--by-retainer NAME` lists, for the objects named NAME, what holds
// them (retainer's name and the edge), so that a growing Map or closure can be traced to its owner.
// `npx tsx scripts/heap-summary.ts BASE.heapsnapshot OTHER.heapsnapshot [PER] [TOP] [--by-retainer NAME]`
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
  locations?: number[];
}

interface Loaded {
  /** Per node: its group key ("type name"). */
  keys: string[];
  selfSize: Float64Array;
  /** Per node: the group key of its first retainer and the edge's name. */
  retainer(nodeIndex: number): string[];
}

function load(file: string): Loaded {
  const s = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const nf = s.snapshot.meta.node_fields;
  const ef = s.snapshot.meta.edge_fields;
  const nodeTypes = s.snapshot.meta.node_types[0];
  const edgeTypes = s.snapshot.meta.edge_types[0];
  const N = nf.length;
  const E = ef.length;
  const [typeF, nameF, sizeF, edgeCountF] = ['type', 'name', 'self_size', 'edge_count'].map((f) => nf.indexOf(f)) as [
    number,
    number,
    number,
    number,
  ];
  const [eTypeF, eNameF, eToF] = ['type', 'name_or_index', 'to_node'].map((f) => ef.indexOf(f)) as [
    number,
    number,
    number,
  ];
  const count = s.nodes.length / N;
  // Closures: by the script position of their function (locations: node index, script, line, column).
  const where = new Map<number, string>();
  for (let i = 0; s.locations && i < s.locations.length; i += 4)
    where.set(s.locations[i]! / N, `@${s.locations[i + 1]}:${s.locations[i + 2]! + 1}`);
  const keys: string[] = new Array<string>(count);
  const selfSize = new Float64Array(count);
  const firstEdge = new Uint32Array(count + 1);
  for (let n = 0, e = 0; n < count; n++) {
    const type = nodeTypes[s.nodes[n * N + typeF]!]!;
    let name = s.strings[s.nodes[n * N + nameF]!]!;
    if (type === 'string' || type === 'concatenated string' || type === 'sliced string') name = '';
    if (type === 'closure') name = `${name || '(anonymous)'} ${where.get(n) ?? ''}`;
    if (name.length > 80) name = `${name.slice(0, 80)}...`;
    keys[n] = `${type} ${name}`;
    selfSize[n] = s.nodes[n * N + sizeF]!;
    firstEdge[n] = e;
    e += s.nodes[n * N + edgeCountF]! * E;
    firstEdge[n + 1] = e;
  }
  let retainers: Map<number, string[]> | undefined;
  return {
    keys,
    selfSize,
    retainer(target) {
      if (!retainers) {
        retainers = new Map();
        for (let n = 0; n < count; n++) {
          for (let e = firstEdge[n]!; e < firstEdge[n + 1]!; e += E) {
            const to = s.edges[e + eToF]! / N;
            const edgeType = edgeTypes[s.edges[e + eTypeF]!]!;
            if (edgeType === 'weak') continue;
            const nameOrIndex = s.edges[e + eNameF]!;
            const edgeName =
              edgeType === 'element' || edgeType === 'hidden' ? `[${nameOrIndex}]` : s.strings[nameOrIndex]!;
            const list = retainers.get(to) ?? [];
            list.push(`${keys[n]} .${edgeName}`);
            retainers.set(to, list);
          }
        }
      }
      return retainers.get(target) ?? [];
    },
  };
}

function groups(l: Loaded): Map<string, { count: number; size: number }> {
  const out = new Map<string, { count: number; size: number }>();
  for (let n = 0; n < l.keys.length; n++) {
    const g = out.get(l.keys[n]!) ?? { count: 0, size: 0 };
    g.count++;
    g.size += l.selfSize[n]!;
    out.set(l.keys[n]!, g);
  }
  return out;
}

const args = process.argv.slice(2);
const byRetainerAt = args.indexOf('--by-retainer');
const byRetainer = byRetainerAt >= 0 ? args.splice(byRetainerAt, 2)[1] : undefined;
const [baseFile, otherFile, perArg, topArg] = args;
if (!baseFile || !otherFile) {
  console.error(
    'usage: tsx scripts/heap-summary.ts BASE.heapsnapshot OTHER.heapsnapshot [PER] [TOP] [--by-retainer NAME]',
  );
  process.exit(2);
}
const per = Number(perArg ?? 1);
const top = Number(topArg ?? 40);
const base = load(baseFile);
const other = load(otherFile);
const a = groups(base);
const b = groups(other);
const rows = [...new Set([...a.keys(), ...b.keys()])].map((key) => {
  const x = a.get(key) ?? { count: 0, size: 0 };
  const y = b.get(key) ?? { count: 0, size: 0 };
  return { key, count: (y.count - x.count) / per, bytes: (y.size - x.size) / per };
});
rows.sort((p, q) => q.bytes - p.bytes);
const total = rows.reduce((sum, r) => sum + r.bytes, 0);
console.log(`self size growth${per === 1 ? '' : ` per ${per}th`}: ${total.toFixed(0)} bytes in all`);
console.log('bytes\tobjects\ttype name');
for (const r of rows.slice(0, top)) console.log(`${r.bytes.toFixed(1)}\t${r.count.toFixed(2)}\t${r.key}`);
if (byRetainer) {
  const held = new Map<string, number>();
  for (let n = 0; n < other.keys.length; n++) {
    if (!other.keys[n]!.includes(byRetainer)) continue;
    for (const r of other.retainer(n).slice(0, 1)) held.set(r, (held.get(r) ?? 0) + 1);
  }
  console.log(`\nwhat holds "${byRetainer}" in ${otherFile} (first retainer):`);
  for (const [r, n] of [...held].sort((p, q) => q[1] - p[1]).slice(0, top)) console.log(`${n}\t${r}`);
}
