// Shortcuts through the real routing: "Give kudos for this" on a message and the global "Give kudos".
import { describe, expect, it } from 'vitest';

import { kudos } from '../../../src/db/schema/index.js';
import { eventually, sendModalValues, useAppPerTest } from '../../support/app.js';

const e2e = useAppPerTest({ env: { KUDOS_NOTIFY_CHANNEL: 'C_KUDOS', KUDOS_APPROVAL_THRESHOLD: '100' } });

const sendForm = (userId: string) =>
  e2e.stack.sim.waitFor(() => e2e.stack.sim.openViews(userId).find((v) => v.callback_id === 'kudos_send'));
const lastEphemeral = (channel: string, userId: string) =>
  e2e.stack.sim
    .messages(channel)
    .filter((m) => m.ephemeral && m.visible_to === userId)
    .at(-1);

describe('message shortcut: Give kudos for this', () => {
  it('opens the send form for the message’s author with a link to it; the announcement quotes the link', async () => {
    const message = e2e.stack.sim.postAs('U_EMP2', 'C_GENERAL', 'Shipped the new onboarding flow!');
    await e2e.stack.sim.messageShortcut(
      'U_MANAGER',
      { channel: 'C_GENERAL', ts: message.ts },
      'give_kudos_for_message',
    );
    const view = await sendForm('U_MANAGER');
    const permalink = `https://kudos-demo.slack.com/archives/C_GENERAL/p${message.ts.replace('.', '')}`;
    expect(JSON.stringify(view.blocks)).toContain('"initial_users":["U_EMP2"]');
    expect(JSON.stringify(view.blocks)).toContain(permalink);

    await e2e.stack.sim.submitView(
      view.id,
      sendModalValues({ users: ['U_EMP2'], design: 'CC-THANK-YOU', amount: '20', message: 'Great work' }),
      'U_MANAGER',
    );
    const row = await eventually(async () => (await e2e.db.select().from(kudos)).find((k) => k.announcementTs));
    expect(row.sourceMessageUrl).toBe(permalink);
    const announcement = e2e.stack.sim.messages('C_KUDOS').find((m) => m.ts === row.announcementTs)!;
    expect(JSON.stringify(announcement.blocks)).toContain(`<${permalink}|this message>`);
  });

  it('answers a shortcut on an app’s message, a deactivated person’s or your own, and opens nothing', async () => {
    const fromBot = e2e.stack.sim.postAs('U_BOT', 'C_GENERAL', 'Build 1234 passed');
    await e2e.stack.sim.messageShortcut(
      'U_MANAGER',
      { channel: 'C_GENERAL', ts: fromBot.ts },
      'give_kudos_for_message',
    );
    await e2e.stack.sim.waitFor(() => lastEphemeral('C_GENERAL', 'U_MANAGER')?.text.includes('from an app'));

    const fromGone = e2e.stack.sim.postAs('U_GONE', 'C_GENERAL', 'Last day, bye all');
    await e2e.stack.sim.messageShortcut(
      'U_MANAGER',
      { channel: 'C_GENERAL', ts: fromGone.ts },
      'give_kudos_for_message',
    );
    await e2e.stack.sim.waitFor(() => lastEphemeral('C_GENERAL', 'U_MANAGER')?.text.includes('deactivated'));

    const own = e2e.stack.sim.postAs('U_MANAGER', 'C_GENERAL', 'I fixed the build');
    await e2e.stack.sim.messageShortcut('U_MANAGER', { channel: 'C_GENERAL', ts: own.ts }, 'give_kudos_for_message');
    await e2e.stack.sim.waitFor(() => lastEphemeral('C_GENERAL', 'U_MANAGER')?.text.includes('your own message'));
    expect(e2e.stack.sim.openViews('U_MANAGER')).toHaveLength(0);
  });
});

describe('global shortcut: Give kudos', () => {
  it('opens the send form from anywhere', async () => {
    await e2e.stack.sim.globalShortcut('U_EMP1', 'give_kudos');
    const view = await sendForm('U_EMP1');
    expect(JSON.stringify(view.blocks)).not.toContain('initial_users');
  });
});
