// The shared Slack call schedules (GCRA in the database): a burst goes at once, then one call per
// interval; a 429's block holds every call until it ends; a caller that cannot wait books nothing.
// Waits are the database's bookings (minutes apart here), not measured durations.
import { describe, expect, it } from 'vitest';
import { createCallSchedules } from '../../src/domain/call-schedules.js';
import { useTestDatabase } from '../support/db.js';

const testDb = useTestDatabase();
const MINUTE = 60_000;
const rule = { intervalMs: MINUTE, burst: 3 };

describe('call schedules', () => {
  const schedules = () => createCallSchedules(testDb.db);

  it('lets a burst go at once, then spaces the next calls one interval apart', async () => {
    const s = schedules();
    const waits: number[] = [];
    for (let i = 0; i < 5; i++) {
      const answer = await s.take('T1', 'users.info', rule);
      if (!answer.booked) throw new Error('a caller without maxWaitMs always books');
      waits.push(answer.waitMs);
    }
    expect(waits.slice(0, 3)).toEqual([0, 0, 0]);
    expect(waits[3]).toBeGreaterThan(0.9 * MINUTE);
    expect(waits[3]).toBeLessThanOrEqual(MINUTE);
    expect(waits[4]).toBeGreaterThan(1.9 * MINUTE);
    expect(waits[4]).toBeLessThanOrEqual(2 * MINUTE);
  });

  it('keeps workspaces and keys apart', async () => {
    const s = schedules();
    for (let i = 0; i < 3; i++) await s.take('T1', 'users.info', rule);
    expect(await s.take('T2', 'users.info', rule)).toEqual({ booked: true, waitMs: 0 });
    expect(await s.take('T1', 'views.publish', rule)).toEqual({ booked: true, waitMs: 0 });
  });

  it("holds every call until a 429's block ends, even with the burst unused", async () => {
    const s = schedules();
    await s.block('T1', 'post:C1', 2 * MINUTE);
    const answer = await s.take('T1', 'post:C1', rule);
    if (!answer.booked) throw new Error('a caller without maxWaitMs always books');
    expect(answer.waitMs).toBeGreaterThan(1.9 * MINUTE);
    expect(answer.waitMs).toBeLessThanOrEqual(2 * MINUTE);
  });

  it('a caller that cannot wait that long books nothing and learns when to come back', async () => {
    const s = schedules();
    for (let i = 0; i < 3; i++) await s.take('T1', 'post:C2', rule);
    const refused = await s.take('T1', 'post:C2', rule, { maxWaitMs: 1000 });
    expect(refused.booked).toBe(false);
    if (!refused.booked) expect(refused.notBeforeMs).toBeGreaterThan(0.9 * MINUTE);
    // Nothing was booked: the next caller gets the same slot, not one further away.
    const next = await s.take('T1', 'post:C2', rule);
    if (!next.booked) throw new Error('a caller without maxWaitMs always books');
    expect(next.waitMs).toBeLessThanOrEqual(MINUTE);
  });
});
