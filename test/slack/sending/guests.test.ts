// Guests (Slack's is_restricted, is_ultra_restricted) and people invited who have not joined
// (is_invited_user) receive cards only where the workspace decides so: by default full members only.
// Picked by name, the form says why they are left out and nothing is sent; inside a user group, they
// are left out and the window says so; an admin allows guests in /kudos settings. Signed requests
// through the simulator, the Rewards emulator over HTTP.
import { describe, expect, it } from 'vitest';

import { auditEvents, kudos } from '../../../src/db/schema/index.js';
import type { SlackSimulator } from '../../../src/simulator/slack.js';
import { eventually, sendModalValues, useAppPerTest } from '../../support/app.js';

const e2e = useAppPerTest({
  env: { KUDOS_NOTIFY_CHANNEL: 'C_KUDOS', KUDOS_APPROVAL_THRESHOLD: '1000', KUDOS_ADMINS: 'U_ADMIN' },
});

function seedGuests(sim: SlackSimulator): void {
  const base = { tz: 'UTC', isAdmin: false, isOwner: false, isBot: false, deleted: false };
  sim.workspace.users.push(
    {
      ...base,
      id: 'U_GUEST',
      name: 'gia',
      realName: 'Gia Guest',
      displayName: 'Gia',
      email: 'gia@partner.example.com',
      role: 'multi-channel guest',
      guest: 'multi',
    },
    {
      ...base,
      id: 'U_SCGUEST',
      name: 'sam',
      realName: 'Sam Single',
      displayName: 'Sam',
      email: 'sam@partner.example.com',
      role: 'single-channel guest',
      guest: 'single',
    },
    {
      ...base,
      id: 'U_INVITED',
      name: 'ivy',
      realName: 'Ivy Invited',
      displayName: 'Ivy',
      email: 'ivy@example.com',
      role: 'invited, not joined',
      invited: true,
    },
  );
  sim.workspace.usergroups.push({
    id: 'S_MIXED',
    handle: 'launch',
    name: 'Launch crew',
    users: ['U_EMP1', 'U_EMP2', 'U_GUEST', 'U_SCGUEST', 'U_INVITED'],
  });
}

async function openSendModal(userId = 'U_MANAGER') {
  const { sim } = e2e.stack;
  await sim.slashCommand(userId, '', 'C_GENERAL');
  return sim.waitFor(() => sim.openViews(userId).find((v) => v.callback_id === 'kudos_send'));
}

const sends = () => e2e.db.select().from(kudos);

describe('guests and invited people', () => {
  it('picked by name: the form says why each is left out, and nothing is sent', async () => {
    const { sim } = e2e.stack;
    seedGuests(sim);
    const view = await openSendModal();
    await sim.submitView(
      view.id,
      sendModalValues({ users: ['U_EMP1', 'U_GUEST', 'U_SCGUEST'], design: 'CC-THANK-YOU', amount: '10' }),
      'U_MANAGER',
    );
    const error = sim.viewErrors(view.id).send_recipients;
    expect(error).toMatch(
      /^Guests are left out: Gia, Sam\. This workspace sends cards to full members only; a Kudos admin can change that in the settings\./,
    );

    await sim.submitView(
      view.id,
      sendModalValues({ users: ['U_INVITED'], design: 'CC-THANK-YOU', amount: '10' }),
      'U_MANAGER',
    );
    expect(sim.viewErrors(view.id).send_recipients).toMatch(
      /^People invited who have not joined Slack yet are left out: Ivy\./,
    );
    expect(await sends()).toEqual([]);
  });

  it('in a user group: sent to its full members only, and the window says who was left out and why', async () => {
    const { sim } = e2e.stack;
    seedGuests(sim);
    const view = await openSendModal();
    const answer = await sim.submitView(
      view.id,
      sendModalValues({ group: { value: 'slack:S_MIXED', text: '@launch' }, design: 'CC-THANK-YOU', amount: '10' }),
      'U_MANAGER',
    );
    expect(answer.status).toBe(200);
    expect(sim.viewErrors(view.id)).toEqual({});
    const shown = JSON.stringify(sim.openViews('U_MANAGER').find((v) => v.id === view.id)?.blocks);
    expect(shown).toContain(
      'Left out of the group: 2 guests and 1 invited person who has not joined yet. This workspace sends cards to full members only',
    );
    const [row] = await eventually(async () => {
      const rows = await sends();
      return rows.length > 0 ? rows : undefined;
    });
    expect(row!.recipients.map((r) => r.slackUserId).sort()).toEqual(['U_EMP1', 'U_EMP2']);
  });

  it('an admin lets guests receive cards in /kudos settings: a picked guest is then sent to; invited people are still left out', async () => {
    const { sim } = e2e.stack;
    seedGuests(sim);
    await sim.slashCommand('U_ADMIN', 'settings', 'C_GENERAL');
    const settings = await sim.waitFor(() => sim.openViews('U_ADMIN').find((v) => v.callback_id === 'kudos_settings'));
    const radio = (
      settings.blocks as Array<{ block_id?: string; element?: { initial_option?: { value: string } } }>
    ).find((b) => b.block_id === 'settings_card_recipients');
    expect(radio?.element?.initial_option?.value).toBe('members');
    const saved = await sim.submitView(
      settings.id,
      {
        settings_threshold: { threshold: { type: 'number_input', value: '1000' } },
        settings_expiry_hours: { expiry_hours: { type: 'number_input', value: '72' } },
        settings_admins: { admins: { type: 'multi_users_select', selected_users: ['U_ADMIN'] } },
        settings_card_recipients: {
          card_recipients: {
            type: 'radio_buttons',
            selected_option: { text: { type: 'plain_text', text: 'x' }, value: 'guests' },
          },
        },
      },
      'U_ADMIN',
    );
    expect(saved.body).toBe('');
    const audit = await e2e.db.select().from(auditEvents);
    expect(audit.find((a) => a.action === 'settings.changed')?.details).toMatchObject({
      changes: { cardRecipients: { from: 'members', to: 'guests' } },
    });

    const view = await openSendModal();
    await sim.submitView(
      view.id,
      sendModalValues({ users: ['U_GUEST', 'U_INVITED'], design: 'CC-THANK-YOU', amount: '10' }),
      'U_MANAGER',
    );
    expect(sim.viewErrors(view.id).send_recipients).toMatch(
      /^People invited who have not joined Slack yet are left out: Ivy\. This workspace sends cards to full members and guests only/,
    );
    const answer = await sim.submitView(
      view.id,
      sendModalValues({ users: ['U_GUEST', 'U_SCGUEST'], design: 'CC-THANK-YOU', amount: '10' }),
      'U_MANAGER',
    );
    expect(answer.body).toBe('');
    const [row] = await eventually(async () => {
      const rows = await sends();
      return rows.length > 0 ? rows : undefined;
    });
    expect(row!.recipients.map((r) => r.slackUserId).sort()).toEqual(['U_GUEST', 'U_SCGUEST']);
  });
});
