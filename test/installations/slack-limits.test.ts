// Slack's rate limits are per workspace, and so is the app's pacing (src/slack/web-api/pacing.ts): in
// distribution mode, one workspace flooding its announcement channel never holds up another
// workspace's post, even in a channel of the same id. Order and counts only: no timings.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { type RunningApp, startApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/config/logger.js';
import { notifications } from '../../src/db/schema/index.js';
import { postAllOnce, postOnce } from '../../src/domain/notices/outbox.js';
import { generateKey } from '../../src/secrets/key-ring.js';
import { type SlackSimulator, startSlackSimulator } from '../../src/simulator/slack.js';
import { eventually } from '../support/app.js';
import { useTestDatabase } from '../support/db.js';
import { startTestEmulator, type TestEmulator } from '../support/emulator.js';

const SIGNING_SECRET = 'limits-signing-secret-0123456789';
const CLIENT_ID = '1111.3333';
const CLIENT_SECRET = 'limits-client-secret-abcdef0123';

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
});

describe('Slack rate limits per workspace', () => {
  it(
    'a flood of 30 posts in one workspace’s channel does not hold up another workspace’s post',
    { timeout: 120_000 },
    async () => {
      sim = await startSlackSimulator({
        signingSecret: SIGNING_SECRET,
        emulatorUrl: emulator.url,
        oauth: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
      });
      const config = loadConfig({
        SLACK_CLIENT_ID: CLIENT_ID,
        SLACK_CLIENT_SECRET: CLIENT_SECRET,
        SLACK_STATE_SECRET: 'limits-state-secret-fedcba9876',
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        KUDOS_ENCRYPTION_KEY: generateKey('k1'),
        SLACK_API_URL: sim.apiUrl,
        REWARDS_API_URL: emulator.url,
      });
      app = await startApp({
        config,
        port: 0,
        metricsPort: 0,
        host: '127.0.0.1',
        db: testDb.db,
        logger: createLogger({ level: 'silent' }),
        tuning: { worker: { pollIntervalMs: 100, noticeSweepMs: 500 } },
      });
      sim.setAppUrl(app.url);
      await sim.distribution!.install({ teamId: 'T0KUDOS' });
      await sim.distribution!.install({ teamId: 'T_SECOND' });
      const deps = { db: testDb.db, chat: app.slack };
      const flood = postAllOnce(
        deps,
        Array.from({ length: 30 }, (_, i) => ({
          key: { kind: 'kudos.announcement', subject: `FLOOD-${i}`, teamId: 'T0KUDOS' },
          notice: { to: { channel: 'C_KUDOS' }, message: { text: `kudos #${i}` } },
        })),
      );
      const other = await postOnce(
        deps,
        { kind: 'kudos.announcement', subject: 'OTHER', teamId: 'T_SECOND' },
        { to: { channel: 'C_KUDOS' }, message: { text: 'the other workspace' } },
      );
      await flood;
      // Posted at once, inline: its workspace's schedule is its own.
      expect(other.posted).toBe(true);
      const tokenOf = (key: string) => sim!.distribution!.installs.installations.get(key)!.botToken;
      const posts = sim.calls.filter((c) => c.method === 'chat.postMessage' && c.ok);
      const otherAt = posts.findIndex((c) => c.token === tokenOf('team:T_SECOND'));
      // Among the first posts of all (a shared schedule would put it behind the flood’s 30).
      expect(otherAt).toBeGreaterThanOrEqual(0);
      expect(otherAt).toBeLessThan(10);
      await eventually(async () => {
        const rows = await testDb.db.select().from(notifications);
        return rows.length === 31 && rows.every((r) => r.postedAt);
      }, 110_000);
      const all = sim.calls.filter((c) => c.method === 'chat.postMessage' && c.ok);
      expect(all.filter((c) => c.token === tokenOf('team:T0KUDOS'))).toHaveLength(30);
      expect(all.filter((c) => c.token === tokenOf('team:T_SECOND'))).toHaveLength(1);
      expect(sim.rateLimits.counts().total).toBe(0);
    },
  );
});
