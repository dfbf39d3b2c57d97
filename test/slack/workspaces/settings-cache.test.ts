// The settings cache on the `/kudos` path: concurrent reads share one query, under traffic the entry
// is refreshed ahead so that no request waits for the database, a change made on this instance is
// seen at once, and one made on another instance within the TTL. Also the per-minute "today" memo.
import { describe, expect, it } from 'vitest';

import { loadConfig } from '../../../src/config/index.js';
import type { Database } from '../../../src/db/client.js';
import { todayIn } from '../../../src/domain/common/zoned-time.js';
import { createSettingsStore } from '../../../src/domain/workspaces/settings.js';
import { todayInCached } from '../../../src/slack/sending/today.js';
import { REQUIRED_ENV } from '../../support/config.js';
import { useTestDatabase } from '../../support/db.js';

const config = loadConfig(REQUIRED_ENV);
const WS = { teamId: 'T_CACHE' };

const testDb = useTestDatabase();

/**
 * The database with its select() queries counted and followed: `answered()` resolves once every select
 * started so far has answered or failed and the store has taken the answer (a background reload is
 * one); `holdNext()` keeps the next select's answer (read at once) from the store until released;
 * while `state.failing` is set, a select fails as a lost connection would.
 */
function watched(db: Database) {
  let selects = 0;
  let hold: Promise<void> | undefined;
  const state = { failing: false };
  const pending: Array<Promise<void>> = [];
  /** A query builder whose execution (its `then`) goes through `run`; what its methods return is followed too. */
  const follow = (builder: object, run: (execute: () => Promise<unknown>) => Promise<unknown>): object =>
    new Proxy(builder, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target) as unknown;
        if (typeof value !== 'function') return value;
        if (prop === 'then')
          return (ok?: (v: unknown) => unknown, failed?: (e: unknown) => unknown) =>
            run(() => (value as () => Promise<unknown>).call(target)).then(ok, failed);
        return (...args: unknown[]) => {
          const out = (value as (...a: unknown[]) => unknown).apply(target, args);
          return typeof out === 'object' && out !== null ? follow(out, run) : out;
        };
      },
    });
  const proxy = new Proxy(db, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (prop !== 'select')
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      return (...args: unknown[]) => {
        selects++;
        const held = hold;
        hold = undefined;
        const failing = state.failing;
        let done!: () => void;
        pending.push(new Promise<void>((resolve) => (done = resolve)));
        return follow((value as (...a: unknown[]) => object).apply(target, args), async (execute) => {
          try {
            if (failing) throw new Error('connection lost');
            const answer = await execute();
            await held;
            return answer;
          } finally {
            done();
          }
        });
      };
    },
  });
  return {
    db: proxy,
    state,
    selects: () => selects,
    // Then one turn of the event loop: what the store does with an answer (keeping it) is no I/O, it runs first.
    answered: async () => {
      await Promise.all(pending);
      await new Promise<void>((resolve) => setImmediate(resolve));
    },
    holdNext: (): (() => void) => {
      let release!: () => void;
      hold = new Promise<void>((resolve) => (release = resolve));
      return release;
    },
  };
}

describe('settings cache', () => {
  it('serves concurrent first reads with one query', async () => {
    await createSettingsStore({ db: testDb.db, config }).get(WS); // seeds the row
    const { db, selects } = watched(testDb.db);
    const store = createSettingsStore({ db, config });
    const reads = await Promise.all(Array.from({ length: 20 }, () => store.get(WS)));
    expect(new Set(reads).size).toBe(1);
    expect(selects()).toBe(1);
  });

  it('refreshes ahead in the last fifth of the TTL without making the request wait, then serves the new value', async () => {
    let now = 1_000_000;
    const { db, selects, answered } = watched(testDb.db);
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
    await answered();
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
    const { db, holdNext, answered } = watched(testDb.db);
    const store = createSettingsStore({ db, config, ttlMs: 5000, now: () => now });
    await store.get(WS);
    now += 4500;
    const release = holdNext();
    void store.get(WS); // starts a background reload, whose read answers only after the update
    await store.update(WS, 'U_ADMIN', { defaultAmountCents: 700 });
    expect((await store.get(WS)).defaultAmountCents).toBe(700);
    release();
    await answered();
    expect((await store.get(WS)).defaultAmountCents).toBe(700);
  });

  it('answers a read in flight with a change made here meanwhile, and keeps the change', async () => {
    await createSettingsStore({ db: testDb.db, config }).get(WS); // seeds the row
    const { db, selects, holdNext, answered } = watched(testDb.db);
    const store = createSettingsStore({ db, config });
    const release = holdNext();
    const reading = store.get(WS); // its read answers only after the update
    const { settings } = await store.update(WS, 'U_ADMIN', { defaultAmountCents: 900 });
    release();
    expect(await reading).toBe(settings);
    await answered();
    const before = selects();
    expect(await store.get(WS)).toBe(settings);
    expect(selects()).toBe(before);
  });

  it('does not keep a read in flight when the entry is evicted meanwhile: the next read asks again', async () => {
    await createSettingsStore({ db: testDb.db, config }).get(WS); // seeds the row
    const { db, selects, holdNext, answered } = watched(testDb.db);
    const store = createSettingsStore({ db, config });
    const release = holdNext();
    const reading = store.get(WS);
    store.evict(WS.teamId); // another instance's change, seen by the change feed
    release();
    await reading;
    await answered();
    const before = selects();
    await store.get(WS);
    expect(selects()).toBe(before + 1);
  });

  it('keeps serving the cached value when a refresh-ahead read fails, until the TTL', async () => {
    let now = 1_000_000;
    const { db, state, answered } = watched(testDb.db);
    const store = createSettingsStore({ db, config, ttlMs: 5000, now: () => now });
    const first = await store.get(WS);
    state.failing = true;
    now += 4500;
    expect(await store.get(WS)).toBe(first);
    await answered();
    expect(await store.get(WS)).toBe(first);
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
      for (const at of [
        before,
        after,
        new Date(before.getTime() + 10_000),
        new Date(Date.UTC(2026, 2, 7, 18, 15, 0)),
        new Date(Date.UTC(2026, 2, 7, 18, 44, 59)),
      ]) {
        expect(todayInCached(zone, at)).toBe(todayIn(zone, at));
      }
    }
    expect(todayInCached('America/New_York', before)).toBe('2026-03-07');
    expect(todayInCached('America/New_York', after)).toBe('2026-03-08');
  });
});
