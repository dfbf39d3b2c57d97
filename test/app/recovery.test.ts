// The worker survives crashes and shares work: rows are resumed with their own idempotency key,
// and several instances on one PostgreSQL never place an order twice.
import { randomUUID } from 'node:crypto';

import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import type { RunningApp } from '../../src/app.js';
import { kudos, notifications } from '../../src/db/schema/index.js';
import { eventually, sendModalValues, useAppPerTest } from '../support/app.js';
import { pendingKudosValues } from '../support/kudos-row.js';

const e2e = useAppPerTest({ startEach: false });
/** The app of the test at hand (started by the test; closed by useAppPerTest after it). */

const pendingRow = pendingKudosValues;

async function allOrders(app: RunningApp) {
  return app.rewards.orders.list({ pageSize: 100 }).all();
}

async function allDone() {
  return eventually(async () => {
    const rows = await e2e.db.select().from(kudos);
    return rows.length > 0 && rows.every((r) => r.status === 'placed' && r.notifiedAt) ? rows : undefined;
  }, 15_000);
}

describe('worker recovery', () => {
  it('resumes a row recorded before a crash (expired lease) and places it once', async () => {
    await e2e.db
      .insert(kudos)
      .values(pendingRow({ attempts: 1, claimedUntil: new Date(Date.now() - 60_000), claimedBy: 'worker-dead' }));
    await e2e.start();
    const [row] = await allDone();
    const orders = await allOrders(e2e.stack.app);
    expect(orders).toHaveLength(1);
    expect(orders[0]!.orderId).toBe(row!.orderId);
  });

  it('a crash after the API call but before recording it: the same key finds the same order, no duplicate', async () => {
    await e2e.start({ app: { tuning: { worker: { enabled: false } } } });
    const key = randomUUID();
    const row = pendingRow({
      idempotencyKey: key,
      attempts: 1,
      claimedUntil: new Date(Date.now() - 1000),
      claimedBy: 'worker-dead',
    });
    // The dead process got as far as placing the order.
    const { order } = await e2e.stack.app.rewards.orders.createChoice(
      {
        productId: 'CC-THANK-YOU',
        recipients: [{ email: row.recipients[0]!.email, amount: '10.00' }],
        emailSetting: { senderName: 'Maya Manager', subject: 'Kudos' },
      },
      { idempotencyKey: key },
    );
    await e2e.db.insert(kudos).values(row);
    await e2e.stack.close();
    await e2e.start();
    const [placed] = await allDone();
    expect(placed!.orderId).toBe(order.orderId);
    expect(await allOrders(e2e.stack.app)).toHaveLength(1);
    const dm = await e2e.stack.sim.waitFor(() => e2e.stack.sim.messages('U_MANAGER').at(-1));
    expect(dm.text).toMatch(/^Your kudos (is on its way|was delivered)/);
  });

  it('an instance stopped while placing releases the row; another instance finishes it with the same key', async () => {
    // Orders answer slowly, so the first instance is mid-call when it is stopped.
    await e2e.emulator.faults({ method: 'POST', path: '/api/v1/orders/choice-cards', delayMs: 1500, count: 1 });
    await e2e.start({ app: { tuning: { shutdownGraceMs: 100 } } });
    const view = await (async () => {
      await e2e.stack.sim.slashCommand('U_MANAGER', '');
      return e2e.stack.sim.waitFor(() => e2e.stack.sim.openViews('U_MANAGER').at(-1));
    })();
    await e2e.stack.sim.submitView(
      view.id,
      sendModalValues({ users: ['U_EMP1'], design: 'CC-THANK-YOU', amount: '10' }),
      'U_MANAGER',
    );
    const claimed = await eventually(async () => (await e2e.db.select().from(kudos)).find((r) => r.claimedBy !== null));
    await e2e.stack.close();
    const [released] = await e2e.db.select().from(kudos);
    expect(released!.status).toBe('pending');
    expect(released!.claimedBy).toBeNull();

    await e2e.start();
    const [placed] = await allDone();
    expect(placed!.idempotencyKey).toBe(claimed.idempotencyKey);
    expect(await allOrders(e2e.stack.app)).toHaveLength(1);
  });

  it('a process killed while announcing: the announcement Slack got is found, not posted again; the rest is posted once', async () => {
    await e2e.start({ env: { KUDOS_NOTIFY_CHANNEL: 'C_KUDOS' }, app: { tuning: { worker: { enabled: false } } } });
    const { order } = await e2e.stack.app.rewards.orders.createChoice(
      {
        productId: 'CC-THANK-YOU',
        recipients: [{ email: 'someone@example.com', amount: '10.00' }],
        emailSetting: { senderName: 'Maya Manager', subject: 'Kudos' },
      },
      { idempotencyKey: randomUUID() },
    );
    // The dead process had placed the order, recorded the announcement in the outbox and posted it;
    // it died before Slack's answer (and the confirmation) came.
    const [row] = await e2e.db
      .insert(kudos)
      .values(
        pendingRow({
          status: 'placed',
          orderId: order.orderId,
          placedAt: new Date(),
          attempts: 1,
          claimedUntil: new Date(Date.now() - 1000),
          claimedBy: 'worker-dead',
        }),
      )
      .returning();
    const [notice] = await e2e.db
      .insert(notifications)
      .values({
        kind: 'kudos.announcement',
        subject: row!.id,
        teamId: row!.teamId,
        channel: 'C_KUDOS',
        message: { text: 'Kudos from Maya Manager' },
        attemptedAt: new Date(),
        attempts: 1,
        claimedUntil: new Date(Date.now() - 1000),
      })
      .returning();
    const posted = await e2e.stack.app.slack.postMessage({ teamId: notice!.teamId ?? '' }, 'C_KUDOS', {
      text: 'Kudos from Maya Manager',
      metadata: { eventType: 'kudos_notice', payload: { notice_id: notice!.id } },
    });
    // Another instance (same Slack) takes over once the lease has run out.
    await e2e.stack.startAnotherApp({ tuning: { worker: {} } });
    await allDone();
    const announcement = await eventually(async () => {
      const [n] = await e2e.db.select().from(notifications).where(eq(notifications.id, notice!.id));
      return n?.postedAt ? n : undefined;
    });
    expect(announcement.ts).toBe(posted.ts);
    expect(e2e.stack.sim.messages('C_KUDOS').filter((m) => m.text === 'Kudos from Maya Manager')).toHaveLength(1);
    const confirmations = e2e.stack.sim
      .messages('U_MANAGER')
      .filter((m) => /^Your kudos (is on its way|was delivered)/.test(m.text));
    expect(confirmations).toHaveLength(1);
  });

  it.skipIf(!process.env.DATABASE_URL)(
    'two instances on one PostgreSQL share the work without placing any order twice',
    async () => {
      // Both instances poll; each has its own connection pool, as two processes would.
      await e2e.emulator.faults({ method: 'POST', path: '/api/v1/orders/choice-cards', delayMs: 100, count: 20 });
      await e2e.start({ app: { tuning: { worker: { enabled: false } } } });
      const rows = Array.from({ length: 20 }, () => pendingRow());
      await e2e.db.insert(kudos).values(rows);
      const config = { ...e2e.stack.config, databaseUrl: e2e.testDb.url };
      await Promise.all([
        e2e.stack.startAnotherApp({
          config,
          db: undefined,
          tuning: { worker: { pollIntervalMs: 50, concurrency: 2 } },
        }),
        e2e.stack.startAnotherApp({
          config,
          db: undefined,
          tuning: { worker: { pollIntervalMs: 50, concurrency: 2 } },
        }),
      ]);
      const placed = await allDone();
      expect(placed).toHaveLength(20);
      expect(new Set(placed.map((r) => r.orderId)).size).toBe(20);
      // Exactly one order per key in the API (an earlier test's aborted request may land late, so count by key).
      for (const row of placed) {
        const matches = await e2e.stack.app.rewards.orders.list({ clientOrderId: row.idempotencyKey }).all();
        expect(matches.map((o) => o.orderId)).toEqual([row.orderId]);
      }
    },
  );
});
