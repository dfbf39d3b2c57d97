// HOST binds the app's port to one interface in every mode that listens (single workspace, distribution,
// Socket Mode); unset, the port is on every IPv4 interface. Seen over real HTTP: 127.0.0.2 is
// a loopback address of its own, so a port bound there is refused on 127.0.0.1.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { type RunningApp, startApp } from '../../src/app.js';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { generateKey } from '../../src/secrets/key-ring.js';
import { type SlackSimulator, startSlackSimulator } from '../../src/simulator/slack.js';
import { testLogger } from '../support/app.js';
import { useTestDatabase } from '../support/db.js';
import { startTestEmulator, type TestEmulator } from '../support/emulator.js';

const testDb = useTestDatabase();
let emulator: TestEmulator;
let sim: SlackSimulator | undefined;
let app: RunningApp | undefined;

beforeAll(async () => {
  emulator = await startTestEmulator();
});
afterAll(async () => {
  await emulator?.close();
});
afterEach(async () => {
  await app?.close();
  await sim?.close();
  app = undefined;
  sim = undefined;
});

type Mode = 'single workspace' | 'distribution' | 'Socket Mode';

/** The app in `mode`, its port and interface from the environment alone (no host passed by the test). */
async function start(mode: Mode, host: string | undefined): Promise<RunningApp> {
  sim = await startSlackSimulator({
    signingSecret: 'host-signing-secret-0123456789',
    emulatorUrl: emulator.url,
    socketMode: mode === 'Socket Mode',
    oauth: { clientId: '1111.2222', clientSecret: 'host-client-secret-0123' },
  });
  const modeEnv =
    mode === 'distribution'
      ? {
          SLACK_CLIENT_ID: '1111.2222',
          SLACK_CLIENT_SECRET: 'host-client-secret-0123',
          SLACK_STATE_SECRET: 'host-state-secret-0123',
          KUDOS_ENCRYPTION_KEY: generateKey('k1'),
        }
      : {
          SLACK_BOT_TOKEN: sim.botToken,
          REWARDS_CLIENT_ID: 'production-client',
          REWARDS_CLIENT_SECRET: 'production-secret',
          REWARDS_WEBHOOK_SECRET: 'emulator-signing-secret',
        };
  const config = loadConfig({
    PORT: '0',
    ...(host !== undefined ? { HOST: host } : {}),
    ...(mode === 'Socket Mode'
      ? { SLACK_APP_TOKEN: sim.socketMode.appToken }
      : { SLACK_SIGNING_SECRET: 'host-signing-secret-0123456789' }),
    SLACK_API_URL: sim.apiUrl,
    REWARDS_API_URL: emulator.url,
    ...modeEnv,
  });
  app = await startApp({
    config,
    metricsPort: 0,
    db: testDb.db,
    logger: testLogger(),
    tuning: { worker: { enabled: false }, approvalsSweepMs: 0, purgeMs: 0 },
  });
  if (app.socket) await app.socket.connected();
  return app;
}

/** GET /healthz at `address` on the app's port: its status, or the connection error's code. */
async function healthAt(address: string, port: string): Promise<number | string> {
  try {
    const res = await fetch(`http://${address}:${port}/healthz`);
    await res.body?.cancel();
    return res.status;
  } catch (error) {
    return (error as { cause?: { code?: string } }).cause?.code ?? String(error);
  }
}

describe('HOST', () => {
  for (const mode of ['single workspace', 'distribution', 'Socket Mode'] as const) {
    it(`${mode}: HOST=127.0.0.2 serves there only; the default serves every IPv4 interface`, async () => {
      const bound = await start(mode, '127.0.0.2');
      const port = new URL(bound.url).port;
      expect(bound.url).toBe(`http://127.0.0.2:${port}`);
      expect(await healthAt('127.0.0.2', port)).toBe(200);
      expect(await healthAt('127.0.0.1', port)).toBe('ECONNREFUSED');
      if (mode === 'distribution') expect((await fetch(`http://127.0.0.2:${port}/slack/install`)).status).toBe(200);
      await app!.close();
      await sim!.close();

      const open = await start(mode, undefined);
      const openPort = new URL(open.url).port;
      expect(await healthAt('127.0.0.1', openPort)).toBe(200);
      expect(await healthAt('127.0.0.2', openPort)).toBe(200);
    });
  }

  it('a HOST that is neither an address nor a host name stops start-up with one line naming it', () => {
    const env = {
      SLACK_SIGNING_SECRET: 's',
      SLACK_BOT_TOKEN: 'xoxb-1',
      REWARDS_API_URL: 'http://127.0.0.1:9',
      REWARDS_CLIENT_ID: 'i',
      REWARDS_CLIENT_SECRET: 's',
      REWARDS_WEBHOOK_SECRET: 'w',
    };
    expect(() => loadConfig({ ...env, HOST: 'not a host' })).toThrow(ConfigError);
    try {
      loadConfig({ ...env, HOST: 'http://0.0.0.0' });
    } catch (error) {
      expect((error as ConfigError).problems).toEqual([
        expect.stringMatching(/^HOST must be an IP address or a host name/),
      ]);
    }
    expect(loadConfig({ ...env, HOST: '::' }).host).toBe('::');
    expect(loadConfig({ ...env, HOST: 'localhost' }).host).toBe('localhost');
    expect(loadConfig(env).host).toBe('0.0.0.0');
  });
});
