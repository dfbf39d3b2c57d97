// The direct users.info / views.open path (no WebClient layers) answers and fails exactly as the
// WebClient path does, so that the gateway's callers cannot tell them apart.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type SlackSimulator, startSlackSimulator } from '../../../src/simulator/slack.js';
import { createDirectWebApi, type DirectWebApi } from '../../../src/slack/web-api/direct-web-api.js';
import { createSlackGateway } from '../../../src/slack/web-api/gateway.js';

let sim: SlackSimulator;
let direct: DirectWebApi;

beforeAll(async () => {
  sim = await startSlackSimulator({ signingSecret: 'test-secret' });
  direct = createDirectWebApi({ apiUrl: sim.apiUrl, token: sim.botToken });
});
afterAll(async () => {
  await direct?.close();
  await sim?.close();
});

/** A Web API that answers every call with `status` (and Retry-After: 7). */
async function answering(status: number): Promise<{ server: Server; url: string }> {
  const server = createServer((_req, res) =>
    res.writeHead(status, { 'retry-after': '7', 'content-type': 'application/json' }).end('{}'),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/` };
}

describe('direct Web API calls', () => {
  it('looks users up through the gateway, and reads user_not_found as no user', async () => {
    const gateway = createSlackGateway({} as never, { direct: direct.call, userCacheTtlMs: 0 });
    const user = await gateway.userInfo('U_EMP1');
    expect(user).toMatchObject({ id: 'U_EMP1' });
    expect(user?.email).toContain('@');
    expect(await gateway.userInfo('U_NOBODY')).toBeUndefined();
    const call = sim.calls.find((c) => c.method === 'users.info' && c.args.user === 'U_EMP1');
    expect(call?.ok).toBe(true);
  });

  it("fails with WebClient's platform error shape when Slack refuses (a spent trigger_id)", async () => {
    const gateway = createSlackGateway({} as never, { direct: direct.call });
    const view = { type: 'modal', title: { type: 'plain_text', text: 'Kudos' }, blocks: [] };
    await expect(gateway.openView('not-a-trigger', view as never)).rejects.toMatchObject({
      code: 'slack_webapi_platform_error',
      data: { error: 'invalid_trigger_id' },
    });
  });

  it('turns 429 into a rate-limited error with Retry-After, and other statuses into an HTTP error', async () => {
    for (const [status, expected] of [
      [429, { code: 'slack_webapi_rate_limited_error', retryAfter: 7 }],
      [503, { code: 'slack_webapi_http_error', statusCode: 503 }],
    ] as const) {
      const { server, url } = await answering(status);
      const api = createDirectWebApi({ apiUrl: url, token: 'xoxb-test' });
      try {
        await expect(api.call('users.info', { user: 'U1' }, 'form')).rejects.toMatchObject(expected);
      } finally {
        await api.close();
        server.close();
      }
    }
  });
});
