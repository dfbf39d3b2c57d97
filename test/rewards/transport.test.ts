// Retries, backoff, rate-limit budget, timeouts, aborts and dropped connections, against a stub server.
import { afterEach, describe, expect, it } from 'vitest';

import {
  RewardsAbortError,
  RewardsConnectionError,
  RewardsRateLimitError,
  RewardsServerError,
  RewardsTimeoutError,
} from '../../src/rewards/index.js';
import { abortableSleep } from '../../src/rewards/transport.js';
import { apiError, drop, json, startStub, type StubServer, testClient } from './support/stub-server.js';

const balanceBody = {
  availableBalance: { amount: 10000, currency: 'USD' },
  pendingBalance: { amount: 0, currency: 'USD' },
};
let stub: StubServer | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

describe('GET retries', () => {
  it('retries a 500 twice and returns the third answer', async () => {
    stub = await startStub((_req, res, i) => (i < 2 ? apiError(res, 500, 'INTERNAL') : json(res, 200, balanceBody)));
    const { client, sleeps } = testClient(stub.url);
    const balance = await client.balance.get();
    expect(balance.availableBalance).toEqual({ amount: '10000.00', currency: 'USD' });
    expect(stub.hits('/api/v1/balance')).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
    expect(sleeps[1]!).toBeGreaterThan(sleeps[0]!); // exponential
  });

  it('gives up after maxRetries with a RewardsServerError', async () => {
    stub = await startStub((_req, res) => apiError(res, 503, 'UNAVAILABLE'));
    const { client } = testClient(stub.url, { maxRetries: 2 });
    const error = await client.balance.get().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RewardsServerError);
    expect(error).toMatchObject({ status: 503, code: 'UNAVAILABLE', requestId: 'req-stub' });
    expect(stub.hits('/api/v1/balance')).toHaveLength(3);
  });

  it('retries a dropped connection', async () => {
    stub = await startStub((_req, res, i) => (i === 0 ? drop(res) : json(res, 200, balanceBody)));
    const { client, calls } = testClient(stub.url);
    await expect(client.balance.get()).resolves.toBeDefined();
    expect(stub.hits('/api/v1/balance')).toHaveLength(2);
    expect(calls.filter((c) => c.endpoint === '/api/v1/balance').map((c) => c.status)).toEqual(['network', 200]);
  });

  it('retries DELETE on 5xx too', async () => {
    stub = await startStub((_req, res, i) => (i === 0 ? apiError(res, 502, 'BAD_GATEWAY') : json(res, 204, undefined)));
    const { client } = testClient(stub.url);
    await client.recipients.delete('RE-1');
    expect(stub.hits('/api/v1/recipients/RE-1', 'DELETE')).toHaveLength(2);
  });
});

describe('429 and rate-limit headers', () => {
  it('waits as long as Retry-After says', async () => {
    stub = await startStub((_req, res, i) =>
      i === 0 ? apiError(res, 429, 'RATE_LIMITED', { 'retry-after': '7' }) : json(res, 200, balanceBody),
    );
    const { client, sleeps } = testClient(stub.url);
    await client.balance.get();
    expect(sleeps.some((ms) => ms >= 7_000 && ms < 8_000)).toBe(true);
  });

  it('reads X-RateLimit-Reset as seconds until the reset', async () => {
    stub = await startStub((_req, res, i) =>
      i === 0
        ? apiError(res, 429, 'RATE_LIMITED', {
            'x-ratelimit-limit': '100',
            'x-ratelimit-remaining': '0',
            'x-ratelimit-reset': '4',
          })
        : json(res, 200, balanceBody),
    );
    const { client, sleeps } = testClient(stub.url);
    await client.balance.get();
    expect(Math.max(...sleeps)).toBeGreaterThanOrEqual(4_000);
    expect(Math.max(...sleeps)).toBeLessThan(5_000);
  });

  it('reads a large X-RateLimit-Reset as an epoch timestamp', async () => {
    let resetEpochS = 0;
    stub = await startStub((_req, res, i) =>
      i === 0
        ? apiError(res, 429, 'RATE_LIMITED', { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(resetEpochS) })
        : json(res, 200, balanceBody),
    );
    const { client, sleeps, clock } = testClient(stub.url);
    resetEpochS = Math.floor(clock.now / 1000) + 6;
    await client.balance.get();
    expect(Math.max(...sleeps)).toBeGreaterThanOrEqual(6_000);
    expect(Math.max(...sleeps)).toBeLessThan(7_000);
  });

  it('throws RewardsRateLimitError when 429 persists', async () => {
    stub = await startStub((_req, res) => apiError(res, 429, 'RATE_LIMITED', { 'retry-after': '1' }));
    const { client } = testClient(stub.url, { maxRetries: 1 });
    await expect(client.balance.get()).rejects.toBeInstanceOf(RewardsRateLimitError);
    expect(stub.hits('/api/v1/balance')).toHaveLength(2);
  });

  it('slows a burst down before the budget runs out, and waits for the reset once it is spent', async () => {
    let remaining = 12;
    let windowEndS = 0;
    stub = await startStub((_req, res) => {
      remaining = Math.max(0, remaining - 1);
      json(res, 200, balanceBody, {
        'x-ratelimit-limit': '100',
        'x-ratelimit-remaining': String(remaining),
        'x-ratelimit-reset': String(windowEndS),
      });
    });
    const { client, sleeps, clock } = testClient(stub.url);
    const start = clock.now;
    windowEndS = start / 1000 + 10; // epoch seconds: one fixed window of 10 s
    await client.balance.get(); // learns: 11 left of 100 (under the 10% low-water mark)
    expect(sleeps).toEqual([]);
    for (let i = 0; i < 11; i++) await client.balance.get();
    // The requests were spread over the window instead of being fired at once.
    expect(sleeps.length).toBeGreaterThanOrEqual(9);
    expect(clock.now - start).toBeGreaterThan(5_000);
    expect(clock.now - start).toBeLessThanOrEqual(10_000);
    // The budget is spent now: the next request is not sent before the window resets.
    await client.balance.get();
    expect(clock.now - start).toBeGreaterThanOrEqual(10_000);
  });

  it('does not slow down while the budget is healthy, and shows the budget', async () => {
    stub = await startStub((_req, res) =>
      json(res, 200, balanceBody, {
        'x-ratelimit-limit': '1000',
        'x-ratelimit-remaining': '900',
        'x-ratelimit-reset': '10',
      }),
    );
    const { client, sleeps, clock } = testClient(stub.url);
    expect(client.rateLimit()).toBeUndefined();
    await Promise.all(Array.from({ length: 20 }, () => client.balance.get()));
    expect(sleeps).toEqual([]);
    expect(client.rateLimit()).toEqual({ limit: 1000, remaining: 900, resetAt: new Date(clock.now + 10_000) });
  });
});

describe('POST without idempotency', () => {
  const recipient = { email: 'ann@example.com', firstName: 'Ann' };

  it('is not retried on 500', async () => {
    stub = await startStub((_req, res) => apiError(res, 500, 'INTERNAL'));
    const { client } = testClient(stub.url);
    await expect(client.recipients.create(recipient)).rejects.toBeInstanceOf(RewardsServerError);
    expect(stub.hits('/api/v1/recipients', 'POST')).toHaveLength(1);
  });

  it('is not retried after a dropped connection', async () => {
    stub = await startStub((_req, res) => drop(res));
    const { client } = testClient(stub.url);
    const error = await client.recipients.create(recipient).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RewardsConnectionError);
    expect(stub.hits('/api/v1/recipients', 'POST')).toHaveLength(1);
  });

  it('is retried when the connection was refused (nothing was sent)', async () => {
    // Every answer closes its connection: the client keeps no pooled socket to the closed server.
    const closing = { connection: 'close' };
    const server = await startStub((_req, res) => json(res, 200, balanceBody, closing), {
      token: (_req, res) => json(res, 200, { access_token: 'tok-1', token_type: 'Bearer', expires_in: 3600 }, closing),
    });
    const { client, calls } = testClient(server.url, { maxRetries: 2 });
    await client.balance.get(); // token cached
    await server.close(); // now nothing listens on that port
    const error = await client.recipients.create(recipient).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RewardsConnectionError);
    expect(error).toMatchObject({ code: 'CONNECTION_ERROR', causeCode: 'ECONNREFUSED', notSent: true });
    expect(calls.filter((c) => c.endpoint === '/api/v1/recipients').map((c) => c.status)).toEqual([
      'network',
      'network',
      'network',
    ]);
  });

  it('is retried on 429 (the request was refused, not processed)', async () => {
    stub = await startStub((_req, res, i) =>
      i === 0
        ? apiError(res, 429, 'RATE_LIMITED', { 'retry-after': '1' })
        : json(res, 201, { recipientId: 'RE-1', ...recipient }),
    );
    const { client } = testClient(stub.url);
    await expect(client.recipients.create(recipient)).resolves.toMatchObject({ recipientId: 'RE-1' });
    expect(stub.hits('/api/v1/recipients', 'POST')).toHaveLength(2);
  });
});

describe('timeouts and aborts', () => {
  it('turns a slow answer into RewardsTimeoutError', async () => {
    stub = await startStub(async (_req, res) => {
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      if (!res.destroyed) json(res, 200, balanceBody);
    });
    const { client, calls } = testClient(stub.url, { timeoutMs: 100, maxRetries: 0 });
    const error = await client.balance.get().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RewardsTimeoutError);
    expect(error).toMatchObject({ code: 'TIMEOUT', timeoutMs: 100 });
    expect(calls.at(-1)).toMatchObject({ status: 'network', code: 'TIMEOUT' });
  });

  it('retries a timed-out GET', async () => {
    stub = await startStub(async (_req, res, i) => {
      if (i === 0) await new Promise((resolve) => setTimeout(resolve, 2_000));
      if (!res.destroyed) json(res, 200, balanceBody);
    });
    const { client } = testClient(stub.url, { timeoutMs: 500 });
    await expect(client.balance.get()).resolves.toBeDefined();
    expect(stub.hits('/api/v1/balance')).toHaveLength(2);
  });

  it('per-call timeoutMs overrides the client default', async () => {
    stub = await startStub(async (_req, res) => {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      if (!res.destroyed) json(res, 200, balanceBody);
    });
    const { client } = testClient(stub.url, { timeoutMs: 60_000, maxRetries: 0 });
    await expect(client.balance.get({ timeoutMs: 100 })).rejects.toBeInstanceOf(RewardsTimeoutError);
  });

  it('an aborted call fails with RewardsAbortError and is not retried', async () => {
    const controller = new AbortController();
    stub = await startStub(async (_req, res) => {
      controller.abort();
      await new Promise((resolve) => setTimeout(resolve, 300));
      if (!res.destroyed) json(res, 200, balanceBody);
    });
    const { client } = testClient(stub.url);
    await expect(client.balance.get({ signal: controller.signal })).rejects.toBeInstanceOf(RewardsAbortError);
    expect(stub.hits('/api/v1/balance')).toHaveLength(1);
  });

  it('an abort during the backoff between retries ends the call', async () => {
    const controller = new AbortController();
    stub = await startStub((_req, res) => apiError(res, 503, 'UNAVAILABLE'));
    // The real timer-based sleep, with a backoff far longer than the test; the caller gives up once
    // the client waits to retry after the 503.
    const sleep = (ms: number, signal?: AbortSignal) => {
      const waiting = abortableSleep(ms, signal);
      if (stub!.hits('/api/v1/balance').length > 0) controller.abort();
      return waiting;
    };
    const { client } = testClient(stub.url, { sleep, retryBaseDelayMs: 20_000, maxRetryDelayMs: 20_000 });
    await expect(client.balance.get({ signal: controller.signal })).rejects.toBeInstanceOf(RewardsAbortError);
    expect(stub.hits('/api/v1/balance')).toHaveLength(1);
  });

  it('an already aborted signal sends nothing', async () => {
    stub = await startStub((_req, res) => json(res, 200, balanceBody));
    const { client } = testClient(stub.url);
    await expect(client.balance.get({ signal: AbortSignal.abort() })).rejects.toBeInstanceOf(RewardsAbortError);
    expect(stub.requests).toHaveLength(0);
  });
});

describe('onCall hook', () => {
  it('reports every attempt with route template, status and code', async () => {
    stub = await startStub((_req, res, i) =>
      i === 0 ? apiError(res, 500, 'INTERNAL') : json(res, 200, { recipientId: 'RE-9', email: 'a@b.c' }),
    );
    const { client, calls } = testClient(stub.url);
    await client.recipients.get('RE-9');
    expect(calls).toEqual([
      { method: 'POST', endpoint: '/oauth2/token', status: 200 },
      { method: 'GET', endpoint: '/api/v1/recipients/{recipientId}', status: 500, code: 'INTERNAL' },
      { method: 'GET', endpoint: '/api/v1/recipients/{recipientId}', status: 200 },
    ]);
  });

  it('a throwing hook does not break the call', async () => {
    stub = await startStub((_req, res) => json(res, 200, balanceBody));
    const { client } = testClient(stub.url, {
      onCall: () => {
        throw new Error('metrics down');
      },
    });
    await expect(client.balance.get()).resolves.toBeDefined();
  });
});
