// Exactly-once order creation against a stub that keeps orders by idempotency key like the spec says.
import type { ServerResponse } from 'node:http';

import { afterEach, describe, expect, it } from 'vitest';

import {
  deriveIdempotencyKey,
  type RewardsClient,
  RewardsConflictError,
  RewardsOrderRecoveryError,
  RewardsRequestValidationError,
  RewardsServerError,
} from '../../src/rewards/index.js';
import {
  apiError,
  choiceParams,
  drop,
  json,
  orderSummary,
  type RecordedRequest,
  startStub,
  type StubServer,
  testClient,
} from './support/stub-server.js';

let stub: StubServer | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

/** The spec's idempotency rule: a known key -> 409 DUPLICATE_IDEMPOTENCY_KEY; lookup by clientOrderId. */
function idempotentApi(fault?: (req: RecordedRequest, res: ServerResponse, created: boolean) => boolean) {
  const byKey = new Map<string, ReturnType<typeof orderSummary>>();
  const handler = (req: RecordedRequest, res: ServerResponse) => {
    if (req.method === 'GET' && req.path === '/api/v1/orders') {
      const key = req.query.get('clientOrderId');
      const data = key && byKey.has(key) ? [{ ...byKey.get(key)!, clientOrderId: key }] : [];
      return json(res, 200, { data, page: 1, pageSize: 20, totalCount: data.length });
    }
    if (req.method === 'POST' && req.path.startsWith('/api/v1/orders/')) {
      const key = req.body.idempotencyKey as string;
      if (byKey.has(key)) return apiError(res, 409, 'DUPLICATE_IDEMPOTENCY_KEY');
      const order = orderSummary({
        orderId: `O-${byKey.size + 1}`,
        recipientCount: req.body.quantity ?? req.body.recipients?.length,
      });
      byKey.set(key, order);
      // A fault after the order was created: the client never sees the 201.
      if (fault?.(req, res, true)) return;
      return json(res, 201, { data: order });
    }
    return apiError(res, 404, 'NOT_FOUND');
  };
  return { handler, byKey };
}

async function create(client: RewardsClient, key = 'kudos-123') {
  return client.orders.createChoice(choiceParams, { idempotencyKey: key });
}

describe('createChoice', () => {
  it('sends the key and the exact amount, returns the order unflagged', async () => {
    const api = idempotentApi();
    stub = await startStub(api.handler);
    const { client } = testClient(stub.url);
    const created = await create(client);
    expect(created).toMatchObject({
      recovered: false,
      order: { orderId: 'O-1', status: 'PENDING', totalCost: { amount: '25.00', currency: 'USD' } },
    });
    const [post] = stub.hits('/api/v1/orders/choice-cards', 'POST');
    expect(post!.body.idempotencyKey).toBe('kudos-123');
    expect(post!.body.recipients[0].amount).toBe(25);
    expect(post!.rawBody).toContain('"amount":25');
  });

  it('retries a 500 with the SAME key', async () => {
    const api = idempotentApi();
    let failures = 2;
    stub = await startStub((req, res) =>
      req.method === 'POST' && failures-- > 0 ? apiError(res, 500, 'INTERNAL') : api.handler(req, res),
    );
    const { client } = testClient(stub.url);
    const created = await create(client);
    expect(created.recovered).toBe(false);
    const keys = stub.hits('/api/v1/orders/choice-cards').map((r) => r.body.idempotencyKey);
    expect(keys).toEqual(['kudos-123', 'kudos-123', 'kudos-123']);
    expect(api.byKey.size).toBe(1);
  });

  it('a connection dropped after the order was placed: the retry meets 409 and the order is recovered', async () => {
    let dropped = false;
    const api = idempotentApi((_req, res) => {
      if (dropped) return false;
      dropped = true;
      drop(res);
      return true;
    });
    stub = await startStub(api.handler);
    const { client } = testClient(stub.url);
    const created = await create(client);
    expect(created).toMatchObject({ recovered: true, order: { orderId: 'O-1' } });
    expect(api.byKey.size).toBe(1);
    expect(stub.hits('/api/v1/orders', 'GET')[0]!.query.get('clientOrderId')).toBe('kudos-123');
  });

  it('a timeout after the order was placed: same key again, recovered', async () => {
    let slowed = false;
    const api = idempotentApi((_req, res) => {
      if (slowed) return false;
      slowed = true;
      setTimeout(() => res.destroyed || json(res, 201, {}), 2_000);
      return true;
    });
    stub = await startStub(api.handler);
    const { client } = testClient(stub.url, { timeoutMs: 500, orderTimeoutMs: 500 });
    const created = await create(client);
    expect(created).toMatchObject({ recovered: true, order: { orderId: 'O-1' } });
    expect(api.byKey.size).toBe(1);
  });

  it('a server slower than the read timeout is waited for: one POST, no second POST of the order in flight, no lookup', async () => {
    // Before orderTimeoutMs the order's attempt had the read timeout (here 300 ms): it was sent again
    // while the first was still being placed, answered 409, and looked up: 3 requests for one order.
    const api = idempotentApi((_req, res) => {
      const order = [...api.byKey.values()][0]!;
      setTimeout(() => res.destroyed || json(res, 201, { data: order }), 1_000);
      return true;
    });
    stub = await startStub(api.handler);
    const { client } = testClient(stub.url, { timeoutMs: 300 });
    const created = await create(client);
    expect(created).toMatchObject({ recovered: false, order: { orderId: 'O-1' } });
    expect(stub.hits('/api/v1/orders/choice-cards', 'POST')).toHaveLength(1);
    expect(stub.hits('/api/v1/orders', 'GET')).toHaveLength(0);
    // A read keeps the read timeout.
    const slowRead = await startStub(
      (_req, res) =>
        void setTimeout(
          () =>
            res.destroyed ||
            json(res, 200, {
              availableBalance: { amount: 1, currency: 'USD' },
              pendingBalance: { amount: 0, currency: 'USD' },
            }),
          1_000,
        ),
    );
    try {
      const reader = testClient(slowRead.url, { timeoutMs: 300, maxRetries: 0 }).client;
      await expect(reader.balance.get()).rejects.toMatchObject({ code: 'TIMEOUT' });
    } finally {
      await slowRead.close();
    }
  });

  it('a key already used (e.g. by a run that crashed) returns the existing order, recovered', async () => {
    const api = idempotentApi();
    stub = await startStub(api.handler);
    const first = testClient(stub.url).client;
    const second = testClient(stub.url).client;
    const original = await create(first);
    const again = await create(second);
    expect(again.recovered).toBe(true);
    expect(again.order.orderId).toBe(original.order.orderId);
    expect(api.byKey.size).toBe(1);
  });

  it('retries the lookup while the order is not visible yet', async () => {
    let lookups = 0;
    stub = await startStub((req, res) => {
      if (req.method === 'POST') return apiError(res, 409, 'DUPLICATE_IDEMPOTENCY_KEY');
      lookups += 1;
      const data = lookups < 3 ? [] : [orderSummary({ orderId: 'O-77', clientOrderId: 'kudos-123' })];
      json(res, 200, { data, page: 1, pageSize: 20, totalCount: data.length });
    });
    const { client, sleeps } = testClient(stub.url);
    await expect(create(client)).resolves.toMatchObject({ recovered: true, order: { orderId: 'O-77' } });
    expect(lookups).toBe(3);
    expect(sleeps).toHaveLength(2);
  });

  it('gives up with RewardsOrderRecoveryError when the lookup never finds the order', async () => {
    stub = await startStub((req, res) =>
      req.method === 'POST'
        ? apiError(res, 409, 'DUPLICATE_IDEMPOTENCY_KEY')
        : json(res, 200, { data: [], page: 1, pageSize: 20, totalCount: 0 }),
    );
    const { client } = testClient(stub.url, { recoveryAttempts: 4 });
    const error = await create(client).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RewardsOrderRecoveryError);
    expect(error).toMatchObject({ code: 'ORDER_RECOVERY_FAILED', idempotencyKey: 'kudos-123' });
    expect(stub.hits('/api/v1/orders', 'GET')).toHaveLength(4);
  });

  it('does not take an unrelated order when the API ignores the clientOrderId filter', async () => {
    stub = await startStub((req, res) =>
      req.method === 'POST'
        ? apiError(res, 409, 'DUPLICATE_IDEMPOTENCY_KEY')
        : json(res, 200, {
            data: [orderSummary({ orderId: 'O-A', clientOrderId: 'other' }), orderSummary({ orderId: 'O-B' })],
            totalCount: 2,
          }),
    );
    const { client } = testClient(stub.url, { recoveryAttempts: 2 });
    await expect(create(client)).rejects.toBeInstanceOf(RewardsOrderRecoveryError);
  });

  it('other 409s are errors, not recoveries', async () => {
    stub = await startStub((_req, res) => apiError(res, 409, 'SOMETHING_ELSE'));
    const { client } = testClient(stub.url);
    await expect(create(client)).rejects.toBeInstanceOf(RewardsConflictError);
    expect(stub.hits('/api/v1/orders', 'GET')).toHaveLength(0);
  });

  it('a persistent 500 ends in RewardsServerError after the retries; a later call with the same key completes once', async () => {
    const api = idempotentApi();
    let healthy = false;
    stub = await startStub((req, res) => (healthy ? api.handler(req, res) : apiError(res, 500, 'INTERNAL')));
    const { client } = testClient(stub.url, { maxRetries: 2 });
    await expect(create(client)).rejects.toBeInstanceOf(RewardsServerError);
    healthy = true;
    await expect(create(client)).resolves.toMatchObject({ recovered: false });
    expect(api.byKey.size).toBe(1);
  });

  it('refuses a missing or too long key before sending anything', async () => {
    stub = await startStub((_req, res) => json(res, 201, {}));
    const { client } = testClient(stub.url);
    await expect(client.orders.createChoice(choiceParams, { idempotencyKey: '' })).rejects.toBeInstanceOf(
      RewardsRequestValidationError,
    );
    await expect(client.orders.createChoice(choiceParams, { idempotencyKey: 'x'.repeat(65) })).rejects.toBeInstanceOf(
      RewardsRequestValidationError,
    );
    expect(stub.requests).toHaveLength(0);
  });

  it('sends a Date scheduledAt as an ISO instant and keeps a wall time string as given', async () => {
    const api = idempotentApi();
    stub = await startStub(api.handler);
    const { client } = testClient(stub.url);
    await client.orders.createBranded(
      {
        ...choiceParams,
        sendTiming: { type: 'SCHEDULED', scheduledAt: new Date('2026-12-01T14:00:00Z'), timezone: 'America/New_York' },
      },
      { idempotencyKey: 'a' },
    );
    await client.orders.createBranded(
      {
        ...choiceParams,
        sendTiming: { type: 'SCHEDULED', scheduledAt: '2026-12-01T09:00:00', timezone: 'America/New_York' },
      },
      { idempotencyKey: 'b' },
    );
    const bodies = stub.hits('/api/v1/orders/branded-cards').map((r) => r.body.sendTiming.scheduledAt);
    expect(bodies).toEqual(['2026-12-01T14:00:00.000Z', '2026-12-01T09:00:00']);
  });
});

describe('createRewardLinks', () => {
  const params = { cardType: 'CHOICE_CARD' as const, productId: 'CH-THANKS', quantity: 1200, amountPerLink: '10.00' };

  it('splits above 500 into requests with derived keys', async () => {
    const api = idempotentApi();
    stub = await startStub(api.handler);
    const { client } = testClient(stub.url);
    const result = await client.orders.createRewardLinks(params, { idempotencyKey: 'event-42' });
    const posts = stub.hits('/api/v1/orders/reward-links');
    expect(posts.map((r) => [r.body.idempotencyKey, r.body.quantity, r.body.amountPerLink])).toEqual([
      ['event-42-1', 500, 10],
      ['event-42-2', 500, 10],
      ['event-42-3', 200, 10],
    ]);
    expect(result.orders).toHaveLength(3);
    expect(result.order).toEqual(result.orders[0]!.order);
    expect(result.recovered).toBe(false);
  });

  it('keeps the caller key unchanged up to 500', async () => {
    const api = idempotentApi();
    stub = await startStub(api.handler);
    const { client } = testClient(stub.url);
    await client.orders.createRewardLinks({ ...params, quantity: 500 }, { idempotencyKey: 'event-43' });
    expect(stub.hits('/api/v1/orders/reward-links').map((r) => r.body.idempotencyKey)).toEqual(['event-43']);
  });

  it('a batch that failed half way is completed by calling again with the same key, without duplicates', async () => {
    const api = idempotentApi();
    let posts = 0;
    stub = await startStub((req, res) =>
      req.method === 'POST' && ++posts === 2 ? apiError(res, 400, 'VALIDATION_ERROR') : api.handler(req, res),
    );
    const { client } = testClient(stub.url);
    await expect(client.orders.createRewardLinks(params, { idempotencyKey: 'event-44' })).rejects.toThrow();
    const result = await client.orders.createRewardLinks(params, { idempotencyKey: 'event-44' });
    expect(result.orders.map((o) => o.recovered)).toEqual([true, false, false]);
    expect(result.recovered).toBe(true);
    expect([...api.byKey.keys()].sort()).toEqual(['event-44-1', 'event-44-2', 'event-44-3']);
  });

  it('derived keys stay within 64 characters and are deterministic', () => {
    const long = 'k'.repeat(64);
    const first = deriveIdempotencyKey(long, 1);
    expect(first.length).toBeLessThanOrEqual(64);
    expect(deriveIdempotencyKey(long, 1)).toBe(first);
    expect(deriveIdempotencyKey(long, 2)).not.toBe(first);
    expect(deriveIdempotencyKey('short', 7)).toBe('short-7');
  });
});

describe('campaign execution', () => {
  it('recovers on 409 like any order creation', async () => {
    const api = idempotentApi();
    stub = await startStub((req, res) => {
      if (req.path === '/api/v1/campaigns/CA-1/orders') {
        return api.handler({ ...req, path: '/api/v1/orders/campaign' }, res);
      }
      return api.handler(req, res);
    });
    const { client } = testClient(stub.url);
    const params = { recipients: [{ email: 'ann@example.com' }] };
    const first = await client.campaigns.execute('CA-1', params, { idempotencyKey: 'camp-1' });
    const second = await client.campaigns.execute('CA-1', params, { idempotencyKey: 'camp-1' });
    expect(first.recovered).toBe(false);
    expect(second).toMatchObject({ recovered: true, order: { orderId: first.order.orderId } });
  });

  it('requires exactly one of recipients or recipientGroupId', async () => {
    stub = await startStub((_req, res) => json(res, 201, {}));
    const { client } = testClient(stub.url);
    await expect(client.campaigns.execute('CA-1', {}, { idempotencyKey: 'c' })).rejects.toBeInstanceOf(
      RewardsRequestValidationError,
    );
    await expect(
      client.campaigns.execute(
        'CA-1',
        { recipients: [{ email: 'a@b.c' }], recipientGroupId: 'G-1' },
        { idempotencyKey: 'c' },
      ),
    ).rejects.toBeInstanceOf(RewardsRequestValidationError);
    expect(stub.requests).toHaveLength(0);
  });
});
