// `npm run build` (and `prestart`): src/**/*.ts -> dist/**/*.js with esbuild, transpiled one file per
// module (no bundling), so dist/ mirrors src/ and paths taken relative to import.meta.url still
// resolve (src/db/migrate.ts finds ../../migrations from dist/db/ as from src/db/). Non-TypeScript
// assets under src/ (the simulator's web/ files) are copied beside. Types are checked separately by
// `npm run typecheck` (tsc --noEmit); esbuild only strips them. Takes well under a second.
//
// Safe to run from several processes at once (test files each build before spawning the app): a
// file is only rewritten when its content changes, through a temporary file and a rename, so a
// process starting from dist/ never reads a half-written module.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const SRC_DIR = join(ROOT, 'src');
export const DIST_DIR = join(ROOT, 'dist');
/** The production entry point, as `npm start` runs it. */
export const DIST_MAIN = join(DIST_DIR, 'main.js');

function listFiles(dir: string): string[] {
  const out: string[] = [];
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listFiles(path));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

function writeIfChanged(path: string, contents: Uint8Array): boolean {
  try {
    if (Buffer.compare(readFileSync(path), contents) === 0) return false;
  } catch {
    // missing: write it
  }
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(tmp, contents);
  renameSync(tmp, path);
  return true;
}

export async function buildApp(): Promise<{ files: number; written: number; ms: number }> {
  const started = performance.now();
  const sources = listFiles(SRC_DIR);
  const entryPoints = sources.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
  const result = await build({
    entryPoints,
    outbase: SRC_DIR,
    outdir: DIST_DIR,
    bundle: false,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    sourcesContent: false,
    write: false,
    logLevel: 'warning',
  });
  const expected = new Set<string>();
  let written = 0;
  for (const file of result.outputFiles) {
    expected.add(file.path);
    if (writeIfChanged(file.path, file.contents)) written++;
  }
  // Assets (everything but TypeScript and READMEs) are copied as they are.
  for (const source of sources) {
    if (source.endsWith('.ts') || source.endsWith('.md')) continue;
    const target = join(DIST_DIR, relative(SRC_DIR, source));
    expected.add(target);
    if (writeIfChanged(target, readFileSync(source))) written++;
  }
  // Modules whose source is gone would still be importable: remove them. Another build's temporary
  // file is left alone unless it is old (a build killed half-way).
  for (const file of listFiles(DIST_DIR)) {
    if (expected.has(file)) continue;
    const age = Date.now() - (statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0);
    if (file.endsWith('.tmp') && age < 60_000) continue;
    rmSync(file, { force: true });
  }
  return { files: expected.size, written, ms: Math.round(performance.now() - started) };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { files, written, ms } = await buildApp();
  console.error(`build: ${files} files in dist/ (${written} rewritten) in ${ms} ms`);
}
