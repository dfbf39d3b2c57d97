// The settings cache on the `/kudos` path: concurrent reads share one query, under traffic the entry
// is refreshed ahead so that no request waits for the database, a change made on this instance is
// seen at once, and one made on another instance within the TTL. Also the per-minute "today" memo.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import type { Database } from '../../src/db/client.js';
import { todayIn } from '../../src/domain/schedule.js';
import { createSettingsStore } from '../../src/domain/settings.js';
import { todayInCached } from '../../src/slack/commands/today.js';
import { REQUIRED_ENV } from '../support/config.js';
import { useTestDatabase } from '../support/db.js';

const config = loadConfig(REQUIRED_ENV);
const WS = { teamId: 'T_CACHE' };

const testDb = useTestDatabase();

/** The database with its select() calls counted. */
function counting(db: Database): { db: Database; selects: () => number } {
  let selects = 0;
  const proxy = new Proxy(db, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (prop === 'select') selects++;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { db: proxy, selects: () => selects };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe('settings cache', () => {
  it('serves concurrent first reads with one query', async () => {
    await createSettingsStore({ db: testDb.db, config }).get(WS); // seeds the row
    const { db, selects } = counting(testDb.db);
    const store = createSettingsStore({ db, config });
    const reads = await Promise.all(Array.from({ length: 20 }, () => store.get(WS)));
    expect(new Set(reads).size).toBe(1);
    expect(selects()).toBe(1);
  });

  it('refreshes ahead in the last fifth of the TTL without making the request wait, then serves the new value', async () => {
    let now = 1_000_000;
    const { db, selects } = counting(testDb.db);
    const here = createSettingsStore({ db, config, ttlMs: 5000, now: () => now });
    const elsewhere = createSettingsStore({ db: testDb.db, config });
    expect((await here.get(WS)).defaultAmountCents).toBeNull();
    const afterFirst = selects();

    await elsewhere.update(WS, 'U_ADMIN', { defaultAmountCents: 2500 });
    now += 2000; // fresh: no query
    expect((await here.get(WS)).defaultAmountCents).toBeNull();
    expect(selects()).toBe(afterFirst);

    now += 2500; // 4.5 s old: the cached value at once, one background reload for many readers
    const served = await Promise.all([here.get(WS), here.get(WS), here.get(WS)]);
    expect(served.map((s) => s.defaultAmountCents)).toEqual([null, null, null]);
    await settle();
    expect(selects()).toBe(afterFirst + 1);
    expect((await here.get(WS)).defaultAmountCents).toBe(2500);
  });

  it('never serves an entry older than the TTL: an idle instance reads again', async () => {
    let now = 1_000_000;
    const here = createSettingsStore({ db: testDb.db, config, ttlMs: 5000, now: () => now });
    const elsewhere = createSettingsStore({ db: testDb.db, config });
    await here.get(WS);
    await elsewhere.update(WS, 'U_ADMIN', { approvalThresholdCents: 12_300 });
    now += 60_000;
    expect((await here.get(WS)).approvalThresholdCents).toBe(12_300);
  });

  it('applies a change made on this instance at once, even with a reload in flight', async () => {
    let now = 1_000_000;
    const store = createSettingsStore({ db: testDb.db, config, ttlMs: 5000, now: () => now });
    await store.get(WS);
    now += 4500;
    void store.get(WS); // starts a background reload
    await store.update(WS, 'U_ADMIN', { defaultAmountCents: 700 });
    expect((await store.get(WS)).defaultAmountCents).toBe(700);
    await settle();
    expect((await store.get(WS)).defaultAmountCents).toBe(700);
  });

  it('keeps serving the cached value when a refresh-ahead read fails, until the TTL', async () => {
    let now = 1_000_000;
    let broken = false;
    const db = new Proxy(testDb.db, {
      get(target, prop) {
        if (prop === 'select' && broken) throw new Error('connection lost');
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const store = createSettingsStore({ db, config, ttlMs: 5000, now: () => now });
    const first = await store.get(WS);
    broken = true;
    now += 4500;
    expect(await store.get(WS)).toBe(first);
    await settle();
    now += 1000;
    await expect(store.get(WS)).rejects.toThrow('connection lost');
  });
});

describe("today's date for the send form", () => {
  it('matches todayIn across a midnight, per zone', () => {
    // 2026-03-08 04:59:30 UTC is 23:59:30 on the 7th in New York (EST, UTC-5), then midnight.
    const before = new Date(Date.UTC(2026, 2, 8, 4, 59, 30));
    const after = new Date(Date.UTC(2026, 2, 8, 5, 0, 0));
    for (const zone of ['America/New_York', 'Asia/Kolkata', 'Australia/Eucla', 'Pacific/Chatham', 'UTC', 'Not/AZone']) {
      for (const at of [before, after, new Date(before.getTime() + 10_000), new Date(Date.UTC(2026, 2, 7, 18, 15, 0)), new Date(Date.UTC(2026, 2, 7, 18, 44, 59))]) {
        expect(todayInCached(zone, at)).toBe(todayIn(zone, at));
      }
    }
    expect(todayInCached('America/New_York', before)).toBe('2026-03-07');
    expect(todayInCached('America/New_York', after)).toBe('2026-03-08');
  });
});
