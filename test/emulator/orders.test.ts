import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { brandedOrder, cents, choiceOrder, key, useEmulator } from './helpers.js';

const t = useEmulator();

const balanceCents = async (client = t.api) => cents((await client.get('/balance')).body.data.availableBalance.amount);

describe('choice-card orders', () => {
  it('201 with the order summary; the full cost leaves the balance at once', async () => {
    const before = await balanceCents();
    const res = await t.api.post(
      '/orders/choice-cards',
      choiceOrder({
        recipients: [
          { email: 'a@example.com', amount: 25 },
          { email: 'b@example.com', amount: 40 },
        ],
      }),
    );
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      orderId: expect.stringMatching(/^OR/),
      orderType: 'ONE_TIME',
      status: 'PENDING',
      cardType: 'CHOICE_CARD',
      cardName: 'Thank You',
      totalCost: { amount: 65, currency: 'USD' },
      recipientCount: 2,
      sentCount: 0,
    });
    expect(res.body.data.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    expect(before - (await balanceCents())).toBe(6500);
  });

  it('accepts only whole dollars within [5, 500] (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 60_000 }), async (amountCents) => {
        const amount = amountCents / 100;
        const res = await t.sandbox.post(
          '/orders/choice-cards',
          choiceOrder({ recipients: [{ email: 'p@example.com', amount }] }),
        );
        const valid = amountCents % 100 === 0 && amountCents >= 500 && amountCents <= 50_000;
        if (valid) expect(res.status).toBe(201);
        else expect([res.status, res.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
      }),
      { numRuns: 60 },
    );
  });

  it('refuses bad requests with 400 VALIDATION_ERROR and changes nothing', async () => {
    const before = await balanceCents();
    const bad = [
      choiceOrder({ recipients: [] }),
      choiceOrder({ recipients: [{ email: 'not-an-email', amount: 25 }] }),
      choiceOrder({ recipients: [{ email: 'a@example.com', amount: '25' }] }),
      choiceOrder({ idempotencyKey: undefined }),
      choiceOrder({ refundOptionDays: 30 }),
      choiceOrder({ refundOption: true, refundOptionDays: 45 }),
      choiceOrder({ sendTiming: { type: 'IMMEDIATE', scheduledAt: '2030-01-01T10:00:00Z' } }),
      choiceOrder({ sendTiming: { type: 'SCHEDULED', timezone: 'UTC' } }),
      choiceOrder({ sendTiming: { type: 'SCHEDULED', scheduledAt: '2030-01-01T10:00:00', timezone: 'Mars/Olympus' } }),
      choiceOrder({ recipientGroupId: 'GR-1' }),
      choiceOrder({ recipients: Array.from({ length: 501 }, (_, i) => ({ email: `r${i}@example.com`, amount: 5 })) }),
    ];
    for (const body of bad) {
      const res = await t.api.post('/orders/choice-cards', body);
      expect(res.status, JSON.stringify(body).slice(0, 200)).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
    expect(await balanceCents()).toBe(before);
    expect((await t.api.get('/orders')).body.totalCount).toBe(0);
  });

  it('404 NOT_FOUND for an unknown or wrong-catalog product', async () => {
    for (const productId of ['CC-NOPE', 'BR-AMAZON-US']) {
      const res = await t.api.post('/orders/choice-cards', choiceOrder({ productId }));
      expect([res.status, res.body.error.code]).toEqual([404, 'NOT_FOUND']);
    }
  });

  it('refundOption true without days counts as 30', async () => {
    const res = await t.api.post('/orders/choice-cards', choiceOrder({ refundOption: true }));
    expect(res.body.data).toMatchObject({ refundOption: true, refundOptionDays: 30 });
  });
});

describe('branded-card orders', () => {
  it('accepts exactly the price points of a FIXED or RANGE product (property)', async () => {
    const products = (await t.sandbox.get('/catalog/branded-cards', { pageSize: 100 })).body.data as any[];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...products), fc.integer({ min: 1, max: 120_000 }), async (p, amountCents) => {
        const pc = p.prices.map(cents) as number[];
        const step = p.priceStep === null ? null : cents(p.priceStep);
        const valid =
          p.priceType === 'FIXED'
            ? pc.includes(amountCents)
            : amountCents >= pc[0]! && amountCents <= pc[1]! && (amountCents - pc[0]!) % step! === 0;
        const res = await t.sandbox.post(
          '/orders/branded-cards',
          brandedOrder({ productId: p.productId, recipients: [{ email: 'q@example.com', amount: amountCents / 100 }] }),
        );
        expect(res.status, `${p.productId} ${amountCents}`).toBe(valid ? 201 : 400);
      }),
      { numRuns: 80 },
    );
    // Hits on the valid side as well: every denomination and both range ends.
    for (const p of products.slice(0, 4)) {
      for (const amount of p.prices) {
        const res = await t.sandbox.post(
          '/orders/branded-cards',
          brandedOrder({ productId: p.productId, recipients: [{ email: 'q@example.com', amount }] }),
        );
        expect(res.status).toBe(201);
      }
    }
  });

  it('charges USD at the product exchange rate for a non-USD product', async () => {
    const eur = (await t.emu.exchangeRates()).find((r) => r.currency === 'EUR')!.usdPerUnit;
    const before = await balanceCents();
    const res = await t.api.post(
      '/orders/branded-cards',
      brandedOrder({
        productId: 'BR-IKEA-DE',
        recipients: [
          { email: 'x@example.com', amount: 50 },
          { email: 'y@example.com', amount: 20 },
        ],
      }),
    );
    expect(res.status).toBe(201);
    const expected = Math.round(7000 * eur);
    expect(cents(res.body.data.totalCost.amount)).toBe(expected);
    expect(res.body.data.totalCost.currency).toBe('USD');
    expect(before - (await balanceCents())).toBe(expected);
    const detail = (await t.api.get(`/orders/${res.body.data.orderId}`)).body.data;
    expect(detail.recipients[0]).toMatchObject({ amount: 50, currency: 'EUR' });
  });
});

describe('idempotency', () => {
  it('any reuse of a key is 409 DUPLICATE_IDEMPOTENCY_KEY, whatever the body; the original is untouched and found by clientOrderId', async () => {
    const k = key();
    const first = await t.api.post('/orders/choice-cards', choiceOrder({ idempotencyKey: k }));
    expect(first.status).toBe(201);
    const balance = await balanceCents();
    for (const body of [
      choiceOrder({ idempotencyKey: k }),
      choiceOrder({ idempotencyKey: k, recipients: [{ email: 'other@example.com', amount: 100 }] }),
      { idempotencyKey: k, nonsense: true },
      brandedOrder({ idempotencyKey: k }),
    ]) {
      const path =
        'productId' in body && String(body.productId).startsWith('BR')
          ? '/orders/branded-cards'
          : '/orders/choice-cards';
      const again = await t.api.post(path, body);
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('DUPLICATE_IDEMPOTENCY_KEY');
    }
    const links = await t.api.post('/orders/reward-links', {
      idempotencyKey: k,
      cardType: 'CHOICE_CARD',
      productId: 'CC-THANK-YOU',
      quantity: 1,
      amountPerLink: 10,
    });
    expect(links.status).toBe(409);
    expect(await balanceCents()).toBe(balance);
    const found = await t.api.get('/orders', { clientOrderId: k });
    expect(found.body.totalCount).toBe(1);
    expect(found.body.data[0]).toMatchObject({
      orderId: first.body.data.orderId,
      recipientCount: 1,
      totalCost: { amount: 25, currency: 'USD' },
    });
  });

  it('a refused request does not use up its key', async () => {
    const k = key();
    expect(
      (
        await t.api.post(
          '/orders/choice-cards',
          choiceOrder({ idempotencyKey: k, recipients: [{ email: 'a@example.com', amount: 3 }] }),
        )
      ).status,
    ).toBe(400);
    expect((await t.api.post('/orders/choice-cards', choiceOrder({ idempotencyKey: k }))).status).toBe(201);
  });

  it('keys are per environment', async () => {
    const k = key();
    expect((await t.api.post('/orders/choice-cards', choiceOrder({ idempotencyKey: k }))).status).toBe(201);
    expect((await t.sandbox.post('/orders/choice-cards', choiceOrder({ idempotencyKey: k }))).status).toBe(201);
    expect((await t.sandbox.get('/orders', { clientOrderId: k })).body.totalCount).toBe(1);
  });
});

describe('order life', () => {
  it('PENDING, then IN_PROGRESS, then COMPLETE with links; rewardLink null until COMPLETE; counts final; e-mails in the outbox', async () => {
    const created = (
      await t.api.post(
        '/orders/choice-cards',
        choiceOrder({
          recipients: [
            { email: 'ok@example.com', amount: 25 },
            { email: 'gone@bounce.test', amount: 30 },
          ],
        }),
      )
    ).body.data;
    const detail = async () => (await t.api.get(`/orders/${created.orderId}`)).body.data;
    let d = await detail();
    expect(d.status).toBe('PENDING');
    expect(d.recipients.map((r: any) => r.rewardLink)).toEqual([null, null]);
    await t.emu.advance(1);
    d = await detail();
    expect(d.status).toBe('IN_PROGRESS');
    expect(d.recipients.map((r: any) => r.rewardLink)).toEqual([null, null]);
    await t.emu.advance(5);
    d = await detail();
    expect(d).toMatchObject({ status: 'COMPLETE', sentCount: 1, bouncedCount: 1, recipientCount: 2 });
    for (const r of d.recipients) expect(r.rewardLink).toMatch(/^https:\/\//);
    const emails = (await t.emu.emails()) as any[];
    const mine = emails.filter((e) => e.orderId === created.orderId);
    expect(mine).toHaveLength(2);
    expect(mine.find((e) => e.to === 'ok@example.com')).toMatchObject({
      kind: 'card',
      bounced: false,
      amount: 25,
      currency: 'USD',
      rewardLink: d.recipients[0].rewardLink,
      subject: 'Thanks!',
    });
    expect(mine.find((e) => e.to === 'gone@bounce.test').bounced).toBe(true);
  });

  it('GET of an unknown order is 404 NOT_FOUND; detail comes in a data envelope', async () => {
    const res = await t.api.get('/orders/ORNOPE');
    expect([res.status, res.body.error.code]).toEqual([404, 'NOT_FOUND']);
    const created = (await t.api.post('/orders/choice-cards', choiceOrder())).body.data;
    expect((await t.api.get(`/orders/${created.orderId}`)).body).toEqual({
      data: expect.objectContaining({ orderId: created.orderId, recipients: expect.any(Array) }),
    });
  });

  it('orders of one environment are invisible to the other', async () => {
    const created = (await t.api.post('/orders/choice-cards', choiceOrder())).body.data;
    expect((await t.sandbox.get(`/orders/${created.orderId}`)).status).toBe(404);
  });
});

describe('reward links', () => {
  it('LO id, PENDING, charged in full at once; COMPLETE with one link per card after background generation', async () => {
    const before = await balanceCents();
    const res = await t.api.post('/orders/reward-links', {
      idempotencyKey: key(),
      cardType: 'CHOICE_CARD',
      productId: 'CC-CONGRATS',
      quantity: 3,
      amountPerLink: 20,
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      orderId: expect.stringMatching(/^LO/),
      orderType: 'LINK',
      status: 'PENDING',
      totalCost: { amount: 60, currency: 'USD' },
      recipientCount: 3,
    });
    expect(before - (await balanceCents())).toBe(6000);
    const id = res.body.data.orderId;
    expect(
      (await t.api.get(`/orders/${id}`)).body.data.recipients.every(
        (r: any) => r.rewardLink === null && r.email === null,
      ),
    ).toBe(true);
    await t.emu.advance(5);
    const done = (await t.api.get(`/orders/${id}`)).body.data;
    expect(done.status).toBe('COMPLETE');
    expect(new Set(done.recipients.map((r: any) => r.rewardLink)).size).toBe(3);
    expect((await t.api.get('/orders', { orderType: 'LINK' })).body.data.map((o: any) => o.orderId)).toEqual([id]);
  });

  it('branded links are converted at the exchange rate, and must be on the price step', async () => {
    const rate = (await t.emu.exchangeRates()).find((r) => r.currency === 'GBP')!.usdPerUnit;
    const ok = await t.api.post('/orders/reward-links', {
      idempotencyKey: key(),
      cardType: 'BRANDED_CARD',
      productId: 'BR-TESCO',
      quantity: 2,
      amountPerLink: 20,
    });
    expect(cents(ok.body.data.totalCost.amount)).toBe(Math.round(4000 * rate));
    const bad = await t.api.post('/orders/reward-links', {
      idempotencyKey: key(),
      cardType: 'BRANDED_CARD',
      productId: 'BR-TESCO',
      quantity: 2,
      amountPerLink: 15,
    });
    expect(bad.status).toBe(400);
  });

  it('at most 500 links per request', async () => {
    const ok = await t.sandbox.post('/orders/reward-links', {
      idempotencyKey: key(),
      cardType: 'CHOICE_CARD',
      productId: 'CC-THANK-YOU',
      quantity: 500,
      amountPerLink: 5,
    });
    expect(ok.status).toBe(201);
    const tooMany = await t.sandbox.post('/orders/reward-links', {
      idempotencyKey: key(),
      cardType: 'CHOICE_CARD',
      productId: 'CC-THANK-YOU',
      quantity: 501,
      amountPerLink: 5,
    });
    expect([tooMany.status, tooMany.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
  });
});

describe('listing orders', () => {
  it('filters by orderType, cardType, status, dates, keyword and clientOrderId; newest first', async () => {
    const c1 = (
      await t.api.post('/orders/choice-cards', choiceOrder({ recipients: [{ email: 'zed@example.com', amount: 10 }] }))
    ).body.data;
    const b1 = (await t.api.post('/orders/branded-cards', brandedOrder())).body.data;
    await t.emu.advance(86400 * 2);
    const c2 = (await t.api.post('/orders/choice-cards', choiceOrder())).body.data;
    const ids = async (q: Record<string, string>) =>
      (await t.api.get('/orders', q)).body.data.map((o: any) => o.orderId);
    expect(await ids({})).toEqual([c2.orderId, b1.orderId, c1.orderId]);
    expect(await ids({ cardType: 'BRANDED_CARD' })).toEqual([b1.orderId]);
    expect(await ids({ orderType: 'ONE_TIME' })).toHaveLength(3);
    expect(await ids({ status: 'COMPLETE' })).toEqual([b1.orderId, c1.orderId]);
    expect(await ids({ status: 'PENDING' })).toEqual([c2.orderId]);
    const day1 = c1.createdAt.slice(0, 10);
    const day3 = c2.createdAt.slice(0, 10);
    expect(await ids({ startDate: day3 })).toEqual([c2.orderId]);
    expect(await ids({ endDate: day1 })).toEqual([b1.orderId, c1.orderId]);
    expect(await ids({ startDate: day1, endDate: day1 })).toHaveLength(2);
    expect(await ids({ searchKeyword: 'ZED@' })).toEqual([c1.orderId]);
    expect(await ids({ searchKeyword: 'amazon' })).toEqual([b1.orderId]);
    for (const q of [
      { status: 'DONE' },
      { startDate: '2025-02-30' },
      { endDate: 'yesterday' },
      { orderType: 'x' },
    ] as Array<Record<string, string>>) {
      expect((await t.api.get('/orders', q)).status).toBe(400);
    }
  });
});

describe('spending limits and balance', () => {
  it('402 INSUFFICIENT_BALANCE when the balance does not cover the order; nothing charged', async () => {
    await t.emu.setBalance(30);
    const res = await t.api.post(
      '/orders/choice-cards',
      choiceOrder({
        recipients: [
          { email: 'a@example.com', amount: 20 },
          { email: 'b@example.com', amount: 20 },
        ],
      }),
    );
    expect([res.status, res.body.error.code]).toEqual([402, 'INSUFFICIENT_BALANCE']);
    expect(await balanceCents()).toBe(3000);
    expect(
      (await t.api.post('/orders/choice-cards', choiceOrder({ recipients: [{ email: 'a@example.com', amount: 30 }] })))
        .status,
    ).toBe(201);
    expect(await balanceCents()).toBe(0);
  });

  it('422 DAILY_LIMIT_EXCEEDED above 5000 USD in a UTC day; the next day is fresh', async () => {
    const nine = Array.from({ length: 10 }, (_, i) => ({ email: `d${i}@example.com`, amount: 500 }));
    expect((await t.api.post('/orders/choice-cards', choiceOrder({ recipients: nine }))).status).toBe(201);
    const over = await t.api.post(
      '/orders/choice-cards',
      choiceOrder({ recipients: [{ email: 'x@example.com', amount: 5 }] }),
    );
    expect([over.status, over.body.error.code]).toEqual([422, 'DAILY_LIMIT_EXCEEDED']);
    await t.emu.advance(86400);
    expect(
      (await t.api.post('/orders/choice-cards', choiceOrder({ recipients: [{ email: 'x@example.com', amount: 5 }] })))
        .status,
    ).toBe(201);
  });

  it('422 MONTHLY_LIMIT_EXCEEDED above the monthly limit', async () => {
    await t.emu.setLimits({ dailyLimitUsd: 5000, monthlyLimitUsd: 100 });
    // Stay inside one UTC month: the seed clock may be near a month end, so move to a fresh month start first.
    const now = new Date(await t.emu.now());
    const nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 1);
    await t.emu.advance((nextMonth - now.getTime()) / 1000);
    expect(
      (await t.api.post('/orders/choice-cards', choiceOrder({ recipients: [{ email: 'a@example.com', amount: 80 }] })))
        .status,
    ).toBe(201);
    await t.emu.advance(86400);
    const over = await t.api.post(
      '/orders/choice-cards',
      choiceOrder({ recipients: [{ email: 'a@example.com', amount: 25 }] }),
    );
    expect([over.status, over.body.error.code]).toEqual([422, 'MONTHLY_LIMIT_EXCEEDED']);
  });

  it('sandbox orders do not charge the sandbox balance', async () => {
    const before = await balanceCents(t.sandbox);
    expect(
      (
        await t.sandbox.post(
          '/orders/choice-cards',
          choiceOrder({ recipients: [{ email: 'a@example.com', amount: 500 }] }),
        )
      ).status,
    ).toBe(201);
    expect(await balanceCents(t.sandbox)).toBe(before);
  });
});
