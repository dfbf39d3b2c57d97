// The emulator's exchange rates (docs/architecture/emulator.md, "Exchange rates"): one rate per
// currency, changed through a control route, charged on branded orders and reward links at the moment
// they are created, restored by reset. The catalog never shows a rate (spec 2.11).
import { describe, expect, it } from 'vitest';

import { brandedOrder, cents, http, key, useEmulator } from './helpers.js';

const t = useEmulator();

const balanceCents = async () => cents((await t.api.get('/balance')).body.data.availableBalance.amount);

describe('exchange rates', () => {
  it('are seeded per currency of the catalog, USD at 1', async () => {
    expect(await t.emu.exchangeRates()).toEqual([
      { currency: 'EUR', usdPerUnit: 1.085 },
      { currency: 'GBP', usdPerUnit: 1.27 },
      { currency: 'USD', usdPerUnit: 1 },
    ]);
    const currencies = new Set(
      ((await t.api.get('/catalog/branded-cards', { pageSize: 100 })).body.data as Array<{ currencyCode: string }>).map(
        (p) => p.currencyCode,
      ),
    );
    const rated = new Set((await t.emu.exchangeRates()).map((r) => r.currency));
    for (const currency of currencies) expect(rated.has(currency)).toBe(true);
  });

  it('a changed rate is what the next branded order is charged; an order already placed keeps its cost', async () => {
    const first = await t.api.post(
      '/orders/branded-cards',
      brandedOrder({ productId: 'BR-TESCO', recipients: [{ email: 'a@example.com', amount: 20 }] }),
    );
    expect(first.body.data.totalCost).toEqual({ amount: 25.4, currency: 'USD' });

    await t.emu.setExchangeRate('GBP', 1.3125);
    const before = await balanceCents();
    const second = await t.api.post(
      '/orders/branded-cards',
      brandedOrder({
        productId: 'BR-TESCO',
        recipients: [
          { email: 'a@example.com', amount: 20 },
          { email: 'b@example.com', amount: 50 },
        ],
      }),
    );
    expect(second.status).toBe(201);
    // £70 x 1.3125 = $91.875, rounded half up once per order.
    expect(second.body.data.totalCost).toEqual({ amount: 91.88, currency: 'USD' });
    expect(before - (await balanceCents())).toBe(9188);
    const detail = (await t.api.get(`/orders/${first.body.data.orderId}`)).body.data;
    expect(detail.totalCost).toEqual({ amount: 25.4, currency: 'USD' });
    expect(detail.recipients[0]).toMatchObject({ amount: 20, currency: 'GBP' });
  });

  it('reward links of a branded product are charged at the current rate', async () => {
    await t.emu.setExchangeRate('EUR', 0.9);
    const before = await balanceCents();
    const res = await t.api.post('/orders/reward-links', {
      idempotencyKey: key(),
      cardType: 'BRANDED_CARD',
      productId: 'BR-ZALANDO',
      quantity: 3,
      amountPerLink: 10.5,
    });
    expect(res.status).toBe(201);
    // 3 x €10.50 = €31.50 x 0.9 = $28.35.
    expect(res.body.data.totalCost).toEqual({ amount: 28.35, currency: 'USD' });
    expect(before - (await balanceCents())).toBe(2835);
  });

  it('USD products are charged face value whatever the other rates', async () => {
    await t.emu.setExchangeRate('GBP', 2);
    const res = await t.api.post(
      '/orders/branded-cards',
      brandedOrder({ productId: 'BR-AMAZON-US', recipients: [{ email: 'a@example.com', amount: 25 }] }),
    );
    expect(res.body.data.totalCost).toEqual({ amount: 25, currency: 'USD' });
  });

  it('reset restores the seeded rates', async () => {
    await t.emu.setExchangeRate('GBP', 1.5);
    await t.emu.setExchangeRate('JPY', 0.0067);
    expect(await t.emu.exchangeRates()).toContainEqual({ currency: 'JPY', usdPerUnit: 0.0067 });
    await t.emu.reset();
    expect(await t.emu.exchangeRates()).toEqual([
      { currency: 'EUR', usdPerUnit: 1.085 },
      { currency: 'GBP', usdPerUnit: 1.27 },
      { currency: 'USD', usdPerUnit: 1 },
    ]);
  });

  it('refuses a bad rate with a 400 and changes nothing', async () => {
    for (const body of [
      { currency: 'USD', usdPerUnit: 2 },
      { currency: 'gbp', usdPerUnit: 1.2 },
      { currency: 'GBP', usdPerUnit: 0 },
      { currency: 'GBP', usdPerUnit: -1 },
      { currency: 'GBP', usdPerUnit: 1.0000001 },
      { currency: 'GBP' },
    ]) {
      const res = await http(`${t.emu.url}/_emulator/exchange-rates`, { method: 'PUT', json: body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
    expect(await t.emu.exchangeRates()).toContainEqual({ currency: 'GBP', usdPerUnit: 1.27 });
  });
});
