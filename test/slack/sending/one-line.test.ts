// `/kudos @a @b 25 Thanks`: one ephemeral confirmation (Send / Edit) instead of the form, sent once
// however often Send is pressed; bad input is one line and sends nothing. Signed requests through the
// simulator into the real app, with the Rewards emulator.
import { describe, expect, it } from 'vitest';

import { kudos } from '../../../src/db/schema/index.js';
import { eventually, useAppPerTest } from '../../support/app.js';

const e2e = useAppPerTest({ env: { KUDOS_NOTIFY_CHANNEL: 'C_KUDOS' } });

const replies = (userId: string) =>
  e2e.stack.sim.messages('C_GENERAL').filter((m) => m.ephemeral && m.visible_to === userId);

/** Types `/kudos <text>` and waits for the answer: the confirmation, or one line. */
async function command(userId: string, text: string) {
  const before = replies(userId).length;
  const answer = await e2e.stack.sim.slashCommand(userId, text, 'C_GENERAL');
  expect(answer.status).toBe(200);
  // The first command of an app reads the catalog and the people cold: on a loaded machine, give it time.
  return e2e.stack.sim.waitFor(() => replies(userId).slice(before).at(-1), 30_000);
}

const hasButton = (m: { blocks?: unknown[] }, actionId: string) => JSON.stringify(m.blocks ?? []).includes(actionId);
const orders = async () => (await e2e.stack.app.rewards.orders.list({ pageSize: 100 })).data;
const current = (ts: string) => e2e.stack.sim.messages('C_GENERAL').find((m) => m.ts === ts)!;

describe('/kudos in one line', () => {
  it('answers one confirmation (who, how much, the total); Send records one kudos and places one order, even clicked twice', async () => {
    const confirmation = await command('U_MANAGER', '<@U_EMP1|eli> <@U_EMP2> 25 Thanks for the launch');
    expect(hasButton(confirmation, 'one_line_send')).toBe(true);
    expect(hasButton(confirmation, 'one_line_edit')).toBe(true);
    const shown = JSON.stringify(confirmation.blocks);
    expect(shown).toContain('$25 each');
    expect(shown).toContain('<@U_EMP1>');
    expect(shown).toContain('<@U_EMP2>');
    expect(shown).toContain('$50');
    expect(shown).toContain('Thanks for the launch');
    expect(e2e.stack.sim.openViews('U_MANAGER')).toEqual([]);
    expect(await e2e.db.select().from(kudos)).toEqual([]);

    const where = { channel: 'C_GENERAL', ts: confirmation.ts };
    // A double click: two deliveries of the same button before the first is answered.
    const [first, second] = await Promise.all([
      e2e.stack.sim.clickButton(where, 'one_line_send', 'U_MANAGER'),
      e2e.stack.sim.clickButton(where, 'one_line_send', 'U_MANAGER'),
    ]);
    expect([first.status, second.status]).toEqual([200, 200]);
    const outcome = await e2e.stack.sim.waitFor(() => {
      const m = current(confirmation.ts);
      return !hasButton(m, 'one_line_send') && m;
    });
    expect(outcome.text).toMatch(/^:white_check_mark: Sent: \*\$25 each\* to <@U_EMP1> and <@U_EMP2>/);
    await e2e.stack.sim.waitFor(() => e2e.stack.sim.messages('U_MANAGER').find((m) => m.text.startsWith('Your kudos')));
    const rows = await e2e.db.select().from(kudos);
    expect(rows).toHaveLength(1);
    expect(rows[0]!).toMatchObject({
      recipientCount: 2,
      amountCents: 2500,
      totalCents: 5000,
      message: 'Thanks for the launch',
    });
    expect(rows[0]!.originChannelId).toBe('C_GENERAL');
    expect(await orders()).toHaveLength(1);
    // A third, late click (a redelivered action) finds the send: nothing more.
    await e2e.stack.sim.clickButton(where, 'one_line_send', 'U_MANAGER').catch(() => undefined);
    expect(await e2e.db.select().from(kudos)).toHaveLength(1);
  });

  it('above the approval threshold: the confirmation says so, and Send records it for the approvers, nothing ordered', async () => {
    await e2e.start({
      env: { KUDOS_NOTIFY_CHANNEL: 'C_KUDOS', KUDOS_APPROVAL_THRESHOLD: '10', KUDOS_APPROVERS: 'U_APPROVER' },
    });
    const confirmation = await command('U_MANAGER', '<@U_EMP1|eli> 25 Thanks');
    expect(JSON.stringify(confirmation.blocks)).toContain('Needs approval first');
    await e2e.stack.sim.clickButton({ channel: 'C_GENERAL', ts: confirmation.ts }, 'one_line_send', 'U_MANAGER');
    await e2e.stack.sim.waitFor(() => !hasButton(current(confirmation.ts), 'one_line_send'));
    expect(current(confirmation.ts).text).toMatch(/^:hourglass_flowing_sand: Sent for approval: \*\$25\* to <@U_EMP1>/);
    const [row] = await e2e.db.select().from(kudos);
    expect(row!.status).toBe('awaiting_approval');
    expect(await orders()).toHaveLength(0);
  });

  it('a user group: to its members, the group named in the confirmation', async () => {
    const confirmation = await command('U_MANAGER', '<!subteam^S_TEAM|@team> 10 Thanks, team');
    expect(JSON.stringify(confirmation.blocks)).toMatch(/\$10 each.*<@U_EMP1>.*<@U_EMP2>.*\$20/);
    await e2e.stack.sim.clickButton({ channel: 'C_GENERAL', ts: confirmation.ts }, 'one_line_send', 'U_MANAGER');
    const [row] = await eventually(async () => {
      const rows = await e2e.db.select().from(kudos);
      return rows.length === 1 && rows;
    });
    expect(row!.slackUsergroupId).toBe('S_TEAM');
    expect(row!.recipientCount).toBe(2);
  });

  it('Edit opens the send form filled in, and the confirmation can no longer send', async () => {
    const confirmation = await command('U_MANAGER', '<@U_EMP1|eli> <@U_EMP2> 30 for the demo');
    await e2e.stack.sim.clickButton({ channel: 'C_GENERAL', ts: confirmation.ts }, 'one_line_edit', 'U_MANAGER');
    const view = await e2e.stack.sim.waitFor(() => e2e.stack.sim.openViews('U_MANAGER').at(-1));
    expect(view.callback_id).toBe('kudos_send');
    const blocks = view.blocks as Array<{ block_id: string; element?: Record<string, unknown> }>;
    const element = (id: string) => blocks.find((b) => b.block_id === id)!.element!;
    expect(element('send_recipients').initial_users).toEqual(['U_EMP1', 'U_EMP2']);
    expect(element('send_amount').initial_value).toBe('30');
    expect(element('send_message').initial_value).toBe('for the demo');
    expect(element('send_design').initial_option).toBeTruthy();
    await e2e.stack.sim.waitFor(() => !hasButton(current(confirmation.ts), 'one_line_send'));
    expect(current(confirmation.ts).text).toBe('Opened in the send form; nothing was sent from here.');
    expect(await e2e.db.select().from(kudos)).toEqual([]);
  });

  it('a catalog slower than the form could wait for: still the confirmation, never a form', async () => {
    // The first catalog read (cold cache) takes longer than a trigger_id lives: the form could not open
    // with it, but the confirmation answers through the response_url, which waits.
    await e2e.emulator.faults({ method: 'GET', path: '^/api/v1/catalog/choice-cards', delayMs: 1500, count: 5 });
    const confirmation = await command('U_MANAGER', '<@U_EMP1|eli> 25 Thanks for the launch');
    expect(hasButton(confirmation, 'one_line_send')).toBe(true);
    expect(e2e.stack.sim.openViews('U_MANAGER')).toEqual([]);
  });

  it('a catalog that does not answer: one line, nothing sent, no form', async () => {
    await e2e.emulator.faults({
      method: 'GET',
      path: '^/api/v1/catalog/choice-cards',
      delayMs: 1000,
      status: 503,
      count: 50,
    });
    const reply = await command('U_MANAGER', '<@U_EMP1|eli> 25 Thanks for the launch');
    expect(reply.text).toContain('nothing was sent');
    expect(reply.text.split('\n')).toHaveLength(1);
    expect(e2e.stack.sim.openViews('U_MANAGER')).toEqual([]);
    expect(await e2e.db.select().from(kudos)).toEqual([]);
  });

  it('without an amount (and no default amount) opens the form filled in, as before', async () => {
    await e2e.stack.sim.slashCommand('U_MANAGER', '<@U_EMP1|eli> thanks', 'C_GENERAL');
    const view = await e2e.stack.sim.waitFor(() => e2e.stack.sim.openViews('U_MANAGER').at(-1));
    const blocks = view.blocks as Array<{ block_id: string; element?: Record<string, unknown> }>;
    expect(blocks.find((b) => b.block_id === 'send_message')!.element!.initial_value).toBe('thanks');
  });

  it('bad input is one short line and sends nothing: two amounts, an unknown group, a deactivated person, a guest, a bot, oneself', async () => {
    e2e.stack.sim.workspace.users.find((u) => u.id === 'U_EMP4')!.guest = 'multi';
    const lineFor = async (text: string) => {
      const reply = await command('U_MANAGER', text);
      expect(hasButton(reply, 'one_line_send')).toBe(false);
      expect(reply.text.split('\n')).toHaveLength(1);
      return reply.text;
    };
    expect(await lineFor('<@U_EMP1> 25 30 thanks')).toMatch(/^Two amounts/);
    expect(await lineFor('<@U_EMP1> 25 thanks for $30')).toMatch(/^Two amounts/);
    expect(await lineFor('<!subteam^S_NOPE|@nope> 25 thanks')).toMatch(/group no longer exists/);
    expect(await lineFor('<@U_GONE> 25 thanks')).toMatch(/Cannot send to .*Greg/);
    expect(await lineFor('<@U_EMP4> 25 thanks')).toMatch(/Sofia/);
    expect(await lineFor('<@U_BOT> 25 thanks')).toMatch(/Cannot send to Build \(a bot\)/);
    expect(await lineFor('<@U_MANAGER> 25 thanks')).toMatch(/yourself/);
    expect(await lineFor('<@U_EMP1> 2 thanks')).toMatch(/\$5/);
    expect(await e2e.db.select().from(kudos)).toEqual([]);
    expect(e2e.stack.sim.openViews('U_MANAGER')).toEqual([]);
  });

  it('a confirmation older than an hour is not sent: one line', async () => {
    let offsetMs = 0;
    await e2e.start({ app: { tuning: { now: () => new Date(Date.now() + offsetMs) } } });
    const confirmation = await command('U_MANAGER', '<@U_EMP1|eli> 25 Thanks');
    offsetMs = 61 * 60_000;
    await e2e.stack.sim.clickButton({ channel: 'C_GENERAL', ts: confirmation.ts }, 'one_line_send', 'U_MANAGER');
    await e2e.stack.sim.waitFor(() => !hasButton(current(confirmation.ts), 'one_line_send'));
    expect(current(confirmation.ts).text).toMatch(/^This confirmation expired \(after an hour\); nothing was sent/);
    expect(await e2e.db.select().from(kudos)).toEqual([]);
  });

  it('a workspace that requires a message: one line without one, the confirmation with one', async () => {
    await e2e.stack.app.settings.update({ teamId: 'T0KUDOS' }, 'U_ADMIN', { requireMessage: true });
    expect(await command('U_MANAGER', '<@U_EMP1|eli> 25')).toMatchObject({
      text: 'Say why in a message: this workspace asks for one with every kudos.',
    });
    expect(hasButton(await command('U_MANAGER', '<@U_EMP1|eli> 25 Thanks'), 'one_line_send')).toBe(true);
  });
});
