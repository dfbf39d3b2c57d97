// The order's record and its completion checks' schedule are one statement (markPlaced with `checks`,
// src/domain/sending/kudos-store.ts): the checks are inserted from the fenced update's RETURNING, so a worker
// that lost its claim records nothing and schedules nothing, and a send in parts gets one check per
// order. What is checked is what the database holds, not timing.
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { rowsOf } from '../../../src/db/client.js';
import { kudos, orderChecks } from '../../../src/db/schema/index.js';
import { claimBatch, fenceOf, markPlaced, type PlacedOrder } from '../../../src/domain/sending/kudos-store.js';
import { scheduleOrderCheck } from '../../../src/domain/sending/order-check-schedule.js';
import { useTestDatabase } from '../../support/db.js';
import { pendingKudosValues } from '../../support/kudos-row.js';

describe('recording a placed order schedules its completion checks in the same statement', () => {
  const testDb = useTestDatabase();

  async function claimOne(overrides: Parameters<typeof pendingKudosValues>[0] = {}) {
    const [recorded] = await testDb.db
      .insert(kudos)
      .values(pendingKudosValues({ nextAttemptAt: new Date(Date.now() - 1000), ...overrides }))
      .returning();
    const [row] = await claimBatch(testDb.db, 'worker-a', 60_000, 1);
    expect(row?.id).toBe(recorded!.id);
    return row!;
  }

  function order(orderIds: string[], status: PlacedOrder['status'] = 'placed'): PlacedOrder {
    return {
      status,
      recipients: [],
      orderId: orderIds[0]!,
      orderStatus: 'PENDING',
      costCents: 1000,
      costCurrency: 'USD',
      orderIds,
    };
  }

  async function checkRows() {
    return testDb.db.select().from(orderChecks).orderBy(orderChecks.orderId);
  }

  it('places the order and schedules its check, due after the first delay (database clock)', async () => {
    const row = await claimOne();
    const placed = await markPlaced(testDb.db, row.id, fenceOf(row, 'worker-a'), order(['ORD-1']), {
      checks: { firstDelayMs: 5000 },
    });
    expect(placed).toMatchObject({
      id: row.id,
      status: 'placed',
      orderId: 'ORD-1',
      orderIds: ['ORD-1'],
      partsPlaced: 1,
      claimedBy: 'worker-a',
    });
    expect(placed!.placedAt).toBeInstanceOf(Date);
    const checks = await checkRows();
    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatchObject({
      orderId: 'ORD-1',
      source: 'kudos',
      kudosId: row.id,
      teamId: row.teamId,
      enterpriseId: null,
      attempts: 0,
      doneAt: null,
    });
    const [delay] = rowsOf<{ ms: number }>(
      await testDb.db.execute(
        sql`select extract(epoch from (c.next_check_at - k.placed_at)) * 1000 as ms from order_checks c join kudos k on k.id = c.kudos_id`,
      ),
    );
    expect(Number(delay!.ms)).toBe(5000);
  });

  it('a worker that lost its claim records nothing and schedules no check', async () => {
    const row = await claimOne();
    // Its lease ran out and another worker claimed the row again.
    await testDb.db
      .update(kudos)
      .set({ claimedBy: 'worker-b', attempts: row.attempts + 1 })
      .where(eq(kudos.id, row.id));
    const placed = await markPlaced(testDb.db, row.id, fenceOf(row, 'worker-a'), order(['ORD-LOST']), {
      checks: { firstDelayMs: 5000 },
    });
    expect(placed).toBeUndefined();
    expect(await checkRows()).toEqual([]);
    const [after] = await testDb.db.select().from(kudos).where(eq(kudos.id, row.id));
    expect(after).toMatchObject({ status: 'pending', orderId: null, claimedBy: 'worker-b' });
  });

  it('a send in parts, settled: one check per order, all in the one statement', async () => {
    const row = await claimOne({ recipientCount: 250, totalCents: 250_000 });
    const placed = await markPlaced(
      testDb.db,
      row.id,
      fenceOf(row, 'worker-a'),
      order(['ORD-P1', 'ORD-P2', 'ORD-P3']),
      { checks: { firstDelayMs: 5000 } },
    );
    expect(placed).toMatchObject({ status: 'placed', partsPlaced: 3 });
    expect((await checkRows()).map((c) => [c.orderId, c.kudosId, c.source])).toEqual([
      ['ORD-P1', row.id, 'kudos'],
      ['ORD-P2', row.id, 'kudos'],
      ['ORD-P3', row.id, 'kudos'],
    ]);
  });

  it('a scheduled send is first checked after its send time; a check order.created made first only gains the kudos', async () => {
    const sendAt = new Date(Date.now() + 3600_000);
    const row = await claimOne({ scheduledAt: sendAt, scheduleLocal: '2026-11-29T10:00:00', scheduleTimezone: 'UTC' });
    await scheduleOrderCheck(testDb.db, { orderId: 'ORD-S', source: 'webhook', firstDelayMs: 5000 });
    const placed = await markPlaced(testDb.db, row.id, fenceOf(row, 'worker-a'), order(['ORD-S'], 'scheduled'), {
      checks: { firstDelayMs: 5000 },
    });
    expect(placed?.status).toBe('scheduled');
    const checks = await checkRows();
    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatchObject({ orderId: 'ORD-S', source: 'kudos', kudosId: row.id, teamId: row.teamId });
    // The webhook's schedule stands (as with scheduleOrderCheck); it watches from the send time.
    expect(checks[0]!.watchFrom.getTime()).toBe(sendAt.getTime());
  });

  it('an order named twice gets one check (a second row for it would fail the statement, and the record with it)', async () => {
    const row = await claimOne();
    expect(
      await markPlaced(testDb.db, row.id, fenceOf(row, 'worker-a'), order(['ORD-D', 'ORD-D']), {
        checks: { firstDelayMs: 5000 },
      }),
    ).toMatchObject({ status: 'placed' });
    expect((await checkRows()).map((c) => c.orderId)).toEqual(['ORD-D']);
  });

  it('without `checks` only the order is recorded', async () => {
    const row = await claimOne();
    expect(await markPlaced(testDb.db, row.id, fenceOf(row, 'worker-a'), order(['ORD-2']))).toMatchObject({
      status: 'placed',
    });
    expect(await checkRows()).toEqual([]);
  });
});
