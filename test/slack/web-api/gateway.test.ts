import { describe, expect, it } from 'vitest';

import { createSlackGateway, toSlackUser, USER_CACHE_MAX } from '../../../src/slack/web-api/gateway.js';

function fakeClient(answer: (user: string) => Promise<unknown>) {
  const calls: string[] = [];
  const client = { users: { info: ({ user }: { user: string }) => (calls.push(user), answer(user)) } };
  return { client: client as never, calls };
}

describe('Slack gateway', () => {
  it('reuses users.info answers for a minute and shares concurrent lookups; user_change forgets', async () => {
    let t = 0;
    const fake = fakeClient(async (id) => ({
      ok: true,
      user: { id, name: 'eli', tz: 'America/Chicago', profile: { email: 'eli@example.com' } },
    }));
    const gateway = createSlackGateway(fake.client, { now: () => t });
    await Promise.all([gateway.userInfo('U1'), gateway.userInfo('U1')]);
    await gateway.userInfo('U1');
    expect(fake.calls).toEqual(['U1']);
    t = 61_000;
    await gateway.userInfo('U1');
    expect(fake.calls).toHaveLength(2);
    gateway.forgetUser!('U1');
    await gateway.userInfo('U1');
    expect(fake.calls).toHaveLength(3);
  });

  it('keeps at most USER_CACHE_MAX answers: beyond them the oldest is asked again, the newest not', async () => {
    const fake = fakeClient(async (id) => ({ ok: true, user: { id } }));
    const gateway = createSlackGateway(fake.client);
    for (let i = 0; i <= USER_CACHE_MAX; i++) await gateway.userInfo(`U${i}`);
    expect(fake.calls).toHaveLength(USER_CACHE_MAX + 1);
    await gateway.userInfo(`U${USER_CACHE_MAX}`);
    expect(fake.calls).toHaveLength(USER_CACHE_MAX + 1);
    await gateway.userInfo('U0');
    expect(fake.calls).toHaveLength(USER_CACHE_MAX + 2);
  });

  it('does not keep failures, and reads user_not_found as no user', async () => {
    let fail = true;
    const fake = fakeClient(async (id) => {
      if (id === 'U404') throw Object.assign(new Error('x'), { data: { error: 'user_not_found' } });
      if (fail) throw new Error('network');
      return { ok: true, user: { id } };
    });
    const gateway = createSlackGateway(fake.client);
    await expect(gateway.userInfo('U1')).rejects.toThrow('network');
    fail = false;
    expect((await gateway.userInfo('U1'))?.id).toBe('U1');
    expect(await gateway.userInfo('U404')).toBeUndefined();
  });

  it('maps Slack user objects: e-mail, bots, deactivated, admins, names', () => {
    const user = toSlackUser({
      id: 'U1',
      name: 'eli',
      deleted: true,
      is_admin: true,
      profile: { real_name: 'Eli Engineer', email: ' eli@example.com ' },
    });
    expect(user).toMatchObject({
      email: 'eli@example.com',
      deleted: true,
      isAdmin: true,
      firstName: 'Eli',
      lastName: 'Engineer',
      isBot: false,
    });
    expect(toSlackUser({ id: 'USLACKBOT' }).isBot).toBe(true);
    expect(toSlackUser({ id: 'U2', profile: { email: '' } }).email).toBeUndefined();
  });
});
