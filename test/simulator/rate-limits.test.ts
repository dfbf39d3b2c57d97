// The simulator's Slack rate limits over HTTP, on a clock the test moves (no waiting, no timings):
// per method and workspace by tier over a sliding minute, chat.postMessage per channel (a short burst,
// then 1 per second) and per workspace, a forced storm; each past-the-limit call is a 429 with a
// whole-seconds Retry-After and Slack's error body, counted on the control route.
import { afterEach, describe, expect, it } from 'vitest';

import { type SlackSimulator, type SlackSimulatorOptions, startSlackSimulator } from '../../src/simulator/slack.js';

type StartOptions = Partial<SlackSimulatorOptions>;

let sim: SlackSimulator | undefined;
let now = 1_800_000_000_000;

afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function start(opts: StartOptions = {}): Promise<SlackSimulator> {
  now = 1_800_000_000_000;
  sim = await startSlackSimulator({ signingSecret: 'test-secret', now: () => now, ...opts });
  return sim;
}

async function call(
  method: string,
  args: Record<string, string>,
): Promise<{ status: number; retryAfter: string | null; body: Record<string, unknown> }> {
  const res = await fetch(`${sim!.apiUrl}${method}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: `Bearer ${sim!.botToken}` },
    body: new URLSearchParams(args).toString(),
  });
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    body: (await res.json()) as Record<string, unknown>,
  };
}

async function controlCounts(): Promise<{
  enabled: boolean;
  total: number;
  byMethod: Record<string, number>;
  byChannel: Record<string, number>;
  byTeam: Record<string, number>;
}> {
  const res = await fetch(`${sim!.url}/_sim/rate-limits`);
  return (await res.json()) as never;
}

const post = (channel: string) => call('chat.postMessage', { channel, text: 'hi' });

describe('Slack tiers, per method and workspace', () => {
  it.each([
    ['usergroups.users.list', { usergroup: 'S_TEAM' }, 20],
    ['conversations.open', { users: 'U_EMP1' }, 50],
    ['users.info', { user: 'U_EMP1' }, 100],
  ] as const)(
    '%s: past its tier floor per minute, a 429 with Retry-After until the window slides',
    async (method, args, perMinute) => {
      await start();
      for (let i = 0; i < perMinute; i++) {
        const ok = await call(method, args);
        expect(ok.status).toBe(200);
        now += 100;
      }
      const refused = await call(method, args);
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({ ok: false, error: 'ratelimited' });
      // The first call leaves the window 60 s after it was made: whole seconds, rounded up.
      const elapsed = perMinute * 100;
      expect(refused.retryAfter).toBe(String(Math.ceil((60_000 - elapsed) / 1000)));
      // Another method of the same workspace is not held up.
      expect((await call('team.info', {})).status).toBe(200);
      now += 60_000 - elapsed;
      expect((await call(method, args)).status).toBe(200);
      const counts = await controlCounts();
      expect(counts).toMatchObject({ enabled: true, total: 1, byMethod: { [method]: 1 }, byTeam: { T0KUDOS: 1 } });
      expect(sim!.calls.filter((c) => c.method === method && c.error === 'ratelimited')).toHaveLength(1);
    },
  );

  it('scales with the multiplier, and a scale of the limits can be set over HTTP', async () => {
    await start({ rateLimits: { scale: 2 } });
    for (let i = 0; i < 40; i++)
      expect((await call('usergroups.users.list', { usergroup: 'S_TEAM' })).status).toBe(200);
    expect((await call('usergroups.users.list', { usergroup: 'S_TEAM' })).status).toBe(429);
    const off = await fetch(`${sim!.url}/_sim/rate-limits/settings`, { method: 'POST', body: 'false' });
    expect(off.status).toBe(200);
    for (let i = 0; i < 30; i++)
      expect((await call('usergroups.users.list', { usergroup: 'S_TEAM' })).status).toBe(200);
    expect((await controlCounts()).enabled).toBe(false);
  });
});

describe('posting messages', () => {
  it('takes a burst of 4 in one channel, then 1 per second; other channels are not held up', async () => {
    await start();
    for (let i = 0; i < 4; i++) expect((await post('C_KUDOS')).status).toBe(200);
    const refused = await post('C_KUDOS');
    expect(refused).toMatchObject({ status: 429, retryAfter: '1', body: { ok: false, error: 'ratelimited' } });
    expect((await post('C_GENERAL')).status).toBe(200);
    expect((await post('U_EMP1')).status).toBe(200);
    now += 1000;
    expect((await post('C_KUDOS')).status).toBe(200);
    expect((await post('C_KUDOS')).status).toBe(429);
    // 1 per second sustained: one a second goes through.
    for (let i = 0; i < 5; i++) {
      now += 1000;
      expect((await post('C_KUDOS')).status).toBe(200);
    }
    const counts = await controlCounts();
    expect(counts).toMatchObject({ total: 2, byMethod: { 'chat.postMessage': 2 }, byChannel: { C_KUDOS: 2 } });
    // Refused posts were not posted.
    expect(sim!.messages('C_KUDOS')).toHaveLength(10);
  });

  it('caps a workspace at 300 posts a minute, whatever the channels (a DM to a user counts in its IM)', async () => {
    await start();
    const users = sim!.workspace.users.filter((u) => !u.deleted).map((u) => u.id);
    let sent = 0;
    while (sent < 300) {
      for (const u of users) {
        if (sent === 300) break;
        expect((await post(u)).status).toBe(200);
        sent++;
      }
      now += 1000;
    }
    now -= 1000;
    const refused = await post('C_GENERAL');
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect((await controlCounts()).byChannel).toEqual({ C_GENERAL: 1 });
  });
});

describe('forced storm', () => {
  it('refuses the next calls of the named methods with its Retry-After, limits on or off, then answers again', async () => {
    await start({ rateLimits: false });
    const res = await fetch(`${sim!.url}/_sim/rate-limits/storm`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ count: 2, retryAfterSeconds: 7, methods: ['chat.postMessage'] }),
    });
    expect(res.status).toBe(200);
    expect((await call('users.info', { user: 'U_EMP1' })).status).toBe(200);
    expect(await post('C_KUDOS')).toMatchObject({ status: 429, retryAfter: '7' });
    expect(await post('C_GENERAL')).toMatchObject({ status: 429, retryAfter: '7' });
    expect((await post('C_KUDOS')).status).toBe(200);
    expect(sim!.rateLimits.counts()).toMatchObject({ total: 2, byChannel: { C_KUDOS: 1, C_GENERAL: 1 } });
    const bad = await fetch(`${sim!.url}/_sim/rate-limits/storm`, {
      method: 'POST',
      body: JSON.stringify({ count: 0 }),
    });
    expect(bad.status).toBe(400);
    await fetch(`${sim!.url}/_sim/rate-limits/reset`, { method: 'POST' });
    expect((await controlCounts()).total).toBe(0);
  });
});
