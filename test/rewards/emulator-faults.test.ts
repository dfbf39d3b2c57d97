// Failure modes against the real emulator (fault injection, clock): exactly one order per key, always.
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import {
  type CallInfo,
  createRewardsClient,
  type RewardsClient,
  type RewardsClientOptions,
  toCents,
} from '../../src/rewards/index.js';
import { startTestEmulator, type TestEmulator } from '../support/emulator.js';
import { untilNoneHeld } from '../support/held-requests.js';

let emulator: TestEmulator;
let choiceProductId: string;
const clients: RewardsClient[] = [];

function newClient(overrides: Partial<RewardsClientOptions> = {}): { client: RewardsClient; calls: CallInfo[] } {
  const calls: CallInfo[] = [];
  const client = createRewardsClient({
    baseUrl: emulator.url,
    clientId: 'production-client',
    clientSecret: 'production-secret',
    timeoutMs: 5_000,
    maxRetries: 4,
    retryBaseDelayMs: 10,
    maxRetryDelayMs: 100,
    onCall: (info) => calls.push(info),
    ...overrides,
  });
  clients.push(client);
  return { client, calls };
}

beforeAll(async () => {
  emulator = await startTestEmulator();
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await emulator?.close();
});
beforeEach(async () => {
  await emulator.reset();
  const { client } = newClient();
  choiceProductId = (await client.catalog.listChoiceCards()).data[0]!.productId;
});

const ORDER_PATH = '^/api/v1/orders/choice-cards$';
const emailSetting = { senderName: 'Maya Manager', subject: 'Thank you!' };
const order = (amount: number) => ({
  productId: choiceProductId,
  recipients: [{ email: 'ann@example.com', amount }],
  emailSetting,
});

async function balanceCents(client: RewardsClient): Promise<number> {
  return toCents((await client.balance.get()).availableBalance.amount);
}

/** The orders the emulator holds for `key` (checked by the client's own lookup and by a full list). */
async function ordersWithKey(client: RewardsClient, key: string): Promise<string[]> {
  const listed = await client.orders.list({ clientOrderId: key }).all();
  return listed.map((o) => o.orderId);
}

describe('order creation under faults gives exactly one order', () => {
  const cases: Array<[string, Parameters<TestEmulator['faults']>[0]]> = [
    ['a 429 burst', { method: 'POST', path: ORDER_PATH, status: 429, count: 3 }],
    ['5xx', { method: 'POST', path: ORDER_PATH, status: 503, count: 2 }],
    ['a dropped connection', { method: 'POST', path: ORDER_PATH, drop: true, count: 1 }],
    ['a timeout (delay beyond the client timeout)', { method: 'POST', path: ORDER_PATH, delayMs: 1_200, count: 1 }],
  ];
  for (const [name, fault] of cases) {
    it(name, async () => {
      const { client, calls } = newClient({ timeoutMs: 400, orderTimeoutMs: 400 });
      const before = await balanceCents(client);
      await emulator.faults(fault);
      const created = await client.orders.createChoice(order(25), { idempotencyKey: `fault-${name}` });
      // A delayed fault holds the original request in the emulator: counted once it has been applied.
      await untilNoneHeld(emulator.url);
      const ids = await ordersWithKey(client, `fault-${name}`);
      expect(ids).toEqual([created.order.orderId]);
      expect(await balanceCents(client)).toBe(before - 2500);
      expect(calls.filter((c) => c.endpoint === '/api/v1/orders/choice-cards').length).toBeGreaterThan(1);
    });
  }

  it('the retry after an emulator 429 waits for the X-RateLimit-Reset it announced', async () => {
    // A one-hour window, so the announced reset is far beyond any backoff the client would pick itself.
    const slowWindow = await startTestEmulator({ EMULATOR_RATE_WINDOW_S: '3600' });
    const sleeps: number[] = [];
    const client = createRewardsClient({
      baseUrl: slowWindow.url,
      clientId: 'production-client',
      clientSecret: 'production-secret',
      maxRetryDelayMs: 10_000_000,
      sleep: async (ms) => {
        if (ms > 0) sleeps.push(ms); // recorded, not waited
      },
    });
    try {
      await slowWindow.faults({ method: 'GET', path: '^/api/v1/balance$', status: 429, count: 1 });
      await expect(client.balance.get()).resolves.toBeDefined();
      expect(sleeps).toHaveLength(1);
      expect(sleeps[0]!).toBeGreaterThan(3_000_000);
      expect(sleeps[0]!).toBeLessThanOrEqual(3_600_000 + 1_000);
    } finally {
      await client.close();
      await slowWindow.close();
    }
  });
});

describe('tokens against the emulator clock', () => {
  it('a token expired on the server (clock past expires_in) is renewed once and the call succeeds', async () => {
    const { client, calls } = newClient();
    await client.balance.get();
    await emulator.advance(3_601); // production tokens last 1 h
    await expect(client.balance.get()).resolves.toBeDefined();
    expect(calls.filter((c) => c.endpoint === '/oauth2/token')).toHaveLength(2);
    expect(calls.filter((c) => c.endpoint === '/api/v1/balance').map((c) => c.status)).toEqual([200, 401, 200]);
  });

  it('a 401 in the middle of a paginated walk renews the token and the walk completes', async () => {
    const { client, calls } = newClient();
    const expected = await client.catalog.listBrandedCards().all();
    let seen = 0;
    const ids: string[] = [];
    for await (const product of client.catalog.listBrandedCards({ pageSize: 2 })) {
      ids.push(product.productId);
      if (++seen === 3)
        await emulator.faults({ method: 'GET', path: '^/api/v1/catalog/branded-cards$', status: 401, count: 1 });
    }
    expect(ids).toEqual(expected.map((p) => p.productId));
    expect(calls.filter((c) => c.status === 401)).toHaveLength(1);
    expect(calls.filter((c) => c.endpoint === '/oauth2/token')).toHaveLength(2);
  });

  it('concurrent calls after expiry share one renewal', async () => {
    const { client, calls } = newClient();
    await client.balance.get();
    await emulator.advance(3_601);
    await Promise.all(Array.from({ length: 8 }, () => client.balance.get()));
    expect(calls.filter((c) => c.endpoint === '/oauth2/token')).toHaveLength(2);
  });
});

describe('property: concurrent creations under random faults', () => {
  const faultArb = fc.oneof(
    fc.record({ status: fc.constantFrom(429, 500, 502, 503) }),
    fc.record({ drop: fc.constant(true) }),
    fc.record({ delayMs: fc.constant(700) }),
  );

  it('N orders, exactly N in the emulator, balance moved by exactly their total', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 5, max: 60 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.tuple(faultArb, fc.integer({ min: 1, max: 3 })), { maxLength: 3 }),
        async (amounts, faults) => {
          await emulator.reset();
          const { client } = newClient({ timeoutMs: 400, orderTimeoutMs: 400 });
          const before = await balanceCents(client);
          for (const [fault, count] of faults)
            await emulator.faults({ method: 'POST', path: ORDER_PATH, count, ...fault });
          const run = Math.random().toString(36).slice(2, 10);
          const keys = amounts.map((_, i) => `prop-${run}-${i}`);
          // Like the app's worker: a call that still fails after the client's own retries is called
          // again later with the same key.
          const createPersistently = async (amount: number, key: string) => {
            for (let attempt = 1; ; attempt++) {
              try {
                return await client.orders.createChoice(order(amount), { idempotencyKey: key });
              } catch (error) {
                if (attempt >= 4) throw error;
              }
            }
          };
          const created = await Promise.all(amounts.map((amount, i) => createPersistently(amount, keys[i]!)));
          await untilNoneHeld(emulator.url);
          for (const [i, key] of keys.entries()) {
            expect(await ordersWithKey(client, key)).toEqual([created[i]!.order.orderId]);
          }
          expect(new Set(created.map((c) => c.order.orderId)).size).toBe(amounts.length);
          expect((await client.orders.list().all()).length).toBe(amounts.length);
          const total = amounts.reduce((sum, amount) => sum + amount * 100, 0);
          expect(await balanceCents(client)).toBe(before - total);
          await client.close();
        },
      ),
      { numRuns: 10 },
    );
  }, 120_000);
});
