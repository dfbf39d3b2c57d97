// The money side for admins, end to end against the Rewards emulator: one low-balance alert per
// crossing even when balance reads are answered out of order, the ledger reconciled across a month
// boundary, top-ups settled however long the ledger is, one alert for a batch refused for lack of
// funds, and spending-limit use that counts the sends whose outcome is unknown.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { financeState, kudos, notifications, topUpRequests } from '../../../src/db/schema/index.js';
import type { RewardsAccounts } from '../../../src/domain/accounts/rewards-accounts.js';
import { monthOf } from '../../../src/domain/finance/ledger.js';
import { createLowBalanceMonitor } from '../../../src/domain/finance/low-balance.js';
import { cancelScheduledSend } from '../../../src/domain/sending/cancel-scheduled.js';
import type { RewardsClient } from '../../../src/rewards/index.js';
import {
  eventually,
  sendModalValues,
  submitSendForm,
  submitSendValues,
  useAppPerTest,
  wallTimeIn,
} from '../../support/app.js';
import { pendingKudosValues } from '../../support/kudos-row.js';
import { CHECKS_RUN_BY_THE_TEST } from '../../support/order-checks.js';
import { topUpValues } from '../../support/top-up-form.js';

const ENV = {
  KUDOS_ADMINS: 'U_ADMIN,U_APPROVER',
  KUDOS_ADMIN_CHANNEL: 'C_ADMIN',
  KUDOS_LOW_BALANCE_THRESHOLD: '1000',
  KUDOS_APPROVAL_THRESHOLD: '100000',
};

const t = useAppPerTest({
  env: ENV,
  app: {
    tuning: {
      financeSweepMs: 0,
      automationsMs: 0,
      approvalsSweepMs: 0,
      home: { enabled: false },
      webhooks: CHECKS_RUN_BY_THE_TEST,
    },
  },
});
const WS = { teamId: 'T0KUDOS' };

const lowBalanceAlerts = () =>
  t.stack.sim.messages('C_ADMIN').filter((m) => /Low Rewards balance/.test(JSON.stringify(m.blocks ?? [])));

/**
 * The app's Rewards account, except that each balance read is answered only when the test says so:
 * the API read the balance when asked, the answer is on its way (a slow network, a loaded instance).
 */
function heldBalanceAnswers(accounts: RewardsAccounts) {
  const asked: Array<{ read: Promise<unknown>; answer: () => void }> = [];
  const wrap = (client: RewardsClient): RewardsClient =>
    new Proxy(client, {
      get(target, prop, receiver) {
        if (prop !== 'balance') return Reflect.get(target, prop, receiver) as unknown;
        const balance = target.balance;
        return new Proxy(balance, {
          get(b, p, r) {
            if (p !== 'get') return Reflect.get(b, p, r) as unknown;
            return async (...args: Parameters<RewardsClient['balance']['get']>) => {
              const read = balance.get(...args);
              let answer!: () => void;
              const answered = new Promise<void>((resolve) => (answer = resolve));
              asked.push({ read, answer });
              await answered;
              return read;
            };
          },
        });
      },
    });
  const clients = new Map<RewardsClient, RewardsClient>();
  const held: Pick<RewardsAccounts, 'for' | 'mode'> = {
    mode: accounts.mode,
    async for(ws) {
      const client = await accounts.for(ws);
      if (!clients.has(client)) clients.set(client, wrap(client));
      return clients.get(client)!;
    },
  };
  return { accounts: held, asked };
}

describe('low-balance alerts with balance reads answered out of order', () => {
  it('a read asked before a newer one but answered after it neither overwrites it nor re-arms the alert: one crossing, one alert', async () => {
    await t.emulator.setBalance(1200);
    await t.stack.app.settings.get(WS); // seeded with the environment's threshold ($1,000)
    // Another instance's check reads the balance at $1,200; its answer is slow to come back.
    const slow = heldBalanceAnswers(t.stack.app.rewardsAccounts);
    const other = createLowBalanceMonitor({ ...t.stack.app.finance.deps, rewards: slow.accounts });
    const otherSweep = other.sweep();
    await eventually(() => slow.asked.length === 1);
    await slow.asked[0]!.read;
    const { asked } = slow;

    // Orders elsewhere take the balance under the threshold; this instance reads it and alerts.
    await t.emulator.setBalance(900);
    await t.stack.app.finance.lowBalance.sweep();
    await t.stack.sim.waitFor(() => lowBalanceAlerts().length === 1);

    // The older answer ($1,200) arrives last, then the next pass reads $900 again.
    asked[0]!.answer();
    await otherSweep;
    await other.stop();
    await t.stack.app.finance.lowBalance.sweep();

    const [state] = await t.db.select().from(financeState);
    expect(state).toMatchObject({ balanceState: 'below', crossings: 1, lastBalanceCents: 90_000 });
    expect(lowBalanceAlerts()).toHaveLength(1);
  });
});

describe('/kudos ledger across a month boundary', () => {
  /** The ledger list `/kudos ledger <text>` answers the admin, as they read it. */
  const ledgerList = async (text: string) => {
    const before = t.stack.sim.messages('C_ADMIN').length;
    await t.stack.sim.slashCommand('U_ADMIN', text, 'C_ADMIN');
    const list = await t.stack.sim.waitFor(() =>
      t.stack.sim
        .messages('C_ADMIN')
        .slice(before)
        .find((m) => m.ephemeral && /Ledger for \w+ \d{4}/.test(JSON.stringify(m.blocks ?? []))),
    );
    return JSON.stringify(list.blocks);
  };

  it('a send booked in one month and cancelled in the next is reconciled in both: its charge in the first, its refund in the second', async () => {
    const later = wallTimeIn('America/New_York', 60 * 24 * 60);
    const recorded = await submitSendForm(
      t.stack,
      t.db,
      'U_MANAGER',
      sendModalValues({ users: ['U_EMP1'], design: 'CC-THANK-YOU', amount: '20', schedule: later }),
    );
    const booked = await eventually(async () =>
      (await t.db.select().from(kudos).where(eq(kudos.id, recorded.id))).find(
        (k) => k.status === 'scheduled' && k.orderId,
      ),
    );
    const bookedIn = monthOf(booked.placedAt!);
    expect(await ledgerList(`ledger ${bookedIn}`)).toMatch(/Reconciled/);

    // The provider's clock passes into the next month; the send is cancelled there (refunded).
    const apiNow = new Date(await t.emulator.now());
    const nextMonth = new Date(Date.UTC(apiNow.getUTCFullYear(), apiNow.getUTCMonth() + 1, 1, 1));
    await t.emulator.advance(Math.ceil((nextMonth.getTime() - apiNow.getTime()) / 1000));
    const canceled = await cancelScheduledSend(
      { db: t.db, rewards: t.stack.app.rewardsAccounts, logger: t.stack.app.logger },
      { kudosId: booked.id, teamId: booked.teamId, actorUserId: 'U_MANAGER', actorIsAdmin: false, now: new Date() },
    );
    expect(canceled.ok).toBe(true);

    // The month of the booking shows the charge, as Kudos recorded it then: no mismatch.
    const booking = await ledgerList(`ledger ${bookedIn}`);
    expect(booking).not.toContain('Mismatch');
    expect(booking).toMatch(/Reconciled/);
    // The next month shows the refund of that Kudos order: Kudos' own, not an order from outside.
    const refund = await ledgerList(`ledger ${monthOf(nextMonth)}`);
    expect(refund).toContain('Refund: cancelled kudos from <@U_MANAGER> to 1 person · *$20*');
    expect(refund).not.toContain('Mismatch');
    expect(refund).toMatch(/Reconciled/);
    expect(refund).not.toContain('outside Kudos');
    expect(refund).toContain('It also refunds 1 Kudos send of earlier months cancelled since ($20)');
  });
});

describe('top-ups settled from the ledger', () => {
  it('a top-up processed before more than 5,000 other movements is still found and completed', async () => {
    await t.stack.sim.slashCommand('U_ADMIN', 'topup', 'C_ADMIN');
    const view = await t.stack.sim.waitFor(() =>
      t.stack.sim.openViews('U_ADMIN').find((v) => v.callback_id === 'finance_topup'),
    );
    await t.stack.sim.submitView(view.id, topUpValues('1200'), 'U_ADMIN');
    const message = await t.stack.sim.waitFor(() =>
      t.stack.sim
        .messages('C_ADMIN')
        .find((m) => !m.ephemeral && /Top-up request/.test(JSON.stringify(m.blocks ?? []))),
    );
    await t.stack.sim.clickButton({ channel: message.channel, ts: message.ts }, 'finance_topup_approve', 'U_APPROVER');
    const submitted = await eventually(async () =>
      (await t.db.select().from(topUpRequests)).find((r) => r.status === 'submitted'),
    );
    await t.emulator.processTopUp(submitted.fundingNo!, 'approve');
    // A busy account: 5,000 movements (promotions here) booked after the funding row.
    for (let batch = 0; batch < 50; batch++)
      await Promise.all(Array.from({ length: 100 }, () => t.emulator.addMovement('promotion', 1)));

    await t.stack.app.finance.sweep();
    const [settled] = await t.db.select().from(topUpRequests);
    expect(settled!.status).toBe('completed');
    await t.stack.sim.waitFor(() => t.stack.sim.messages('U_ADMIN').find((m) => /completed/.test(m.text)));
  });
});

describe('sends refused for lack of funds', () => {
  it('a batch refused one after another makes one alert to the admins, not one per send; each sender is told', async () => {
    await t.emulator.setBalance(0);
    const rows = await t.db
      .insert(kudos)
      .values(
        Array.from({ length: 3 }, (_, i) =>
          pendingKudosValues({ senderUserId: i % 2 ? 'U_MANAGER' : 'U_EMP2', amountCents: 2500, totalCents: 2500 }),
        ),
      )
      .returning();
    for (const row of rows) t.stack.app.worker.placeNow(row.id);
    await eventually(async () => {
      const now = await t.db.select().from(kudos);
      return now.every((k) => k.status === 'failed' && k.errorCode === 'INSUFFICIENT_BALANCE' && k.notifiedAt);
    }, 20_000);
    // Every alert recorded is posted before counting what the admin channel shows.
    const alertsRecorded = () =>
      t.db.select().from(notifications).where(eq(notifications.kind, 'finance.insufficient_funds'));
    await eventually(async () => (await alertsRecorded()).every((n) => n.postedAt || n.failedAt));
    const shown = t.stack.sim
      .messages('C_ADMIN')
      .filter((m) => !m.ephemeral && /refused for lack of funds/.test(JSON.stringify(m.blocks ?? [])));
    expect(await alertsRecorded()).toHaveLength(1);
    expect(shown).toHaveLength(1);
  });
});

describe('spending-limit use', () => {
  it('a send whose outcome is unknown (it may have been charged) counts against the daily limit', async () => {
    await t.db
      .insert(financeState)
      .values({ teamId: WS.teamId, dailyLimitCents: 10_000, monthlyLimitCents: 100_000, limitsSource: 'admin' });
    // $80 whose order's outcome is unknown: the API may have charged it. Kudos looks it up again later.
    await t.db.insert(kudos).values(
      pendingKudosValues({
        status: 'unknown',
        amountCents: 8000,
        totalCents: 8000,
        nextAttemptAt: new Date(Date.now() + 3_600_000),
        errorCode: 'OUTCOME_UNKNOWN',
      }),
    );
    const answer = await submitSendValues(
      t.stack.app.url,
      'U_MANAGER',
      sendModalValues({ users: ['U_EMP1'], design: 'CC-THANK-YOU', amount: '30' }),
    );
    expect(JSON.stringify(answer.errors)).toContain(
      'would go over the daily spending limit of $100: $80 is used today, $20 is left',
    );
    expect(await t.db.select().from(kudos)).toHaveLength(1);
  });
});
