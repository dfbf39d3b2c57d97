import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import type { TestEmulator } from '../support/emulator.js';
import { apiClient, getToken, http, startDeterministicEmulator } from './helpers.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startDeterministicEmulator();
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

const form = (fields: Record<string, string>) => ({
  body: new URLSearchParams(fields).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
});

describe('POST /oauth2/token', () => {
  it('issues a production token for 1 hour with the requested scopes', async () => {
    const res = await http(
      `${emu.url}/oauth2/token`,
      form({
        grant_type: 'client_credentials',
        client_id: 'production-client',
        client_secret: 'production-secret',
        scope: 'catalog.read orders.read',
      }),
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'catalog.read orders.read',
    });
  });

  it('issues a sandbox token for 24 hours, with every scope when none is requested', async () => {
    const res = await http(
      `${emu.url}/oauth2/token`,
      form({ grant_type: 'client_credentials', client_id: 'sandbox-client', client_secret: 'sandbox-secret' }),
    );
    expect(res.body.expires_in).toBe(86400);
    expect(res.body.scope.split(' ')).toContain('balance.write');
  });

  it('accepts HTTP Basic client authentication', async () => {
    const res = await http(`${emu.url}/oauth2/token`, {
      ...form({ grant_type: 'client_credentials' }),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from('sandbox-client:sandbox-secret').toString('base64')}`,
      },
    });
    expect(res.status).toBe(200);
  });

  it('refuses a wrong secret, an unknown client, a wrong grant type and an unknown scope', async () => {
    const wrongSecret = await http(
      `${emu.url}/oauth2/token`,
      form({ grant_type: 'client_credentials', client_id: 'production-client', client_secret: 'nope' }),
    );
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.body.error.code).toBe('INVALID_CLIENT');
    const unknown = await http(
      `${emu.url}/oauth2/token`,
      form({ grant_type: 'client_credentials', client_id: 'who', client_secret: 'x' }),
    );
    expect(unknown.body.error.code).toBe('INVALID_CLIENT');
    const grant = await http(
      `${emu.url}/oauth2/token`,
      form({ grant_type: 'password', client_id: 'production-client', client_secret: 'production-secret' }),
    );
    expect([grant.status, grant.body.error.code]).toEqual([400, 'UNSUPPORTED_GRANT_TYPE']);
    const scope = await http(
      `${emu.url}/oauth2/token`,
      form({
        grant_type: 'client_credentials',
        client_id: 'production-client',
        client_secret: 'production-secret',
        scope: 'orders.read admin',
      }),
    );
    expect([scope.status, scope.body.error.code]).toEqual([400, 'INVALID_SCOPE']);
  });

  it('refuses a JSON body (the endpoint is form-encoded)', async () => {
    const res = await http(`${emu.url}/oauth2/token`, {
      json: { grant_type: 'client_credentials', client_id: 'production-client', client_secret: 'production-secret' },
    });
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('honours EMULATOR_* credential overrides', async () => {
    const custom = await startDeterministicEmulator({
      EMULATOR_PRODUCTION_CLIENT_ID: 'my-id',
      EMULATOR_PRODUCTION_CLIENT_SECRET: 'my-secret',
    });
    try {
      const ok = await http(
        `${custom.url}/oauth2/token`,
        form({ grant_type: 'client_credentials', client_id: 'my-id', client_secret: 'my-secret' }),
      );
      expect(ok.status).toBe(200);
      const old = await http(
        `${custom.url}/oauth2/token`,
        form({ grant_type: 'client_credentials', client_id: 'production-client', client_secret: 'production-secret' }),
      );
      expect(old.status).toBe(401);
    } finally {
      await custom.close();
    }
  });
});

describe('bearer tokens', () => {
  it('401 without a token, with a malformed header, or with an unknown token; error envelope with request id', async () => {
    for (const headers of [{}, { authorization: 'Token abc' }, { authorization: 'Bearer nope' }] as Array<
      Record<string, string>
    >) {
      const res = await http(`${emu.url}/api/v1/balance`, { headers });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHORIZED');
      expect(res.body.requestId).toBe(res.headers.get('x-request-id'));
    }
  });

  it('a production token expires after 1 hour of emulator time; a sandbox token lasts 24 hours', async () => {
    const prod = apiClient(emu.url, await getToken(emu.url, 'production'));
    const sand = apiClient(emu.url, await getToken(emu.url, 'sandbox'));
    await emu.advance(3599);
    expect((await prod.get('/balance')).status).toBe(200);
    await emu.advance(1);
    const expired = await prod.get('/balance');
    expect([expired.status, expired.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
    expect((await sand.get('/balance')).status).toBe(200);
    await emu.advance(86400 - 3600);
    expect((await sand.get('/balance')).status).toBe(401);
  });
});

describe('scopes are enforced per endpoint', () => {
  const endpoints: Array<[string, string, string[]]> = [
    ['GET', '/catalog/branded-cards', ['catalog.read']],
    ['GET', '/catalog/choice-cards/CC-THANK-YOU', ['catalog.read']],
    ['GET', '/orders', ['orders.read']],
    ['GET', '/orders/OR0', ['orders.read']],
    ['POST', '/orders/choice-cards', ['orders.write']],
    ['POST', '/orders/branded-cards', ['orders.write']],
    ['POST', '/orders/reward-links', ['orders.write']],
    ['POST', '/orders/test-email', ['orders.write']],
    ['POST', '/orders/limit-increase-requests', ['orders.write']],
    ['POST', '/orders/OR0/resend', ['orders.write']],
    ['DELETE', '/orders/OR0', ['orders.cancel']],
    ['POST', '/orders/OR0/cancel', ['orders.cancel']],
    ['GET', '/campaigns', ['campaigns.read']],
    ['POST', '/campaigns', ['campaigns.write']],
    ['POST', '/campaigns/CA-X/orders', ['campaigns.write', 'orders.write']],
    ['GET', '/recipients', ['recipients.read']],
    ['POST', '/recipients', ['recipients.write']],
    ['GET', '/recipient-groups', ['recipients.read']],
    ['POST', '/recipient-groups/G/members', ['recipients.write']],
    ['GET', '/balance', ['balance.read']],
    ['GET', '/balance/ledger', ['balance.read']],
    ['POST', '/balance/charge', ['balance.write']],
    ['DELETE', '/balance/charge/FD1', ['balance.write']],
  ];

  it.each(endpoints)('%s %s needs %j', async (method, path, scopes) => {
    const all =
      'catalog.read orders.read orders.write orders.cancel campaigns.read campaigns.write recipients.read recipients.write balance.read balance.write'.split(
        ' ',
      );
    // Every scope except one of the required ones: 403 INSUFFICIENT_SCOPE.
    for (const missing of scopes) {
      const token = await getToken(emu.url, 'production', all.filter((s) => s !== missing).join(' '));
      const res = await http(`${emu.url}/api/v1${path}`, { method, token, ...(method === 'POST' ? { json: {} } : {}) });
      expect(res.status, `${method} ${path} without ${missing}`).toBe(403);
      expect(res.body.error.code).toBe('INSUFFICIENT_SCOPE');
    }
    // Exactly the required scopes: past the scope check (any answer but 403).
    const token = await getToken(emu.url, 'production', scopes.join(' '));
    const res = await http(`${emu.url}/api/v1${path}`, { method, token, ...(method === 'POST' ? { json: {} } : {}) });
    expect(res.status).not.toBe(403);
  });

  it('template endpoints accept any valid token', async () => {
    const token = await getToken(emu.url, 'production', 'catalog.read');
    expect((await http(`${emu.url}/api/v1/templates`, { token })).status).toBe(200);
  });
});
