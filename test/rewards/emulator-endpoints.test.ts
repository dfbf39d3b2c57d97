// Every endpoint of spec 4.1-4.8 through the client, against the real emulator over HTTP.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import {
  createRewardsClient,
  ErrorCodes,
  RewardsAuthError,
  type RewardsClient,
  RewardsConflictError,
  RewardsNotFoundError,
  RewardsPaymentRequiredError,
  RewardsPermissionError,
  toCents,
} from '../../src/rewards/index.js';
import { startTestEmulator, type TestEmulator } from '../support/emulator.js';

let emulator: TestEmulator;
let client: RewardsClient;
let choiceProductId: string;

function newClient(overrides: Partial<Parameters<typeof createRewardsClient>[0]> = {}): RewardsClient {
  return createRewardsClient({
    baseUrl: emulator.url,
    clientId: 'production-client',
    clientSecret: 'production-secret',
    retryBaseDelayMs: 10,
    maxRetryDelayMs: 200,
    ...overrides,
  });
}

beforeAll(async () => {
  emulator = await startTestEmulator();
  client = newClient();
});
afterAll(async () => {
  await client?.close();
  await emulator?.close();
});
beforeEach(async () => {
  await emulator.reset();
  choiceProductId = (await client.catalog.listChoiceCards()).data[0]!.productId;
});

const emailSetting = { senderName: 'Maya Manager', subject: 'Thank you!' };
const balanceCents = async () => toCents((await client.balance.get()).availableBalance.amount);

describe('catalog', () => {
  it('lists and gets choice and branded products, with search and pagination', async () => {
    const choices = await client.catalog.listChoiceCards();
    expect(choices.data.length).toBeGreaterThanOrEqual(3);
    expect(choices.data[0]!.priceType).toBe('RANGE');
    const choice = await client.catalog.getChoiceCard(choiceProductId);
    expect(choice.productId).toBe(choiceProductId);
    expect(choice.prices).toHaveLength(2);

    const allBranded = await client.catalog.listBrandedCards().all();
    expect(allBranded.length).toBeGreaterThanOrEqual(10);
    expect(allBranded.some((p) => p.priceType === 'FIXED')).toBe(true);
    expect(allBranded.some((p) => p.priceType === 'RANGE')).toBe(true);
    expect(allBranded.some((p) => p.countryCode === 'GLOBAL')).toBe(true);
    expect(allBranded.some((p) => p.countryCode === null)).toBe(true);

    // Walking 3 per page gives the same products as one big page.
    const paged: string[] = [];
    const small = await client.catalog.listBrandedCards({ pageSize: 3 });
    expect(small.data).toHaveLength(3);
    expect(small.totalCount).toBe(allBranded.length);
    for await (const product of client.catalog.listBrandedCards({ pageSize: 3 })) paged.push(product.productId);
    expect(paged).toEqual(allBranded.map((p) => p.productId));

    const first = allBranded[0]!;
    const searched = await client.catalog.listBrandedCards({ search: first.brandName ?? first.productId });
    expect(searched.data.map((p) => p.productId)).toContain(first.productId);
    expect((await client.catalog.getBrandedCard(first.productId)).productId).toBe(first.productId);
  });

  it('an unknown product is RewardsNotFoundError NOT_FOUND', async () => {
    const error = await client.catalog.getBrandedCard('NO-SUCH-PRODUCT').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RewardsNotFoundError);
    expect(error).toMatchObject({ status: 404, code: ErrorCodes.NOT_FOUND });
    await expect(client.catalog.getChoiceCard('NO-SUCH-DESIGN')).rejects.toBeInstanceOf(RewardsNotFoundError);
  });
});

describe('orders', () => {
  it('places a choice order once, charges the balance, lists it by clientOrderId and completes it', async () => {
    const before = await balanceCents();
    const created = await client.orders.createChoice(
      {
        productId: choiceProductId,
        recipients: [
          { email: 'ann@example.com', amount: '25' },
          { email: 'bob@example.com', amount: 30 },
        ],
        emailSetting,
      },
      { idempotencyKey: 'kudos-choice-1' },
    );
    expect(created.recovered).toBe(false);
    expect(created.order).toMatchObject({
      cardType: 'CHOICE_CARD',
      totalCost: { amount: '55.00', currency: 'USD' },
      recipientCount: 2,
    });
    expect(await balanceCents()).toBe(before - 5500);

    const found = await client.orders.findByClientOrderId('kudos-choice-1');
    expect(found?.orderId).toBe(created.order.orderId);
    const listed = await client.orders.list({ clientOrderId: 'kudos-choice-1' });
    expect(listed.data.map((o) => o.orderId)).toEqual([created.order.orderId]);

    await emulator.advance(600);
    const detail = await client.orders.get(created.order.orderId);
    expect(detail.status).toBe('COMPLETE');
    expect(detail.recipients).toHaveLength(2);
    expect(detail.createdAt).toBeInstanceOf(Date);
    expect(detail.refundOption).toBe(false);
  });

  it('places a branded order at a FIXED denomination', async () => {
    const fixed = (await client.catalog.listBrandedCards().all()).find(
      (p) => p.priceType === 'FIXED' && (p.currencyCode ?? 'USD') === 'USD',
    )!;
    const created = await client.orders.createBranded(
      {
        productId: fixed.productId,
        recipients: [{ email: 'ann@example.com', amount: fixed.prices[0]! }],
        emailSetting,
      },
      { idempotencyKey: 'kudos-branded-1' },
    );
    expect(created.order).toMatchObject({ cardType: 'BRANDED_CARD', recipientCount: 1 });
    expect(toCents(created.order.totalCost!.amount)).toBe(toCents(fixed.prices[0]!));
  });

  it('reward links: LO id, PENDING without links, COMPLETE with links; >500 split in two orders', async () => {
    const before = await balanceCents();
    const small = await client.orders.createRewardLinks(
      { cardType: 'CHOICE_CARD', productId: choiceProductId, quantity: 3, amountPerLink: '10.00' },
      { idempotencyKey: 'links-1' },
    );
    expect(small.order.orderId.startsWith('LO')).toBe(true);
    expect(small.order.status).toBe('PENDING');
    const pending = await client.orders.get(small.order.orderId);
    expect(pending.recipients.every((r) => r.rewardLink === null || r.rewardLink === undefined)).toBe(true);
    await emulator.advance(600);
    const complete = await client.orders.get(small.order.orderId);
    expect(complete.status).toBe('COMPLETE');
    expect(complete.recipients).toHaveLength(3);
    expect(complete.recipients.every((r) => typeof r.rewardLink === 'string' && r.email == null)).toBe(true);

    const big = await client.orders.createRewardLinks(
      { cardType: 'CHOICE_CARD', productId: choiceProductId, quantity: 501, amountPerLink: 5 },
      { idempotencyKey: 'links-2' },
    );
    expect(big.orders.map((o) => o.order.recipientCount)).toEqual([500, 1]);
    expect((await client.orders.findByClientOrderId('links-2-1'))?.orderId).toBe(big.orders[0]!.order.orderId);
    expect((await client.orders.findByClientOrderId('links-2-2'))?.orderId).toBe(big.orders[1]!.order.orderId);
    expect(await balanceCents()).toBe(before - 3000 - 250500);
    const links = await client.orders.list({ orderType: 'LINK' }).all();
    expect(links).toHaveLength(3);
  });

  it('cancels a scheduled order (refundOption becomes a boolean, balance refunded); an immediate one is not cancelable', async () => {
    const before = await balanceCents();
    const scheduledAt = new Date(Date.parse(await emulator.now()) + 24 * 3600_000);
    const scheduled = await client.orders.createChoice(
      {
        productId: choiceProductId,
        recipients: [{ email: 'ann@example.com', amount: 20 }],
        emailSetting,
        sendTiming: { type: 'SCHEDULED', scheduledAt, timezone: 'America/New_York' },
        refundOption: true,
        refundOptionDays: 60,
      },
      { idempotencyKey: 'sched-1' },
    );
    const canceled = await client.orders.cancel(scheduled.order.orderId);
    expect(canceled).toMatchObject({
      orderId: scheduled.order.orderId,
      status: 'CANCELED',
      refundOption: true,
      refundOptionDays: 60,
    });
    expect(canceled.canceledAt).toBeInstanceOf(Date);
    expect(await balanceCents()).toBe(before);
    // A second cancel (double click, lost answer) reports the cancellation, refunds nothing twice.
    await expect(client.orders.cancel(scheduled.order.orderId)).resolves.toMatchObject({
      status: 'CANCELED',
      alreadyCanceled: true,
    });
    expect(await balanceCents()).toBe(before);

    const immediate = await client.orders.createChoice(
      { productId: choiceProductId, recipients: [{ email: 'ann@example.com', amount: 20 }], emailSetting },
      { idempotencyKey: 'now-1' },
    );
    const error = await client.orders.cancel(immediate.order.orderId).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCodes.ORDER_NOT_CANCELABLE });
  });

  it('resends to a corrected address, sends a test e-mail, requests a limit increase', async () => {
    const created = await client.orders.createChoice(
      { productId: choiceProductId, recipients: [{ email: 'ann@bounce.test', amount: 10 }], emailSetting },
      { idempotencyKey: 'bounce-1' },
    );
    await emulator.advance(600);
    const resent = await client.orders.resend(created.order.orderId, {
      recipients: [{ email: 'ann@bounce.test', updatedEmail: 'ann@example.com' }],
    });
    expect(resent.resentToEmails).toEqual(['ann@example.com']);

    const test = await client.orders.sendTestEmail({
      email: 'me@example.com',
      productId: choiceProductId,
      amount: '25.00',
      emailSubject: 'Preview',
    });
    expect(test).toMatchObject({ status: 'SENT', sentTo: 'me@example.com' });
    expect(typeof test.remainingToday).toBe('number');

    const increase = await client.orders.requestLimitIncrease({
      currentDailyLimitUsd: 5000,
      currentMonthlyLimitUsd: 50000,
      requestedDailyLimitUsd: 8000,
      requestedMonthlyLimitUsd: '60000.00',
    });
    expect(increase.status).toBe('PENDING_REVIEW');
    const stale = await client.orders
      .requestLimitIncrease({
        currentDailyLimitUsd: 1,
        currentMonthlyLimitUsd: 2,
        requestedDailyLimitUsd: 3,
        requestedMonthlyLimitUsd: 4,
      })
      .catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(RewardsConflictError);
    expect(stale).toMatchObject({ code: ErrorCodes.STALE_LIMIT_SNAPSHOT });
  });

  it('insufficient balance is RewardsPaymentRequiredError INSUFFICIENT_BALANCE', async () => {
    await emulator.setBalance(10);
    const error = await client.orders
      .createChoice(
        { productId: choiceProductId, recipients: [{ email: 'ann@example.com', amount: 25 }], emailSetting },
        { idempotencyKey: 'poor-1' },
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RewardsPaymentRequiredError);
    expect(error).toMatchObject({ code: ErrorCodes.INSUFFICIENT_BALANCE });
  });
});

describe('campaigns and templates', () => {
  it('creates, reads, updates, executes exactly once, and deletes a campaign', async () => {
    const template = await client.templates.create({ name: 'Kudos', senderName: 'Kudos Bot', buttonColor: '#336699' });
    expect(template.templateId).toBeTruthy();
    expect((await client.templates.list().all()).map((t) => t.templateId)).toContain(template.templateId);

    const params = {
      name: 'Spot award',
      productId: choiceProductId,
      amount: '25',
      subject: 'Well done',
      senderName: 'Maya',
      templateId: template.templateId,
    };
    const campaign = await client.campaigns.create(params);
    expect(campaign.campaignId.startsWith('CA-')).toBe(true);
    expect(campaign.amount).toBe('25.00');
    expect((await client.campaigns.get(campaign.campaignId)).name).toBe('Spot award');
    const updated = await client.campaigns.update(campaign.campaignId, { ...params, name: 'Spot award 2', amount: 30 });
    expect(updated).toMatchObject({ name: 'Spot award 2', amount: '30.00' });
    expect((await client.campaigns.list({ search: 'Spot' })).data.map((c) => c.campaignId)).toEqual([
      campaign.campaignId,
    ]);

    const before = await balanceCents();
    const recipients = [{ email: 'ann@example.com' }, { email: 'bob@example.com' }];
    const executed = await client.campaigns.execute(
      campaign.campaignId,
      { recipients },
      { idempotencyKey: 'camp-exec-1' },
    );
    const again = await client.campaigns.execute(
      campaign.campaignId,
      { recipients },
      { idempotencyKey: 'camp-exec-1' },
    );
    expect(again.order.orderId).toBe(executed.order.orderId);
    expect(await balanceCents()).toBe(before - 6000);

    await client.campaigns.delete(campaign.campaignId);
    expect((await client.campaigns.list()).data).toHaveLength(0);
  });
});

describe('recipients and groups', () => {
  it('manages the address book', async () => {
    const ann = await client.recipients.create({ email: 'ann@example.com', firstName: 'Ann', department: 'Ops' });
    expect(ann.recipientId.startsWith('RE-')).toBe(true);
    expect((await client.recipients.get(ann.recipientId)).email).toBe('ann@example.com');
    const updated = await client.recipients.update(ann.recipientId, { email: 'ann@example.org', firstName: 'Ann' });
    expect(updated.email).toBe('ann@example.org');
    expect((await client.recipients.list({ searchKeyword: 'example.org' })).data.map((r) => r.recipientId)).toEqual([
      ann.recipientId,
    ]);
    const duplicate = await client.recipients.create({ email: 'ann@example.org' }).catch((e: unknown) => e);
    expect(duplicate).toMatchObject({ status: 409, code: ErrorCodes.EMAIL_TAKEN });
    await client.recipients.delete(ann.recipientId);
    await expect(client.recipients.get(ann.recipientId)).rejects.toBeInstanceOf(RewardsNotFoundError);
  });

  it('manages groups and members', async () => {
    const ann = await client.recipients.create({ email: 'ann@example.com' });
    const bob = await client.recipients.create({ email: 'bob@example.com' });
    const group = await client.groups.create('Engineering');
    await client.groups.addMember(group.groupId, ann.recipientId);
    await client.groups.addMember(group.groupId, ann.recipientId); // silently accepted again
    await client.groups.addMember(group.groupId, bob.recipientId);
    expect((await client.groups.get(group.groupId)).memberCount).toBe(2);
    expect((await client.groups.listMembers(group.groupId).all()).map((m) => m.recipientId).sort()).toEqual(
      [ann.recipientId, bob.recipientId].sort(),
    );
    await client.groups.removeMember(group.groupId, bob.recipientId);
    expect((await client.groups.get(group.groupId)).memberCount).toBe(1);
    const renamed = await client.groups.rename(group.groupId, 'Platform');
    expect(renamed.groupName).toBe('Platform');
    await client.groups.create('Sales');
    await expect(client.groups.create('Sales')).rejects.toMatchObject({ code: ErrorCodes.GROUP_NAME_TAKEN });
    expect((await client.groups.list()).totalCount).toBe(2);
    await client.groups.delete(group.groupId);
    await expect(client.groups.get(group.groupId)).rejects.toBeInstanceOf(RewardsNotFoundError);
  });
});

describe('balance', () => {
  const topUp = {
    amount: '250.00',
    companyName: 'Kudos Inc',
    phoneNumber: '+1 555 0100',
    billingAddress: '1 Main St',
    city: 'Springfield',
    state: 'IL',
    country: 'US',
    zipCode: '62701',
    ein: '12-3456789',
  };

  it('reads the balance and the ledger, requests and cancels a top-up', async () => {
    const balance = await client.balance.get();
    expect(balance.availableBalance).toEqual({ amount: '10000.00', currency: 'USD' });
    await client.orders.createChoice(
      { productId: choiceProductId, recipients: [{ email: 'ann@example.com', amount: 25 }], emailSetting },
      { idempotencyKey: 'ledger-1' },
    );
    const rows = await client.balance.ledger().all();
    expect(rows[0]).toMatchObject({ type: 'USE', signedAmount: { amount: '-25.00', currency: 'USD' } });
    const sum = rows.reduce((total, row) => total + toCents((row.signedAmount ?? row.amount).amount), 0);
    expect(sum).toBe(toCents((await client.balance.get()).availableBalance.amount));

    const funding = await client.balance.topUp(topUp);
    expect(funding).toMatchObject({ status: 'PENDING', amount: { amount: '250.00', currency: 'USD' } });
    expect((await client.balance.get()).pendingBalance.amount).toBe('250.00');
    const canceled = await client.balance.cancelTopUp(funding.fundingNo);
    expect(canceled.status).toBe('CANCELED');
    expect(canceled.canceledAt).toBeInstanceOf(Date);
    await expect(client.balance.cancelTopUp(funding.fundingNo)).rejects.toMatchObject({
      code: ErrorCodes.FUNDING_NOT_CANCELABLE,
    });
  });

  it('top-ups are production only', async () => {
    const sandbox = newClient({ clientId: 'sandbox-client', clientSecret: 'sandbox-secret' });
    try {
      const error = await sandbox.balance.topUp(topUp).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RewardsPermissionError);
      expect(error).toMatchObject({ code: ErrorCodes.PRODUCTION_ONLY });
    } finally {
      await sandbox.close();
    }
  });
});

describe('auth against the emulator', () => {
  it('missing scope is RewardsPermissionError INSUFFICIENT_SCOPE', async () => {
    const narrow = newClient({ scopes: ['catalog.read'] });
    try {
      await expect(narrow.catalog.listChoiceCards()).resolves.toBeDefined();
      await expect(narrow.orders.list()).rejects.toMatchObject({
        name: 'RewardsPermissionError',
        code: ErrorCodes.INSUFFICIENT_SCOPE,
      });
    } finally {
      await narrow.close();
    }
  });

  it('wrong credentials are RewardsAuthError', async () => {
    const wrong = newClient({ clientSecret: 'nope' });
    try {
      await expect(wrong.balance.get()).rejects.toBeInstanceOf(RewardsAuthError);
    } finally {
      await wrong.close();
    }
  });
});

describe('webhooks from the emulator', () => {
  it('the challenge and an order.created delivery verify and parse with the client helpers', async () => {
    const { createServer } = await import('node:http');
    const { verifyWebhookSignature, parseWebhookBody, isOrderCreatedEvent } =
      await import('../../src/rewards/index.js');
    const received: Array<{ valid: boolean; parsed: ReturnType<typeof parseWebhookBody> }> = [];
    let notify: () => void = () => undefined;
    const orderSeen = new Promise<void>((resolve) => (notify = resolve));
    // eslint-disable-next-line @typescript-eslint/no-misused-promises -- a test server: a throw here fails the test that waits on it
    const receiver = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const raw = Buffer.concat(chunks);
      const header = req.headers['x-service-signature'];
      const valid = verifyWebhookSignature(
        raw,
        typeof header === 'string' ? header : undefined,
        'emulator-signing-secret',
      );
      const parsed = parseWebhookBody(raw);
      received.push({ valid, parsed });
      if (parsed.kind === 'challenge') {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ challengeToken: parsed.challengeToken }));
        return;
      }
      res.writeHead(204).end();
      if (isOrderCreatedEvent(parsed.event)) notify();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const port = (receiver.address() as import('node:net').AddressInfo).port;
    try {
      expect(await emulator.registerWebhook(`http://127.0.0.1:${port}/webhooks/rewards`)).toMatchObject({
        active: true,
      });
      const created = await client.orders.createChoice(
        {
          productId: choiceProductId,
          recipients: [
            { email: 'ann@example.com', amount: 40 },
            { email: 'bob@example.com', amount: 10 },
          ],
          emailSetting,
        },
        { idempotencyKey: 'hook-1' },
      );
      await Promise.race([orderSeen, emulator.advance(1).then(() => orderSeen)]);
      const event = received.find((r) => r.parsed.kind === 'event' && r.parsed.event.eventType === 'order.created');
      expect(event?.valid).toBe(true);
      expect(event?.parsed).toMatchObject({
        kind: 'event',
        event: {
          eventType: 'order.created',
          data: { orderId: created.order.orderId, totalAmount: '50.00', currency: 'USD', recipientCount: 2 },
        },
      });
      expect(received.every((r) => r.valid)).toBe(true);
    } finally {
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });
});
