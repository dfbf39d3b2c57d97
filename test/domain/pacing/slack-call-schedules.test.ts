// The shared Slack call schedules (GCRA in the database): a burst goes at once, then one call per
// interval; a 429's block holds every call until it ends; a caller that cannot wait books nothing.
// Waits are the database's bookings (minutes apart here), not measured durations.
import { describe, expect, it } from 'vitest';

import { createCallSchedules } from '../../../src/domain/pacing/slack-call-schedules.js';
import { useTestDatabase } from '../../support/db.js';
import { countQueries } from '../../support/query-count.js';

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

  it('takes several keys at once, all or none: refused for one, it books none of them', async () => {
    const s = schedules();
    const wide = { intervalMs: MINUTE, burst: 1 };
    const both = [
      { key: 'post:C3', rule },
      { key: 'post', rule: wide },
    ];
    // At once (the stored time is rounded to the millisecond: a fraction of one at most).
    const first = await s.takeAll('T1', both, { maxWaitMs: 1000 });
    expect(first.booked && first.waitMs < 1).toBe(true);
    // The workspace's key is a minute away: refused, with when both fit, and the channel's burst untouched.
    const refused = await s.takeAll('T1', both, { maxWaitMs: 1000 });
    expect(refused.booked).toBe(false);
    if (!refused.booked) expect(refused.notBeforeMs).toBeGreaterThan(0.9 * MINUTE);
    expect(await s.take('T1', 'post:C3', rule)).toEqual({ booked: true, waitMs: 0 });
    expect(await s.take('T1', 'post:C3', rule)).toEqual({ booked: true, waitMs: 0 });
    // Booked: the wait is the furthest slot's.
    const booked = await s.takeAll('T1', both, { maxWaitMs: 2 * MINUTE });
    if (!booked.booked) throw new Error('both fit within two minutes');
    expect(booked.waitMs).toBeGreaterThan(0.9 * MINUTE);
    expect(booked.waitMs).toBeLessThanOrEqual(MINUTE);
  });

  it('books several keys as single takes would: a burst, then one interval apart, and a block holds them', async () => {
    const s = schedules();
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) {
      const answer = await s.takeAll('T1', [{ key: 'post:C4', rule }], { maxWaitMs: 10 * MINUTE });
      if (!answer.booked) throw new Error('within ten minutes');
      waits.push(answer.waitMs);
    }
    expect(waits.slice(0, 3)).toEqual([0, 0, 0]);
    expect(waits[3]).toBeGreaterThan(0.9 * MINUTE);
    await s.block('T2', 'post', 2 * MINUTE);
    const blocked = await s.takeAll('T2', [{ key: 'post', rule }], { maxWaitMs: 10 * MINUTE });
    if (!blocked.booked) throw new Error('within ten minutes');
    expect(blocked.waitMs).toBeGreaterThan(1.9 * MINUTE);
  });

  describe('posts asked for together (a notify: its confirmation and its announcement)', () => {
    const channel = { intervalMs: MINUTE, burst: 2 };
    const post = (key: string, workspace: { intervalMs: number; burst: number }) => [
      { key, rule: channel },
      { key: 'post', rule: workspace },
    ];
    /** Statements that touched the schedules while `run` ran. */
    async function statementsOf<T>(run: () => Promise<T>): Promise<{ result: T; statements: number }> {
      const counter = countQueries(testDb.db);
      try {
        const result = await run();
        return { result, statements: counter.statements().filter((text) => /slack_call_schedules/.test(text)).length };
      } finally {
        counter.restore();
      }
    }

    it("are booked in one statement, the workspace's key twice: both slots of its burst", async () => {
      const s = schedules();
      const workspace = { intervalMs: MINUTE, burst: 2 };
      const { result, statements } = await statementsOf(() =>
        Promise.all([
          s.takeAll('T1', post('post:D1', workspace), { maxWaitMs: 1000 }),
          s.takeAll('T1', post('post:C1', workspace), { maxWaitMs: 1000 }),
        ]),
      );
      expect(statements).toBe(1);
      expect(result.map((a) => a.booked)).toEqual([true, true]);
      // The workspace's burst is used up: the next post waits a minute for it.
      const next = await s.takeAll('T1', post('post:C9', workspace), { maxWaitMs: 1000 });
      expect(next.booked).toBe(false);
      if (!next.booked) expect(next.notBeforeMs).toBeGreaterThan(0.9 * MINUTE);
    });

    it('decide each post as separate bookings one after the other would: the first booked, the second refused without using its channel', async () => {
      const workspace = { intervalMs: MINUTE, burst: 1 };
      const together = await statementsOf(() => {
        const s = schedules();
        return Promise.all([
          s.takeAll('T1', post('post:D1', workspace), { maxWaitMs: 1000 }),
          s.takeAll('T1', post('post:C1', workspace), { maxWaitMs: 1000 }),
        ]);
      });
      expect(together.statements).toBe(1);
      const s = schedules();
      const one = await s.takeAll('T2', post('post:D1', workspace), { maxWaitMs: 1000 });
      const other = await s.takeAll('T2', post('post:C1', workspace), { maxWaitMs: 1000 });
      const rounded = (a: { booked: boolean; waitMs?: number; notBeforeMs?: number }) => ({
        booked: a.booked,
        ms: Math.round((a.waitMs ?? a.notBeforeMs)! / 1000),
      });
      expect(together.result.map(rounded)).toEqual([one, other].map(rounded));
      expect(together.result.map((a) => a.booked)).toEqual([true, false]);
      // The refused post used none of its channel's burst: two posts there go at once (another workspace's key).
      for (let i = 0; i < 2; i++) expect(await s.take('T1', 'post:C1', channel)).toEqual({ booked: true, waitMs: 0 });
    });

    it("two posts to one channel together: the channel's second slot, then none", async () => {
      const s = schedules();
      const workspace = { intervalMs: MINUTE, burst: 5 };
      const answers = await Promise.all(
        [1, 2, 3].map(() => s.takeAll('T1', post('post:C1', workspace), { maxWaitMs: 1000 })),
      );
      expect(answers.map((a) => a.booked)).toEqual([true, true, false]);
      const third = answers[2]!;
      if (!third.booked) expect(third.notBeforeMs).toBeGreaterThan(0.9 * MINUTE);
      // Two of the workspace's five went: three are left at once.
      const left = await Promise.all(
        [1, 2, 3, 4].map((i) => s.takeAll('T1', post(`post:X${i}`, workspace), { maxWaitMs: 1000 })),
      );
      expect(left.map((a) => a.booked)).toEqual([true, true, true, false]);
    });

    it('keeps workspaces apart: one statement each', async () => {
      const s = schedules();
      const workspace = { intervalMs: MINUTE, burst: 1 };
      const { result, statements } = await statementsOf(() =>
        Promise.all([
          s.takeAll('T1', post('post:C1', workspace), { maxWaitMs: 1000 }),
          s.takeAll('T2', post('post:C1', workspace), { maxWaitMs: 1000 }),
        ]),
      );
      expect(statements).toBe(2);
      expect(result.map((a) => a.booked)).toEqual([true, true]);
    });
  });
});
