// A branded product's price rules and amounts in its own currency (src/domain/branded/prices.ts,
// currency.ts): every offered amount passes, every other one is refused with a reason that names the
// amounts that would pass, in the product's currency.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { formatFace, minorUnitCents, minorUnitDigits, parseFaceAmount } from '../../../src/domain/branded/currency.js';
import {
  type BrandedPrices,
  brandedPricesOf,
  checkBrandedAmount,
  describePrices,
} from '../../../src/domain/branded/prices.js';
import type { BrandedProduct } from '../../../src/rewards/index.js';

const CURRENCIES = ['USD', 'GBP', 'EUR', 'CAD', 'JPY'] as const;

const fixed = (currency: string, denominationsCents: number[]): BrandedPrices => ({
  productId: 'BR-X',
  currency,
  priceType: 'FIXED',
  denominationsCents,
});
const range = (currency: string, minCents: number, maxCents: number, stepCents: number): BrandedPrices => ({
  productId: 'BR-X',
  currency,
  priceType: 'RANGE',
  minCents,
  maxCents,
  stepCents,
});

/** A catalog product as the Rewards client answers it (amounts as exact decimal strings). */
const product = (overrides: Partial<BrandedProduct>): BrandedProduct => ({
  productId: 'BR-X',
  currencyCode: 'GBP',
  priceType: 'FIXED',
  prices: ['10.00', '20.00', '50.00'],
  priceStep: null,
  ...overrides,
});

describe('amounts in the product’s own currency', () => {
  it('reads as people write them: whole amounts without decimals', () => {
    expect(formatFace(2500, 'GBP')).toBe('£25');
    expect(formatFace(1050, 'EUR')).toBe('€10.50');
    expect(formatFace(5, 'GBP')).toBe('£0.05');
    expect(formatFace(100000, 'JPY')).toBe('¥1,000');
    expect(formatFace(2500, 'USD')).toBe('$25');
    expect(formatFace(123456789, 'USD')).toBe('$1,234,567.89');
    expect(formatFace(2500, 'CAD')).toBe('CA$25');
  });

  it('knows each currency’s decimals from Intl: JPY none, the others two', () => {
    expect(minorUnitDigits('JPY')).toBe(0);
    expect(minorUnitCents('JPY')).toBe(100);
    for (const c of ['USD', 'GBP', 'EUR', 'CAD']) expect([minorUnitDigits(c), minorUnitCents(c)]).toEqual([2, 1]);
  });

  it('shows an amount finer than the currency’s unit as it is, never rounded into a valid one', () => {
    expect(formatFace(100050, 'JPY')).toBe('¥1,000.50');
  });
});

describe('an amount as typed, in the product’s currency', () => {
  it('reads what formatting writes, in every currency (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...CURRENCIES), fc.integer({ min: 1, max: 9_999_999 }), (currency, units) => {
        const faceCents = units * minorUnitCents(currency);
        expect(parseFaceAmount(formatFace(faceCents, currency), currency)).toEqual({ ok: true, faceCents });
      }),
    );
  });

  it('takes the symbol or the code on either side, and a comma only between thousands', () => {
    const gbp = (text: string) => parseFaceAmount(text, 'GBP');
    for (const text of ['25', '£25', '£ 25', '25£', '25 GBP', 'gbp 25', '25.00', '25.0'])
      expect(gbp(text), text).toEqual({ ok: true, faceCents: 2500 });
    expect(gbp('25.5')).toEqual({ ok: true, faceCents: 2550 });
    expect(gbp('1,000')).toEqual({ ok: true, faceCents: 100_000 });
    expect(parseFaceAmount('CA$10', 'CAD')).toEqual({ ok: true, faceCents: 1000 });
    expect(parseFaceAmount('$10', 'CAD')).toEqual({ ok: true, faceCents: 1000 });
    expect(parseFaceAmount('¥1,000', 'JPY')).toEqual({ ok: true, faceCents: 100_000 });
  });

  it('refuses, in a line that names the currency: no amount, another currency, too many decimals', () => {
    expect(parseFaceAmount('', 'GBP')).toMatchObject({
      code: 'amount_missing',
      message: 'Enter the amount in GBP, e.g. £25.',
    });
    for (const text of ['$25', '€25', '2,5', '25,00', 'twenty', '-5', '0', '£'])
      expect(parseFaceAmount(text, 'GBP'), text).toMatchObject({
        code: 'not_a_number',
        message: 'Enter the amount in GBP, e.g. £25.',
      });
    expect(parseFaceAmount('25.505', 'GBP')).toMatchObject({
      code: 'too_many_decimals',
      message: 'GBP amounts have at most 2 decimals, e.g. £25.50.',
    });
    expect(parseFaceAmount('1000.5', 'JPY')).toMatchObject({
      code: 'too_many_decimals',
      message: 'JPY amounts are whole, e.g. ¥2,500.',
    });
  });
});

describe('FIXED: the denominations', () => {
  it('every denomination passes; any other amount is refused naming the denominations (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CURRENCIES),
        fc.uniqueArray(fc.integer({ min: 1, max: 100_000 }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 20_000_000 }),
        (currency, units, amount) => {
          const unit = minorUnitCents(currency);
          const denominations = units.map((u) => u * unit).sort((a, b) => a - b);
          const prices = fixed(currency, denominations);
          for (const d of denominations) expect(checkBrandedAmount(prices, d)).toEqual({ ok: true, faceCents: d });
          const check = checkBrandedAmount(prices, amount);
          expect(check.ok).toBe(denominations.includes(amount));
          if (!check.ok) {
            expect(check.code).toBe('not_offered');
            expect(check.message).toContain(`${formatFace(amount, currency)} is not offered; pick `);
            for (const d of denominations) expect(check.message).toContain(formatFace(d, currency));
          }
        },
      ),
    );
  });

  it('says which amounts to pick', () => {
    const check = checkBrandedAmount(fixed('GBP', [1000, 2000, 5000]), 2500);
    expect(check).toMatchObject({
      ok: false,
      code: 'not_offered',
      message: '£25 is not offered; pick £10, £20, or £50.',
    });
  });
});

describe('RANGE: min, max and the price step', () => {
  const rangeArb = fc
    .record({
      currency: fc.constantFrom(...CURRENCIES),
      minUnits: fc.integer({ min: 1, max: 10_000 }),
      stepUnits: fc.integer({ min: 1, max: 5_000 }),
      steps: fc.integer({ min: 0, max: 200 }),
    })
    .map(({ currency, minUnits, stepUnits, steps }) => {
      const unit = minorUnitCents(currency);
      const min = minUnits * unit;
      const step = stepUnits * unit;
      return range(currency, min, min + steps * step, step) as Extract<BrandedPrices, { priceType: 'RANGE' }>;
    });

  it('every amount on the step within [min, max] passes (property)', () => {
    fc.assert(
      fc.property(rangeArb, fc.nat(), (prices, k) => {
        const steps = (prices.maxCents - prices.minCents) / prices.stepCents;
        const amount = prices.minCents + (k % (steps + 1)) * prices.stepCents;
        expect(checkBrandedAmount(prices, amount)).toEqual({ ok: true, faceCents: amount });
      }),
    );
  });

  it('an amount off the step or outside the range is refused with the rule and a reason (property)', () => {
    fc.assert(
      fc.property(rangeArb, fc.integer({ min: 1, max: 60_000_000 }), (prices, amount) => {
        const onStep = (amount - prices.minCents) % prices.stepCents === 0;
        const inside = amount >= prices.minCents && amount <= prices.maxCents;
        const check = checkBrandedAmount(prices, amount);
        expect(check.ok).toBe(onStep && inside);
        if (check.ok) return;
        const f = (c: number) => formatFace(c, prices.currency);
        expect(check.message).toContain(`between ${f(prices.minCents)} and ${f(prices.maxCents)}`);
        if (amount < prices.minCents) expect(check.code).toBe('amount_too_small');
        else if (amount > prices.maxCents) expect(check.code).toBe('amount_too_large');
        else {
          expect(check.code).toBe('off_step');
          // The nearest amount on the step below is offered (and passes).
          const below = amount - ((amount - prices.minCents) % prices.stepCents);
          expect(check.message).toContain(`pick ${f(below)}`);
          expect(checkBrandedAmount(prices, below).ok).toBe(true);
        }
      }),
    );
  });

  it('in words: the range and its step, the step left out when it is the currency’s smallest unit', () => {
    expect(describePrices(range('GBP', 500, 50_000, 500))).toBe('between £5 and £500, in steps of £5');
    expect(describePrices(range('USD', 1000, 20_000, 1))).toBe('between $10 and $200');
    expect(describePrices(range('JPY', 100_000, 5_000_000, 100))).toBe('between ¥1,000 and ¥50,000');
    expect(checkBrandedAmount(range('GBP', 500, 50_000, 500), 700)).toMatchObject({
      code: 'off_step',
      message: '£7 is not on the price step: pick £5 or £10 (between £5 and £500, in steps of £5).',
    });
    expect(checkBrandedAmount(range('GBP', 500, 50_000, 500), 300)).toMatchObject({
      code: 'amount_too_small',
      message: '£3 is below the minimum: pick an amount between £5 and £500, in steps of £5.',
    });
    expect(checkBrandedAmount(range('EUR', 1000, 25_000, 50), 30_000)).toMatchObject({
      code: 'amount_too_large',
      message: '€300 is above the maximum: pick an amount between €10 and €250, in steps of €0.50.',
    });
  });

  it('a yen amount with decimals is off the step, shown as typed', () => {
    expect(checkBrandedAmount(range('JPY', 100_000, 5_000_000, 100), 100_050)).toMatchObject({
      code: 'off_step',
      message: '¥1,000.50 is not on the price step: pick ¥1,000 or ¥1,001 (between ¥1,000 and ¥50,000).',
    });
  });

  it('zero, negative or fractional cents are no amount', () => {
    for (const bad of [0, -500, 2.5, Number.NaN])
      expect(checkBrandedAmount(range('GBP', 500, 50_000, 500), bad)).toMatchObject({ code: 'not_an_amount' });
  });
});

describe('prices of a catalog product', () => {
  it('reads FIXED and RANGE products in cents of their currency', () => {
    expect(brandedPricesOf(product({}))).toEqual(fixed('GBP', [1000, 2000, 5000]));
    expect(
      brandedPricesOf(
        product({
          productId: 'BR-Z',
          currencyCode: 'EUR',
          priceType: 'RANGE',
          prices: ['10.00', '250.00'],
          priceStep: '0.50',
        }),
      ),
    ).toEqual({ ...range('EUR', 1000, 25_000, 50), productId: 'BR-Z' });
    // A RANGE without a step takes any amount of the currency's smallest unit.
    expect(
      brandedPricesOf(
        product({ currencyCode: 'JPY', priceType: 'RANGE', prices: ['1000.00', '50000.00'], priceStep: null }),
      ),
    ).toEqual(range('JPY', 100_000, 5_000_000, 100));
  });

  it('a product that cannot be priced safely is not offered', () => {
    const bad: Array<Partial<BrandedProduct>> = [
      { currencyCode: undefined },
      { currencyCode: 'gbp' },
      { priceType: 'OPEN' },
      { prices: [] },
      { prices: ['10.00', '-5.00'] },
      { currencyCode: 'JPY', prices: ['1000.50'] },
      { priceType: 'RANGE', prices: ['10.00'] },
      { priceType: 'RANGE', prices: ['50.00', '10.00'], priceStep: '5.00' },
      { priceType: 'RANGE', prices: ['10.00', '50.00'], priceStep: '0.00' },
      { priceType: 'RANGE', prices: ['10.00', '50.00'], priceStep: '0.001' },
    ];
    for (const overrides of bad) expect(brandedPricesOf(product(overrides)), JSON.stringify(overrides)).toBeUndefined();
  });
});
