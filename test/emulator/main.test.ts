import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Runs `src/emulator/main.ts` (what `npm run sandbox` runs) as its own process. */
function runMain(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/emulator/main.ts'], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (m) resolve(m[1]!);
    });
    void exited.then(() => reject(new Error(`exited before listening: ${output}`)));
  });
  return { child, url, exited, output: () => output };
}

describe('npm run sandbox entry point', () => {
  it('listens on 127.0.0.1 at SANDBOX_PORT, prints its URL, serves, and stops cleanly on SIGTERM', async () => {
    const run = runMain({ SANDBOX_PORT: '0' });
    const url = await run.url;
    const res = await fetch(`${url}/_emulator/clock`);
    expect(res.status).toBe(200);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(run.output()).toContain('stopping');
  }, 30_000);

  it('refuses a malformed setting with one clear line and exit code 1', async () => {
    const run = runMain({ SANDBOX_PORT: '0', EMULATOR_RATE_LIMIT: 'lots' });
    run.url.catch(() => {});
    expect(await run.exited).toBe(1);
    expect(run.output()).toMatch(/EMULATOR_RATE_LIMIT/);
  }, 30_000);
});
