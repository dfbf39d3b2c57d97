// The Rewards rate budget shared through the database (src/domain/pacing/rewards-rate-budget.ts): two "instances"
// (each its own client and its own createRateBudgets, on one database: a second connection on
// PostgreSQL) share one account of the emulator with a low limit. No timing is asserted: what is
// counted is 429s, calls done per instance, and what the budget row learned.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { connectDatabase, type Database, type DatabaseConnection } from '../../../src/db/client.js';
import { createRateBudgets, inBackgroundLane } from '../../../src/domain/pacing/rewards-rate-budget.js';
import { asWorkspace } from '../../../src/domain/pacing/workspace-turns.js';
import { type CallInfo, createRewardsClient, isRewardsError, type RewardsClient } from '../../../src/rewards/index.js';
import { eventually } from '../../support/app.js';
import { useTestDatabase } from '../../support/db.js';
import { startTestEmulator, type TestEmulator } from '../../support/emulator.js';
import { countQueries } from '../../support/query-count.js';

// A 5 s window: the 10% headroom then absorbs half a second of event-loop lag on a loaded machine.
const LIMIT = 100;
const WINDOW_S = 5;

describe('the shared Rewards rate budget', () => {
  const testDb = useTestDatabase();
  let emulator: TestEmulator;
  let second: DatabaseConnection | undefined;

  beforeAll(async () => {
    emulator = await startTestEmulator({
      EMULATOR_RATE_LIMIT: String(LIMIT),
      EMULATOR_RATE_WINDOW_S: String(WINDOW_S),
    });
  });
  afterAll(async () => {
    await second?.close();
    await emulator.close();
  });

  /** The second instance's database handle: its own connection on PostgreSQL, the same PGlite otherwise. */
  async function secondDb(): Promise<Database> {
    if (!testDb.url) return testDb.db;
    second ??= await connectDatabase({ databaseUrl: testDb.url, maxConnections: 4 });
    return second.db;
  }

  function instance(db: Database, calls: CallInfo[]): RewardsClient {
    const budgets = createRateBudgets(db);
    return createRewardsClient({
      baseUrl: emulator.url,
      clientId: 'production-client',
      clientSecret: 'production-secret',
      rateGate: budgets.gate('env:production-client'),
      onCall: (info) => calls.push(info),
    });
  }

  /**
   * `total` balance reads per client, `concurrency` at a time each; the order in which they finished
   * goes to `done`. The clients' workers start alternately (a, b, a, b...): started one client after
   * the other, all of the first client's requests would queue for their slots before the second's
   * (on PGlite both share one connection), a head start of `concurrency` slots.
   */
  async function runTogether(
    clients: Array<{ client: RewardsClient; name: string }>,
    total: number,
    concurrency: number,
    done: string[],
  ): Promise<void> {
    const started = new Map(clients.map(({ name }) => [name, 0]));
    const workers: Array<Promise<void>> = [];
    for (let i = 0; i < concurrency; i++) {
      for (const { client, name } of clients) {
        workers.push(
          (async () => {
            while (started.get(name)! < total) {
              started.set(name, started.get(name)! + 1);
              await client.balance.get();
              done.push(name);
            }
          })(),
        );
      }
    }
    await Promise.all(workers);
  }

  it('two instances on one account: no 429 while a backlog runs at the limit, and neither starves', async () => {
    await emulator.reset();
    const callsA: CallInfo[] = [];
    const callsB: CallInfo[] = [];
    const a = instance(testDb.db, callsA);
    const b = instance(await secondDb(), callsB);
    const done: string[] = [];
    try {
      // Each instance's first request first (its token, the limit learned): on a loaded machine one
      // instance's token can come seconds before the other's, and what it placed meanwhile is a head
      // start, not a share taken while both had a backlog. Its requests count towards the 429s below.
      await Promise.all([a.balance.get(), b.balance.get()]);
      // 2 x 65 requests, 10 in flight per instance: more than a window's worth of the limit.
      await runTogether(
        [
          { client: a, name: 'a' },
          { client: b, name: 'b' },
        ],
        65,
        10,
        done,
      );
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
    const apiCalls = [...callsA, ...callsB].filter((c) => c.endpoint.startsWith('/api/'));
    expect(apiCalls.filter((c) => c.status === 429)).toEqual([]);
    expect(done.length).toBe(130);
    // Fair shares: in the first half of what finished, each instance has at least a third.
    const firstHalf = done.slice(0, 65);
    expect(firstHalf.filter((n) => n === 'a').length).toBeGreaterThanOrEqual(22);
    expect(firstHalf.filter((n) => n === 'b').length).toBeGreaterThanOrEqual(22);
    const row = await createRateBudgets(testDb.db).read('env:production-client');
    expect(row).toMatchObject({ limitPerWindow: LIMIT, windowMs: WINDOW_S * 1000, rateLimited: 0 });
    expect(row!.intervalMs).toBeCloseTo((WINDOW_S * 1000) / (LIMIT * 0.9), 5);
  });

  it('a 429 blocks the budget until the reset it announced, is counted, and the call still succeeds', async () => {
    await emulator.reset();
    const calls: CallInfo[] = [];
    const client = instance(testDb.db, calls);
    try {
      await client.balance.get(); // the token and a first answer: the figures are learned
      await emulator.faults({ path: '^/api/v1/balance$', status: 429, count: 2 });
      const balance = await client.balance.get();
      expect(balance).toBeDefined();
    } finally {
      await client.close();
    }
    expect(calls.filter((c) => c.status === 429).length).toBe(2);
    const row = await createRateBudgets(testDb.db).read('env:production-client');
    expect(row!.rateLimited).toBe(2);
    expect(row!.blockedUntil).not.toBeNull();
  });

  it('a wait for the budget follows the stop signal', async () => {
    await emulator.reset();
    const budgets = createRateBudgets(testDb.db);
    const gate = budgets.gate('env:stop-test');
    // The API said: nothing left for 60 s.
    await gate.observe(429, {
      'x-ratelimit-limit': '10',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '60',
      'retry-after': '60',
    });
    const controller = new AbortController();
    const waiting = gate.acquire(controller.signal);
    controller.abort();
    await expect(waiting).rejects.toSatisfy((error: unknown) => isRewardsError(error, 'ABORTED'));
  });

  it('background work yields to sends: it waits while the schedule is busy, and takes its turn once free', async () => {
    const budgets = createRateBudgets(testDb.db, { backgroundRecheckMs: 20 });
    const gate = budgets.gate('env:lanes');
    await gate.observe(200, { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '9', 'x-ratelimit-reset': '10' });
    const intervalMs = 10_000 / (10 * 0.9);
    // A foreground burst books the schedule ahead (10 per 10 s at 90%: 5 slots reach ~5.5 s ahead).
    const startedAt = Date.now();
    const sends = Array.from({ length: 5 }, () => gate.acquire());
    const order: string[] = [];
    // The background call comes once all five slots are booked (four reach 4.4 s at most), so the
    // order below depends on the lanes, not on which query the database ran first.
    await eventually(async () => {
      const state = await budgets.read('env:lanes');
      return state !== undefined && state.nextAt.getTime() - startedAt >= 4.5 * intervalMs;
    });
    const counter = countQueries(testDb.db);
    const background = inBackgroundLane(() => gate.acquire()).then(() => order.push('background'));
    // A send that comes while the background call waits still goes before it: waiting background
    // work books no slot of its own (one that did would be placed ahead of this send). The background
    // call has asked for a slot twice: its first ask came back without one, and it waits.
    try {
      await eventually(
        () => counter.statements().filter((text) => /insert into rewards_rate_budgets/i.test(text)).length >= 2,
      );
    } finally {
      counter.restore();
    }
    const late = gate.acquire().then(() => order.push('late send'));
    await Promise.all([...sends.map((s) => s.then(() => order.push('send'))), late]);
    await background;
    expect(order).toEqual(['send', 'send', 'send', 'send', 'send', 'late send', 'background']);
  });

  /** Waits until `count` slots of 10 per 2 s (at 75%: 267 ms apart) were booked since `startedAt`. */
  async function bookedAhead(
    budgets: ReturnType<typeof createRateBudgets>,
    account: string,
    startedAt: number,
    count: number,
  ): Promise<void> {
    await eventually(async () => {
      const state = await budgets.read(account);
      return state !== undefined && state.nextAt.getTime() - startedAt >= (count - 0.5) * (2000 / (10 * 0.75));
    });
  }

  it("workspaces in turn inside one account: a backlog of one workspace does not hold another workspace's single request behind it", async () => {
    // The backlog books any distance ahead here (no booking horizon here; it is tested below): the
    // turns alone put the others' requests ahead of the slots it booked.
    const budgets = createRateBudgets(testDb.db, { backlogAheadMs: Infinity });
    const gate = budgets.gate('env:turns');
    // 10 per 2 s: slots about a quarter of a second apart, far longer than booking them takes.
    await gate.observe(200, { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '9', 'x-ratelimit-reset': '2' });
    const order: string[] = [];
    const ask = (team: string, label: string) => asWorkspace(team, () => gate.acquire()).then(() => order.push(label));
    const startedAt = Date.now();
    const backlog = Array.from({ length: 12 }, (_, i) => ask('T_BIG', `big-${i}`));
    await bookedAhead(budgets, 'env:turns', startedAt, 12);
    const single = ask('T_SMALL', 'small');
    const other = ask('T_OTHER', 'other');
    await Promise.all([...backlog, single, other]);
    // They booked the 13th and 14th slots, and without turns would come last; in turn, each takes one
    // of the next slots (the backlog's first ones may already have come due while they booked).
    expect(order).toHaveLength(14);
    expect(order.indexOf('small')).toBeLessThan(5);
    expect(order.indexOf('other')).toBeLessThan(5);
  });

  /**
   * A backlog of 12 requests of T_BIG on one instance, at 10 requests per 10 s (slots a second
   * apart); once its first request went, `single` asks (another workspace's request, on whichever
   * instance). Returns who went in which order (the backlog's requests left waiting are abandoned).
   */
  async function backlogThenSingle(
    account: string,
    single: (gate: ReturnType<ReturnType<typeof createRateBudgets>['gate']>) => Promise<unknown>,
    sameInstance: boolean,
  ): Promise<string[]> {
    const first = createRateBudgets(testDb.db);
    const gate = first.gate(account);
    await gate.observe(200, { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '9', 'x-ratelimit-reset': '10' });
    const order: string[] = [];
    const abandon = new AbortController();
    const backlog = Array.from({ length: 12 }, (_, i) =>
      asWorkspace('T_BIG', () => gate.acquire(abandon.signal)).then(
        () => order.push(`big-${i}`),
        () => undefined,
      ),
    );
    try {
      await eventually(() => order.length > 0);
      const other = sameInstance ? gate : createRateBudgets(await secondDb()).gate(account);
      await asWorkspace('T_SMALL', () => single(other));
      order.push('small');
    } finally {
      abandon.abort();
      await Promise.all(backlog);
    }
    return order;
  }

  it("a backlog books the account's schedule a little ahead only: another instance's single request goes next, not after the backlog", async () => {
    const order = await backlogThenSingle('env:horizon', (gate) => gate.acquire(), false);
    // Without the horizon the backlog had booked its 12 slots (12 s) and the single request came after them.
    expect(order.slice(0, 3)).toContain('small');
  });

  it("a workspace with nothing waiting takes the instance's next slot, before a backlog's next request", async () => {
    const order = await backlogThenSingle('env:first-turn', (gate) => gate.acquire(), true);
    // The backlog's first request went (whichever of its requests it was), then the single one.
    expect(order.indexOf('small')).toBe(1);
  });

  it('without turns, each slot goes to the request that booked it (the baseline the turns improve on)', async () => {
    const budgets = createRateBudgets(testDb.db, { workspaceTurns: false });
    const gate = budgets.gate('env:no-turns');
    await gate.observe(200, { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '9', 'x-ratelimit-reset': '2' });
    const order: string[] = [];
    const ask = (team: string, label: string) => asWorkspace(team, () => gate.acquire()).then(() => order.push(label));
    const startedAt = Date.now();
    const backlog = Array.from({ length: 6 }, (_, i) => ask('T_BIG', `big-${i}`));
    await bookedAhead(budgets, 'env:no-turns', startedAt, 6);
    await Promise.all([...backlog, ask('T_SMALL', 'small')]);
    expect(order.indexOf('small')).toBe(6);
  });

  it('a request waiting for its turn follows its signal and gives its slot to the next', async () => {
    const budgets = createRateBudgets(testDb.db);
    const gate = budgets.gate('env:turns-abort');
    await gate.observe(200, { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '9', 'x-ratelimit-reset': '2' });
    const order: string[] = [];
    const held = [0, 1].map((i) => asWorkspace('T_A', () => gate.acquire()).then(() => order.push(`a-${i}`)));
    const controller = new AbortController();
    const abandoned = asWorkspace('T_B', () => gate.acquire(controller.signal));
    const after = asWorkspace('T_C', () => gate.acquire()).then(() => order.push('c'));
    controller.abort();
    await expect(abandoned).rejects.toSatisfy((error: unknown) => isRewardsError(error, 'ABORTED'));
    await Promise.all([...held, after]);
    // Everyone still waiting was served (in turn: 'c' may come before 'a-1').
    expect([...order].sort()).toEqual(['a-0', 'a-1', 'c']);
  });
});
