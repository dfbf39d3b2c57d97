// compose.yaml run for real (scripts/compose-smoke.sh prepares the images): the app, PostgreSQL and,
// as the demo profile has it, the Rewards emulator, brought up with podman-compose from a copy of the
// project (the app's image built by compose); waits for /healthz then /readyz on the published port, places one kudos through signed
// requests from the Slack simulator on the host, sees the order at the emulator, and brings the
// stack down with its volume.
//
// Usage: npx tsx scripts/compose-smoke.ts <project copy>
// Environment: KUDOS_BASE_IMAGE, POSTGRES_IMAGE, KUDOS_IMAGE (compose.yaml's image variables), and
// CONTAINERS_CONF (runc and the ulimits this machine allows; compose-smoke.sh writes it).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { type SlackSimulator, startSlackSimulator } from '../src/simulator/slack.js';
import { orderCount, sendOneKudos } from './smoke-kudos.js';

const run = promisify(execFile);
const projectDir = process.argv[2] ?? '';
if (projectDir === '') throw new Error('usage: npx tsx scripts/compose-smoke.ts <project copy>');
const SIGNING_SECRET = 'compose-smoke-signing-secret';
const project = `kudos-smoke-${randomBytes(3).toString('hex')}`;
const started = performance.now();

function say(message: string): void {
  console.log(`compose-smoke [${((performance.now() - started) / 1000).toFixed(1)} s] ${message}`);
}

async function compose(...args: string[]): Promise<string> {
  const { stdout } = await run(
    'podman-compose',
    ['-p', project, '-f', 'compose.yaml', '-f', 'compose.smoke.yaml', ...args],
    { cwd: projectDir, maxBuffer: 64 * 1024 * 1024 },
  );
  return stdout;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function until(what: string, probe: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`${what}: not within ${timeoutMs} ms`);
}

async function status(url: string): Promise<number> {
  return (await fetch(url, { signal: AbortSignal.timeout(3000) })).status;
}

async function main(): Promise<void> {
  let sim: SlackSimulator | undefined;
  let up = false;
  try {
    // The app reaches the simulator on the host through podman's host.containers.internal.
    sim = await startSlackSimulator({ signingSecret: SIGNING_SECRET, host: '0.0.0.0', port: 0 });
    const simPort = new URL(sim.url).port;
    const [appPort, emulatorPort] = [await freePort(), await freePort()];
    // podman-compose reads .env beside compose.yaml for the variables, and the app reads it (env_file).
    const env = {
      POSTGRES_PASSWORD: randomBytes(12).toString('hex'),
      KUDOS_HOST_PORT: String(appPort),
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_BOT_TOKEN: sim.botToken,
      SLACK_API_URL: `http://host.containers.internal:${simPort}/api/`,
      // The demo profile's settings, as compose.yaml's comment gives them.
      REWARDS_API_URL: 'http://rewards-emulator:4010',
      REWARDS_CLIENT_ID: 'production-client',
      REWARDS_CLIENT_SECRET: 'production-secret',
      REWARDS_WEBHOOK_SECRET: 'emulator-signing-secret',
    };
    writeFileSync(
      join(projectDir, '.env'),
      Object.entries(env)
        .map(([name, value]) => `${name}=${value}\n`)
        .join(''),
    );
    // What this machine needs on top of compose.yaml: podman starts health checks through systemd
    // timers, absent here (the smoke waits for /healthz itself), and the emulator is published on the
    // host's loopback so that the smoke can count its orders.
    writeFileSync(
      join(projectDir, 'compose.smoke.yaml'),
      [
        'services:',
        '  postgres:',
        '    healthcheck:',
        '      interval: disable',
        '  kudos:',
        '    healthcheck:',
        '      interval: disable',
        '  rewards-emulator:',
        '    healthcheck:',
        '      interval: disable',
        '    ports:',
        `      - '127.0.0.1:${emulatorPort}:4010'`,
        '',
      ].join('\n'),
    );

    say("podman-compose build kudos: the app's image from the Dockerfile");
    await compose('build', 'kudos');
    say(`podman-compose up -d (project ${project})`);
    up = true;
    await compose('up', '-d');
    const appUrl = `http://127.0.0.1:${appPort}`;
    await until('/healthz 200', async () => (await status(`${appUrl}/healthz`)) === 200, 180_000);
    say('/healthz 200 (PostgreSQL reached, migrations applied)');
    await until('/readyz 200', async () => (await status(`${appUrl}/readyz`)) === 200, 30_000);
    say('/readyz 200');

    sim.setAppUrl(appUrl);
    await sendOneKudos(sim);
    const emulatorUrl = `http://127.0.0.1:${emulatorPort}`;
    await until('one order placed', async () => (await orderCount(emulatorUrl)) === 1, 60_000);
    say('one kudos placed: one order at the Rewards emulator container');
    const restarts = await run('podman', ['inspect', '--format', '{{.RestartCount}}', `${project}_kudos_1`])
      .then(({ stdout }) => stdout.trim())
      .catch(() => '?');
    say(`the app's container restarted ${restarts} time(s) (before PostgreSQL answered)`);
  } catch (error) {
    if (up) {
      const logs = await compose('logs', '--tail', '30').catch((e: unknown) => String(e));
      console.error(`compose-smoke: the stack's last lines:\n${logs}`);
    }
    throw error;
  } finally {
    if (up) {
      await compose('down', '--volumes').catch((error: unknown) => console.error(`compose-smoke: down: ${error}`));
      // podman-compose 1.0.3 leaves the project's network behind.
      await run('podman', ['network', 'rm', '--force', `${project}_default`]).catch(() => undefined);
      say('podman-compose down --volumes; the network removed');
    }
    await sim?.close();
  }
  say('done');
}

await main();
