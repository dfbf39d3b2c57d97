// Channels that work: the settings refuse a channel the app cannot post in (and join a public one by
// themselves); an announcement Slack refuses at post time becomes a warning on the admins' Home.
import { describe, expect, it } from 'vitest';

import { healthWarnings, workspaceSettings } from '../../src/db/schema/index.js';
import type { View } from '../../src/simulator/slack.js';
import { eventually, sendModalValues, submitSendForm, useAppPerTest } from '../support/app.js';

// Home's re-publishing pass is run by the test (pollOnce), not on a timer.
const e2e = useAppPerTest({ app: { tuning: { home: { enabled: false } } }, startEach: false });

async function start(env: Record<string, string> = {}) {
  await e2e.start({
    env: { KUDOS_NOTIFY_CHANNEL: 'C_KUDOS', KUDOS_ADMINS: 'U_ADMIN', KUDOS_APPROVAL_THRESHOLD: '100', ...env },
  });
  // Two channels without the app: a public one and a private one.
  e2e.stack.sim.workspace.channels.push(
    { id: 'C_RANDOM', name: 'random', isPrivate: false, topic: '', members: ['U_ADMIN', 'U_MANAGER'] },
    { id: 'C_SECRET', name: 'secret', isPrivate: true, topic: '', members: ['U_ADMIN'] },
  );
}

async function openSettings(): Promise<View> {
  await e2e.stack.sim.slashCommand('U_ADMIN', 'settings', 'C_GENERAL');
  return e2e.stack.sim.waitFor(() =>
    e2e.stack.sim.openViews('U_ADMIN').find((v) => v.callback_id === 'kudos_settings'),
  );
}

const conversation = (id: string) => ({ type: 'conversations_select', selected_conversation: id });
const homeText = (userId: string) => JSON.stringify(e2e.stack.sim.homeView(userId)?.blocks ?? []);

describe('channels that work', () => {
  it('refuses a private channel the app is not in, inline, and saves nothing', async () => {
    await start();
    const view = await openSettings();
    const answer = await e2e.stack.sim.submitView(
      view.id,
      { settings_approval_channel: { approval_channel: conversation('C_SECRET') } },
      'U_ADMIN',
    );
    expect(answer.body).toMatchObject({
      response_action: 'errors',
      errors: { settings_approval_channel: expect.stringContaining('/invite @kudos') },
    });
    const [row] = await e2e.db.select().from(workspaceSettings);
    expect(row?.approvalChannel ?? null).not.toBe('C_SECRET');
  });

  it('joins a public channel by itself when it is chosen', async () => {
    await start();
    const view = await openSettings();
    const answer = await e2e.stack.sim.submitView(
      view.id,
      { settings_notify_channel: { notify_channel: conversation('C_RANDOM') } },
      'U_ADMIN',
    );
    expect(answer.body).toBe('');
    expect(e2e.stack.sim.calls.some((c) => c.method === 'conversations.join' && c.args.channel === 'C_RANDOM')).toBe(
      true,
    );
    expect(e2e.stack.sim.workspace.channels.find((c) => c.id === 'C_RANDOM')!.members).toContain('U_KUDOSBOT');
    const [row] = await e2e.db.select().from(workspaceSettings);
    expect(row!.notifyChannel).toBe('C_RANDOM');
  });

  it('an announcement Slack refuses (not_in_channel) becomes a health warning on the admin’s Home', async () => {
    await start({ KUDOS_NOTIFY_CHANNEL: 'C_RANDOM' });
    await e2e.stack.sim.sendEvent({ type: 'app_home_opened', user: 'U_ADMIN', channel: 'D_U_ADMIN', tab: 'home' });
    await e2e.stack.sim.waitFor(() => homeText('U_ADMIN').includes('All good'));

    await submitSendForm(
      e2e.stack,
      e2e.db,
      'U_MANAGER',
      sendModalValues({ users: ['U_EMP1'], design: 'CC-THANK-YOU', amount: '20', message: 'thanks' }),
    );
    const warning = await eventually(async () => (await e2e.db.select().from(healthWarnings))[0]);
    expect(warning).toMatchObject({
      teamId: 'T0KUDOS',
      kind: 'channel.unreachable',
      subject: 'C_RANDOM',
      error: 'not_in_channel',
    });
    // Re-published without the admin opening Home again: the publisher's next pass.
    await e2e.stack.app.home.pollOnce();
    await e2e.stack.sim.waitFor(
      () =>
        homeText('U_ADMIN').includes('couldn’t post in <#C_RANDOM>') && homeText('U_ADMIN').includes('/invite @kudos'),
    );
    // Others never see it.
    await e2e.stack.sim.sendEvent({ type: 'app_home_opened', user: 'U_MANAGER', channel: 'D_U_MANAGER', tab: 'home' });
    await e2e.stack.sim.waitFor(() => homeText('U_MANAGER').includes('Kudos you sent'));
    expect(homeText('U_MANAGER')).not.toContain('C_RANDOM');
  });
});
