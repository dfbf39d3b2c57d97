// `npm start` refuses to start half-configured: one line per problem, exit code 1, nothing listening.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { startSlackSimulator } from '../../src/simulator/slack.js';
import { createTestDatabase } from '../support/db.js';
import { startTestEmulator } from '../support/emulator.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function runMain(
  env: Record<string, string>,
  onStdout?: (text: string, child: ReturnType<typeof spawn>) => void,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      onStdout?.(stdout, child);
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 40_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('npm start', () => {
  it('stops with one line naming each missing or malformed variable', async () => {
    const result = await runMain({ SLACK_SIGNING_SECRET: 's', REWARDS_API_URL: 'not a url', PORT: 'x' });
    expect(result.code).toBe(1);
    const lines = result.stderr
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('config: '));
    expect(lines.map((l) => l.split(' ')[1]).sort()).toEqual(
      [
        'PORT',
        'REWARDS_API_URL',
        'REWARDS_CLIENT_ID',
        'REWARDS_CLIENT_SECRET',
        'REWARDS_WEBHOOK_SECRET',
        'SLACK_BOT_TOKEN',
      ].sort(),
    );
    expect(result.stdout).not.toContain('listening');
  });

  // A real `npm start` process needs a database: on PostgreSQL that is instant; an embedded PGlite's
  // initdb in a child process takes tens of seconds on a loaded machine, so this runs with DATABASE_URL.
  // (On PGlite, in-process stops are covered by test/app/recovery.test.ts.)
  it.skipIf(!process.env.DATABASE_URL)('serves /healthz, then stops gracefully on SIGTERM (exit 0)', async () => {
    const [emulator, sim] = await Promise.all([startTestEmulator(), startSlackSimulator({ signingSecret: 's' })]);
    const testDb = await createTestDatabase();
    try {
      let signalled = false;
      let healthy = false;
      const result = await runMain(
        {
          PORT: '0',
          DATABASE_URL: testDb.url!,
          SLACK_SIGNING_SECRET: 's',
          SLACK_BOT_TOKEN: sim.botToken,
          SLACK_API_URL: sim.apiUrl,
          REWARDS_API_URL: emulator.url,
          REWARDS_CLIENT_ID: 'production-client',
          REWARDS_CLIENT_SECRET: 'production-secret',
          REWARDS_WEBHOOK_SECRET: 'emulator-signing-secret',
        },
        (stdout, child) => {
          const match = /"msg":"kudos app listening","url":"([^"]+)"/.exec(stdout);
          if (!match || signalled) return;
          signalled = true;
          void fetch(`${match[1]}/healthz`)
            .then((res) => (healthy = res.status === 200))
            .finally(() => child.kill('SIGTERM'));
        },
      );
      expect(healthy).toBe(true);
      // main.ts exits 1 if stopping takes more than 10 s; 0 means a clean stop inside that limit.
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('"msg":"kudos app stopped"');
    } finally {
      await Promise.all([emulator.close(), sim.close(), testDb.close()]);
    }
  });
});
