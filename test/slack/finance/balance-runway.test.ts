// `/kudos balance` (admins) and App Home say when the balance is under the alert level, and how many
// days it lasts at the last 30 days' rate (the ledger's net order spend); with no spend, nothing about days.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { kudos } from '../../../src/db/schema/index.js';
import { daysLeftAtRate } from '../../../src/domain/finance/low-balance.js';
import { eventually, sendModalValues, submitSendForm, useAppPerTest } from '../../support/app.js';

const t = useAppPerTest({
  env: {
    KUDOS_ADMINS: 'U_ADMIN',
    KUDOS_ADMIN_CHANNEL: 'C_ADMIN',
    KUDOS_LOW_BALANCE_THRESHOLD: '1000',
    KUDOS_APPROVAL_THRESHOLD: '100000',
  },
  app: { tuning: { financeSweepMs: 0 } },
});

/** The admin's `/kudos balance` answer, once the overview showing `balance` replaced "Reading the balance…". */
async function adminBalance(balance: string): Promise<string> {
  await t.stack.sim.slashCommand('U_ADMIN', 'balance', 'C_ADMIN');
  return t.stack.sim.waitFor(() =>
    t.stack.sim
      .messages('C_ADMIN')
      .filter((m) => m.ephemeral && m.visible_to === 'U_ADMIN')
      .map((m) => JSON.stringify(m.blocks ?? []))
      .find((text) => text.includes(`Rewards balance:* ${balance} available`)),
  );
}

async function placedSend(amount: string) {
  const row = await submitSendForm(
    t.stack,
    t.db,
    'U_MANAGER',
    sendModalValues({ users: ['U_EMP1'], design: 'CC-THANK-YOU', amount }),
  );
  await eventually(async () => (await t.db.select().from(kudos)).find((k) => k.id === row.id && k.orderId));
}

describe('the balance under the alert level, and the days it lasts', () => {
  it('no spend yet: flagged under the level, nothing said about days; after $150 in orders: about 190 days at $5 a day', async () => {
    await t.emulator.setBalance(900);
    const quiet = await adminBalance('$900');
    // Anyone else sees the balance, and that it is under the level, in the command's answer.
    const plain = await t.stack.sim.slashCommand('U_MANAGER', 'balance', 'C_GENERAL');
    expect(JSON.stringify(plain.body)).toContain('Under the alert level of $1,000');
    expect(quiet).toContain('Under the alert level* of $1,000');
    expect(quiet).not.toMatch(/days? at the last 30 days/);

    await t.emulator.setBalance(1100);
    await placedSend('50');
    await placedSend('100');
    // $950 left, $150 spent in 30 days: $5 a day, 190 days.
    const shown = await adminBalance('$950');
    expect(shown).toContain('Under the alert level* of $1,000');
    expect(shown).toContain("About 190 days at the last 30 days' rate ($5 a day)");

    // App Home's money section says the same.
    await t.stack.sim.sendEvent({ type: 'app_home_opened', user: 'U_ADMIN', channel: 'D_U_ADMIN', tab: 'home' });
    const home = await t.stack.sim.waitFor(() => {
      const text = JSON.stringify(t.stack.sim.homeView('U_ADMIN')?.blocks ?? []);
      return text.includes('About 190 days') ? text : undefined;
    });
    expect(home).toContain('Under the alert level');
  });

  it('above the level: no flag, only the days', async () => {
    await t.emulator.setBalance(5000);
    await placedSend('30');
    const shown = await adminBalance('$4,970');
    expect(shown).not.toContain('Under the alert level');
    const plain = await t.stack.sim.slashCommand('U_MANAGER', 'balance', 'C_GENERAL');
    expect(JSON.stringify(plain.body)).toContain('$4,970');
    expect(JSON.stringify(plain.body)).not.toContain('alert level');
    // $4,970 at $1 a day.
    expect(shown).toContain("About 4,970 days at the last 30 days' rate ($1 a day)");
  });
});

describe('days left arithmetic', () => {
  it('is the largest whole number of days the balance covers at the rate; none without spend', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000_000 }),
        fc.integer({ min: 1, max: 1_000_000_000 }),
        (balance, spent30) => {
          const days = daysLeftAtRate(balance, spent30)!;
          expect(Number.isInteger(days)).toBe(true);
          // d days at spent30/30 a day fit in the balance; d + 1 do not (exact, in integers).
          expect(days * spent30).toBeLessThanOrEqual(balance * 30);
          expect((days + 1) * spent30).toBeGreaterThan(balance * 30);
        },
      ),
    );
    fc.assert(
      fc.property(fc.integer({ min: -1_000_000, max: 1_000_000 }), fc.integer({ min: -1_000_000, max: 0 }), (b, s) => {
        expect(daysLeftAtRate(b, s)).toBeUndefined();
        expect(daysLeftAtRate(b, undefined)).toBeUndefined();
      }),
    );
  });

  it('more balance never lasts fewer days; more spend never more; an empty balance lasts none', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.integer({ min: 0, max: 10_000_000 }),
        (balance, more, spent, moreSpent) => {
          expect(daysLeftAtRate(balance + more, spent)!).toBeGreaterThanOrEqual(daysLeftAtRate(balance, spent)!);
          expect(daysLeftAtRate(balance, spent + moreSpent)!).toBeLessThanOrEqual(daysLeftAtRate(balance, spent)!);
          expect(daysLeftAtRate(0, spent)).toBe(0);
          expect(daysLeftAtRate(-balance, spent)).toBe(0);
        },
      ),
    );
  });
});
