// The app meets Slack's rate limits (src/slack/web-api/pacing.ts) against a simulator that enforces them as
// Slack does (src/simulator/rate-limits.ts): 30 kudos announced in one channel at once are all posted,
// each exactly once, without a single 429; a storm of 429s is waited out and nothing is lost or posted
// twice. Counts and order only: no timings.
import { describe, expect, it } from 'vitest';

import { notifications } from '../../../src/db/schema/index.js';
import { postAllOnce } from '../../../src/domain/notices/outbox.js';
import { eventually, useAppPerTest } from '../../support/app.js';

const e2e = useAppPerTest({
  env: { KUDOS_NOTIFY_CHANNEL: 'C_KUDOS' },
  app: { tuning: { worker: { pollIntervalMs: 100, noticeSweepMs: 500 } } },
});

/** The notice ids carried by the bot's messages of a conversation (a user id: the DM). */
const noticeIdsIn = (channel: string) =>
  e2e.stack.sim
    .messages(channel)
    .map((m) => m.metadata?.event_payload.notice_id)
    .filter((id): id is string => typeof id === 'string');

describe('Slack rate limits', () => {
  it(
    '30 kudos announced in one channel at once: all posted, each exactly once, with no 429 from Slack',
    { timeout: 120_000 },
    async () => {
      const { app, sim } = e2e.stack;
      const results = await postAllOnce(
        { db: e2e.db, chat: app.slack },
        Array.from({ length: 30 }, (_, i) => ({
          key: { kind: 'kudos.announcement', subject: `K-${i}`, teamId: 'T0KUDOS' },
          notice: { to: { channel: 'C_KUDOS' }, message: { text: `<@U_MANAGER> sent kudos #${i}` } },
        })),
      );
      // A burst goes at once; the rest wait for their turn in the outbox rather than bounce off Slack.
      expect(results.filter((r) => r.status === 'fulfilled').length).toBeGreaterThanOrEqual(1);
      const rows = await eventually(async () => {
        const all = await e2e.db.select().from(notifications);
        return all.length === 30 && all.every((r) => r.postedAt) && all;
      }, 110_000);
      const posted = noticeIdsIn('C_KUDOS');
      expect(posted).toHaveLength(30);
      expect(new Set(posted)).toEqual(new Set(rows.map((r) => r.id)));
      expect(sim.rateLimits.counts().total).toBe(0);
      expect(sim.calls.filter((c) => c.method === 'chat.postMessage' && c.ok)).toHaveLength(30);
    },
  );

  it(
    'a storm of 429s is waited out: every notice is posted once, none lost, none twice',
    { timeout: 90_000 },
    async () => {
      const { app, sim } = e2e.stack;
      sim.rateLimits.storm({ count: 8, retryAfterSeconds: 1, methods: ['chat.postMessage'] });
      sim.rateLimits.storm({ count: 2, retryAfterSeconds: 1, methods: ['conversations.open'] });
      const targets = [
        { channel: 'C_KUDOS' },
        { channel: 'C_GENERAL' },
        { userId: 'U_EMP1' },
        { userId: 'U_EMP2' },
        { channel: 'C_KUDOS' },
      ];
      await postAllOnce(
        { db: e2e.db, chat: app.slack },
        targets.map((to, i) => ({
          key: { kind: 'order.completed', subject: `OR-${i}`, teamId: 'T0KUDOS' },
          notice: { to, message: { text: `Order OR-${i} delivered` } },
        })),
      );
      const rows = await eventually(async () => {
        const all = await e2e.db.select().from(notifications);
        return all.length === 5 && all.every((r) => r.postedAt) && all;
      }, 80_000);
      const posted = [
        ...noticeIdsIn('C_KUDOS'),
        ...noticeIdsIn('C_GENERAL'),
        ...noticeIdsIn('U_EMP1'),
        ...noticeIdsIn('U_EMP2'),
      ];
      expect(posted.sort()).toEqual(rows.map((r) => r.id).sort());
      expect(rows.every((r) => r.failedAt === null)).toBe(true);
      // The whole storm was met (each refusal a 429 with Retry-After), and then nothing more.
      expect(sim.rateLimits.counts()).toMatchObject({
        total: 10,
        byMethod: { 'chat.postMessage': 8, 'conversations.open': 2 },
      });
    },
  );
});
