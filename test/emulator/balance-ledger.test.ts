import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { type ApiClient, brandedOrder, cents, choiceOrder, key, useEmulator } from './helpers.js';

const t = useEmulator();

const topUp = (amount: number, extra: Record<string, unknown> = {}) => ({
  amount,
  companyName: 'ACME',
  phoneNumber: '+1 555 0100',
  billingAddress: '1 Main St',
  city: 'Springfield',
  state: 'IL',
  country: 'USA',
  zipCode: '62701',
  ein: '12-3456789',
  ...extra,
});

async function allLedger(client: ApiClient, q: Record<string, string> = {}) {
  const rows: any[] = [];
  for (let page = 1; ; page++) {
    const res = await client.get('/balance/ledger', { ...q, page, pageSize: 100 });
    rows.push(...res.body.data);
    if (rows.length >= res.body.totalCount) return rows;
  }
}

describe('balance', () => {
  it('production starts at 10000.00 USD with nothing pending; sandbox pending is always 0', async () => {
    expect((await t.api.get('/balance')).body.data).toEqual({
      availableBalance: { amount: 10000, currency: 'USD' },
      pendingBalance: { amount: 0, currency: 'USD' },
    });
    expect((await t.sandbox.get('/balance')).body.data.pendingBalance.amount).toBe(0);
  });
});

describe('ACH top-up', () => {
  it('creates a PENDING funding request counted in pendingBalance; a Pending ledger row not yet credited', async () => {
    const res = await t.api.post('/balance/charge', topUp(250.5));
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      fundingNo: expect.any(String),
      amount: { amount: 250.5, currency: 'USD' },
      status: 'PENDING',
      message: expect.any(String),
      estimatedProcessingTime: expect.any(String),
    });
    expect(res.body.data.createdAt).toMatch(/Z$/);
    const balance = (await t.api.get('/balance')).body.data;
    expect(balance).toEqual({
      availableBalance: { amount: 10000, currency: 'USD' },
      pendingBalance: { amount: 250.5, currency: 'USD' },
    });
    const row = (await t.api.get('/balance/ledger')).body.data[0];
    expect(row).toMatchObject({
      referenceNumber: res.body.data.fundingNo,
      type: 'CHARGE',
      source: 'funding',
      status: '90',
      statusLabel: 'Pending',
      signedAmount: { amount: 250.5 },
    });
  });

  it('cancel: CANCELED with canceledAt, leaves pendingBalance; a second cancel is 409 FUNDING_NOT_CANCELABLE', async () => {
    const f = (await t.api.post('/balance/charge', topUp(100))).body.data;
    const cancel = await t.api.del(`/balance/charge/${f.fundingNo}`);
    expect(cancel.status).toBe(200);
    expect(cancel.body.data).toMatchObject({
      fundingNo: f.fundingNo,
      amount: { amount: 100, currency: 'USD' },
      status: 'CANCELED',
      canceledAt: expect.stringMatching(/Z$/),
    });
    expect((await t.api.get('/balance')).body.data.pendingBalance.amount).toBe(0);
    const again = await t.api.del(`/balance/charge/${f.fundingNo}`);
    expect([again.status, again.body.error.code]).toEqual([409, 'FUNDING_NOT_CANCELABLE']);
    expect((await t.api.del('/balance/charge/FDNOPE')).status).toBe(404);
  });

  it('a processed (approved or rejected) request cannot be canceled; approval credits the balance', async () => {
    const f = (await t.api.post('/balance/charge', topUp(500))).body.data;
    await t.emu.processTopUp(f.fundingNo, 'approve');
    expect((await t.api.get('/balance')).body.data).toMatchObject({
      availableBalance: { amount: 10500 },
      pendingBalance: { amount: 0 },
    });
    expect((await t.api.del(`/balance/charge/${f.fundingNo}`)).body.error.code).toBe('FUNDING_NOT_CANCELABLE');
    const r = (await t.api.post('/balance/charge', topUp(500))).body.data;
    await t.emu.processTopUp(r.fundingNo, 'reject');
    expect((await t.api.del(`/balance/charge/${r.fundingNo}`)).body.error.code).toBe('FUNDING_NOT_CANCELABLE');
    expect((await t.api.get('/balance')).body.data.availableBalance.amount).toBe(10500);
  });

  it('min 100.00 USD and every required field; production only', async () => {
    expect((await t.api.post('/balance/charge', topUp(99.99))).status).toBe(400);
    expect((await t.api.post('/balance/charge', topUp(100.001))).status).toBe(400);
    for (const field of [
      'companyName',
      'phoneNumber',
      'billingAddress',
      'city',
      'state',
      'country',
      'zipCode',
      'ein',
    ]) {
      const res = await t.api.post('/balance/charge', topUp(100, { [field]: undefined }));
      expect(res.status, field).toBe(400);
    }
    expect((await t.api.post('/balance/charge', topUp(100, { companyWebsite: 'https://acme.test' }))).status).toBe(201);
    const sand = await t.sandbox.post('/balance/charge', topUp(100));
    expect([sand.status, sand.body.error.code]).toEqual([403, 'PRODUCTION_ONLY']);
    expect((await t.sandbox.del('/balance/charge/FD1')).body.error.code).toBe('PRODUCTION_ONLY');
  });
});

describe('ledger', () => {
  it('rows follow the source/status/label/sign table, newest first', async () => {
    const choice = (await t.api.post('/orders/choice-cards', choiceOrder())).body.data;
    const branded = (await t.api.post('/orders/branded-cards', brandedOrder())).body.data;
    const rows = await allLedger(t.api);
    expect(rows[0]).toMatchObject({
      referenceNumber: branded.orderId,
      type: 'USE',
      source: 'branded',
      status: '1',
      statusLabel: 'Balance Used',
      amount: { amount: -25 },
      signedAmount: { amount: -25 },
    });
    expect(rows[1]).toMatchObject({
      referenceNumber: choice.orderId,
      type: 'USE',
      source: 'choice',
      status: '1',
      statusLabel: 'Balance Used',
    });
    expect(rows.at(-1)).toMatchObject({
      type: 'CHARGE',
      source: 'funding',
      status: '99',
      statusLabel: 'Processed',
      signedAmount: { amount: 10000 },
    });
    for (const r of rows) expect(r.occurredAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  });

  it("extension: promotions, reward refunds and transfers added by the control route, with the spec's labels and signs; they move the balance", async () => {
    const control = (body: unknown) =>
      fetch(`${t.emu.url}/_emulator/ledger`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    const before = cents((await t.api.get('/balance')).body.data.availableBalance.amount);
    expect((await control({ kind: 'promotion', amount: 50 })).status).toBe(201);
    expect((await control({ kind: 'rewardRefund', amount: 12.5 })).status).toBe(201);
    expect((await control({ kind: 'transferReceived', amount: 200 })).status).toBe(201);
    expect((await control({ kind: 'transferSent', amount: 75.25, referenceNumber: 'TS-TO-EMEA' })).status).toBe(201);
    const rows = await allLedger(t.api);
    expect(rows.slice(0, 4)).toMatchObject([
      {
        referenceNumber: 'TS-TO-EMEA',
        type: 'TRANSFER',
        source: 'transfer',
        status: '20',
        statusLabel: 'Transfer (sent)',
        signedAmount: { amount: -75.25 },
      },
      {
        type: 'TRANSFER',
        source: 'transfer',
        status: '21',
        statusLabel: 'Transfer (received)',
        signedAmount: { amount: 200 },
      },
      { type: 'REFUND', source: 'reward', status: '3', statusLabel: 'Refund', signedAmount: { amount: 12.5 } },
      { type: 'REWARD', source: 'reward', status: '1', statusLabel: 'Promotion', signedAmount: { amount: 50 } },
    ]);
    expect(cents((await t.api.get('/balance')).body.data.availableBalance.amount)).toBe(
      before + 5000 + 1250 + 20000 - 7525,
    );
    // A transfer out needs the funds; bad bodies are refused.
    expect((await control({ kind: 'transferSent', amount: 1_000_000 })).status).toBe(402);
    expect((await control({ kind: 'promotion', amount: -5 })).status).toBe(400);
    expect((await control({ kind: 'gift', amount: 5 })).status).toBe(400);
    // The sandbox shows its transfer rows, not promotions.
    await control({ environment: 'sandbox', kind: 'transferReceived', amount: 10 });
    await control({ environment: 'sandbox', kind: 'promotion', amount: 10 });
    expect((await allLedger(t.sandbox)).map((r) => r.source)).toEqual(['transfer']);
  });

  it('filters by date (inclusive UTC days) and refuses bad dates', async () => {
    await t.api.post('/orders/choice-cards', choiceOrder());
    await t.emu.advance(3 * 86400);
    const later = (await t.api.post('/orders/choice-cards', choiceOrder())).body.data;
    const today = (await t.emu.now()).slice(0, 10);
    const rows = await allLedger(t.api, { startDate: today });
    expect(rows.map((r) => r.referenceNumber)).toEqual([later.orderId]);
    const earlier = await allLedger(t.api, {
      endDate: new Date(Date.parse(today) - 86400_000).toISOString().slice(0, 10),
    });
    expect(earlier.every((r) => r.referenceNumber !== later.orderId)).toBe(true);
    expect(earlier.length).toBe(2);
    expect((await t.api.get('/balance/ledger', { startDate: 'soon' })).status).toBe(400);
  });

  it('the sandbox ledger shows only branded, choice and transfer rows; its balance does not move', async () => {
    await t.sandbox.post('/orders/choice-cards', choiceOrder());
    const rows = await allLedger(t.sandbox);
    expect(rows.map((r) => r.source)).toEqual(['choice']);
  });

  it('property: the signed amounts of credited rows sum to the balance change', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.record({
              kind: fc.constant('choice' as const),
              amount: fc.integer({ min: 5, max: 60 }),
              n: fc.integer({ min: 1, max: 3 }),
            }),
            fc.record({
              kind: fc.constant('branded' as const),
              product: fc.constantFrom('BR-ZALANDO', 'BR-DOORDASH', 'BR-TESCO'),
              step: fc.integer({ min: 0, max: 30 }),
            }),
            fc.record({ kind: fc.constant('scheduledCanceled' as const), amount: fc.integer({ min: 5, max: 60 }) }),
            fc.record({
              kind: fc.constant('topUp' as const),
              cents: fc.integer({ min: 10_000, max: 50_000 }),
              outcome: fc.constantFrom('approve', 'reject', 'cancel', 'leave'),
            }),
          ),
          { minLength: 1, maxLength: 8 },
        ),
        async (steps) => {
          await t.emu.reset();
          const start = cents((await t.api.get('/balance')).body.data.availableBalance.amount);
          const startRows = new Set((await allLedger(t.api)).map((r) => r.ledgerId));
          for (const s of steps) {
            if (s.kind === 'choice') {
              await t.api.post(
                '/orders/choice-cards',
                choiceOrder({
                  recipients: Array.from({ length: s.n }, (_, i) => ({ email: `p${i}@example.com`, amount: s.amount })),
                }),
              );
            } else if (s.kind === 'branded') {
              const p = (await t.api.get(`/catalog/branded-cards/${s.product}`)).body.data;
              const amount = (cents(p.prices[0]) + s.step * cents(p.priceStep)) / 100;
              expect(
                (
                  await t.api.post(
                    '/orders/branded-cards',
                    brandedOrder({ productId: s.product, recipients: [{ email: 'b@example.com', amount }] }),
                  )
                ).status,
              ).toBe(201);
            } else if (s.kind === 'scheduledCanceled') {
              const at = new Date(Date.parse(await t.emu.now()) + 3600_000).toISOString();
              const o = (
                await t.api.post(
                  '/orders/choice-cards',
                  choiceOrder({
                    idempotencyKey: key(),
                    recipients: [{ email: 's@example.com', amount: s.amount }],
                    sendTiming: { type: 'SCHEDULED', scheduledAt: at, timezone: 'UTC' },
                  }),
                )
              ).body.data;
              expect((await t.api.del(`/orders/${o.orderId}`)).status).toBe(200);
            } else {
              const f = (await t.api.post('/balance/charge', topUp(s.cents / 100))).body.data;
              if (s.outcome === 'cancel') await t.api.del(`/balance/charge/${f.fundingNo}`);
              else if (s.outcome !== 'leave') await t.emu.processTopUp(f.fundingNo, s.outcome);
            }
          }
          const end = cents((await t.api.get('/balance')).body.data.availableBalance.amount);
          const rows = (await allLedger(t.api)).filter((r) => !startRows.has(r.ledgerId) && r.credited);
          const sum = rows.reduce((acc, r) => acc + cents(r.signedAmount.amount), 0);
          expect(sum).toBe(end - start);
          // And the whole ledger (opening row included) sums to the balance.
          const all = (await allLedger(t.api))
            .filter((r) => r.credited)
            .reduce((acc, r) => acc + cents(r.signedAmount.amount), 0);
          expect(all).toBe(end);
        },
      ),
      { numRuns: 15 },
    );
  });
});
