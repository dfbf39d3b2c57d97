// Extension: more than one Rewards organization in one emulator (src/emulator/organizations.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type RunningEmulator, startEmulator } from '../../src/emulator/server.js';

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0, env: { EMULATOR_BACKGROUND: 'off' } });
});
afterAll(() => emulator.close());

const post = (path: string, body: unknown) =>
  fetch(`${emulator.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
async function token(clientId: string, secret: string): Promise<{ status: number; token?: string }> {
  const res = await fetch(`${emulator.url}/oauth2/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }),
  });
  return {
    status: res.status,
    ...(res.ok ? { token: ((await res.json()) as { access_token: string }).access_token } : {}),
  };
}
async function balance(bearer: string): Promise<number> {
  const res = await fetch(`${emulator.url}/api/v1/balance`, { headers: { Authorization: `Bearer ${bearer}` } });
  return ((await res.json()) as { data: { availableBalance: { amount: number } } }).data.availableBalance.amount;
}

describe('emulator organizations', () => {
  it('an added organization has its own apps and balance; tokens reach their own organization; reset removes it', async () => {
    expect(
      (
        await post('/_emulator/orgs', {
          orgId: 'beta',
          productionClientId: 'beta-client',
          productionClientSecret: 'beta-secret',
          signingSecret: 'beta-signing',
        })
      ).status,
    ).toBe(201);
    // A client id taken by another organization is refused.
    expect(
      (
        await post('/_emulator/orgs', {
          orgId: 'gamma',
          productionClientId: 'production-client',
          productionClientSecret: 'x',
          signingSecret: 'y',
        })
      ).status,
    ).toBe(409);
    expect((await post('/_emulator/orgs/beta/balance', { amount: 123.45 })).status).toBe(200);

    const main = await token('production-client', 'production-secret');
    const beta = await token('beta-client', 'beta-secret');
    expect(await balance(main.token!)).toBe(10000);
    expect(await balance(beta.token!)).toBe(123.45);
    // Another organization's secret does not work for this one's client id.
    expect((await token('beta-client', 'production-secret')).status).toBe(401);

    await post('/_emulator/reset', {});
    expect((await token('beta-client', 'beta-secret')).status).toBe(401);
    expect((await fetch(`${emulator.url}/_emulator/orgs/beta/clock`)).status).toBe(404);
  });
});
