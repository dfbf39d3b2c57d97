// The building blocks of "exactly once" and of reconciliation, on the real database: the check
// backoff (a property), check scheduling and claiming (notices: test/domain/notices/outbox.test.ts),
// bounce detection, and the retention of event ids.
import { randomUUID } from 'node:crypto';

import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { kudos, orderChecks, webhookEvents } from '../../src/db/schema/index.js';
import { bouncedRecipientsOf } from '../../src/domain/orders/bounces.js';
import { claimDueCheck } from '../../src/domain/orders/order-checks.js';
import {
  DEFAULT_CHECK_DELAYS_MS,
  MAX_CHECK_DELAY_MS,
  nextCheckDelayMs,
  scheduleMissingKudosChecks,
  scheduleOrderCheck,
} from '../../src/domain/sending/order-check-schedule.js';
import { deleteExpiredEvents, storeEvent } from '../../src/webhooks/event-store.js';
import { useTestDatabase } from '../support/db.js';

const testDb = useTestDatabase();

describe('completion check backoff', () => {
  it('starts at 5 s, never shrinks, never exceeds 1 h', () => {
    expect(nextCheckDelayMs(1)).toBe(5_000);
    expect(nextCheckDelayMs(2)).toBe(15_000);
    expect(nextCheckDelayMs(3)).toBe(60_000);
    fc.assert(
      fc.property(fc.nat(10_000), fc.nat(10_000), (a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        const dLo = nextCheckDelayMs(lo);
        const dHi = nextCheckDelayMs(hi);
        return dLo <= dHi && dLo >= DEFAULT_CHECK_DELAYS_MS[0]! && dHi <= MAX_CHECK_DELAY_MS;
      }),
    );
  });

  it('caps any configured schedule at 1 h', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 10 * 3600_000 }), { minLength: 1, maxLength: 10 }),
        fc.nat(50),
        (delays, n) => {
          const d = nextCheckDelayMs(n, delays);
          return d <= MAX_CHECK_DELAY_MS && delays.map((x) => Math.min(x, MAX_CHECK_DELAY_MS)).includes(d);
        },
      ),
    );
  });
});

describe('order checks', () => {
  it('are scheduled once per order; a later schedule adds the kudos without moving the due time', async () => {
    await scheduleOrderCheck(testDb.db, { orderId: 'OR-1', source: 'webhook', firstDelayMs: 60_000 });
    const kudosId = randomUUID();
    await scheduleOrderCheck(testDb.db, { orderId: 'OR-1', source: 'kudos', kudosId, teamId: 'T1', firstDelayMs: 1 });
    const rows = await testDb.db.select().from(orderChecks);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ source: 'kudos', kudosId, teamId: 'T1' });
    expect(rows[0]!.nextCheckAt.getTime()).toBeGreaterThan(Date.now() + 50_000);
  });

  it('a scheduled order is first checked at its send time', async () => {
    const sendAt = new Date(Date.now() + 3600_000);
    await scheduleOrderCheck(testDb.db, { orderId: 'OR-2', source: 'kudos', notBefore: sendAt, firstDelayMs: 5000 });
    const [row] = await testDb.db.select().from(orderChecks);
    expect(row!.nextCheckAt.getTime()).toBe(sendAt.getTime() + 5000);
    expect(await claimDueCheck(testDb.db, 'w1', 60_000)).toBeUndefined();
  });

  it('a due check is claimed by one claimer at a time, and again after its lease expires', async () => {
    await scheduleOrderCheck(testDb.db, { orderId: 'OR-3', source: 'webhook', firstDelayMs: 0 });
    const claims = await Promise.all(Array.from({ length: 8 }, (_, i) => claimDueCheck(testDb.db, `w${i}`, 60_000)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    await testDb.db.update(orderChecks).set({ claimedUntil: sql`now() - interval '1 second'` });
    const again = await claimDueCheck(testDb.db, 'w9', 60_000);
    expect(again?.attempts).toBe(2);
  });
});

describe('the safety net for a crash between placing and scheduling', () => {
  it('schedules a check for a placed kudos that has none, once', async () => {
    await testDb.db.insert(kudos).values({
      teamId: 'T1',
      senderUserId: 'U1',
      senderName: 'Maya',
      recipients: [],
      recipientCount: 1,
      productId: 'CC-THANK-YOU',
      designName: 'Thank You',
      amountCents: 1000,
      totalCents: 1000,
      status: 'placed',
      orderId: 'OR-CRASH',
      placedAt: new Date(),
    });
    expect(await scheduleMissingKudosChecks(testDb.db, 5000)).toBe(1);
    expect(await scheduleMissingKudosChecks(testDb.db, 5000)).toBe(0);
    const [check] = await testDb.db.select().from(orderChecks);
    expect(check).toMatchObject({ orderId: 'OR-CRASH', source: 'kudos', teamId: 'T1' });
  });
});

describe('bounce detection', () => {
  const snapshot = [
    { slackUserId: 'U1', recipientId: 'RE-1', email: 'a@example.com', name: 'Ann' },
    { slackUserId: null, recipientId: 'RE-2', email: 'b@bounce.test', name: 'Bob' },
  ];
  it('uses a per-recipient status when the API gives one', () => {
    const order = {
      bouncedCount: 1,
      recipients: [
        { email: 'a@example.com', status: 'SENT' },
        { email: 'b@bounce.test', status: 'BOUNCED' },
      ],
    };
    expect(bouncedRecipientsOf(order, snapshot)).toEqual({
      confirmed: true,
      recipients: [{ email: 'b@bounce.test', name: 'Bob', slackUserId: null, recipientId: 'RE-2' }],
    });
  });
  it('without a status: all bounced when every card bounced, otherwise asks to check every address', () => {
    const recipients = [{ email: 'a@example.com' }, { email: 'b@bounce.test' }];
    expect(bouncedRecipientsOf({ bouncedCount: 2, recipients }, snapshot)).toMatchObject({
      confirmed: true,
      recipients: [{ email: 'a@example.com' }, { email: 'b@bounce.test' }],
    });
    expect(bouncedRecipientsOf({ bouncedCount: 1, recipients }, snapshot)).toMatchObject({
      confirmed: false,
      recipients: [{ email: 'a@example.com' }, { email: 'b@bounce.test' }],
    });
    expect(bouncedRecipientsOf({ bouncedCount: 0, recipients }, snapshot).recipients).toEqual([]);
  });
});

describe('event id retention', () => {
  it('keeps event ids 8 days after processing (replays within 7 days are recognised), then deletes them', async () => {
    for (const id of ['old', 'week', 'pending'])
      await storeEvent(testDb.db, { eventId: id, eventType: 'order.created', createdAt: null, body: {} });
    await testDb.db
      .update(webhookEvents)
      .set({ processedAt: sql`now() - interval '9 days'` })
      .where(sql`event_id = 'old'`);
    await testDb.db
      .update(webhookEvents)
      .set({ processedAt: sql`now() - interval '7 days'` })
      .where(sql`event_id = 'week'`);
    expect(await deleteExpiredEvents(testDb.db)).toBe(1);
    const left = (await testDb.db.select().from(webhookEvents)).map((e) => e.eventId).sort();
    expect(left).toEqual(['pending', 'week']);
    expect(
      await storeEvent(testDb.db, { eventId: 'week', eventType: 'order.created', createdAt: null, body: {} }),
    ).toEqual({ stored: false });
  });
});
