// Token caching, single-flight renewal, 401 renew-once, scopes and token endpoint errors.
import { afterEach, describe, expect, it } from 'vitest';

import { ALL_SCOPES, RewardsAuthError } from '../../src/rewards/index.js';
import { apiError, json, startStub, type StubServer, testClient } from './support/stub-server.js';

const balanceBody = {
  availableBalance: { amount: 1, currency: 'USD' },
  pendingBalance: { amount: 0, currency: 'USD' },
};
let stub: StubServer | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

describe('token cache', () => {
  it('fetches one token with the client credentials and reuses it', async () => {
    stub = await startStub((_req, res) => json(res, 200, balanceBody));
    const { client } = testClient(stub.url);
    await client.balance.get();
    await client.balance.get();
    await client.balance.get();
    const tokenRequests = stub.tokenRequests();
    expect(tokenRequests).toHaveLength(1);
    expect(tokenRequests[0]!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(tokenRequests[0]!.body).toMatchObject({
      grant_type: 'client_credentials',
      client_id: 'production-client',
      client_secret: 'production-secret',
    });
    expect(tokenRequests[0]!.body.scope.split(' ')).toEqual([...ALL_SCOPES]);
    expect(stub.hits('/api/v1/balance').map((r) => r.headers.authorization)).toEqual([
      'Bearer tok-1',
      'Bearer tok-1',
      'Bearer tok-1',
    ]);
  });

  it('requests the configured scopes', async () => {
    stub = await startStub((_req, res) => json(res, 200, balanceBody));
    const { client } = testClient(stub.url, { scopes: ['balance.read', 'orders.read'] });
    await client.balance.get();
    expect(stub.tokenRequests()[0]!.body.scope).toBe('balance.read orders.read');
  });

  it('renews shortly before expires_in, not after', async () => {
    stub = await startStub((_req, res) => json(res, 200, balanceBody), { expiresIn: 3600 });
    const { client, clock } = testClient(stub.url);
    await client.balance.get();
    clock.now += 3_600_000 - 61_000; // 61 s before expiry: still good
    await client.balance.get();
    expect(stub.tokenRequests()).toHaveLength(1);
    clock.now += 2_000; // inside the 60 s margin
    await client.balance.get();
    expect(stub.tokenRequests()).toHaveLength(2);
    expect(stub.hits('/api/v1/balance').at(-1)!.headers.authorization).toBe('Bearer tok-2');
  });

  it('uses a 10% margin for short-lived tokens', async () => {
    stub = await startStub((_req, res) => json(res, 200, balanceBody), { expiresIn: 100 });
    const { client, clock } = testClient(stub.url);
    await client.balance.get();
    clock.now += 89_000;
    await client.balance.get();
    expect(stub.tokenRequests()).toHaveLength(1);
    clock.now += 2_000; // 91 s of 100: inside the 10 s margin
    await client.balance.get();
    expect(stub.tokenRequests()).toHaveLength(2);
  });

  it('many concurrent calls share ONE token request', async () => {
    stub = await startStub((_req, res) => json(res, 200, balanceBody), {
      token: async (_req, res) => {
        await new Promise((resolve) => setTimeout(resolve, 100));
        json(res, 200, { access_token: 'shared', token_type: 'Bearer', expires_in: 3600 });
      },
    });
    const { client } = testClient(stub.url);
    await Promise.all(Array.from({ length: 25 }, () => client.balance.get()));
    expect(stub.tokenRequests()).toHaveLength(1);
    expect(stub.hits('/api/v1/balance').every((r) => r.headers.authorization === 'Bearer shared')).toBe(true);
  });

  it('a caller that gives up while the token is being fetched does not fail the others', async () => {
    const controller = new AbortController();
    stub = await startStub((_req, res) => json(res, 200, balanceBody), {
      token: (_req, res) => {
        // The token request has reached the server: the impatient caller gives up now (the abort
        // reaches the client at once), before the token is answered.
        controller.abort();
        json(res, 200, { access_token: 'slow', expires_in: 3600 });
      },
    });
    const { client } = testClient(stub.url);
    const impatient = client.balance.get({ signal: controller.signal });
    const patient = client.balance.get();
    await expect(impatient).rejects.toMatchObject({ name: 'RewardsAbortError' });
    await expect(patient).resolves.toBeDefined();
    expect(stub.tokenRequests()).toHaveLength(1);
    expect(stub.hits('/api/v1/balance')).toHaveLength(1);
  });

  it('concurrent calls that all meet a 401 renew the token once', async () => {
    stub = await startStub(
      (req, res) =>
        req.headers.authorization === 'Bearer tok-1' ? apiError(res, 401, 'UNAUTHORIZED') : json(res, 200, balanceBody),
      {},
    );
    const { client } = testClient(stub.url);
    await client.balance.get().catch(() => undefined); // primes tok-1 (then renews to tok-2)
    const tokensBefore = stub.tokenRequests().length;
    expect(tokensBefore).toBe(2);
    await Promise.all(Array.from({ length: 10 }, () => client.balance.get()));
    expect(stub.tokenRequests()).toHaveLength(2);
  });
});

describe('401 with a stale token', () => {
  it('renews the token and retries once', async () => {
    stub = await startStub((req, res) =>
      req.headers.authorization === 'Bearer tok-1' ? apiError(res, 401, 'UNAUTHORIZED') : json(res, 200, balanceBody),
    );
    const { client } = testClient(stub.url);
    await expect(client.balance.get()).resolves.toBeDefined();
    expect(stub.tokenRequests()).toHaveLength(2);
    expect(stub.hits('/api/v1/balance').map((r) => r.headers.authorization)).toEqual(['Bearer tok-1', 'Bearer tok-2']);
  });

  it('a second 401 is final: RewardsAuthError, no loop', async () => {
    stub = await startStub((_req, res) => apiError(res, 401, 'UNAUTHORIZED'));
    const { client } = testClient(stub.url);
    const error = await client.balance.get().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RewardsAuthError);
    expect(error).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(stub.hits('/api/v1/balance')).toHaveLength(2);
    expect(stub.tokenRequests()).toHaveLength(2);
  });

  it('a 401 on a non-idempotent POST is retried once too (it was not processed)', async () => {
    stub = await startStub((req, res) =>
      req.headers.authorization === 'Bearer tok-1'
        ? apiError(res, 401, 'UNAUTHORIZED')
        : json(res, 201, { recipientId: 'RE-1', email: 'a@b.c' }),
    );
    const { client } = testClient(stub.url);
    await expect(client.recipients.create({ email: 'a@b.c' })).resolves.toMatchObject({ recipientId: 'RE-1' });
    expect(stub.hits('/api/v1/recipients', 'POST')).toHaveLength(2);
  });
});

describe('token endpoint failures', () => {
  it('bad credentials give RewardsAuthError INVALID_CLIENT (OAuth style body)', async () => {
    stub = await startStub((_req, res) => json(res, 200, balanceBody), {
      token: (_req, res) => json(res, 401, { error: 'invalid_client', error_description: 'bad secret' }),
    });
    const { client } = testClient(stub.url);
    const error = await client.balance.get().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RewardsAuthError);
    expect(error).toMatchObject({ code: 'INVALID_CLIENT', status: 401 });
    expect(stub.hits('/api/v1/balance')).toHaveLength(0);
  });

  it('a 400 INVALID_SCOPE is an auth error and not retried', async () => {
    stub = await startStub((_req, res) => json(res, 200, balanceBody), {
      token: (_req, res) => apiError(res, 400, 'INVALID_SCOPE'),
    });
    const { client } = testClient(stub.url);
    await expect(client.balance.get()).rejects.toMatchObject({ name: 'RewardsAuthError', code: 'INVALID_SCOPE' });
    expect(stub.tokenRequests()).toHaveLength(1);
  });

  it('a 503 from the token endpoint is retried', async () => {
    stub = await startStub((_req, res) => json(res, 200, balanceBody), {
      token: (_req, res, i) =>
        i === 0 ? apiError(res, 503, 'UNAVAILABLE') : json(res, 200, { access_token: 'late', expires_in: 3600 }),
    });
    const { client } = testClient(stub.url);
    await expect(client.balance.get()).resolves.toBeDefined();
    expect(stub.tokenRequests()).toHaveLength(2);
  });
});
