// Response validation tolerance, normalisation (money, timestamps, refundOption), error mapping, pagination.
import { afterEach, describe, expect, it } from 'vitest';

import {
  ErrorCodes,
  errorFromResponse,
  RewardsBadRequestError,
  RewardsConflictError,
  RewardsNotFoundError,
  RewardsPaymentRequiredError,
  RewardsPermissionError,
  RewardsResponseValidationError,
  RewardsUnprocessableError,
} from '../../src/rewards/index.js';
import {
  apiError,
  choiceParams,
  json,
  orderSummary,
  startStub,
  type StubServer,
  testClient,
} from './support/stub-server.js';

let stub: StubServer | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

describe('tolerant response validation', () => {
  it('keeps unknown fields, reads money given as strings, parses offset-less timestamps as UTC', async () => {
    stub = await startStub((_req, res) =>
      json(res, 200, {
        data: {
          ...orderSummary({ totalCost: { amount: '25.5', currency: 'USD' }, createdAt: '2026-03-08T07:30:00' }),
          bouncedCount: '1',
          somethingNew: { nested: true },
          recipients: [{ email: 'ann@example.com', rewardLink: null, amount: 25.5, extra: 1 }],
        },
      }),
    );
    const { client } = testClient(stub.url);
    const order = await client.orders.get('O-1');
    expect(order.totalCost).toEqual({ amount: '25.50', currency: 'USD' });
    expect(order.createdAt?.toISOString()).toBe('2026-03-08T07:30:00.000Z');
    expect(order.bouncedCount).toBe(1);
    expect((order as Record<string, unknown>).somethingNew).toEqual({ nested: true });
    expect(order.recipients[0]).toMatchObject({
      email: 'ann@example.com',
      rewardLink: null,
      amount: '25.50',
      extra: 1,
    });
  });

  it('accepts a detail without the {data} envelope and with optional fields missing', async () => {
    stub = await startStub((_req, res) => json(res, 200, { orderId: 'LO-9', status: 'PENDING' }));
    const { client } = testClient(stub.url);
    await expect(client.orders.get('LO-9')).resolves.toMatchObject({
      orderId: 'LO-9',
      status: 'PENDING',
      recipients: [],
    });
  });

  it('a malformed optional field of an order becomes undefined instead of hiding the order', async () => {
    stub = await startStub((_req, res) =>
      json(res, 201, { data: orderSummary({ createdAt: 'sometime', totalCost: { amount: 'n/a' }, sentCount: 'x' }) }),
    );
    const { client } = testClient(stub.url);
    const created = await client.orders.createChoice(choiceParams, { idempotencyKey: 'odd-1' });
    expect(created.order).toMatchObject({
      orderId: 'O-1',
      status: 'PENDING',
      createdAt: undefined,
      totalCost: undefined,
      sentCount: undefined,
    });
  });

  it('keeps a timestamp with an offset as the instant it names', async () => {
    stub = await startStub((_req, res) =>
      json(res, 200, { data: orderSummary({ createdAt: '2026-03-08T07:30:00+09:00' }) }),
    );
    const { client } = testClient(stub.url);
    expect((await client.orders.get('O-1')).createdAt?.toISOString()).toBe('2026-03-07T22:30:00.000Z');
  });

  it('rejects a body without the fields that identify the resource', async () => {
    stub = await startStub((_req, res) => json(res, 200, { data: { status: 'PENDING' } }));
    const { client } = testClient(stub.url);
    const error = await client.orders.get('O-1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RewardsResponseValidationError);
    expect(error).toMatchObject({ code: 'INVALID_RESPONSE', endpoint: '/api/v1/orders/{orderId}' });
  });

  it('rejects money that is not a decimal', async () => {
    stub = await startStub((_req, res) => json(res, 200, { availableBalance: { amount: 'lots', currency: 'USD' } }));
    const { client } = testClient(stub.url);
    await expect(client.balance.get()).rejects.toBeInstanceOf(RewardsResponseValidationError);
  });

  it('fills a missing pendingBalance with zero', async () => {
    stub = await startStub((_req, res) => json(res, 200, { availableBalance: { amount: 10000, currency: 'USD' } }));
    const { client } = testClient(stub.url);
    await expect(client.balance.get()).resolves.toMatchObject({ pendingBalance: { amount: '0.00', currency: 'USD' } });
  });

  it('normalises ledger status codes and signed amounts', async () => {
    stub = await startStub((_req, res) =>
      json(res, 200, {
        data: [
          {
            referenceNumber: 'O-1',
            type: 'USE',
            source: 'choice',
            status: 1,
            statusLabel: 'Balance Used',
            amount: { amount: -25, currency: 'USD' },
            signedAmount: { amount: -25, currency: 'USD' },
            occurredAt: '2026-11-22T12:00:00Z',
          },
          {
            referenceNumber: 'F-1',
            type: 'CHARGE',
            source: 'funding',
            status: '03',
            statusLabel: 'Unapproved',
            amount: { amount: 100, currency: 'USD' },
          },
        ],
        page: 1,
        pageSize: 20,
        totalCount: 2,
      }),
    );
    const { client } = testClient(stub.url);
    const page = await client.balance.ledger();
    expect(page.data.map((row) => [row.status, row.signedAmount?.amount ?? null])).toEqual([
      ['1', '-25.00'],
      ['03', null],
    ]);
  });

  it('finds the member count of a group under plausible names', async () => {
    stub = await startStub((req, res) =>
      json(
        res,
        200,
        req.path.endsWith('G-1')
          ? { groupId: 'G-1', groupName: 'Team', memberCount: 3 }
          : { data: { groupId: 'G-2', groupName: 'Two', membersCount: '7' } },
      ),
    );
    const { client } = testClient(stub.url);
    expect((await client.groups.get('G-1')).memberCount).toBe(3);
    expect((await client.groups.get('G-2')).memberCount).toBe(7);
  });
});

describe('cancel normalises refundOption to a boolean', () => {
  const cases: Array<[unknown, unknown, boolean, number | null]> = [
    [1, 60, true, 60],
    [1, null, true, 30], // refundable without an explicit window counts as 30 (spec 4.3)
    [0, null, false, null],
    [null, null, false, null],
    [true, 90, true, 90],
  ];
  for (const [raw, days, refundOption, refundOptionDays] of cases) {
    it(`refundOption ${JSON.stringify(raw)}, days ${JSON.stringify(days)}`, async () => {
      stub = await startStub((_req, res) =>
        json(res, 200, {
          orderId: 'O-5',
          status: 'CANCELED',
          canceledAt: '2026-11-22T12:00:00',
          refundOption: raw,
          refundOptionDays: days,
        }),
      );
      const { client } = testClient(stub.url);
      const canceled = await client.orders.cancel('O-5');
      expect(canceled).toMatchObject({ orderId: 'O-5', status: 'CANCELED', refundOption, refundOptionDays });
      expect(canceled.canceledAt?.toISOString()).toBe('2026-11-22T12:00:00.000Z');
      expect(stub.requests.at(-1)).toMatchObject({ method: 'DELETE', path: '/api/v1/orders/O-5' });
    });
  }

  it('list and detail booleans stay booleans', async () => {
    stub = await startStub((_req, res) =>
      json(res, 200, { data: orderSummary({ refundOption: false, refundOptionDays: null }) }),
    );
    const { client } = testClient(stub.url);
    expect((await client.orders.get('O-1')).refundOption).toBe(false);
  });
});

describe('error mapping', () => {
  const base = { headers: {}, method: 'POST', endpoint: '/x' };

  it('maps statuses to classes and keeps codes recognisable', () => {
    expect(
      errorFromResponse({ ...base, status: 402, body: { error: { code: 'INSUFFICIENT_BALANCE', message: 'no' } } }),
    ).toBeInstanceOf(RewardsPaymentRequiredError);
    expect(
      errorFromResponse({ ...base, status: 403, body: { error: { code: 'INSUFFICIENT_SCOPE', message: 'no' } } }),
    ).toBeInstanceOf(RewardsPermissionError);
    expect(errorFromResponse({ ...base, status: 404, body: undefined })).toBeInstanceOf(RewardsNotFoundError);
    expect(
      errorFromResponse({ ...base, status: 409, body: { error: { code: 'STALE_LIMIT_SNAPSHOT', message: '' } } }),
    ).toBeInstanceOf(RewardsConflictError);
    expect(
      errorFromResponse({ ...base, status: 422, body: { error: { code: 'DAILY_LIMIT_EXCEEDED', message: '' } } }).code,
    ).toBe(ErrorCodes.DAILY_LIMIT_EXCEEDED);
    expect(errorFromResponse({ ...base, status: 422, body: {} })).toBeInstanceOf(RewardsUnprocessableError);
    expect(errorFromResponse({ ...base, status: 413, body: 'too big' })).toBeInstanceOf(RewardsBadRequestError);
  });

  it('understands a flat body, a text body and no body', () => {
    expect(
      errorFromResponse({ ...base, status: 409, body: { code: 'FUNDING_NOT_CANCELABLE', message: 'done' } }),
    ).toMatchObject({ code: 'FUNDING_NOT_CANCELABLE' });
    expect(errorFromResponse({ ...base, status: 404, body: 'Not Found' })).toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringContaining('Not Found'),
    });
    expect(errorFromResponse({ ...base, status: 429, body: undefined })).toMatchObject({ code: 'RATE_LIMITED' });
    expect(errorFromResponse({ ...base, status: 418, body: undefined })).toMatchObject({ code: 'HTTP_418' });
  });

  it('carries the request id from the header or the body', () => {
    expect(errorFromResponse({ ...base, headers: { 'x-request-id': 'h-1' }, status: 400, body: {} }).requestId).toBe(
      'h-1',
    );
    expect(
      errorFromResponse({ ...base, status: 400, body: { error: { code: 'VALIDATION_ERROR' }, requestId: 'b-1' } })
        .requestId,
    ).toBe('b-1');
  });

  it('reaches callers with status, code and name', async () => {
    stub = await startStub((_req, res) => apiError(res, 409, 'RECIPIENT_HAS_PENDING_ORDER'));
    const { client } = testClient(stub.url);
    await expect(client.recipients.delete('RE-1')).rejects.toMatchObject({
      name: 'RewardsConflictError',
      status: 409,
      code: ErrorCodes.RECIPIENT_HAS_PENDING_ORDER,
      requestId: 'req-stub',
    });
  });
});

describe('pagination', () => {
  function pagedApi(total: number, opts: { lieAboutTotal?: number } = {}) {
    const items = Array.from({ length: total }, (_, i) => ({
      recipientId: `RE-${i + 1}`,
      email: `r${i + 1}@example.com`,
    }));
    return (req: { query: URLSearchParams }, res: Parameters<typeof json>[0]) => {
      const page = Number(req.query.get('page') ?? 1);
      let pageSize = Number(req.query.get('pageSize') ?? 20);
      if (pageSize > 100) pageSize = 20; // the API's silent clamp
      json(res, 200, {
        data: items.slice((page - 1) * pageSize, page * pageSize),
        page,
        pageSize,
        totalCount: opts.lieAboutTotal ?? total,
      });
    };
  }

  it('iterates every item, 100 per request, and stops by totalCount', async () => {
    stub = await startStub(pagedApi(250));
    const { client } = testClient(stub.url);
    const ids: string[] = [];
    for await (const recipient of client.recipients.list({ searchKeyword: 'r' })) ids.push(recipient.recipientId);
    expect(ids).toHaveLength(250);
    expect(new Set(ids).size).toBe(250);
    const requests = stub.hits('/api/v1/recipients');
    expect(requests.map((r) => [r.query.get('page'), r.query.get('pageSize'), r.query.get('searchKeyword')])).toEqual([
      ['1', '100', 'r'],
      ['2', '100', 'r'],
      ['3', '100', 'r'],
    ]);
  });

  it('stops on an empty page even if totalCount promised more', async () => {
    stub = await startStub(pagedApi(120, { lieAboutTotal: 1000 }));
    const { client } = testClient(stub.url);
    expect(await client.recipients.list().all()).toHaveLength(120);
    expect(stub.hits('/api/v1/recipients')).toHaveLength(3);
  });

  it('await gives one page; a pageSize above 100 is clamped to 100, never sent', async () => {
    stub = await startStub(pagedApi(250));
    const { client } = testClient(stub.url);
    const page = await client.recipients.list({ page: 2, pageSize: 500 });
    expect(page).toMatchObject({ page: 2, pageSize: 100, totalCount: 250 });
    expect(page.data[0]!.recipientId).toBe('RE-101');
    expect(stub.hits('/api/v1/recipients')[0]!.query.get('pageSize')).toBe('100');
  });

  it('an empty list yields nothing after one request', async () => {
    stub = await startStub(pagedApi(0));
    const { client } = testClient(stub.url);
    expect(await client.recipients.list().all()).toEqual([]);
    expect(stub.hits('/api/v1/recipients')).toHaveLength(1);
  });

  it('turns Date filters into YYYY-MM-DD', async () => {
    stub = await startStub((_req, res) => json(res, 200, { data: [], page: 1, pageSize: 20, totalCount: 0 }));
    const { client } = testClient(stub.url);
    await client.orders.list({ startDate: new Date('2026-11-01T05:00:00Z'), endDate: '2026-11-30', orderType: 'LINK' });
    const query = stub.hits('/api/v1/orders')[0]!.query;
    expect([query.get('startDate'), query.get('endDate'), query.get('orderType')]).toEqual([
      '2026-11-01',
      '2026-11-30',
      'LINK',
    ]);
  });
});

describe('repeated deletes', () => {
  it('cancel of an order that is already canceled reports it instead of failing', async () => {
    stub = await startStub((req, res) =>
      req.method === 'DELETE'
        ? apiError(res, 409, 'ORDER_NOT_CANCELABLE')
        : json(res, 200, {
            data: orderSummary({
              orderId: 'O-5',
              status: 'CANCELED',
              refundOption: true,
              refundOptionDays: null,
              canceledAt: '2026-11-22T11:00:00',
            }),
          }),
    );
    const { client } = testClient(stub.url);
    const canceled = await client.orders.cancel('O-5');
    expect(canceled).toMatchObject({
      orderId: 'O-5',
      status: 'CANCELED',
      alreadyCanceled: true,
      refundOption: true,
      refundOptionDays: 30,
    });
    expect(canceled.canceledAt?.toISOString()).toBe('2026-11-22T11:00:00.000Z');
  });

  it('cancel of a dispatched order stays an ORDER_NOT_CANCELABLE error', async () => {
    stub = await startStub((req, res) =>
      req.method === 'DELETE'
        ? apiError(res, 409, 'ORDER_NOT_CANCELABLE')
        : json(res, 200, { data: orderSummary({ status: 'COMPLETE' }) }),
    );
    const { client } = testClient(stub.url);
    await expect(client.orders.cancel('O-1')).rejects.toMatchObject({
      name: 'RewardsConflictError',
      code: ErrorCodes.ORDER_NOT_CANCELABLE,
    });
  });

  it('a DELETE whose answer was lost, retried into a 404, counts as done', async () => {
    let deleted = false;
    stub = await startStub((_req, res) => {
      if (!deleted) {
        deleted = true;
        res.socket?.destroy(); // deleted, but the answer never arrives
        return;
      }
      apiError(res, 404, 'NOT_FOUND');
    });
    const { client } = testClient(stub.url);
    await expect(client.recipients.delete('RE-1')).resolves.toBeUndefined();
    expect(stub.hits('/api/v1/recipients/RE-1', 'DELETE')).toHaveLength(2);
  });

  it('a DELETE answered 404 straight away is RewardsNotFoundError', async () => {
    stub = await startStub((_req, res) => apiError(res, 404, 'NOT_FOUND'));
    const { client } = testClient(stub.url);
    await expect(client.recipients.delete('RE-404')).rejects.toBeInstanceOf(RewardsNotFoundError);
  });
});
