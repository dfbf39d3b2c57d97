// Exchange rates learned from real branded orders (src/domain/branded/exchange-rates.ts), on PGlite or
// PostgreSQL (DATABASE_URL), against the emulator over HTTP: an order's totalCost teaches the rate, the
// next card of that currency is estimated from it, a rate that then moves within the margin is still
// covered by the judged cost, and each workspace learns on its own.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import {
  estimateUsdCents,
  learnedRate,
  learnRate,
  learnRateFromOrder,
} from '../../../src/domain/branded/exchange-rates.js';
import { createRewardsClient, type RewardsClient, toCents } from '../../../src/rewards/index.js';
import { useTestDatabase } from '../../support/db.js';
import { startTestEmulator, type TestEmulator } from '../../support/emulator.js';

const WS = { teamId: 'T0KUDOS', enterpriseId: null };
const OTHER = { teamId: 'T0OTHER', enterpriseId: 'E0GRID' };

describe('exchange rates learned from branded orders', () => {
  const testDb = useTestDatabase();
  let emulator: TestEmulator;
  let client: RewardsClient;
  let seq = 0;

  beforeAll(async () => {
    emulator = await startTestEmulator({ EMULATOR_BACKGROUND: 'off' });
  });
  afterAll(async () => {
    await emulator.close();
  });
  beforeEach(async () => {
    await emulator.reset();
    client = createRewardsClient({
      baseUrl: emulator.url,
      clientId: 'production-client',
      clientSecret: 'production-secret',
      maxRetries: 0,
    });
    return () => client.close();
  });

  /** Sends a Tesco card (GBP) of each amount; answers the created order and its face total in pence. */
  async function orderTesco(...pounds: number[]) {
    const created = await client.orders.createBranded(
      {
        productId: 'BR-TESCO',
        emailSetting: { senderName: 'Maya', subject: 'Thanks!' },
        recipients: pounds.map((amount, i) => ({ email: `p${i}@example.com`, amount })),
      },
      { idempotencyKey: `rates-${process.pid}-${seq++}` },
    );
    return { order: created.order, faceCents: pounds.reduce((sum, p) => sum + p * 100, 0) };
  }

  it('no rate before the first order: the estimate says the cost is unknown', async () => {
    expect(await estimateUsdCents(testDb.db, WS, 'GBP', 5000)).toEqual({ basis: 'unknown' });
    expect(await estimateUsdCents(testDb.db, WS, 'USD', 5000)).toEqual({
      basis: 'exact',
      estimateCents: 5000,
      judgedCents: 5000,
    });
  });

  it('learns the rate from an order’s totalCost and estimates the next card from it', async () => {
    const placed = await orderTesco(20, 50);
    expect(placed.order.totalCost).toEqual({ amount: '88.90', currency: 'USD' }); // £70 x 1.27
    expect(
      await learnRateFromOrder(testDb.db, WS, { currency: 'GBP', faceCents: placed.faceCents }, placed.order),
    ).toBe(true);

    const later = new Date(placed.order.createdAt!.getTime() + 3_600_000);
    const estimate = await estimateUsdCents(testDb.db, WS, 'GBP', 5000, later);
    expect(estimate).toEqual({
      basis: 'learned',
      estimateCents: 6350, // £50 x 1.27
      judgedCents: 6668, // x 1.05, rounded up
      learnedAt: placed.order.createdAt,
      rateAgeMs: 3_600_000,
      usdPerUnit: '1.27',
    });
    expect((await learnedRate(testDb.db, WS, 'GBP'))?.orderId).toBe(placed.order.orderId);

    // The next order at an unchanged rate costs exactly the estimate.
    const next = await orderTesco(50);
    expect(toCents(next.order.totalCost!.amount)).toBe(6350);
  });

  it('a rate that rises within the margin is covered by the judged cost; the next order teaches the new rate', async () => {
    const first = await orderTesco(20);
    await learnRateFromOrder(testDb.db, WS, { currency: 'GBP', faceCents: first.faceCents }, first.order);
    const before = await estimateUsdCents(testDb.db, WS, 'GBP', 10_000);
    expect(before).toMatchObject({ basis: 'learned', estimateCents: 12_700, judgedCents: 13_335 });

    await emulator.setExchangeRate('GBP', 1.333); // +4.96%
    await emulator.advance(60);
    const moved = await orderTesco(50, 50);
    const charged = toCents(moved.order.totalCost!.amount);
    expect(charged).toBe(13_330);
    expect(charged).toBeGreaterThan(before.basis === 'learned' ? before.estimateCents : 0);
    expect(charged).toBeLessThanOrEqual(before.basis === 'learned' ? before.judgedCents : 0);

    expect(await learnRateFromOrder(testDb.db, WS, { currency: 'GBP', faceCents: moved.faceCents }, moved.order)).toBe(
      true,
    );
    expect(await estimateUsdCents(testDb.db, WS, 'GBP', 10_000)).toMatchObject({
      basis: 'learned',
      estimateCents: 13_330,
      usdPerUnit: '1.333',
    });
    // An older order, checked late, does not replace the newer rate.
    expect(await learnRateFromOrder(testDb.db, WS, { currency: 'GBP', faceCents: first.faceCents }, first.order)).toBe(
      false,
    );
    expect((await learnedRate(testDb.db, WS, 'GBP'))?.orderId).toBe(moved.order.orderId);
  });

  it('learns from branded reward links too: the face total is the amount per link times the quantity', async () => {
    await emulator.setExchangeRate('EUR', 1.1);
    const links = await client.orders.createRewardLinks(
      { cardType: 'BRANDED_CARD', productId: 'BR-ZALANDO', quantity: 4, amountPerLink: '12.50' },
      { idempotencyKey: `links-${process.pid}-${seq++}` },
    );
    expect(links.order.totalCost).toEqual({ amount: '55.00', currency: 'USD' }); // €50 x 1.1
    await learnRateFromOrder(testDb.db, WS, { currency: 'EUR', faceCents: 4 * 1250 }, links.order);
    expect(await estimateUsdCents(testDb.db, WS, 'EUR', 2000)).toMatchObject({
      basis: 'learned',
      estimateCents: 2200,
      judgedCents: 2310,
      usdPerUnit: '1.1',
    });
  });

  it('each workspace learns its own rates; USD and unusable answers teach nothing', async () => {
    const placed = await orderTesco(10);
    await learnRateFromOrder(testDb.db, WS, { currency: 'GBP', faceCents: placed.faceCents }, placed.order);
    expect(await estimateUsdCents(testDb.db, OTHER, 'GBP', 1000)).toEqual({ basis: 'unknown' });
    expect((await estimateUsdCents(testDb.db, WS, 'GBP', 1000)).basis).toBe('learned');

    const at = new Date();
    expect(
      await learnRate(testDb.db, OTHER, { currency: 'USD', faceCents: 1000, costCents: 1000, learnedAt: at }),
    ).toBe(false);
    expect(await learnRate(testDb.db, OTHER, { currency: 'GBP', faceCents: 0, costCents: 1000, learnedAt: at })).toBe(
      false,
    );
    const { totalCost: _cost, ...noCost } = placed.order;
    expect(await learnRateFromOrder(testDb.db, OTHER, { currency: 'GBP', faceCents: 1000 }, noCost)).toBe(false);
    expect(
      await learnRateFromOrder(
        testDb.db,
        OTHER,
        { currency: 'GBP', faceCents: 1000 },
        {
          ...placed.order,
          totalCost: { amount: '12.70', currency: 'GBP' },
        },
      ),
    ).toBe(false);
    expect(await estimateUsdCents(testDb.db, OTHER, 'GBP', 1000)).toEqual({ basis: 'unknown' });
  });
});
