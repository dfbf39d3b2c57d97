// `/kudos links N AMOUNT [design]`: admins only; the links reach the requester by DM once the order
// is COMPLETE, and never appear in a channel.
import { randomUUID } from 'node:crypto';

import { beforeEach, describe, expect, it } from 'vitest';

import { orderChecks, rewardLinkRequests, webhookEvents } from '../../src/db/schema/index.js';
import { eventually, useAppPerTest } from '../support/app.js';
import { noticesSettled } from '../support/notices-settled.js';
import { WEBHOOK_APP } from './support.js';

const e2e = useAppPerTest(WEBHOOK_APP);
beforeEach(async () => {
  expect(await e2e.emulator.registerWebhook(`${e2e.stack.app.url}/webhooks/rewards`)).toEqual({ active: true });
});

const REDEEM = 'rewards.emulator.test/redeem/';

describe('reward links from Slack', () => {
  it('creates N links and DMs them to the admin who asked, only once COMPLETE, never in a channel', async () => {
    const answer = await e2e.stack.sim.slashCommand('U_ADMIN', 'links 3 10 birthday', 'C_KUDOS');
    expect(answer.status).toBe(200);
    expect(JSON.stringify(answer.body)).toContain('Creating 3 reward links of $10');

    const request = await eventually(async () =>
      (await e2e.db.select().from(rewardLinkRequests)).find((r) => r.status === 'placed'),
    );
    expect(request.productId).toBe('CC-BIRTHDAY');
    const [orderId] = request.orderIds;
    expect(orderId).toMatch(/^LO/);
    const order = await e2e.stack.app.rewards.orders.get(orderId!);
    expect(order.status).toBe('PENDING');
    expect(order.totalCost?.amount).toBe('30.00');

    // Not complete yet: nothing delivered, whatever the checks and the webhook did meanwhile.
    await e2e.emulator.advance(0);
    await eventually(async () =>
      (await e2e.db.select().from(orderChecks)).find((c) => c.orderId === orderId && c.lastStatus === 'PENDING'),
    );
    await eventually(async () => (await e2e.db.select().from(webhookEvents)).find((e) => e.outcome === 'reward_links'));
    expect(e2e.stack.sim.messages('U_ADMIN').filter((m) => m.text.includes(REDEEM))).toHaveLength(0);

    await e2e.emulator.advance(3);
    const dm = await e2e.stack.sim.waitFor(
      () => e2e.stack.sim.messages('U_ADMIN').find((m) => m.text.includes(REDEEM)),
      30_000,
    );
    const complete = await e2e.stack.app.rewards.orders.get(orderId!);
    const links = complete.recipients.map((r) => r.rewardLink!);
    expect(links).toHaveLength(3);
    for (const link of links) expect(dm.text).toContain(link);
    expect(dm.ephemeral).toBe(false);
    expect(dm.channel.startsWith('D')).toBe(true);

    // Exactly one DM, and no link anywhere else: counted once the order's check is closed, every event
    // processed and every notice posted (nothing is left that could post another).
    await noticesSettled(e2e.db, { checks: true });
    expect(e2e.stack.sim.messages('U_ADMIN').filter((m) => m.text.includes(REDEEM))).toHaveLength(1);
    const elsewhere = e2e.stack.sim
      .messages()
      .filter((m) => !m.channel.startsWith('D') && (m.text + JSON.stringify(m.blocks ?? [])).includes(REDEEM));
    expect(elsewhere).toHaveLength(0);
    expect(e2e.stack.sim.messages('C_KUDOS').filter((m) => m.text.includes('outside Slack'))).toHaveLength(0);
  });

  it('a request whose process died after the API call is resumed with the same key: one order, links delivered once', async () => {
    // The crashed process had already created the order with the request's key. Created before the
    // request is recorded: the app's sweep resumes a recorded request at once, and would otherwise
    // create the order itself first.
    const idempotencyKey = randomUUID();
    const first = await e2e.stack.app.rewards.orders.createRewardLinks(
      { cardType: 'CHOICE_CARD', productId: 'CC-THANK-YOU', quantity: 2, amountPerLink: '5.00' },
      { idempotencyKey },
    );
    await e2e.db.insert(rewardLinkRequests).values({
      teamId: 'T0KUDOS',
      requesterUserId: 'U_ADMIN',
      productId: 'CC-THANK-YOU',
      designName: 'Thank You',
      quantity: 2,
      amountCents: 500,
      idempotencyKey,
      createdAt: new Date(Date.now() - 60_000),
    });

    const resumed = await eventually(async () =>
      (await e2e.db.select().from(rewardLinkRequests)).find((r) => r.status === 'placed'),
    );
    expect(resumed.orderIds).toEqual([first.order.orderId]);
    expect((await e2e.stack.app.rewards.orders.list({ orderType: 'LINK' })).data).toHaveLength(1);
    await e2e.emulator.advance(3);
    const dm = await e2e.stack.sim.waitFor(
      () => e2e.stack.sim.messages('U_ADMIN').find((m) => m.text.includes(REDEEM)),
      30_000,
    );
    expect(dm.text.match(/redeem\//g)).toHaveLength(2);
  });

  it('a design lookup slower than Slack waits: acked in time, the outcome by response_url, one request recorded', async () => {
    await e2e.emulator.faults({ method: 'GET', path: '/api/v1/catalog/choice-cards', delayMs: 3500, count: 1 });
    const answer = await e2e.stack.sim.slashCommand('U_ADMIN', 'links 3 10 birthday', 'C_KUDOS');
    // Answered inside Slack's 3 s (no "operation_timeout" for the admin), saying the answer follows.
    expect(answer.status).toBe(200);
    expect(JSON.stringify(answer.body)).toContain('Looking up the card design');
    expect(e2e.stack.sim.messages('U_ADMIN').filter((m) => m.text.includes('operation_timeout'))).toHaveLength(0);
    // The outcome reaches the admin through the response_url, once the lookup answered.
    const outcome = await e2e.stack.sim.waitFor(
      () =>
        e2e.stack.sim
          .messages()
          .find((m) => m.ephemeral && m.visible_to === 'U_ADMIN' && m.text.includes('Creating 3 reward links of $10')),
      30_000,
    );
    expect(outcome.text).toContain('$30 in total');
    const request = await eventually(async () =>
      (await e2e.db.select().from(rewardLinkRequests)).find((r) => r.status === 'placed'),
    );
    expect(request.quantity).toBe(3);
    expect(await e2e.db.select().from(rewardLinkRequests)).toHaveLength(1);
  });

  it('refuses non-admins and bad input with a message, creating nothing', async () => {
    const refused = await e2e.stack.sim.slashCommand('U_MANAGER', 'links 3 10', 'C_GENERAL');
    expect(JSON.stringify(refused.body)).toContain('Only Kudos admins');
    const tooSmall = await e2e.stack.sim.slashCommand('U_ADMIN', 'links 2 1', 'C_GENERAL');
    expect(JSON.stringify(tooSmall.body)).toContain('$5 to $500');
    const usage = await e2e.stack.sim.slashCommand('U_ADMIN', 'links many', 'C_GENERAL');
    expect(JSON.stringify(usage.body)).toContain('Usage');
    const cents = await e2e.stack.sim.slashCommand('U_ADMIN', 'links 2 7.50', 'C_GENERAL');
    expect(JSON.stringify(cents.body)).toContain('whole dollars');
    expect(await e2e.db.select().from(rewardLinkRequests)).toHaveLength(0);
    expect((await e2e.stack.app.rewards.orders.list({ orderType: 'LINK' })).data).toHaveLength(0);
  });

  it('/kudos help lists the links command', async () => {
    const help = await e2e.stack.sim.slashCommand('U_ADMIN', 'help', 'C_GENERAL');
    expect(JSON.stringify(help.body)).toContain('links N AMOUNT');
  });
});
