// Sums up a V8 CPU profile (.cpuprofile: `node --cpu-prof`, or the benchmarks' BENCH_PROFILE_DIR):
// self time by function, by file or package, and inclusive time of the app's own functions.
// `npx tsx scripts/profile-summary.ts FILE [TOP] [INCLUSIVE_FILTER_REGEX]`
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const [file, topArg, filterArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: tsx scripts/profile-summary.ts FILE [TOP] [INCLUSIVE_FILTER_REGEX]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const top = Number(topArg ?? 30);
const inclusiveFilter = new RegExp(filterArg ?? '^(dist|src)/');

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
const shortUrl = (url: string) =>
  (url || '(native)')
    .replace(/^file:\/\/.*node_modules\//, 'nm/')
    .replace(/^file:\/\/.*?\/(dist|src)\//, '$1/')
    .replace(/^file:\/\//, '');
const keyOf = (n: ProfileNode) =>
  `${n.callFrame.functionName || '(anonymous)'} ${shortUrl(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
const packageOf = (n: ProfileNode) => {
  const url = shortUrl(n.callFrame.url);
  if (!url.startsWith('nm/')) return url;
  const parts = url.split('/');
  return parts.slice(0, parts[1]!.startsWith('@') ? 3 : 2).join('/');
};

const selfById = new Map<number, number>();
let total = 0;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  total += dt;
  selfById.set(id, (selfById.get(id) ?? 0) + dt);
});
const add = (map: Map<string, number>, key: string, dt: number) => map.set(key, (map.get(key) ?? 0) + dt);
const selfByFunction = new Map<string, number>();
const selfByPackage = new Map<string, number>();
const inclusive = new Map<string, number>();
for (const [id, dt] of selfById) {
  const node = byId.get(id)!;
  add(selfByFunction, keyOf(node), dt);
  add(selfByPackage, packageOf(node), dt);
  // Counted once per stack, however often a function recurs in it.
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const key = keyOf(byId.get(at)!);
    if (seen.has(key)) continue;
    seen.add(key);
    add(inclusive, key, dt);
  }
}

const ms = (us: number) => (us / 1000).toFixed(0).padStart(7);
const share = (us: number) => `${((100 * us) / total).toFixed(1).padStart(5)}%`;
const print = (title: string, map: Map<string, number>, filter: (key: string) => boolean = () => true) => {
  console.log(`--- ${title}`);
  for (const [key, us] of [...map]
    .filter(([k]) => filter(k))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top))
    console.log(`${ms(us)} ms ${share(us)}  ${key}`);
};
const idle = selfByFunction.get('(idle) (native):0') ?? 0;
console.log(
  `${file}: ${ms(profile.endTime - profile.startTime).trim()} ms profiled, ${ms(total - idle).trim()} ms busy`,
);
print('self time by function', selfByFunction);
print('self time by file or package', selfByPackage);
print(`inclusive time (${inclusiveFilter.source})`, inclusive, (key) =>
  inclusiveFilter.test(key.split(' ').slice(1).join(' ')),
);
