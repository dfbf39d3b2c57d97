// Reward links of a branded product (`/kudos links N AMOUNT brand NAME`): the amount per link in the
// brand's own currency on its price rules, the USD total said before anything is charged, a request
// whose cost cannot be judged (no rate learned yet) waiting for an approver, the rate learned from
// what the order was charged, and a brand gone from the catalog while the request waited failing it
// with nothing charged.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { learnedExchangeRates, rewardLinkRequests } from '../../../src/db/schema/index.js';
import { learnRate } from '../../../src/domain/branded/exchange-rates.js';
import { eventually, useAppPerTest } from '../../support/app.js';
import { FAST_CHECKS } from '../../webhooks/support.js';

const env = useAppPerTest({
  env: { KUDOS_NOTIFY_CHANNEL: 'C_KUDOS', KUDOS_ADMINS: 'U_ADMIN', KUDOS_APPROVAL_THRESHOLD: '100000' },
  slackRateLimits: false,
  app: { tuning: { webhooks: FAST_CHECKS, approvalsSweepMs: 0, slackPacing: { scale: 100 } } },
});

async function requests() {
  return env.db.select().from(rewardLinkRequests);
}

async function linkOrders() {
  return env.stack.app.rewards.orders.list({ orderType: 'LINK', pageSize: 100 }).all();
}

async function approve(requestId: string) {
  const asked = await env.stack.sim.waitFor(() =>
    env.stack.sim
      .messages('U_APPROVER')
      .find(
        (m) => JSON.stringify(m.blocks ?? []).includes(requestId) && JSON.stringify(m.blocks).includes('links_approve'),
      ),
  );
  await env.stack.sim.clickButton({ channel: asked.channel, ts: asked.ts }, 'links_approve', 'U_APPROVER', requestId);
  return asked;
}

describe('branded reward links', () => {
  it('a GBP brand with no rate learned waits for an approver; once charged, its cost is recorded and its rate learned, and the next request shows its USD total', async () => {
    await env.stack.app.settings.update({ teamId: 'T0KUDOS' }, 'U_ADMIN', { approverUserIds: ['U_APPROVER'] });
    const first = await env.stack.sim.slashCommand('U_ADMIN', 'links 5 20 brand Tesco', 'C_GENERAL');
    const said = JSON.stringify(first.body);
    expect(said).toContain('5 reward links of £20 (Tesco)');
    expect(said).toContain('the USD total is known only after charging');
    expect(said).toContain('need approval');
    expect(said).toContain('not yet learned what GBP cards cost in USD');
    const [waiting] = await requests();
    expect(waiting).toMatchObject({
      status: 'awaiting_approval',
      cardType: 'BRANDED_CARD',
      productId: 'BR-TESCO',
      faceCurrency: 'GBP',
      faceCents: 2000,
      amountCents: 0,
    });
    expect(await linkOrders()).toHaveLength(0);

    const asked = await approve(waiting!.id);
    // The approver reads what they approve: the face value, and that the USD total is not known yet.
    expect(JSON.stringify(asked.blocks)).toContain(
      'asks for 5 reward links of £20 (Tesco), £100 in total; the USD total is known only after charging.\\nIt needs approval: Kudos has not yet learned what GBP cards cost in USD, so the exact cost is known only after ordering.',
    );
    const placed = await eventually(async () => (await requests()).find((r) => r.status === 'placed'));
    // £100 at the emulator's 1.27 USD per GBP.
    expect(placed.costCents).toBe(12_700);
    const [order] = await linkOrders();
    expect(order).toMatchObject({ cardType: 'BRANDED_CARD', totalCost: { amount: '127.00', currency: 'USD' } });
    const [rate] = await env.db.select().from(learnedExchangeRates).where(eq(learnedExchangeRates.currency, 'GBP'));
    expect(rate).toMatchObject({ teamId: 'T0KUDOS', faceCents: 10_000, costCents: 12_700, orderId: order!.orderId });

    // The rate is known now: the next request is judged (the estimate plus the 5% margin) and goes out.
    const second = await env.stack.sim.slashCommand('U_ADMIN', 'links 5 £20 brand Tesco', 'C_GENERAL');
    expect(JSON.stringify(second.body)).toContain(
      'Creating 5 reward links of £20 (Tesco), £100 in total, about $127 in USD (counted as $133.35 with the 5% safety margin',
    );
    const next = await eventually(async () =>
      (await requests()).find((r) => r.id !== placed.id && r.status === 'placed'),
    );
    expect(next).toMatchObject({ amountCents: 2667, faceCents: 2000, costCents: 12_700 });
  });

  it('an amount per link the product does not offer is refused in one line; nothing is recorded', async () => {
    const offStep = await env.stack.sim.slashCommand('U_ADMIN', 'links 5 10.25 brand Zalando', 'C_GENERAL');
    expect(JSON.stringify(offStep.body)).toContain('€10.25 is not on the price step: pick €10 or €10.50');
    const notOffered = await env.stack.sim.slashCommand('U_ADMIN', 'links 5 25 brand Tesco', 'C_GENERAL');
    expect(JSON.stringify(notOffered.body)).toContain('£25 is not offered; pick £10, £20, or £50.');
    const noBrand = await env.stack.sim.slashCommand('U_ADMIN', 'links 5 25 brand Nowhere Shop', 'C_GENERAL');
    expect(JSON.stringify(noBrand.body)).toContain('No brand in the Rewards catalog matches');
    expect(await requests()).toHaveLength(0);
    expect(await linkOrders()).toHaveLength(0);
  });

  it('a rate that rose beyond the safety margin after the first part: the rest is not created, and what was charged is said exactly', async () => {
    await env.emulator.setLimits({ dailyLimitUsd: 50_000, monthlyLimitUsd: 500_000 });
    await env.emulator.setBalance(100_000);
    await learnRate(
      env.db,
      { teamId: 'T0KUDOS', enterpriseId: null },
      {
        currency: 'GBP',
        faceCents: 10_000,
        costCents: 12_700,
        learnedAt: new Date(Date.now() - 60_000),
      },
    );
    // Judged at 1.27 plus 5%; the API now charges 1.40 (10% more).
    await env.emulator.setExchangeRate('GBP', 1.4);
    await env.stack.sim.slashCommand('U_ADMIN', 'links 600 10 brand Tesco', 'C_GENERAL');
    const settled = await eventually(async () => (await requests()).find((r) => r.status !== 'pending'), 20_000);
    expect(settled).toMatchObject({
      status: 'partial',
      errorCode: 'RATE_MOVED',
      createdQuantity: 500,
      costCents: 700_000,
    });
    expect(await linkOrders()).toHaveLength(1);
    const told = await env.stack.sim.waitFor(() =>
      env.stack.sim.messages('U_ADMIN').find((m) => m.text.startsWith('Only 500 of your 600')),
    );
    expect(told.text).toContain('$7,000 charged');
    expect(told.text).toContain('the GBP rate rose by more than the safety margin');
  });

  it('a brand gone from the catalog while the request waited for approval: the request fails in plain words, nothing charged', async () => {
    await env.stack.app.settings.update({ teamId: 'T0KUDOS' }, 'U_ADMIN', { approverUserIds: ['U_APPROVER'] });
    await env.stack.sim.slashCommand('U_ADMIN', 'links 3 50 brand Tesco', 'C_GENERAL');
    const [waiting] = await requests();
    // The product the request names is no longer in the catalog (the emulator answers 404 for it).
    await env.db
      .update(rewardLinkRequests)
      .set({ productId: 'BR-REMOVED' })
      .where(eq(rewardLinkRequests.id, waiting!.id));
    await approve(waiting!.id);
    const failed = await eventually(async () => (await requests()).find((r) => r.status === 'failed'));
    expect(failed.errorCode).toBe('BRAND_UNAVAILABLE');
    const told = await env.stack.sim.waitFor(() =>
      env.stack.sim.messages('U_ADMIN').find((m) => m.text.includes('could not be created')),
    );
    expect(told.text).toContain(
      'Your 3 reward links of £50 could not be created: Tesco is no longer in the Rewards catalog',
    );
    expect(told.text).toContain('nothing was charged');
    expect(await linkOrders()).toHaveLength(0);
  });
});
