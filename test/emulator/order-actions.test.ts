import { describe, expect, it } from 'vitest';

import { choiceOrder, key, useEmulator } from './helpers.js';

const t = useEmulator();

describe('POST /orders/{id}/resend', () => {
  it('resends a completed order, to the updatedEmail when given', async () => {
    const order = (
      await t.api.post(
        '/orders/choice-cards',
        choiceOrder({
          recipients: [
            { email: 'old@example.com', amount: 10 },
            { email: 'keep@example.com', amount: 10 },
          ],
        }),
      )
    ).body.data;
    await t.emu.advance(10);
    const res = await t.api.post(`/orders/${order.orderId}/resend`, {
      recipients: [{ email: 'old@example.com', updatedEmail: 'new@example.com' }, { email: 'keep@example.com' }],
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      orderId: order.orderId,
      requeued: true,
      resentToEmails: ['new@example.com', 'keep@example.com'],
    });
    const resends = ((await t.emu.emails()) as any[]).filter((e) => e.kind === 'resend');
    expect(resends.map((e) => e.to)).toEqual(['new@example.com', 'keep@example.com']);
    expect(resends[0].rewardLink).toMatch(/^https:/);
    const detail = (await t.api.get(`/orders/${order.orderId}`)).body.data;
    expect(detail.recipients.map((r: any) => r.email)).toEqual(['new@example.com', 'keep@example.com']);
  });

  it('refuses an order not yet COMPLETE, a non-recipient address, and an unknown order', async () => {
    const order = (await t.api.post('/orders/choice-cards', choiceOrder())).body.data;
    const early = await t.api.post(`/orders/${order.orderId}/resend`, { recipients: [{ email: 'ann@example.com' }] });
    expect([early.status, early.body.error.code]).toEqual([409, 'ORDER_NOT_RESENDABLE']);
    await t.emu.advance(10);
    const stranger = await t.api.post(`/orders/${order.orderId}/resend`, {
      recipients: [{ email: 'stranger@example.com' }],
    });
    expect([stranger.status, stranger.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect((await t.api.post(`/orders/${order.orderId}/resend`, { recipients: [] })).status).toBe(400);
    expect((await t.api.post('/orders/ORNOPE/resend', { recipients: [{ email: 'a@example.com' }] })).status).toBe(404);
  });
});

describe('POST /orders/test-email', () => {
  const testEmail = (extra: Record<string, unknown> = {}) => ({
    email: 'me@example.com',
    productId: 'CC-THANK-YOU',
    amount: 25,
    emailSubject: 'Preview',
    ...extra,
  });

  it('sends a preview (not charged, not in order history), 10 per UTC day, then 422', async () => {
    const balance = (await t.api.get('/balance')).body.data.availableBalance.amount;
    for (let i = 1; i <= 10; i++) {
      const res = await t.api.post('/orders/test-email', testEmail());
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        sentTo: 'me@example.com',
        status: 'SENT',
        remainingToday: 10 - i,
        sentAt: expect.any(String),
      });
    }
    const over = await t.api.post('/orders/test-email', testEmail());
    expect([over.status, over.body.error.code]).toEqual([422, 'TEST_EMAIL_LIMIT_EXCEEDED']);
    expect((await t.api.get('/balance')).body.data.availableBalance.amount).toBe(balance);
    expect((await t.api.get('/orders')).body.totalCount).toBe(0);
    expect(((await t.emu.emails()) as any[]).filter((e) => e.kind === 'test')).toHaveLength(10);
    const now = new Date(await t.emu.now());
    await t.emu.advance(
      (Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) - now.getTime()) / 1000 + 1,
    );
    expect((await t.api.post('/orders/test-email', testEmail())).status).toBe(200);
  });

  it('uses the template sender unless senderName is given', async () => {
    const tpl = (await t.api.post('/templates', { name: 'Team', senderName: 'Team Kudos', message: 'Hi there' })).body
      .data;
    await t.api.post('/orders/test-email', testEmail({ templateId: tpl.templateId }));
    await t.api.post(
      '/orders/test-email',
      testEmail({ templateId: tpl.templateId, senderName: 'Maya', emailMessage: 'Custom' }),
    );
    const [a, b] = ((await t.emu.emails()) as any[]).filter((e) => e.kind === 'test');
    expect([a.senderName, a.message]).toEqual(['Team Kudos', 'Hi there']);
    expect([b.senderName, b.message]).toEqual(['Maya', 'Custom']);
  });

  it('choice cards only; whole dollars in range; unknown product 404', async () => {
    expect((await t.api.post('/orders/test-email', testEmail({ productId: 'BR-AMAZON-US' }))).body.error.code).toBe(
      'VALIDATION_ERROR',
    );
    expect((await t.api.post('/orders/test-email', testEmail({ amount: 5.5 }))).status).toBe(400);
    expect((await t.api.post('/orders/test-email', testEmail({ amount: 501 }))).status).toBe(400);
    expect((await t.api.post('/orders/test-email', testEmail({ productId: 'CC-NOPE' }))).status).toBe(404);
    expect((await t.api.post('/orders/test-email', testEmail({ email: 'nope' }))).status).toBe(400);
  });
});

describe('POST /orders/limit-increase-requests', () => {
  it('queues a request when the current limits match the records (not applied)', async () => {
    const res = await t.api.post('/orders/limit-increase-requests', {
      currentDailyLimitUsd: 5000,
      currentMonthlyLimitUsd: 50000,
      requestedDailyLimitUsd: 8000,
      requestedMonthlyLimitUsd: 80000,
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ status: 'PENDING_REVIEW', message: expect.any(String) });
    // Still the old limit: 5000 in a day is the most.
    const big = Array.from({ length: 11 }, (_, i) => ({ email: `x${i}@example.com`, amount: 500 }));
    expect(
      (await t.api.post('/orders/choice-cards', choiceOrder({ idempotencyKey: key(), recipients: big }))).body.error
        .code,
    ).toBe('DAILY_LIMIT_EXCEEDED');
  });

  it('409 STALE_LIMIT_SNAPSHOT when the current limits differ', async () => {
    const res = await t.api.post('/orders/limit-increase-requests', {
      currentDailyLimitUsd: 4000,
      currentMonthlyLimitUsd: 50000,
      requestedDailyLimitUsd: 8000,
      requestedMonthlyLimitUsd: 80000,
    });
    expect([res.status, res.body.error.code]).toEqual([409, 'STALE_LIMIT_SNAPSHOT']);
    expect(res.body.error.details).toEqual({ currentDailyLimitUsd: 5000, currentMonthlyLimitUsd: 50000 });
    expect((await t.api.post('/orders/limit-increase-requests', { currentDailyLimitUsd: 5000 })).status).toBe(400);
  });
});
