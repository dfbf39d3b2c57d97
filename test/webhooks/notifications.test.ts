// Webhooks in, notifications out, end to end: the emulator's real webhook sender and clock, the real
// app over HTTP, the Slack simulator. Each notice must appear exactly once.
import { randomUUID } from 'node:crypto';

import { formatInTimeZone } from 'date-fns-tz';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { kudos, notifications, orderChecks, webhookEvents } from '../../src/db/schema/index.js';
import { createRewardsClient } from '../../src/rewards/index.js';
import type { Message } from '../../src/simulator/slack.js';
import { eventually, sendModalValues, type TestStack } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { startTestEmulator, type TestEmulator } from '../support/emulator.js';
import { pendingKudosValues } from '../support/kudos-row.js';
import { noticesSettled } from '../support/notices-settled.js';
import {
  countRows,
  envelope,
  openSendModal,
  postWebhook,
  signed,
  startWebhookProxy,
  startWebhookStack,
  type WebhookProxy,
} from './support.js';

let testDb: TestDatabase;
let emulator: TestEmulator;
let stack: TestStack;
let proxy: WebhookProxy;

beforeAll(async () => {
  [testDb, emulator] = await Promise.all([createTestDatabase(), startTestEmulator({ EMULATOR_BACKGROUND: 'off' })]);
  proxy = await startWebhookProxy(() => stack.app.url);
});
afterAll(async () => {
  await proxy?.close();
  await emulator?.close();
  await testDb?.close();
});
beforeEach(async () => {
  await Promise.all([testDb.truncateAll(), emulator.reset()]);
  proxy.recorded.length = 0;
  proxy.failNext(0, 'down');
  stack = await startWebhookStack(testDb.db, emulator);
});
afterEach(async () => {
  await stack?.close();
});

/** An order placed outside Slack (as the portal or another integration would). */
async function placeOrderElsewhere(email = 'guest@example.com') {
  const { order } = await stack.app.rewards.orders.createChoice(
    {
      productId: 'CC-THANK-YOU',
      recipients: [{ email, amount: '20.00' }],
      emailSetting: { senderName: 'Portal', subject: 'Thanks' },
    },
    { idempotencyKey: randomUUID() },
  );
  return order;
}

const mentions = (m: Message, text: string) => m.text.includes(text) || JSON.stringify(m.blocks ?? []).includes(text);
const channelNotices = (orderId: string) => stack.sim.messages('C_KUDOS').filter((m) => mentions(m, orderId));

async function sendKudos(users: string[], amount = '25', message = 'Thanks for the launch') {
  const view = await openSendModal(stack, 'U_MANAGER');
  const answer = await stack.sim.submitView(
    view.id,
    sendModalValues({ users, design: 'CC-THANK-YOU', amount, message }),
    'U_MANAGER',
  );
  expect(answer.status).toBe(200);
  return eventually(
    async () => (await testDb.db.select().from(kudos)).find((k) => k.orderId && k.notifiedAt && k.announcementTs),
    10_000,
  );
}

describe('order.created', () => {
  it("posts one notice for an order placed outside Slack, and its completion in the notice's thread", async () => {
    expect(await emulator.registerWebhook(`${stack.app.url}/webhooks/rewards`)).toEqual({ active: true });
    const order = await placeOrderElsewhere();
    await emulator.advance(0); // delivers order.created

    const notice = await stack.sim.waitFor(() => channelNotices(order.orderId)[0]);
    expect(notice.text).toContain('placed outside Slack');
    expect(notice.text).toContain('20.00 USD');

    await emulator.advance(5); // the order completes; reconciliation notices it
    const done = await stack.sim.waitFor(() => stack.sim.messages('C_KUDOS').find((m) => m.thread_ts === notice.ts));
    expect(done.text).toContain('1 card delivered');
    expect(channelNotices(order.orderId).filter((m) => !m.thread_ts)).toHaveLength(1);
    const check = await eventually(async () =>
      (await testDb.db.select().from(orderChecks).where(eq(orderChecks.orderId, order.orderId))).find((c) => c.doneAt),
    );
    expect(check.lastStatus).toBe('COMPLETE');
  });

  it('ignores an order of the other (sandbox) environment, which our credentials cannot see', async () => {
    expect(await emulator.registerWebhook(`${stack.app.url}/webhooks/rewards`)).toEqual({ active: true });
    const sandbox = createRewardsClient({
      baseUrl: emulator.url,
      clientId: 'sandbox-client',
      clientSecret: 'sandbox-secret',
    });
    try {
      await sandbox.orders.createChoice(
        {
          productId: 'CC-THANK-YOU',
          recipients: [{ email: 'test@example.com', amount: '10.00' }],
          emailSetting: { senderName: 'QA', subject: 'Test' },
        },
        { idempotencyKey: randomUUID() },
      );
    } finally {
      await sandbox.close();
    }
    await emulator.advance(0);
    const event = await eventually(async () =>
      (await testDb.db.select().from(webhookEvents)).find((e) => e.processedAt),
    );
    expect(event.outcome).toBe('not_found');
    expect(event.attempts).toBe(1);
    expect(stack.sim.messages('C_KUDOS')).toHaveLength(0);
    expect(await countRows(testDb.db, 'order_checks')).toBe(0);
  });

  it('a receiver failure is retried by the emulator and still gives exactly one notice', async () => {
    expect(await emulator.registerWebhook(`${proxy.url}/webhooks/rewards`)).toEqual({ active: true });

    // 1) The app is unreachable for the first attempt: nothing stored; the retry a minute later works.
    proxy.failNext(1, 'down');
    const first = await placeOrderElsewhere('first@example.com');
    await emulator.advance(0);
    expect(await countRows(testDb.db, 'webhook_events')).toBe(0);
    await emulator.advance(60);
    await stack.sim.waitFor(() => channelNotices(first.orderId)[0]);

    // 2) The app stores the event but its answer is lost (the sender sees 500): the retries after
    //    1 and 5 more minutes are recognised as redeliveries and change nothing.
    proxy.failNext(2, 'lost-ack');
    const second = await placeOrderElsewhere('second@example.com');
    await emulator.advance(0);
    await stack.sim.waitFor(() => channelNotices(second.orderId)[0]);
    await emulator.advance(60);
    await emulator.advance(300);

    const deliveries = await emulator.deliveries();
    const attemptsOf = (eventId: string) => deliveries.filter((d) => d.eventId === eventId).map((d) => d.status);
    const [firstEvent, secondEvent] = [...new Set(deliveries.map((d) => d.eventId))];
    expect(attemptsOf(firstEvent!)).toEqual([503, 200]);
    expect(attemptsOf(secondEvent!)).toEqual([500, 500, 200]);

    // Let processing settle, then count.
    await eventually(async () => (await testDb.db.select().from(webhookEvents)).every((e) => e.processedAt));
    expect(await countRows(testDb.db, 'webhook_events')).toBe(2);
    expect(channelNotices(first.orderId).filter((m) => !m.thread_ts)).toHaveLength(1);
    expect(channelNotices(second.orderId).filter((m) => !m.thread_ts)).toHaveLength(1);
    expect(await countRows(testDb.db, 'notifications', `kind = 'order.external'`)).toBe(2);
  });

  it('the same event redelivered one after the other gives one notice', async () => {
    expect(await emulator.registerWebhook(`${proxy.url}/webhooks/rewards`)).toEqual({ active: true });
    const order = await placeOrderElsewhere();
    await emulator.advance(0);
    await stack.sim.waitFor(() => channelNotices(order.orderId)[0]);
    const delivery = proxy.recorded.find((d) => d.eventType === 'order.created')!;
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${stack.app.url}/webhooks/rewards`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Service-Signature': delivery.signature },
        body: delivery.body,
      });
      expect(await res.json()).toEqual({ ok: true, duplicate: true });
    }
    await eventually(async () => (await testDb.db.select().from(webhookEvents)).every((e) => e.processedAt));
    expect(channelNotices(order.orderId)).toHaveLength(1);
  });

  it.skipIf(!process.env.DATABASE_URL)(
    'the same event delivered 10 times at once, to two instances, gives one notice (PostgreSQL)',
    async () => {
      const second = await stack.startAnotherApp();
      expect(await emulator.registerWebhook(`${proxy.url}/webhooks/rewards`)).toEqual({ active: true });
      // Record a real delivery, but keep it from the app: the 10 copies below are the first arrivals.
      proxy.failNext(1, 'down');
      const order = await placeOrderElsewhere();
      await emulator.advance(0);
      const delivery = proxy.recorded.find((d) => d.eventType === 'order.created')!;
      expect(await countRows(testDb.db, 'webhook_events')).toBe(0);

      const targets = [stack.app.url, second.url];
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          fetch(`${targets[i % 2]}/webhooks/rewards`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', 'X-Service-Signature': delivery.signature },
            body: delivery.body,
          }).then(async (res) => ({ status: res.status, body: (await res.json()) as { duplicate: boolean } })),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
      expect(answers.filter((a) => !a.body.duplicate)).toHaveLength(1);
      await stack.sim.waitFor(() => channelNotices(order.orderId)[0]);
      await eventually(async () => (await testDb.db.select().from(webhookEvents)).every((e) => e.processedAt));
      await emulator.advance(5);
      await stack.sim.waitFor(() => stack.sim.messages('C_KUDOS').find((m) => m.thread_ts && mentions(m, 'delivered')));
      await eventually(async () => (await testDb.db.select().from(orderChecks)).every((c) => c.doneAt));
      expect(channelNotices(order.orderId).filter((m) => !m.thread_ts)).toHaveLength(1);
      expect(stack.sim.messages('C_KUDOS').filter((m) => m.thread_ts)).toHaveLength(1);
      expect(await countRows(testDb.db, 'webhook_events')).toBe(1);
    },
  );
});

describe('completion of kudos sent from Slack', () => {
  it('is found by reconciliation alone (no webhook registered): one notice in the announcement thread and a DM', async () => {
    const row = await sendKudos(['U_EMP1', 'U_EMP2']);
    expect(row.orderStatus).not.toBe('COMPLETE');
    await emulator.advance(5);
    const reply = await stack.sim.waitFor(() =>
      stack.sim.messages('C_KUDOS').find((m) => m.thread_ts === row.announcementTs),
    );
    expect(reply.text).toContain('2 cards delivered');
    const dm = await stack.sim.waitFor(() =>
      stack.sim.messages('U_MANAGER').find((m) => m.text.includes('was delivered')),
    );
    expect(dm.text).toContain('Your kudos was delivered.');
    await eventually(
      async () => (await testDb.db.select().from(kudos).where(eq(kudos.id, row.id)))[0]!.orderStatus === 'COMPLETE',
    );
    await eventually(async () => (await testDb.db.select().from(orderChecks)).every((c) => c.doneAt));
    expect(stack.sim.messages('C_KUDOS').filter((m) => m.thread_ts)).toHaveLength(1);
    expect(stack.sim.messages('U_MANAGER').filter((m) => m.text.startsWith('Your kudos'))).toHaveLength(1);
  });

  it('survives a restart: a check scheduled by one instance is finished by the next', async () => {
    const row = await sendKudos(['U_EMP3']);
    await stack.app.close();
    expect((await testDb.db.select().from(orderChecks)).map((c) => [c.orderId, c.doneAt])).toEqual([
      [row.orderId, null],
    ]);
    await emulator.advance(5);
    await stack.startAnotherApp();
    const reply = await stack.sim.waitFor(() =>
      stack.sim.messages('C_KUDOS').find((m) => m.thread_ts === row.announcementTs),
    );
    expect(reply.text).toContain('the card is delivered');
    await eventually(async () => (await testDb.db.select().from(orderChecks)).every((c) => c.doneAt));
  });

  it('a scheduled kudos is announced when it went out, with the completion notice in its thread', async () => {
    const sendAt = new Date(Date.now() + 2 * 3600_000);
    const local = formatInTimeZone(sendAt, 'America/New_York', "yyyy-MM-dd'T'HH:mm");
    const [date, time] = local.split('T') as [string, string];
    const view = await openSendModal(stack, 'U_MANAGER');
    await stack.sim.submitView(
      view.id,
      sendModalValues({ users: ['U_EMP4'], design: 'CC-THANK-YOU', amount: '15', schedule: { date, time } }),
      'U_MANAGER',
    );
    const row = await eventually(async () =>
      (await testDb.db.select().from(kudos)).find((k) => k.status === 'scheduled' && k.notifiedAt),
    );
    // Booked, not announced; the first check waits for the send time.
    const [check] = await testDb.db.select().from(orderChecks);
    expect(check!.nextCheckAt.getTime()).toBeGreaterThanOrEqual(row.scheduledAt!.getTime());
    expect(stack.sim.messages('C_KUDOS')).toHaveLength(0);

    await emulator.advance(2 * 3600 + 60); // the emulator sends it and completes it
    // The app's own clock has not moved: let the check fall due now, as it would at the send time.
    await testDb.db.update(orderChecks).set({ nextCheckAt: new Date() });
    const announcement = await stack.sim.waitFor(() =>
      stack.sim.messages('C_KUDOS').find((m) => !m.thread_ts && JSON.stringify(m.blocks ?? []).includes('<@U_EMP4>')),
    );
    const reply = await stack.sim.waitFor(() =>
      stack.sim.messages('C_KUDOS').find((m) => m.thread_ts === announcement.ts),
    );
    expect(reply.text).toContain('the card is delivered');
    const updated = await eventually(async () =>
      (await testDb.db.select().from(kudos)).find((k) => k.announcementTs === announcement.ts),
    );
    expect(updated.orderStatus).toBe('COMPLETE');
    expect(stack.sim.messages('C_KUDOS').filter((m) => !m.thread_ts)).toHaveLength(1);
  });

  it('order.created for a Slack kudos updates that kudos instead of posting an "outside Slack" notice; webhook and reconciliation give one completion', async () => {
    expect(await emulator.registerWebhook(`${stack.app.url}/webhooks/rewards`)).toEqual({ active: true });
    const row = await sendKudos(['U_EMP1']);
    await emulator.advance(0);
    const event = await eventually(async () =>
      (await testDb.db.select().from(webhookEvents)).find((e) => e.processedAt),
    );
    expect(event.outcome).toBe('kudos');
    expect(event.teamId).toBe('T0KUDOS');
    expect(stack.sim.messages('C_KUDOS').filter((m) => m.text.includes('outside Slack'))).toHaveLength(0);

    await emulator.advance(5);
    await stack.sim.waitFor(() => stack.sim.messages('C_KUDOS').find((m) => m.thread_ts === row.announcementTs));
    await eventually(async () => (await testDb.db.select().from(orderChecks)).every((c) => c.doneAt));
    expect(stack.sim.messages('C_KUDOS').filter((m) => m.thread_ts)).toHaveLength(1);
    const posted = await testDb.db.select().from(notifications).where(eq(notifications.subject, row.orderId!));
    expect(posted.map((n) => n.kind).sort()).toEqual(['order.completed']);
    expect(posted.every((n) => n.ts)).toBe(true);
  });

  // The order was created but the answer lost, and the kudos said failed (or unknown): a later
  // order.created must move the status too, or the budget misses the spend and the sender is told
  // to try again.
  // A send in parts stops at the first part it cannot place; that part's order may exist all the
  // same (its answer lost), and turn up later by webhook or by the order poller.
  describe('a part order of a send in parts that turns up later', () => {
    /** A send of `count` people at $20, as the worker left it: `partsPlaced` parts recorded (their orders created here), then `status`. */
    async function sendInParts(count: number, partsPlaced: number, status: 'failed' | 'partial') {
      const key = randomUUID();
      const recipients = Array.from({ length: count }, (_, i) => ({
        slackUserId: null,
        recipientId: null,
        email: `part-${i}-${key.slice(0, 6)}@example.com`,
        name: `Person ${i}`,
      }));
      const orderIds: string[] = [];
      for (let part = 1; part <= partsPlaced; part++) orderIds.push((await createPart(key, recipients, part)).orderId);
      const [row] = await testDb.db
        .insert(kudos)
        .values(
          pendingKudosValues({
            idempotencyKey: key,
            recipients,
            recipientCount: count,
            amountCents: 2000,
            totalCents: 2000 * count,
            status,
            partsPlaced,
            orderIds,
            orderId: orderIds[0] ?? null,
            costCents: partsPlaced > 0 ? partsPlaced * 100 * 2000 : null,
            errorCode: 'CONNECTION_ERROR',
            errorMessage: 'the Rewards API did not accept it after several tries.',
            notifiedAt: new Date(),
          }),
        )
        .returning();
      return row!;
    }
    /** Part `part` (1-based) of the send with `key`, created in the Rewards API under its own key. */
    async function createPart(key: string, recipients: Array<{ email: string }>, part: number) {
      const { order } = await stack.app.rewards.orders.createChoice(
        {
          productId: 'CC-THANK-YOU',
          recipients: recipients.slice((part - 1) * 100, part * 100).map((r) => ({ email: r.email, amount: '20.00' })),
          emailSetting: { senderName: 'Maya', subject: 'Thanks' },
        },
        { idempotencyKey: `${key}-${part}` },
      );
      return order;
    }
    const settledRow = (id: string, status: string) =>
      eventually(async () => {
        const [r] = await testDb.db.select().from(kudos).where(eq(kudos.id, id));
        return r?.status === status && r.notifiedAt ? r : undefined;
      }, 15_000);
    /** The app's webhook endpoint, registered (its verification may time out on a loaded machine: asked again). */
    const registerWebhook = () =>
      eventually(async () => (await emulator.registerWebhook(`${stack.app.url}/webhooks/rewards`)).active, 30_000);
    const toldSender = (pattern: RegExp) => stack.sim.messages('U_MANAGER').filter((m) => pattern.test(m.text));

    it('a send told partial whose last part turns up: placed, every part counted, the sender told once it all went out', async () => {
      const row = await sendInParts(150, 1, 'partial');
      await registerWebhook();
      const last = await createPart(row.idempotencyKey, row.recipients, 2);
      await emulator.advance(0);
      const placed = await settledRow(row.id, 'placed');
      expect(placed.orderIds).toEqual([row.orderIds[0], last.orderId]);
      expect(placed.partsPlaced).toBe(2);
      expect(placed.costCents).toBe(150 * 2000);
      expect(placed.errorCode).toBeNull();
      await stack.sim.waitFor(() =>
        toldSender(/^Your kudos/).find((m) => !/went out only in part|went out to/.test(m.text)),
      );
      // The completion check watches the new part too.
      await eventually(async () =>
        (await testDb.db.select().from(orderChecks)).some((c) => c.orderId === last.orderId),
      );
      // Told once: counted once the event is processed and every notice posted (nothing is left that
      // could tell them again; the orders are not complete, so the checks tell nothing).
      await noticesSettled(testDb.db);
      expect(toldSender(/^Your kudos/)).toHaveLength(1);
      expect(stack.sim.messages('C_KUDOS').filter((m) => m.text.includes('outside Slack'))).toHaveLength(0);
    });

    it('a send told failed whose first part turns up: partial with that part, the sender told once exactly who got a card', async () => {
      const row = await sendInParts(250, 0, 'failed');
      await registerWebhook();
      const first = await createPart(row.idempotencyKey, row.recipients, 1);
      await emulator.advance(0);
      const partial = await settledRow(row.id, 'partial');
      expect(partial.orderIds).toEqual([first.orderId]);
      expect(partial.costCents).toBe(100 * 2000);
      const notice = await stack.sim.waitFor(() => toldSender(/went out to/)[0]);
      expect(notice.text).toContain('100 of 250 people');
      expect(notice.text).toContain('orders 2 to 3 were never sent');
      // The same order reported again (another order.created for it, as the order poller stores one):
      // nothing changes, nothing more is said once it is processed and every notice posted.
      await emulator.advance(0);
      const again = envelope('order.created', {
        orderId: first.orderId,
        cardType: 'CHOICE_CARD',
        totalAmount: '2000.00',
        currency: 'USD',
        recipientCount: 100,
      });
      expect((await postWebhook(stack.app.url, again, signed(again))).status).toBe(200);
      await noticesSettled(testDb.db);
      expect(toldSender(/^Your kudos/)).toHaveLength(1);
      const [after] = await testDb.db.select().from(kudos).where(eq(kudos.id, row.id));
      expect(after!.partsPlaced).toBe(1);
    });
  });

  it('order.created for a kudos recorded as failed (its answer was lost) makes it placed, counted and told', async () => {
    expect(await emulator.registerWebhook(`${stack.app.url}/webhooks/rewards`)).toEqual({ active: true });
    const key = randomUUID();
    const [row] = await testDb.db
      .insert(kudos)
      .values(
        pendingKudosValues({
          idempotencyKey: key,
          status: 'failed',
          errorCode: 'CONNECTION_ERROR',
          errorMessage: 'lost',
          notifiedAt: new Date(),
          amountCents: 2000,
          totalCents: 2000,
        }),
      )
      .returning();
    // The order the lost answer was about exists, under the kudos' key.
    const { order } = await stack.app.rewards.orders.createChoice(
      {
        productId: 'CC-THANK-YOU',
        recipients: [{ email: row!.recipients[0]!.email, amount: '20.00' }],
        emailSetting: { senderName: 'Maya', subject: 'Thanks' },
      },
      { idempotencyKey: key },
    );
    await emulator.advance(0);
    const placed = await eventually(async () => {
      const [r] = await testDb.db.select().from(kudos).where(eq(kudos.id, row!.id));
      return r?.status === 'placed' && r.notifiedAt ? r : undefined;
    }, 10_000);
    expect(placed.orderId).toBe(order.orderId);
    // The sender hears that it went through after all; nothing "outside Slack" is posted.
    await stack.sim.waitFor(() => stack.sim.messages('U_MANAGER').find((m) => m.text.startsWith('Your kudos')));
    expect(stack.sim.messages('C_KUDOS').filter((m) => m.text.includes('outside Slack'))).toHaveLength(0);
  });
});
