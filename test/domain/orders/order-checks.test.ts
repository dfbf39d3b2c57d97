// Give-up clocks start at the later of creation and the scheduled send time: a send booked more than
// 7 days ahead is still watched when it goes out (announcement, "went out" DM).
import { formatInTimeZone } from 'date-fns-tz';
import { eq, sql } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';

import { kudos, orderChecks } from '../../../src/db/schema/index.js';
import { runOrderCheck, TRANSIENT_RETRY_CAP_MS } from '../../../src/domain/orders/order-checks.js';
import { DEFAULT_CHECK_DELAYS_MS } from '../../../src/domain/sending/order-check-schedule.js';
import { presentNotice } from '../../../src/slack/notices/present-notice.js';
import { eventually, sendModalValues, submitSendForm, type TestStack, useAppPerTest } from '../../support/app.js';
import type { TestEmulator } from '../../support/emulator.js';
import { FAST_CHECKS } from '../../webhooks/support.js';

const env = useAppPerTest({ env: { KUDOS_NOTIFY_CHANNEL: 'C_KUDOS' }, app: { tuning: { webhooks: FAST_CHECKS } } });
let stack: TestStack;
let emulator: TestEmulator;
const testDb = {
  get db() {
    return env.db;
  },
};
beforeEach(() => {
  ({ stack, emulator } = env);
});

const DAY_S = 24 * 3600;

describe('completion checks of sends scheduled far ahead', () => {
  it('a send scheduled 8 days ahead is announced and confirmed when it goes out', async () => {
    const at = new Date(Date.now() + 8 * DAY_S * 1000);
    const zone = 'America/New_York'; // U_MANAGER's zone in the simulator
    await submitSendForm(
      stack,
      testDb.db,
      'U_MANAGER',
      sendModalValues({
        users: ['U_EMP1'],
        design: 'CC-THANK-YOU',
        amount: '20',
        schedule: { date: formatInTimeZone(at, zone, 'yyyy-MM-dd'), time: formatInTimeZone(at, zone, 'HH:mm') },
      }),
    );
    const row = await eventually(async () =>
      (await testDb.db.select().from(kudos)).find((k) => k.status === 'scheduled' && k.notifiedAt),
    );
    await eventually(async () => (await testDb.db.select().from(orderChecks)).find((c) => c.orderId === row.orderId));

    // Eight days pass: the emulator's clock moves (the order goes out and completes); the app runs on
    // real time, so its own timeline moves back instead (booked 8 days ago, due now).
    await emulator.advance(8 * DAY_S + 120);
    expect((await stack.app.rewards.orders.get(row.orderId!)).status).toBe('COMPLETE');
    const shift = sql`interval '8 days'`;
    await testDb.db
      .update(kudos)
      .set({
        createdAt: sql`${kudos.createdAt} - ${shift}`,
        placedAt: sql`${kudos.placedAt} - ${shift}`,
        scheduledAt: sql`${kudos.scheduledAt} - ${shift}`,
      })
      .where(eq(kudos.id, row.id));
    await testDb.db
      .update(orderChecks)
      .set({
        createdAt: sql`${orderChecks.createdAt} - ${shift}`,
        watchFrom: sql`${orderChecks.watchFrom} - ${shift}`,
        nextCheckAt: sql`now()`,
      })
      .where(eq(orderChecks.orderId, row.orderId!));

    const announcement = await stack.sim.waitFor(
      () => stack.sim.messages('C_KUDOS').find((m) => m.text.includes('Maya')),
      15_000,
    );
    expect(announcement).toBeDefined();
    const check = await eventually(
      async () =>
        (await testDb.db.select().from(orderChecks).where(eq(orderChecks.orderId, row.orderId!)))[0]?.doneAt &&
        (await testDb.db.select().from(orderChecks))[0],
    );
    expect(check.error).toBeNull();
    expect(check.lastStatus).toBe('COMPLETE');
    await stack.sim.waitFor(
      () => stack.sim.messages('U_MANAGER').find((m) => m.text.startsWith('Your kudos was delivered')),
      15_000,
    );
  });

  it("an order cancelled outside Slack (the provider's portal) cancels the kudos too: it leaves the scheduled list and the spend", async () => {
    const at = new Date(Date.now() + 2 * DAY_S * 1000);
    const zone = 'America/New_York';
    await submitSendForm(
      stack,
      testDb.db,
      'U_MANAGER',
      sendModalValues({
        users: ['U_EMP1'],
        design: 'CC-THANK-YOU',
        amount: '20',
        schedule: { date: formatInTimeZone(at, zone, 'yyyy-MM-dd'), time: formatInTimeZone(at, zone, 'HH:mm') },
      }),
    );
    const row = await eventually(async () =>
      (await testDb.db.select().from(kudos)).find((k) => k.status === 'scheduled' && k.notifiedAt),
    );
    await eventually(async () => (await testDb.db.select().from(orderChecks)).find((c) => c.orderId === row.orderId));
    await stack.app.rewards.orders.cancel(row.orderId!);
    await testDb.db
      .update(orderChecks)
      .set({ nextCheckAt: sql`now()` })
      .where(eq(orderChecks.orderId, row.orderId!));
    const canceled = await eventually(
      async () => (await testDb.db.select().from(kudos).where(eq(kudos.id, row.id)))[0]?.status === 'canceled',
    );
    expect(canceled).toBe(true);
  });
});

describe('completion checks after many tries', () => {
  // A 300-kudos, 30%-faults chaos run: a check rate-limited many times (each try counts) then met a
  // 503, and the order's ladder put its next try an hour out: the completion notice was missing at the
  // end of the run. A failure that says nothing about the order is retried within 30 s.
  it('a 503 on the 30th try is retried within 30 s, not an hour later', async () => {
    await submitSendForm(
      stack,
      testDb.db,
      'U_MANAGER',
      sendModalValues({ users: ['U_EMP1'], design: 'CC-THANK-YOU', amount: '20' }),
    );
    const row = await eventually(async () =>
      (await testDb.db.select().from(kudos)).find((k) => k.status === 'placed' && k.orderId),
    );
    await eventually(async () => (await testDb.db.select().from(orderChecks)).find((c) => c.orderId === row.orderId));
    // The app's checker stopped (a check of its in flight would write over the row set below), and the
    // check held away from any other; tried 30 times already. The test runs the check itself.
    await stack.app.background.stop();
    await testDb.db
      .update(orderChecks)
      .set({ attempts: 30, nextCheckAt: sql`now() + interval '1 day'`, doneAt: null })
      .where(eq(orderChecks.orderId, row.orderId!));
    const [check] = await testDb.db.select().from(orderChecks).where(eq(orderChecks.orderId, row.orderId!));
    await emulator.faults({ method: 'GET', path: `/api/v1/orders/${row.orderId}`, status: 503, count: 50 });
    const deps = {
      db: testDb.db,
      rewards: stack.app.rewardsAccounts,
      chat: stack.app.slack,
      present: presentNotice,
      notifyChannelOf: async () => 'C_KUDOS',
      logger: stack.app.logger,
    };
    const before = Date.now();
    expect(await runOrderCheck(deps, check!, { delaysMs: DEFAULT_CHECK_DELAYS_MS })).toBe('error');
    const [after] = await testDb.db.select().from(orderChecks).where(eq(orderChecks.orderId, row.orderId!));
    expect(after!.error).toBe('SERVICE_UNAVAILABLE');
    expect(after!.nextCheckAt.getTime() - before).toBeLessThanOrEqual(TRANSIENT_RETRY_CAP_MS + 60_000);
    expect(after!.nextCheckAt.getTime() - Date.now()).toBeLessThanOrEqual(TRANSIENT_RETRY_CAP_MS);
  });
});
