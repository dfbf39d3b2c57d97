// The worker's money guarantees at the edges of one order call: a worker that lost its lease writes
// nothing, and an order whose answer was lost is looked up by its key before anyone calls it failed.
// Through the real app, the emulator's fault injection and its lookup by clientOrderId.
import { eq, sql } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';

import { kudos, type KudosRow, orderChecks } from '../../../src/db/schema/index.js';
import { idlePollWait } from '../../../src/domain/sending/place-sends.js';
import { eventually, type TestStack, useAppPerTest } from '../../support/app.js';
import type { TestEmulator } from '../../support/emulator.js';
import { pendingKudosValues } from '../../support/kudos-row.js';
import { countQueries } from '../../support/query-count.js';

// The stack's own worker is off; each test starts the instances (and worker options) it needs.
const env = useAppPerTest({ app: { tuning: { worker: { enabled: false } } } });
let stack: TestStack;
const testDb = {
  get db() {
    return env.db;
  },
};
const emulator = { faults: (rule: Parameters<TestEmulator['faults']>[0]) => env.emulator.faults(rule) };
beforeEach(() => {
  stack = env.stack;
});

const ORDER_POST = '^/api/v1/orders/choice-cards$';

const pendingRow = pendingKudosValues;

async function rowOf(id: string): Promise<KudosRow> {
  const [row] = await testDb.db.select().from(kudos).where(eq(kudos.id, id));
  return row!;
}

/** The row once its sender was told the outcome. */
function toldRow(id: string): Promise<KudosRow> {
  return eventually(async () => {
    const r = await rowOf(id);
    return r.notifiedAt ? r : undefined;
  }, 15_000);
}

async function ordersFor(key: string) {
  return stack.app.rewards.orders.list({ clientOrderId: key }).all();
}

/** What the sender was told: "on its way" confirmations and "could not be sent" failures. */
function senderOutcomes() {
  const texts = stack.sim.messages('U_MANAGER').map((m) => m.text);
  return {
    confirmed: texts.filter((t) => /^Your kudos (is on its way|was delivered)/.test(t)).length,
    failed: texts.filter((t) => t.includes('could not be sent')).length,
    texts,
  };
}

describe('a worker whose lease ran out', () => {
  it('keeps its lease while a slow order call is in flight: no second worker places it, and the refusal is the one outcome', async () => {
    // The first call is refused after 3 s, three times the lease: without renewal a second worker
    // re-claims the row at 1 s and places it, and the late refusal then overwrites `placed`.
    await emulator.faults({ method: 'POST', path: ORDER_POST, delayMs: 3000, status: 400, count: 1 });
    const worker = { leaseMs: 1000, pollIntervalMs: 100, maxAttempts: 1 };
    const first = await stack.startAnotherApp({ tuning: { worker } });
    const [row] = await testDb.db.insert(kudos).values(pendingRow()).returning();
    const second = await stack.startAnotherApp({ tuning: { worker } });

    const done = await toldRow(row!.id);
    // Both workers stopped, every call of theirs settled: whatever either placed or wrote is in by now.
    await Promise.all([first.worker.stop(30_000), second.worker.stop(30_000)]);
    const orders = await ordersFor(row!.idempotencyKey);
    const final = await rowOf(row!.id);
    // Recorded equals charged: no order, failed, told once.
    expect(orders).toHaveLength(0);
    expect(final.status).toBe('failed');
    expect(done.errorCode).toBe('VALIDATION_ERROR');
    expect(senderOutcomes()).toMatchObject({ confirmed: 0, failed: 1 });
  });

  it("a stalled worker fenced out by the row's new holder writes nothing: placed stays placed, the sender hears one outcome", async () => {
    // Worker A's call hangs 2.5 s and is then refused; meanwhile A "stalls" past its lease (we expire it
    // by hand, as a paused process would) and worker B places the order with the same key.
    await emulator.faults({ method: 'POST', path: ORDER_POST, delayMs: 2500, status: 400, count: 1 });
    const a = await stack.startAnotherApp({
      tuning: { worker: { leaseMs: 60_000, pollIntervalMs: 100, maxAttempts: 1 } },
    });
    const [row] = await testDb.db.insert(kudos).values(pendingRow()).returning();
    const claimedByA = await eventually(async () => {
      const r = await rowOf(row!.id);
      return r.claimedBy ? r : undefined;
    });
    await testDb.db
      .update(kudos)
      .set({ claimedUntil: sql`now() - interval '1 second'` })
      .where(eq(kudos.id, row!.id));
    await stack.startAnotherApp({ tuning: { worker: { pollIntervalMs: 50 } } });

    const placed = await eventually(async () => {
      const r = await rowOf(row!.id);
      return r.status === 'placed' && r.notifiedAt ? r : undefined;
    }, 15_000);
    expect(placed.claimedBy === null || placed.claimedBy !== claimedByA.claimedBy).toBe(true);
    // A's refusal arrives after B placed it: A's worker stopped with a grace longer than its call, so
    // that call has been answered and A has done all it does with the refusal.
    await a.worker.stop(30_000);
    const final = await rowOf(row!.id);
    expect(final.status).toBe('placed');
    expect(final.orderId).toBe(placed.orderId);
    expect((await ordersFor(row!.idempotencyKey)).map((o) => o.orderId)).toEqual([placed.orderId]);
    expect(senderOutcomes()).toMatchObject({ confirmed: 1, failed: 0 });
  });
});

describe('an order whose answer was lost', () => {
  it('is looked up by its key before being called failed: found means placed', async () => {
    // Every try of the one attempt is applied and its answer lost (the first creates the order).
    await emulator.faults({ method: 'POST', path: ORDER_POST, drop: true, count: 10 });
    await stack.startAnotherApp({ tuning: { worker: { maxAttempts: 1 } } });
    const [row] = await testDb.db.insert(kudos).values(pendingRow()).returning();

    const told = await toldRow(row!.id);
    const orders = await ordersFor(row!.idempotencyKey);
    expect(orders).toHaveLength(1);
    expect(told.status).toBe('placed');
    expect(told.orderId).toBe(orders[0]!.orderId);
    expect(senderOutcomes()).toMatchObject({ confirmed: 1, failed: 0 });
  });

  it('stays "outcome unknown" (told once, never failed) while the lookup fails too, and is placed once the API answers', async () => {
    await emulator.faults({ method: 'POST', path: ORDER_POST, drop: true, count: 10 });
    // The lookups of the first pass fail as well; later ones get through.
    await emulator.faults({ method: 'GET', path: '^/api/v1/orders$', status: 503, count: 8 });
    await stack.startAnotherApp({ tuning: { worker: { maxAttempts: 1, backoffMs: () => 1500 } } });
    const [row] = await testDb.db.insert(kudos).values(pendingRow()).returning();

    const unknown = await eventually(async () => {
      const r = await rowOf(row!.id);
      return r.status === 'unknown' ? r : undefined;
    }, 15_000);
    expect(unknown.orderId).toBeNull();
    await stack.sim.waitFor(() =>
      stack.sim.messages('U_MANAGER').find((m) => m.text.includes('may or may not have gone out')),
    );
    expect(senderOutcomes().failed).toBe(0);

    const placed = await eventually(async () => {
      const r = await rowOf(row!.id);
      return r.status === 'placed' && r.notifiedAt ? r : undefined;
    }, 20_000);
    const orders = await ordersFor(row!.idempotencyKey);
    expect(orders.map((o) => o.orderId)).toEqual([placed.orderId]);
    const outcomes = senderOutcomes();
    expect(outcomes).toMatchObject({ confirmed: 1, failed: 0 });
    expect(outcomes.texts.filter((t) => t.includes('may or may not'))).toHaveLength(1);
  });

  it('a branded card whose brand was removed after its answer was lost: found by its key, placed, never told "nothing was charged"', async () => {
    // Every try of the first attempt creates or finds the order and loses the answer; then the brand goes.
    await emulator.faults({ method: 'POST', path: '^/api/v1/orders/branded-cards$', drop: true, count: 10 });
    await stack.startAnotherApp({ tuning: { worker: { maxAttempts: 3, backoffMs: () => 1500 } } });
    const [row] = await testDb.db
      .insert(kudos)
      .values(
        pendingRow({
          productId: 'BR-TESCO',
          designName: 'Tesco Gift Card',
          amountCents: 0,
          totalCents: 0,
          cardType: 'BRANDED_CARD',
          faceCurrency: 'GBP',
          faceCents: 2000,
          usdBasis: 'unknown',
        }),
      )
      .returning();
    await eventually(async () => ((await rowOf(row!.id)).failedCalls >= 1 ? true : undefined), 15_000);
    await env.emulator.removeBrand('BR-TESCO');

    const told = await toldRow(row!.id);
    const orders = await ordersFor(row!.idempotencyKey);
    expect(orders).toHaveLength(1);
    expect(told.status).toBe('placed');
    expect(told.orderId).toBe(orders[0]!.orderId);
    expect(senderOutcomes()).toMatchObject({ confirmed: 1, failed: 0 });
    expect(senderOutcomes().texts.join('\n')).not.toContain('Nothing was charged');
  });

  it('a refusal is an answer: failed at once, without waiting on a lookup', async () => {
    await emulator.faults({ method: 'POST', path: ORDER_POST, status: 402, count: 1 });
    await stack.startAnotherApp({ tuning: { worker: { maxAttempts: 1 } } });
    const [row] = await testDb.db.insert(kudos).values(pendingRow()).returning();
    const told = await toldRow(row!.id);
    expect(told.status).toBe('failed');
    expect(told.errorCode).toBe('INSUFFICIENT_BALANCE');
    expect(senderOutcomes()).toMatchObject({ confirmed: 0, failed: 1 });
  });
});

describe('a scheduled send placed late', () => {
  it('past the 10-minute lead (placing slipped by retries): failed with a plain reason, nothing ordered', async () => {
    await stack.startAnotherApp({ tuning: { worker: { maxAttempts: 1 } } });
    const at = new Date(Date.now() + 5 * 60_000);
    const local = `${at.toISOString().slice(0, 19)}+00:00`;
    const [row] = await testDb.db
      .insert(kudos)
      .values(pendingRow({ scheduledAt: at, scheduleLocal: local, scheduleTimezone: 'UTC' }))
      .returning();
    const told = await toldRow(row!.id);
    expect(told.status).toBe('failed');
    expect(told.errorCode).toBe('SCHEDULE_TOO_LATE');
    expect(await ordersFor(row!.idempotencyKey)).toHaveLength(0);
    expect(senderOutcomes().texts.find((t) => t.includes('could not be sent'))).toContain('at least 10 minutes ahead');
  });
});

describe('claiming behind a backlog', () => {
  it('claims a few free slots at a time, not once per finished send, and still places every send once', async () => {
    // Each claim ranks every due row (costly behind thousands): finished sends wake the poller only
    // once a quarter of the slots are free. A long poll interval leaves the wake-ups alone to claim.
    const counter = countQueries(testDb.db);
    try {
      const app = await stack.startAnotherApp({ tuning: { worker: { concurrency: 8, pollIntervalMs: 60_000 } } });
      const rows = await testDb.db
        .insert(kudos)
        .values(Array.from({ length: 40 }, () => pendingRow()))
        .returning();
      app.worker.wake();
      for (const row of rows) await toldRow(row.id);
      const claims = counter.statements().filter((text) => /with recursive due_teams/i.test(text)).length;
      // Claimed one finished send at a time (each wake-up also making the spare slots' claim): 116 here;
      // two of the 8 slots at a time: about 20 (26 seen).
      expect(claims).toBeLessThanOrEqual(32);
      for (const row of rows) expect(await ordersFor(row.idempotencyKey)).toHaveLength(1);
    } finally {
      counter.restore();
    }
  });
});

describe('an idle worker', () => {
  const isClaim = (text: string) => /with recursive due_teams/i.test(text);
  /** The idle poll: when is the next row due (kudos-store's nextClaimableInMs). */
  const isLook = (text: string) => /min\("next_attempt_at"\) - now\(\)/i.test(text);
  const counted = (counter: ReturnType<typeof countQueries>, is: (text: string) => boolean) =>
    counter.statements().filter(is).length;

  it('waits longer after each poll that found nothing, up to the cap, and never past the next due row', () => {
    const waits = [1, 2, 3, 4, 5, 6, 7].map((n) => idlePollWait(n, null, 300, 3000));
    expect(waits).toEqual([300, 600, 1200, 2400, 3000, 3000, 3000]);
    // A retry due in 450 ms: woken then (and a few ms past it), not at the back-off's 2.4 s.
    expect(idlePollWait(4, 450, 300, 3000)).toBe(455);
    expect(idlePollWait(4, -20, 300, 3000)).toBe(1);
  });

  it('backs off while nothing is due: a few reads instead of a claim every interval', async () => {
    const counter = countQueries(testDb.db);
    try {
      await stack.startAnotherApp({ tuning: { worker: { pollIntervalMs: 20, idlePollMaxMs: 60_000 } } });
      // The first poll claims; the ones after it only look whether anything is due (nothing is).
      await eventually(() => counted(counter, isLook) >= 1, 30_000);
      const firstLookSeenAt = Date.now();
      await eventually(() => counted(counter, isLook) >= 6, 30_000);
      const elapsedMs = Date.now() - firstLookSeenAt;
      expect(counted(counter, isClaim)).toBeLessThanOrEqual(2);
      // Doubling from 20 ms, the waits between the first look and the sixth are 40 + 80 + ... + 640 ms
      // (the last alone is 640 ms, however late the first was seen); a poll every 20 ms: 0.1 s.
      expect(elapsedMs).toBeGreaterThanOrEqual(500);
    } finally {
      counter.restore();
    }
  });

  it('claims a retry another instance scheduled once it is due, and a woken worker claims at once', async () => {
    const counter = countQueries(testDb.db);
    try {
      // Due in a second, recorded behind the worker's back (as another instance's retry).
      const [later] = await testDb.db
        .insert(kudos)
        .values(pendingRow({ nextAttemptAt: new Date(Date.now() + 1000) }))
        .returning();
      const app = await stack.startAnotherApp({ tuning: { worker: { pollIntervalMs: 20, idlePollMaxMs: 60_000 } } });
      await toldRow(later!.id);
      // Claimed when it was due, not polled for (a claim every 20 ms: about 50 before it was due): the
      // first claim (nothing due yet), the one then, and those right after it (the next poll, the
      // finished send's wake-up) that find nothing.
      const claimsForRetry = counter.statements().filter(isClaim).length;
      expect(claimsForRetry).toBeLessThanOrEqual(6);
      expect(counter.statements().filter(isLook).length).toBeGreaterThan(0);

      // Backed off again (four more looks: its next wait is 320 ms or more); a send recorded in this process wakes it.
      const looksWhenTold = counted(counter, isLook);
      await eventually(() => counted(counter, isLook) - looksWhenTold >= 4, 30_000);
      const [now] = await testDb.db.insert(kudos).values(pendingRow()).returning();
      app.worker.wake();
      await toldRow(now!.id);
      for (const row of [later!, now!]) expect(await ordersFor(row.idempotencyKey)).toHaveLength(1);
    } finally {
      counter.restore();
    }
  });
});

describe("an order's completion check", () => {
  it('is scheduled in the statement that records the order: one statement for both, one check per kudos', async () => {
    const counter = countQueries(testDb.db);
    try {
      const app = await stack.startAnotherApp({ tuning: { worker: { pollIntervalMs: 100 } } });
      const rows = await testDb.db
        .insert(kudos)
        .values(Array.from({ length: 5 }, () => pendingRow()))
        .returning();
      app.worker.wake();
      for (const row of rows) await toldRow(row.id);
      const checks = await testDb.db.select().from(orderChecks);
      for (const row of rows) {
        const placed = await rowOf(row.id);
        expect(checks.filter((c) => c.kudosId === row.id).map((c) => [c.orderId, c.source])).toEqual([
          [placed.orderId, 'kudos'],
        ]);
      }
      const statements = counter.statements();
      // The order's record carries its check (with "placed" as (update "kudos" ...), "checks" as (insert into order_checks ...)).
      expect(
        statements.filter(
          (text) => /^with "placed" as \(update "kudos"/i.test(text) && /insert into order_checks/i.test(text),
        ),
      ).toHaveLength(5);
      // No statement of its own schedules a kudos' check (scheduleOrderCheck's insert).
      expect(statements.filter((text) => /^insert into "order_checks"/i.test(text))).toHaveLength(0);
    } finally {
      counter.restore();
    }
  });
});
