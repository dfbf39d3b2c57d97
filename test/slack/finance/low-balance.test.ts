// Low-balance alerts end to end: real sends through the simulator, real orders in the emulator,
// the alert posted to the admin channel once per crossing. The two-instance race runs on
// PostgreSQL (DATABASE_URL); on PGlite it still runs, but proves less (one connection).
import { eq, inArray, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { financeState, kudos } from '../../../src/db/schema/index.js';
import { BALANCE_FAILURE_PAUSE_MS } from '../../../src/domain/finance/low-balance.js';
import { eventually, sendModalValues, submitSendForm, useAppPerTest } from '../../support/app.js';
import { buildKudosRow } from '../../support/kudos-row.js';
import { countQueries } from '../../support/query-count.js';

const ENV = {
  KUDOS_ADMINS: 'U_ADMIN,U_APPROVER',
  KUDOS_ADMIN_CHANNEL: 'C_ADMIN',
  KUDOS_LOW_BALANCE_THRESHOLD: '1000',
  KUDOS_APPROVAL_THRESHOLD: '100000',
};

const t = useAppPerTest({ env: ENV, app: { tuning: { financeSweepMs: 0 } } });
const WS = { teamId: 'T0KUDOS' };

const alerts = () =>
  t.stack.sim.messages('C_ADMIN').filter((m) => /Low Rewards balance/.test(JSON.stringify(m.blocks ?? [])));

/** The recorded finance state of each of these workspaces. */
const financeStatesOf = (teams: Array<{ teamId: string }>) =>
  t.db
    .select()
    .from(financeState)
    .where(
      inArray(
        financeState.teamId,
        teams.map((ws) => ws.teamId),
      ),
    );

async function send(userId: string, amount: string, users = ['U_EMP1']) {
  const row = await submitSendForm(t.stack, t.db, userId, sendModalValues({ users, design: 'CC-THANK-YOU', amount }));
  return eventually(async () => {
    const [now] = await t.db.select().from(kudos).where(eq(kudos.id, row.id));
    return now && now.notifiedAt ? now : undefined;
  });
}

describe('low balance alerts', () => {
  it('alerts the admin channel once when an order takes the balance under the threshold, with balance, 30-day spend and days left', async () => {
    await t.emulator.setBalance(1100);
    const first = await send('U_MANAGER', '50');
    expect(first.status).toBe('placed');
    // $1,050 left: above the $1,000 threshold, no alert yet.
    await t.stack.app.finance.lowBalance.afterOrder(WS);
    expect(alerts()).toHaveLength(0);

    await send('U_MANAGER', '100');
    const alert = await t.stack.sim.waitFor(() => alerts()[0]);
    const shown = JSON.stringify(alert.blocks);
    expect(shown).toContain('$950');
    expect(shown).toContain('$1,000');
    // Spent in the last 30 days: the two orders, $150; days left at $5/day: 190.
    expect(shown).toContain("At the last 30 days' rate ($150 spent), it lasts about 190 days.");
    expect(shown).toContain('finance_topup_open');
    // Plain words: no internal footnote, no raw states.
    expect(shown).not.toMatch(/One alert per crossing|Days left|unknown/);

    // More orders while still below: no second alert, once the order's own check (joined here) and a sweep are done.
    await send('U_MANAGER', '25');
    await t.stack.app.finance.lowBalance.afterOrder(WS);
    await t.stack.app.finance.sweep();
    expect(alerts()).toHaveLength(1);

    // Back above (a top-up landed), then below again: a second crossing, a second alert.
    await t.emulator.setBalance(5000);
    await t.stack.app.finance.sweep();
    await t.emulator.setBalance(900);
    await t.stack.app.finance.sweep();
    await t.stack.sim.waitFor(() => alerts().length === 2);
    expect(alerts()).toHaveLength(2);
    const [state] = await t.db.select().from(financeState);
    expect(state).toMatchObject({ balanceState: 'below', crossings: 2, lastBalanceCents: 90_000 });
  });

  it('without an admin channel, each admin gets the alert by direct message', async () => {
    await t.stack.app.settings.update(WS, 'U_ADMIN', { adminChannel: null });
    await t.emulator.setBalance(500);
    await t.stack.app.finance.sweep();
    for (const admin of ['U_ADMIN', 'U_APPROVER']) {
      await t.stack.sim.waitFor(() =>
        t.stack.sim.messages(admin).find((m) => /Low Rewards balance/.test(JSON.stringify(m.blocks ?? []))),
      );
    }
    expect(
      t.stack.sim.messages('U_MANAGER').some((m) => /Low Rewards balance/.test(JSON.stringify(m.blocks ?? []))),
    ).toBe(false);
    await t.stack.app.finance.sweep();
    expect(
      t.stack.sim.messages('U_ADMIN').filter((m) => /Low Rewards balance/.test(JSON.stringify(m.blocks ?? []))),
    ).toHaveLength(1);
  });

  it('no threshold set: no alert, however low', async () => {
    await t.stack.app.settings.update(WS, 'U_ADMIN', { lowBalanceThresholdCents: null });
    await t.emulator.setBalance(1);
    await t.stack.app.finance.sweep();
    await t.stack.app.finance.lowBalance.afterOrder(WS);
    expect(alerts()).toHaveLength(0);
  });

  it('a send refused for lack of funds tells the sender plainly and alerts the admins at once', async () => {
    await t.stack.app.settings.update(WS, 'U_ADMIN', { lowBalanceThresholdCents: null });
    await t.emulator.setBalance(30);
    const row = await send('U_MANAGER', '40');
    expect(row).toMatchObject({ status: 'failed', errorCode: 'INSUFFICIENT_BALANCE' });
    const told = await t.stack.sim.waitFor(() =>
      t.stack.sim.messages('U_MANAGER').find((m) => /could not be sent/.test(m.text ?? '')),
    );
    expect(JSON.stringify(told.blocks)).toMatch(/not have enough money.*admins have been told/i);
    const alert = await t.stack.sim.waitFor(() =>
      t.stack.sim.messages('C_ADMIN').find((m) => /refused for lack of funds/.test(JSON.stringify(m.blocks ?? []))),
    );
    expect(JSON.stringify(alert.blocks)).toContain('<@U_MANAGER>');
    expect(JSON.stringify(alert.blocks)).toContain('$40');
    expect(JSON.stringify(alert.blocks)).toContain('$30');
  });
});

describe('balance reads', () => {
  const balanceReads = async (metricsUrl = t.stack.app.metricsUrl!) =>
    (await (await fetch(`${metricsUrl}/metrics`)).text())
      .split('\n')
      .filter(
        (line) => line.startsWith('kudos_rewards_api_calls_total{') && line.includes('endpoint="/api/v1/balance"'),
      )
      .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);

  it('a stream of orders far above the threshold reads the balance once, not once per order; the order that crosses it reads it and alerts', async () => {
    await t.emulator.setBalance(1300);
    await send('U_MANAGER', '25');
    await t.stack.app.finance.lowBalance.afterOrder(WS);
    const afterFirst = await balanceReads();
    for (let i = 0; i < 5; i++) {
      await send('U_MANAGER', '25');
      await t.stack.app.finance.lowBalance.afterOrder(WS);
    }
    // $1,150 left by our own orders: still above $1,000, nothing read since the first order.
    expect(await balanceReads()).toBe(afterFirst);
    expect(alerts()).toHaveLength(0);
    await send('U_MANAGER', '200');
    await t.stack.app.finance.lowBalance.afterOrder(WS);
    expect(await balanceReads()).toBeGreaterThan(afterFirst);
    const alert = await t.stack.sim.waitFor(() => alerts()[0]);
    expect(JSON.stringify(alert.blocks)).toContain('$950');
  });

  it('workspaces on the one account (single mode) share its reads: each minute one read for all of them, on any instance', async () => {
    await t.emulator.setBalance(5000);
    const other = await t.stack.startAnotherApp();
    const teams = Array.from({ length: 6 }, (_, i) => ({ teamId: `T_SHARED${i}` }));
    const reads = async () => (await balanceReads()) + (await balanceReads(other.metricsUrl));
    const before = await reads();
    // The first orders of six workspaces, on two instances: one read of the account.
    for (const [i, ws] of teams.entries()) await (i % 2 ? other : t.stack.app).finance.lowBalance.afterOrder(ws);
    expect((await reads()) - before).toBe(1);
    // A minute later (every read aged past it), their next orders: one read again, not six.
    await t.db.update(financeState).set({ lastCheckedAt: sql`${financeState.lastCheckedAt} - interval '61 seconds'` });
    for (const [i, ws] of teams.entries()) await (i % 2 ? other : t.stack.app).finance.lowBalance.afterOrder(ws);
    expect((await reads()) - before).toBe(2);
    // Each workspace has the account's balance recorded, above its threshold.
    const states = await financeStatesOf(teams);
    expect(states.map((s) => [s.lastBalanceCents, s.balanceState])).toEqual(teams.map(() => [500_000, 'above']));
    expect(alerts()).toHaveLength(0);
  });

  it('a failed read is not asked again after every following order: the checks pause, then read once more', async () => {
    // Before: a read that failed (a slow or failing API) left nothing recorded, so each following
    // order read again, every attempt retried (24 requests here instead of 4).
    await t.emulator.setBalance(5000);
    let clock = Date.now();
    const app = await t.stack.startAnotherApp({ tuning: { now: () => new Date(clock) } });
    const reads = () => balanceReads(app.metricsUrl);
    // The API fails the next 24 reads: before, the first order's read (4 attempts) and then each of
    // the next five orders' (4 more each) took all of them.
    await t.emulator.faults({ method: 'GET', path: '^/api/v1/balance$', status: 503, count: 24 });
    await app.finance.lowBalance.afterOrder({ teamId: 'T_FAIL0' });
    // One read: its attempt and the client's three retries, all answered 503.
    expect(await reads()).toBe(4);
    for (let i = 1; i <= 5; i++) await app.finance.lowBalance.afterOrder({ teamId: `T_FAIL${i}` });
    expect(await reads()).toBe(4);
    // Past the pause, the next order reads again, and the API (its faults used up elsewhere) answers.
    for (let i = 0; i < 5; i++) await t.stack.app.rewards.balance.get().catch(() => undefined);
    clock += BALANCE_FAILURE_PAUSE_MS;
    await app.finance.lowBalance.afterOrder({ teamId: 'T_FAIL6' });
    expect(await reads()).toBe(5);
    const [state] = await t.db.select().from(financeState).where(eq(financeState.teamId, 'T_FAIL6'));
    expect(state?.lastBalanceCents).toBe(500_000);
  });

  it('the sweep reads the one account once for all its workspaces (single mode), not once per workspace', async () => {
    await t.emulator.setBalance(5000);
    const teams = Array.from({ length: 6 }, (_, i) => ({ teamId: `T_SWEEP${i}` }));
    // Seeded with the environment's threshold, as every workspace Kudos meets.
    for (const ws of teams) await t.stack.app.settings.get(ws);
    const before = await balanceReads();
    await t.stack.app.finance.lowBalance.sweep();
    // Before: one read per workspace with a threshold (six here).
    expect((await balanceReads()) - before).toBe(1);
    const states = await financeStatesOf(teams);
    expect(states.map((s) => s.lastBalanceCents)).toEqual(teams.map(() => 500_000));
  });

  it(
    'stopping the app ends a balance read in flight at once: a slow API does not hold the stop up to its timeouts',
    { timeout: 30_000 },
    async () => {
      // Before: a read held by a slow API kept finance.stop() (and so the app's close) waiting for its
      // 15 s timeout and each of its 3 retries, far past main.ts's 10 s hard stop. The test's timeout is the bound.
      const held = { method: 'GET', path: '^/api/v1/balance$', delayMs: 20_000, count: 4 };
      await t.stack.app.settings.get(WS); // seeded with the environment's threshold: the sweep reads its account
      await t.emulator.faults(held);
      const sweep = t.stack.app.finance.lowBalance.sweep();
      const heldLeft = async () => (await t.emulator.faultsLeft())[0]?.remaining;
      // The emulator has taken the first held request: the read is in flight.
      await eventually(async () => ((await heldLeft()) === held.count - 1 ? true : undefined));
      await t.stack.app.finance.stop();
      await sweep;
      // One attempt, ended: no retry was sent after it, and nothing was read, so nothing recorded.
      expect(await heldLeft()).toBe(held.count - 1);
      expect(await t.db.select().from(financeState).where(eq(financeState.teamId, WS.teamId))).toEqual([]);
    },
  );

  it('orders placed one after another within a second are decided together: one decision, then one more for the rest, not one each', async () => {
    await t.emulator.setBalance(5000);
    await t.stack.app.settings.get(WS);
    const counted = countQueries(t.db);
    try {
      // Ten orders 20 ms apart, as a backlog places them: before, each found the last decision done
      // (a few ms) and summed the workspace's orders since the last read again.
      const decided: Array<Promise<void>> = [];
      for (let i = 0; i < 10; i++) {
        decided.push(t.stack.app.finance.lowBalance.afterOrder(WS));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await Promise.all(decided);
      expect(counted.statements().filter((text) => text.includes('with own as')).length).toBeLessThanOrEqual(2);
    } finally {
      counted.restore();
    }
    // The decision still did its work: the workspace's first one read the balance.
    const [state] = await financeStatesOf([WS]);
    expect(state?.lastBalanceCents).toBe(500_000);
  });

  it('no threshold: an order reads no balance at all', async () => {
    await t.stack.app.settings.update(WS, 'U_ADMIN', { lowBalanceThresholdCents: null });
    const before = await balanceReads();
    await send('U_MANAGER', '25');
    await t.stack.app.finance.lowBalance.afterOrder(WS);
    expect(await balanceReads()).toBe(before);
  });
});

describe('two instances', () => {
  it('concurrent orders placed by two instances make one alert for one crossing', async () => {
    const other = await t.stack.startAnotherApp({ tuning: { worker: { pollIntervalMs: 20 } } });
    await t.emulator.setBalance(1200);
    // Twelve $25 sends recorded at once; both instances' workers claim and place them concurrently,
    // each order followed by a balance check on the instance that placed it.
    const rows = await t.db
      .insert(kudos)
      .values(
        Array.from({ length: 12 }, (_, i) => ({
          ...buildKudosRow({ idempotencyKey: crypto.randomUUID(), createdAt: new Date(), nextAttemptAt: new Date() }),
          id: crypto.randomUUID(),
          senderUserId: i % 2 ? 'U_MANAGER' : 'U_EMP2',
        })),
      )
      .returning();
    rows.forEach((row, i) => (i % 2 ? t.stack.app : other).worker.placeNow(row.id));
    await eventually(async () => (await t.db.select().from(kudos)).every((k) => k.status === 'placed'), 20_000);
    await Promise.all([
      t.stack.app.finance.lowBalance.afterOrder(WS),
      other.finance.lowBalance.afterOrder(WS),
      t.stack.app.finance.sweep(),
      other.finance.sweep(),
    ]);
    await t.stack.sim.waitFor(() => alerts().length > 0);
    expect(alerts()).toHaveLength(1);
    // The balance at the crossing: somewhere under the threshold.
    expect(JSON.stringify(alerts()[0]!.blocks)).toMatch(/\*\$9\d\d\* available/);
    const [state] = await t.db.select().from(financeState);
    expect(state?.crossings).toBe(1);
  });
});
