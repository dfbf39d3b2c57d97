// The app's Slack pacing on the shared schedules (src/slack/web-api/pacing.ts over src/domain/pacing/slack-call-schedules.ts):
// a post needs its channel's slot and its workspace's, and one refused for either uses up neither.
// Retry-afters are the database's bookings (tens of seconds apart here), not measured durations.
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { rowsOf } from '../../../src/db/client.js';
import { ChatRefusal } from '../../../src/domain/common/ports.js';
import { createCallSchedules } from '../../../src/domain/pacing/slack-call-schedules.js';
import { createSlackPacer } from '../../../src/slack/web-api/pacing.js';
import { useTestDatabase } from '../../support/db.js';
import { countQueries } from '../../support/query-count.js';

const testDb = useTestDatabase();

describe('Slack pacing of posts', () => {
  it("a post refused for the workspace's budget leaves its channel's slots free: the channel is not what holds the next post back", async () => {
    // Scale 0.01: a channel takes a post every 100 s (a burst of 2), the workspace 3 a minute (one at once, then ~31 s apart).
    const pacer = createSlackPacer(createCallSchedules(testDb.db), async () => 'T1', { scale: 0.01 });
    const posted: string[] = [];
    await pacer.post('C1', async () => posted.push('C1'));
    const refusals: ChatRefusal[] = [];
    for (let i = 0; i < 3; i++) {
      await pacer
        .post('C2', async () => posted.push('C2'))
        .catch((error: unknown) => {
          if (!(error instanceof ChatRefusal)) throw error;
          refusals.push(error);
        });
    }
    expect(posted).toEqual(['C1']);
    expect(refusals.map((r) => r.outcome)).toEqual(['rate_limited', 'rate_limited', 'rate_limited']);
    // Each is told to come back when the workspace has room (~31 s), not when C2 would (100 s and more,
    // had the refused posts booked its slots).
    for (const refusal of refusals) expect(refusal.retryAfterSeconds).toBeLessThan(40);
  });

  it("a notify's two posts, made together, book their four slots in one statement", async () => {
    const pacer = createSlackPacer(createCallSchedules(testDb.db), async () => 'T1');
    const counter = countQueries(testDb.db);
    const posted: string[] = [];
    try {
      await Promise.all([
        pacer.post('D1', async () => posted.push('D1')),
        pacer.post('C1', async () => posted.push('C1')),
      ]);
      expect(counter.statements().filter((text) => /slack_call_schedules/.test(text))).toHaveLength(1);
    } finally {
      counter.restore();
    }
    expect(posted.sort()).toEqual(['C1', 'D1']);
    const rows = await testDb.db.execute(sql`select key from slack_call_schedules where team_id = 'T1' order by key`);
    expect(rowsOf<{ key: string }>(rows).map((r) => r.key)).toEqual(['post', 'post:C1', 'post:D1']);
  });
});

describe('Slack pacing of method calls inside a deadline', () => {
  it('once a schedule has no slot in reach, the calls after it are refused without asking the database again; another instance still asks', async () => {
    // Scale 0.01: users.info takes one call at once, then one about every 92 s.
    const schedules = createCallSchedules(testDb.db);
    const pacer = createSlackPacer(schedules, 'T1', { scale: 0.01 });
    const called: number[] = [];
    const lookUp = (i: number) =>
      pacer
        .method('users.info', async () => called.push(i), { maxWaitMs: 800 })
        .then(
          () => undefined,
          (error: unknown) => {
            if (!(error instanceof ChatRefusal)) throw error;
            return error;
          },
        );
    expect(await lookUp(1)).toBeUndefined();
    const first = await lookUp(2);
    const counter = countQueries(testDb.db);
    let later: Array<ChatRefusal | undefined>;
    try {
      later = [await lookUp(3), await lookUp(4), await lookUp(5)];
      expect(counter.count()).toBe(0);
    } finally {
      counter.restore();
    }
    expect(called).toEqual([1]);
    // Each refused one is told to come back when the next slot comes, as the database told the first.
    for (const refusal of [first, ...later]) {
      expect(refusal?.outcome).toBe('rate_limited');
      expect(refusal?.retryAfterSeconds).toBeGreaterThan(60);
    }
    // Another instance knows nothing of it, and asks: the same answer, from the database.
    const other = createSlackPacer(createCallSchedules(testDb.db), 'T1', { scale: 0.01 });
    const otherCounter = countQueries(testDb.db);
    try {
      await expect(other.method('users.info', async () => called.push(6), { maxWaitMs: 800 })).rejects.toMatchObject({
        outcome: 'rate_limited',
      });
      expect(otherCounter.count()).toBeGreaterThan(0);
    } finally {
      otherCounter.restore();
    }
    // Another workspace's schedule is its own.
    await createSlackPacer(schedules, 'T2', { scale: 0.01 }).method('users.info', async () => called.push(7), {
      maxWaitMs: 800,
    });
    expect(called).toEqual([1, 7]);
  });
});
