// Completion checks against Slack's limits as Slack enforces them (the simulator's default): many
// orders finish at once and all their notices go to one channel and one sender's DM, which take a
// post a second. Once the Rewards API has said an order is complete its check closes: the notices
// that wait for their turn in Slack (and the completion notices under announcements still waiting
// for theirs) are posted by the notice outbox, so no later pass asks the API about the order again.
// Rewards requests and Slack messages are counted, never timed.
import { and, eq, isNull, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { kudos, notifications, orderChecks } from '../../../src/db/schema/index.js';
import { singleRewardsAccount } from '../../../src/domain/accounts/rewards-accounts.js';
import { type CheckOutcome, claimDueChecks, runOrderChecks } from '../../../src/domain/orders/order-checks.js';
import { type CallInfo, createRewardsClient } from '../../../src/rewards/index.js';
import { presentNotice } from '../../../src/slack/notices/present-notice.js';
import { eventually, useAppPerTest } from '../../support/app.js';
import { pendingKudosValues } from '../../support/kudos-row.js';

// The app's own checks are due in an hour, and its checker is stopped before the test makes them due
// (it answers on a 4 s grid of instants, and would claim some between the test's update and its
// claim): the test runs the passes itself, with a client that counts.
const e2e = useAppPerTest({
  env: { KUDOS_NOTIFY_CHANNEL: 'C_KUDOS' },
  app: {
    tuning: { worker: { noticeSweepMs: 500 }, webhooks: { checkDelaysMs: [3600_000], sweepIntervalMs: 3600_000 } },
  },
  emulatorEnv: { EMULATOR_BACKGROUND: 'off' },
});

const KUDOS = 16;

describe('completion checks while Slack paces the notices', () => {
  it(
    `${KUDOS} orders finishing at once in one channel: each asked of the API once, every notice posted once`,
    { timeout: 180_000 },
    async () => {
      const { app, sim } = e2e.stack;
      // One sender, one channel: the announcements, completion notices and the sender's DMs all queue.
      const bounced = { slackUserId: null, recipientId: null, email: 'gone@bounce.test', name: 'Gone' };
      await e2e.db
        .insert(kudos)
        .values(Array.from({ length: KUDOS }, (_, i) => pendingKudosValues(i === 0 ? { recipients: [bounced] } : {})));
      app.worker.wake();
      await eventually(
        async () =>
          ((await e2e.db.select().from(kudos).where(isNull(kudos.notifiedAt))).length === 0 &&
            (await e2e.db.select().from(orderChecks)).length === KUDOS) ||
          undefined,
        60_000,
      );
      await e2e.emulator.advance(120); // every order goes out and completes
      await app.background.stop();

      const calls: CallInfo[] = [];
      const client = createRewardsClient({
        baseUrl: e2e.emulator.url,
        clientId: 'production-client',
        clientSecret: 'production-secret',
        onCall: (info) => calls.push(info),
      });
      const outcomes: CheckOutcome[] = [];
      try {
        const deps = {
          db: e2e.db,
          rewards: singleRewardsAccount(client),
          chat: app.slack,
          present: presentNotice,
          notifyChannelOf: async () => 'C_KUDOS',
          logger: app.logger,
        };
        // Pass after pass, every open check made due at once: a check left open would ask the API again.
        for (let pass = 0; pass < 4; pass++) {
          await e2e.db
            .update(orderChecks)
            .set({ nextCheckAt: sql`now()` })
            .where(isNull(orderChecks.doneAt));
          const checks = await claimDueChecks(e2e.db, 'test-checker', 60_000, 50);
          if (checks.length === 0) break;
          outcomes.push(...(await runOrderChecks(deps, checks)));
        }
      } finally {
        await client.close();
      }
      // Each order asked about once: one list for all, one GET for the bounce (its address).
      const api = calls.filter((c) => c.endpoint.startsWith('/api/'));
      expect(api.filter((c) => c.endpoint === '/api/v1/orders')).toHaveLength(1);
      expect(api.filter((c) => c.endpoint === '/api/v1/orders/{orderId}')).toHaveLength(1);
      expect(outcomes).toEqual(Array.from({ length: KUDOS }, () => 'complete'));
      expect(await e2e.db.select().from(orderChecks).where(isNull(orderChecks.doneAt))).toHaveLength(0);

      // In the end every notice is posted, once, at its turn: announcements and completion notices in
      // the channel (each completion in its announcement's thread; none for the send whose one card
      // bounced), confirmations, and each edited to delivered (the bounce in it) in the sender's DM.
      const rows = await eventually(async () => {
        const all = await e2e.db.select().from(notifications);
        return all.length === 4 * KUDOS - 1 && all.every((r) => r.postedAt) && all;
      }, 150_000);
      const count = (kind: string) => rows.filter((r) => r.kind === kind).length;
      expect([
        count('kudos.announcement'),
        count('order.completed'),
        count('kudos.confirmation'),
        count('kudos.sender_dm'),
      ]).toEqual([KUDOS, KUDOS - 1, KUDOS, KUDOS]);
      const posted = [...sim.messages('C_KUDOS'), ...sim.messages('U_MANAGER')];
      const noticeIds = posted
        .map((m) => m.metadata?.event_payload.notice_id)
        .filter((id): id is string => typeof id === 'string');
      // Edits (the sender's DM brought to delivered) change a message; every other row is one post.
      expect(noticeIds.sort()).toEqual(
        rows
          .filter((r) => !r.editOf)
          .map((r) => r.id)
          .sort(),
      );
      const announcementTs = new Map(rows.filter((r) => r.kind === 'kudos.announcement').map((r) => [r.subject, r.ts]));
      const rowsByKudos = await e2e.db.select({ id: kudos.id, orderId: kudos.orderId }).from(kudos);
      for (const { id, orderId } of rowsByKudos) {
        const completed = rows.find((r) => r.kind === 'order.completed' && r.subject === orderId);
        // The send whose one card bounced: nothing delivered, nothing said in the channel.
        if (!completed) continue;
        expect(completed?.channel).toBe('C_KUDOS');
        expect(completed?.threadTs).toBe(announcementTs.get(id));
      }
    },
  );
  it(
    'an order found complete before the sender was told waits without asking the API again',
    { timeout: 120_000 },
    async () => {
      const { app } = e2e.stack;
      const [row] = await e2e.db.insert(kudos).values(pendingKudosValues()).returning();
      app.worker.wake();
      const placed = await eventually(
        async () =>
          (
            await e2e.db
              .select()
              .from(kudos)
              .where(and(eq(kudos.id, row!.id), eq(kudos.status, 'placed')))
          )[0]?.notifiedAt && true,
        60_000,
      );
      expect(placed).toBe(true);
      const [{ orderId }] = (await e2e.db
        .select({ orderId: kudos.orderId })
        .from(kudos)
        .where(eq(kudos.id, row!.id))) as [{ orderId: string }];
      await eventually(
        async () =>
          (await e2e.db.select().from(orderChecks).where(eq(orderChecks.orderId, orderId))).length === 1 || undefined,
        30_000,
      );
      await e2e.emulator.advance(120);
      await app.background.stop();
      // As if a worker were still telling the sender (its confirmation comes before the delivery), with
      // its lease held: the app's own worker, polling meanwhile, does not tell it in the test's place.
      await e2e.db
        .update(kudos)
        .set({ notifiedAt: null, claimedBy: 'another-worker', claimedUntil: new Date(Date.now() + 600_000) })
        .where(eq(kudos.id, row!.id));

      const calls: CallInfo[] = [];
      const client = createRewardsClient({
        baseUrl: e2e.emulator.url,
        clientId: 'production-client',
        clientSecret: 'production-secret',
        onCall: (info) => calls.push(info),
      });
      const pass = async () => {
        await e2e.db
          .update(orderChecks)
          .set({ nextCheckAt: sql`now()` })
          .where(and(eq(orderChecks.orderId, orderId), isNull(orderChecks.doneAt)));
        const checks = (await claimDueChecks(e2e.db, 'test-checker', 60_000, 50)).filter((c) => c.orderId === orderId);
        const deps = {
          db: e2e.db,
          rewards: singleRewardsAccount(client),
          chat: app.slack,
          present: presentNotice,
          notifyChannelOf: async () => 'C_KUDOS',
          logger: app.logger,
        };
        return runOrderChecks(deps, checks);
      };
      try {
        expect(await pass()).toEqual(['pending']);
        await e2e.db
          .update(kudos)
          .set({ notifiedAt: sql`now()`, claimedBy: null, claimedUntil: null })
          .where(eq(kudos.id, row!.id));
        expect(await pass()).toEqual(['complete']);
      } finally {
        await client.close();
      }
      expect(calls.filter((c) => c.endpoint.startsWith('/api/v1/orders'))).toHaveLength(1);
      const told = await eventually(
        async () =>
          (
            await e2e.db
              .select()
              .from(notifications)
              .where(and(eq(notifications.kind, 'order.completed'), eq(notifications.subject, orderId)))
          )[0]?.postedAt,
        60_000,
      );
      expect(told).toBeInstanceOf(Date);
      const [check] = await e2e.db.select().from(orderChecks).where(eq(orderChecks.orderId, orderId));
      expect(check).toMatchObject({ finishedOrder: null });
      expect(check!.doneAt).not.toBeNull();
    },
  );
});
