// CI's container stage, after the image is built: runs the image against PostgreSQL with the Rewards
// emulator and the Slack simulator on the host, waits for /healthz then /readyz, runs the image's own
// HEALTHCHECK, places one kudos through signed requests (the /kudos form, as a user sends it), then
// stops the container with SIGTERM and expects a clean exit (code 0) before removing it.
//
// Usage: npx tsx scripts/container-smoke.ts [image]   (default localhost/kudos:ci)
// Environment: CI_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres): a scratch
// database is created beside it and dropped after. The container uses the host's network, so the
// app, PostgreSQL, the emulator and the simulator all meet on 127.0.0.1.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { promisify } from 'node:util';

import { createScratchDatabase, type ScratchDatabase } from '../src/db/scratch.js';
import { type RunningEmulator, startEmulator } from '../src/emulator/server.js';
import { type SlackSimulator, startSlackSimulator } from '../src/simulator/slack.js';
import { orderCount, sendOneKudos } from './smoke-kudos.js';

const run = promisify(execFile);
const image = process.argv[2] ?? 'localhost/kudos:ci';
const baseUrl = process.env.CI_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SIGNING_SECRET = 'container-smoke-signing-secret';
// runc, not crun (crun refuses hybrid cgroups); the limits are ones an unprivileged runc may set.
// No health timer: podman would start it through systemd, absent here; the smoke runs the check itself.
const PODMAN_RUN = [
  ...['--runtime', 'runc', 'run', '--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=1024:1024'],
  ...['--health-interval', 'disable'],
];
const started = performance.now();

function say(message: string): void {
  console.log(`container-smoke [${((performance.now() - started) / 1000).toFixed(1)} s] ${message}`);
}

async function podman(...args: string[]): Promise<string> {
  const { stdout } = await run('podman', args, { maxBuffer: 64 * 1024 * 1024 });
  return stdout.trim();
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

/** Polls `probe` every 250 ms until it answers true; fails after `timeoutMs` or once the container is gone. */
async function until(what: string, container: string, probe: () => Promise<boolean>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe().catch(() => false)) return;
    const state = await podman('inspect', '--format', '{{.State.Status}}', container);
    if (state !== 'running') throw new Error(`the container is ${state} while waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${what}: not within ${timeoutMs} ms`);
}

async function status(url: string): Promise<number> {
  return (await fetch(url, { signal: AbortSignal.timeout(3000) })).status;
}

async function main(): Promise<void> {
  let emulator: RunningEmulator | undefined;
  let sim: SlackSimulator | undefined;
  let database: ScratchDatabase | undefined;
  const container = `kudos-smoke-${randomBytes(4).toString('hex')}`;
  let containerStarted = false;
  try {
    [emulator, sim, database] = await Promise.all([
      startEmulator({ port: 0, host: '127.0.0.1', env: {} }),
      startSlackSimulator({ signingSecret: SIGNING_SECRET, host: '127.0.0.1', port: 0 }),
      createScratchDatabase(baseUrl, 'kudos_container'),
    ]);
    const [port, metricsPort] = [await freePort(), await freePort()];
    const env = {
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      DATABASE_URL: database.url,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_BOT_TOKEN: sim.botToken,
      SLACK_API_URL: sim.apiUrl,
      REWARDS_API_URL: emulator.url,
      REWARDS_CLIENT_ID: 'production-client',
      REWARDS_CLIENT_SECRET: 'production-secret',
      REWARDS_WEBHOOK_SECRET: 'emulator-signing-secret',
    };
    const envArgs = Object.entries(env).flatMap(([name, value]) => ['--env', `${name}=${value}`]);
    await podman(...PODMAN_RUN, '--detach', '--name', container, '--network', 'host', ...envArgs, image);
    containerStarted = true;
    const appUrl = `http://127.0.0.1:${port}`;
    say(`${container} started from ${image} on ${appUrl}`);

    await until('/healthz 200', container, async () => (await status(`${appUrl}/healthz`)) === 200, 120_000);
    say('/healthz 200 (migrations applied)');
    await until('/readyz 200', container, async () => (await status(`${appUrl}/readyz`)) === 200, 30_000);
    say('/readyz 200');
    await podman('healthcheck', 'run', container);
    say("the image's HEALTHCHECK passes");

    sim.setAppUrl(appUrl);
    await sendOneKudos(sim);
    const emulatorUrl = emulator.url;
    await until('one order placed', container, async () => (await orderCount(emulatorUrl)) === 1, 60_000);
    say('one kudos placed: one order at the Rewards emulator');

    await podman('stop', '--time', '15', container);
    const exitCode = await podman('inspect', '--format', '{{.State.ExitCode}}', container);
    if (exitCode !== '0') throw new Error(`the container exited with ${exitCode} on SIGTERM, not 0`);
    say('SIGTERM: the app drained and exited 0');
  } catch (error) {
    if (containerStarted) {
      const logs = await podman('logs', '--tail', '40', container).catch(() => '');
      console.error(`container-smoke: the container's last lines:\n${logs}`);
    }
    throw error;
  } finally {
    if (containerStarted) await podman('rm', '--force', '--time', '0', container).catch(() => '');
    await Promise.allSettled([emulator?.close(), sim?.close(), database?.drop()]);
  }
  say('done');
}

await main();
