import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { TestEmulator } from '../support/emulator.js';
import { type ApiClient, apiClient, getToken, startDeterministicEmulator } from './helpers.js';

let emu: TestEmulator;
let api: ApiClient;
beforeAll(async () => {
  emu = await startDeterministicEmulator();
  api = apiClient(emu.url, await getToken(emu.url, 'sandbox'));
});
afterAll(() => emu.close());

async function allBranded() {
  return (await api.get('/catalog/branded-cards', { pageSize: 100 })).body.data as any[];
}

describe('seeded catalog (docs/architecture/emulator.md)', () => {
  it('has at least 3 choice designs: RANGE [5, 500], step 1', async () => {
    const res = await api.get('/catalog/choice-cards');
    expect(res.status).toBe(200);
    expect(res.body.totalCount).toBeGreaterThanOrEqual(3);
    for (const d of res.body.data)
      expect(d).toMatchObject({ productId: expect.any(String), priceType: 'RANGE', prices: [5, 500], priceStep: 1 });
  });

  it('has at least 10 branded products with FIXED and RANGE prices, a non-USD currency, GLOBAL and null countries', async () => {
    const products = await allBranded();
    expect(products.length).toBeGreaterThanOrEqual(10);
    const fixed = products.find((p) => p.priceType === 'FIXED');
    const range = products.find((p) => p.priceType === 'RANGE');
    expect(fixed.priceStep).toBeNull();
    expect(fixed.prices.length).toBeGreaterThan(0);
    expect(range.prices).toHaveLength(2);
    expect(range.priceStep).toBeGreaterThan(0);
    const foreign = products.find((p) => p.currencyCode !== 'USD');
    expect(foreign).toBeDefined();
    // The catalog gives no exchange rate (spec 2.11): the USD cost is known from the order's totalCost.
    for (const p of products) expect(p).not.toHaveProperty('exchangeRate');
    expect(products.some((p) => p.countryCode === 'GLOBAL')).toBe(true);
    expect(products.some((p) => p.countryCode === null)).toBe(true);
    expect(products.some((p) => p.redemptionInstructions === null)).toBe(true);
    for (const p of products) expect(p).toHaveProperty('terms');
  });
});

describe('search, category, single product', () => {
  it('searches branded cards by name or brand, case-insensitively', async () => {
    const byBrand = await api.get('/catalog/branded-cards', { search: 'starbucks' });
    expect(byBrand.body.data.map((p: any) => p.brandName)).toEqual(['Starbucks']);
    const byName = await api.get('/catalog/branded-cards', { search: 'Geschenkkarte' });
    expect(byName.body.data.map((p: any) => p.productId)).toEqual(['BR-IKEA-DE']);
    const none = await api.get('/catalog/branded-cards', { search: 'no-such-brand' });
    expect(none.body).toEqual({ data: [], page: 1, pageSize: 20, totalCount: 0 });
  });

  it('filters branded cards by category', async () => {
    const res = await api.get('/catalog/branded-cards', { category: 'travel' });
    expect(res.body.totalCount).toBeGreaterThan(0);
    for (const p of res.body.data) expect(p.category).toBe('travel');
  });

  it('searches choice designs by name', async () => {
    const res = await api.get('/catalog/choice-cards', { search: 'birthday' });
    expect(res.body.data.map((d: any) => d.productId)).toEqual(['CC-BIRTHDAY']);
  });

  it('gets one product; 404 NOT_FOUND for an unknown id in either catalog', async () => {
    expect((await api.get('/catalog/branded-cards/BR-TARGET')).body.data.productId).toBe('BR-TARGET');
    expect((await api.get('/catalog/choice-cards/CC-WELCOME')).body.data.productId).toBe('CC-WELCOME');
    for (const path of ['/catalog/branded-cards/NOPE', '/catalog/choice-cards/BR-TARGET']) {
      const res = await api.get(path);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
  });
});

describe('pagination', () => {
  it('pages cover totalCount exactly, without overlap, for any page size up to 100', async () => {
    const everything = (await allBranded()).map((p) => p.productId);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 100 }), async (pageSize) => {
        const seen: string[] = [];
        const pages = Math.ceil(everything.length / pageSize);
        for (let page = 1; page <= pages + 1; page++) {
          const res = await api.get('/catalog/branded-cards', { page, pageSize });
          expect(res.body).toMatchObject({ page, pageSize, totalCount: everything.length });
          if (page > pages) expect(res.body.data).toEqual([]);
          seen.push(...res.body.data.map((p: any) => p.productId));
        }
        expect(seen).toEqual(everything);
      }),
      { numRuns: 25 },
    );
  });

  it('defaults to page 1 and pageSize 20; silently clamps a pageSize above 100 to 20', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 101, max: 1_000_000 }), async (pageSize) => {
        const res = await api.get('/catalog/branded-cards', { pageSize });
        expect(res.status).toBe(200);
        expect(res.body.pageSize).toBe(20);
      }),
      { numRuns: 10 },
    );
    const plain = await api.get('/catalog/choice-cards');
    expect([plain.body.page, plain.body.pageSize]).toEqual([1, 20]);
    expect((await api.get('/catalog/choice-cards', { pageSize: 100 })).body.pageSize).toBe(100);
  });

  it('refuses a page or pageSize that is not a positive integer', async () => {
    for (const q of [{ page: 0 }, { page: -1 }, { pageSize: 0 }, { pageSize: 'ten' }, { page: 1.5 }] as Array<
      Record<string, string | number>
    >) {
      const res = await api.get('/catalog/branded-cards', q);
      expect(res.status, JSON.stringify(q)).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
  });
});

describe('a design taken out of the catalog (control route, extra)', () => {
  it('is gone from list and get; orders and campaigns naming it are 404 NOT_FOUND; reset puts it back', async () => {
    const prod = apiClient(emu.url, await getToken(emu.url, 'production'));
    const campaign = await prod.post('/campaigns', {
      name: 'Before removal',
      cardType: 'CHOICE_CARD',
      productId: 'CC-HOLIDAY',
      amount: 25,
      subject: 'Thanks',
      senderName: 'Kudos',
    });
    expect(campaign.status).toBe(201);
    const removed = await fetch(`${emu.url}/_emulator/catalog/choice-cards/CC-HOLIDAY`, { method: 'DELETE' });
    expect(removed.status).toBe(204);
    expect(
      ((await prod.get('/catalog/choice-cards', { pageSize: 100 })).body.data as any[]).map((d) => d.productId),
    ).not.toContain('CC-HOLIDAY');
    expect((await prod.get('/catalog/choice-cards/CC-HOLIDAY')).status).toBe(404);
    const order = await prod.post('/orders/choice-cards', {
      idempotencyKey: 'removed-design-1',
      productId: 'CC-HOLIDAY',
      emailSetting: { senderName: 'A', subject: 'B' },
      recipients: [{ email: 'a@example.com', amount: 25 }],
    });
    expect(order.status).toBe(404);
    expect(order.body.error.code).toBe('NOT_FOUND');
    expect(
      (
        await prod.post('/campaigns', {
          name: 'After removal',
          cardType: 'CHOICE_CARD',
          productId: 'CC-HOLIDAY',
          amount: 25,
          subject: 'Thanks',
          senderName: 'Kudos',
        })
      ).status,
    ).toBe(404);
    const executed = await prod.post(`/campaigns/${campaign.body.data.campaignId}/orders`, {
      idempotencyKey: 'removed-design-2',
      recipients: [{ email: 'a@example.com' }],
    });
    expect(executed.status).toBe(404);
    expect((await fetch(`${emu.url}/_emulator/catalog/choice-cards/CC-NOPE`, { method: 'DELETE' })).status).toBe(404);
    await emu.reset();
    expect((await prod.get('/catalog/choice-cards/CC-HOLIDAY')).status).toBe(200);
  });

  it('a branded product taken out of the catalog (control route) is gone from list and get, and orders naming it are 404', async () => {
    const prod = apiClient(emu.url, await getToken(emu.url, 'production'));
    const removed = await fetch(`${emu.url}/_emulator/catalog/branded-cards/BR-TESCO`, { method: 'DELETE' });
    expect(removed.status).toBe(204);
    expect(
      ((await prod.get('/catalog/branded-cards', { pageSize: 100 })).body.data as any[]).map((d) => d.productId),
    ).not.toContain('BR-TESCO');
    expect((await prod.get('/catalog/branded-cards/BR-TESCO')).status).toBe(404);
    const order = await prod.post('/orders/branded-cards', {
      idempotencyKey: 'removed-brand-1',
      productId: 'BR-TESCO',
      emailSetting: { senderName: 'A', subject: 'B' },
      recipients: [{ email: 'a@example.com', amount: 20 }],
    });
    expect(order.status).toBe(404);
    expect(order.body.error.code).toBe('NOT_FOUND');
    expect((await fetch(`${emu.url}/_emulator/catalog/branded-cards/BR-NOPE`, { method: 'DELETE' })).status).toBe(404);
    await emu.reset();
    expect((await prod.get('/catalog/branded-cards/BR-TESCO')).status).toBe(200);
  });
});
