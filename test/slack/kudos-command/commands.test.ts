import { describe, expect, it } from 'vitest';

import { eventually, sendModalValues, useAppPerTest } from '../../support/app.js';

const e2e = useAppPerTest();

function lastReplyTo(userId: string) {
  return e2e.stack.sim
    .messages('C_GENERAL')
    .filter((m) => m.ephemeral && m.visible_to === userId)
    .at(-1)!;
}

describe('/kudos subcommands', () => {
  it('balance shows available and pending balance, and follows a send', async () => {
    await e2e.stack.sim.slashCommand('U_MANAGER', 'balance');
    expect(JSON.stringify(lastReplyTo('U_MANAGER').blocks)).toContain('$10,000');
    expect(lastReplyTo('U_MANAGER').text).toContain('pending top-ups: $0');

    await e2e.stack.sim.slashCommand('U_MANAGER', '');
    const view = await e2e.stack.sim.waitFor(() => e2e.stack.sim.openViews('U_MANAGER').at(-1));
    await e2e.stack.sim.submitView(
      view.id,
      sendModalValues({ users: ['U_EMP1'], design: 'CC-THANK-YOU', amount: '25' }),
      'U_MANAGER',
    );
    await e2e.stack.sim.waitFor(() => e2e.stack.sim.messages('U_MANAGER').find((m) => m.text.startsWith('Your kudos')));
    await e2e.stack.sim.slashCommand('U_MANAGER', 'balance');
    expect(lastReplyTo('U_MANAGER').text).toContain('$9,975');
  });

  it('balance says what went wrong when the API fails, without a stack trace', async () => {
    await e2e.emulator.faults({ method: 'GET', path: '/api/v1/balance', status: 401, count: 10 });
    const answer = await e2e.stack.sim.slashCommand('U_MANAGER', 'balance');
    expect(answer.status).toBe(200);
    const reply = lastReplyTo('U_MANAGER').text;
    expect(reply).toMatch(/^Could not get the balance: /);
    expect(reply).not.toContain('at ');
  });

  it('help by role: a sender sees a few lines, an admin also the admin commands', async () => {
    await e2e.stack.sim.slashCommand('U_EMP1', 'help');
    const sender = JSON.stringify(lastReplyTo('U_EMP1').blocks);
    for (const line of ['/kudos balance', '/kudos scheduled', '/kudos stats', '/kudos help'])
      expect(sender).toContain(line);
    for (const admin of ['/kudos settings', '/kudos audit', '/kudos ledger', '/kudos topup'])
      expect(sender).not.toContain(admin);
    expect(lastReplyTo('U_EMP1').blocks).toHaveLength(1);

    await e2e.stack.sim.slashCommand('U_ADMIN', 'help');
    const admin = JSON.stringify(lastReplyTo('U_ADMIN').blocks);
    for (const line of ['/kudos balance', '/kudos settings', '/kudos audit csv', '/kudos ledger', '/kudos campaigns'])
      expect(admin).toContain(line);
  });

  it('help lists the commands; an unknown word, or a known one with words it does not take, gets one line', async () => {
    await e2e.stack.sim.slashCommand('U_EMP1', 'help');
    expect(JSON.stringify(lastReplyTo('U_EMP1').blocks)).toContain('/kudos scheduled');
    await e2e.stack.sim.slashCommand('U_EMP1', 'frobnicate');
    const reply = lastReplyTo('U_EMP1');
    expect(reply.text).toBe("I don't know “frobnicate”. `/kudos help` lists what I do.");
    expect(reply.blocks ?? []).toEqual([]);
    await e2e.stack.sim.slashCommand('U_EMP1', 'audit <@U_EMP2> *please*');
    expect(lastReplyTo('U_EMP1').text).toBe("I don't know “audit @U_EMP2 please”. `/kudos help` lists what I do.");
  });

  it('publishes the Home tab when it is opened', async () => {
    const answer = await e2e.stack.sim.sendEvent({
      type: 'app_home_opened',
      user: 'U_EMP1',
      channel: 'D_EMP1',
      tab: 'home',
    });
    expect(answer.status).toBe(200);
    const home = await eventually(() => e2e.stack.sim.homeView('U_EMP1'));
    expect(JSON.stringify(home.blocks)).toContain('home_open_send');
    await e2e.stack.sim.clickButton({ viewId: home.id }, 'home_open_send', 'U_EMP1');
    const modal = await e2e.stack.sim.waitFor(() => e2e.stack.sim.openViews('U_EMP1').at(-1));
    expect(modal.callback_id).toBe('kudos_send');
  });
});
