// No inbound connection at all: Socket Mode for Slack and REWARDS_WEBHOOKS=off for the Rewards API.
// No webhook is ever delivered, yet every notice (the confirmation, the announcement, the completion
// in its thread, the bounce DM, an order placed outside Slack) arrives exactly once, by polling; the
// test reports how many Rewards API calls that took. And with webhooks on, a late webhook and the
// poller reporting the same order still give one notice.
import { randomUUID } from 'node:crypto';

import { beforeEach, describe, expect, it } from 'vitest';

import { kudos } from '../../src/db/schema/index.js';
import { createRewardsClient } from '../../src/rewards/index.js';
import { eventually, sendModalValues, type TestStack, useAppPerTest } from '../support/app.js';
import type { TestEmulator } from '../support/emulator.js';
import { noticesSettled } from '../support/notices-settled.js';
import { envelope, FAST_CHECKS, postWebhook, signed } from './support.js';

const POLLING = { ...FAST_CHECKS, polling: { activeMs: 200, idleMaxMs: 800 } };

async function placeOrderElsewhere(emulator: TestEmulator, email: string) {
  const portal = createRewardsClient({
    baseUrl: emulator.url,
    clientId: 'production-client',
    clientSecret: 'production-secret',
  });
  try {
    const created = await portal.orders.createChoice(
      {
        productId: 'CC-THANK-YOU',
        recipients: [{ email, amount: '10.00' }],
        emailSetting: { senderName: 'Portal', subject: 'Thanks' },
      },
      { idempotencyKey: randomUUID() },
    );
    return created.order;
  } finally {
    await portal.close();
  }
}

async function rewardsCalls(stack: TestStack): Promise<number> {
  const text = await (await fetch(`${stack.app.metricsUrl!}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('kudos_rewards_api_calls_total{'))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

const externalNotices = (stack: TestStack, orderId: string) =>
  stack.sim.messages('C_KUDOS').filter((m) => m.text.includes('placed outside Slack') && m.text.includes(orderId));

describe('REWARDS_WEBHOOKS=off, in Socket Mode: no inbound connection', () => {
  const t = useAppPerTest({
    env: { KUDOS_NOTIFY_CHANNEL: 'C_KUDOS', REWARDS_WEBHOOKS: 'off' },
    socketMode: true,
    app: { tuning: { webhooks: POLLING } },
    emulatorEnv: { EMULATOR_BACKGROUND: 'off' },
  });
  let stack: TestStack;
  beforeEach(() => {
    stack = t.stack;
  });

  it('no webhook is ever delivered, and every notice still arrives exactly once', async () => {
    expect((await fetch(`${stack.app.url}/webhooks/rewards`, { method: 'POST', body: '{}' })).status).toBe(404);
    expect((await fetch(`${stack.app.url}/slack/events`, { method: 'POST', body: '{}' })).status).toBe(404);
    await stack.app.background.poller.pollNow(); // the baseline: nothing before polling began is announced
    const callsBefore = await rewardsCalls(stack);

    stack.sim.workspace.users.find((u) => u.id === 'U_EMP1')!.email = 'someone@bounce.test';
    await stack.sim.slashCommand('U_MANAGER', '', 'C_GENERAL');
    const view = await stack.sim.waitFor(() =>
      stack.sim.openViews('U_MANAGER').find((v) => v.callback_id === 'kudos_send'),
    );
    await stack.sim.submitView(
      view.id,
      sendModalValues({ users: ['U_EMP1', 'U_EMP2'], design: 'CC-THANK-YOU', amount: '30' }),
      'U_MANAGER',
    );
    const row = await eventually(async () =>
      (await t.db.select().from(kudos)).find((k) => k.orderId && k.announcementTs),
    );
    const outside = await placeOrderElsewhere(t.emulator, 'portal@example.com');
    await t.emulator.advance(5);

    const completion = () => stack.sim.messages('C_KUDOS').filter((m) => m.thread_ts === row.announcementTs);
    const bounceDms = () =>
      stack.sim.messages('U_MANAGER').filter((m) => JSON.stringify(m.blocks ?? []).includes('bounce_fix_open'));
    await stack.sim.waitFor(
      () => completion().length > 0 && bounceDms().length > 0 && externalNotices(stack, outside.orderId).length > 0,
      20_000,
    );
    const callsAtLastNotice = (await rewardsCalls(stack)) - callsBefore;

    // A few more polls find nothing new and repeat nothing: counted once every check is closed, every
    // stored event processed and every notice posted (nothing is left that could post another).
    for (let i = 0; i < 3; i++) expect(await stack.app.background.poller.pollNow()).toBe(0);
    await noticesSettled(t.db, { checks: true });
    expect(completion()).toHaveLength(1);
    // Bounces stay out of the channel: the sender's DM has it.
    expect(completion()[0]!.text).toContain('the card is delivered');
    expect(completion()[0]!.text).not.toContain('bounce');
    expect(bounceDms()).toHaveLength(1);
    expect(externalNotices(stack, outside.orderId)).toHaveLength(1);
    expect(stack.sim.messages('U_MANAGER').filter((m) => m.text.startsWith('Your kudos'))).toHaveLength(1);
    expect(
      stack.sim.messages('C_KUDOS').filter((m) => !m.thread_ts && !m.text.includes('placed outside Slack')),
    ).toHaveLength(1);
    expect(await t.emulator.deliveries()).toEqual([]);

    console.info(
      `polling mode: ${callsAtLastNotice} Rewards API calls from the send to its last notice (one kudos order to two people, one bounced, one order placed outside Slack), ${(await rewardsCalls(stack)) - callsBefore} after three more polls`,
    );
  });
});

describe('webhooks on, polling as the safety net', () => {
  const t = useAppPerTest({
    env: { KUDOS_NOTIFY_CHANNEL: 'C_KUDOS' },
    app: { tuning: { webhooks: { ...POLLING, polling: { activeMs: 60_000, firstDelayMs: 60_000 } } } },
    emulatorEnv: { EMULATOR_BACKGROUND: 'off' },
  });

  it('a poll and a late webhook reporting the same order give one notice', async () => {
    const stack = t.stack;
    await stack.app.background.poller.pollNow(); // the baseline
    const order = await placeOrderElsewhere(t.emulator, 'late@example.com');
    expect(await stack.app.background.poller.pollNow()).toBe(1);
    await stack.sim.waitFor(() => externalNotices(stack, order.orderId)[0]);

    const late = envelope('order.created', {
      orderId: order.orderId,
      cardType: 'CHOICE_CARD',
      totalAmount: '10.00',
      currency: 'USD',
      recipientCount: 1,
    });
    expect((await postWebhook(stack.app.url, late, signed(late))).status).toBe(200);
    expect(await stack.app.background.poller.pollNow()).toBe(0);
    // The late event processed, and every notice posted: nothing is left that could post another.
    await noticesSettled(t.db);
    expect(externalNotices(stack, order.orderId)).toHaveLength(1);
  });

  it('an order the webhook reported first is not reported again by the poller', async () => {
    const stack = t.stack;
    await stack.app.background.poller.pollNow();
    const order = await placeOrderElsewhere(t.emulator, 'first@example.com');
    const early = envelope('order.created', {
      orderId: order.orderId,
      cardType: 'CHOICE_CARD',
      totalAmount: '10.00',
      currency: 'USD',
      recipientCount: 1,
    });
    expect((await postWebhook(stack.app.url, early, signed(early))).status).toBe(200);
    await stack.sim.waitFor(() => externalNotices(stack, order.orderId)[0]);
    expect(await stack.app.background.poller.pollNow()).toBe(0);
    expect(externalNotices(stack, order.orderId)).toHaveLength(1);
  });
});
