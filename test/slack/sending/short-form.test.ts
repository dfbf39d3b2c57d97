// The short send form: a design preselected, the date and time only once "Schedule" is picked, the
// campaign, e-mail template and refund behind "More options" (each a views.update that keeps what
// was typed), and a message asked for when the workspace requires one. Signed requests through the
// simulator into the real app.
import { describe, expect, it } from 'vitest';

import { kudos } from '../../../src/db/schema/index.js';
import type { View } from '../../../src/simulator/slack.js';
import { eventually, revealInSendForm, useAppPerTest } from '../../support/app.js';

const e2e = useAppPerTest({ env: { KUDOS_NOTIFY_CHANNEL: 'C_KUDOS', KUDOS_ADMINS: 'U_ADMIN' } });

type Block = {
  block_id?: string;
  type: string;
  optional?: boolean;
  label?: { text: string };
  element?: Record<string, unknown>;
};
const blocksOf = (view: View) => view.blocks as Block[];
const blockIds = (view: View) => blocksOf(view).map((b) => b.block_id);
const element = (view: View, id: string) => blocksOf(view).find((b) => b.block_id === id)!.element!;

async function openForm(userId = 'U_MANAGER'): Promise<View> {
  await e2e.stack.sim.slashCommand(userId, '', 'C_GENERAL');
  return e2e.stack.sim.waitFor(() => e2e.stack.sim.openViews(userId).find((v) => v.callback_id === 'kudos_send'));
}

describe('the short send form', () => {
  it('opens short: people, card (a choice card), design (preselected), amount, message, when; nothing else', async () => {
    const view = await openForm();
    expect(blockIds(view)).toEqual([
      'send_recipients',
      'send_group',
      'send_card_type',
      'send_design',
      'send_amount',
      'send_message',
      'send_timing',
      'send_more',
    ]);
    expect(element(view, 'send_card_type').initial_option).toMatchObject({ value: 'choice' });
    // A fresh install has no default design: the catalog's first is preselected.
    expect(element(view, 'send_design').initial_option).toMatchObject({ value: expect.any(String) });
    // Four steps: a person, an amount, a message, Send.
    const answer = await e2e.stack.sim.submitView(
      view.id,
      {
        send_recipients: { recipients: { type: 'multi_users_select', selected_users: ['U_EMP1'] } },
        send_amount: { amount: { type: 'number_input', value: '25' } },
        send_message: { message: { type: 'plain_text_input', value: 'Thanks!' } },
      },
      'U_MANAGER',
    );
    expect(answer.status).toBe(200);
    const [row] = await eventually(async () => {
      const rows = await e2e.db.select().from(kudos);
      return rows.length === 1 && rows;
    });
    expect(row!.productId).toBe((element(view, 'send_design').initial_option as { value: string }).value);
  });

  it('Schedule shows the date and time, keeping what was typed; Send now hides them again', async () => {
    const view = await openForm();
    view.state = {
      values: {
        send_recipients: { recipients: { type: 'multi_users_select', selected_users: ['U_EMP2'] } },
        send_message: { message: { type: 'plain_text_input', value: 'For the launch' } },
      },
    };
    const scheduled = await revealInSendForm(e2e.stack.sim, view.id, 'U_MANAGER', 'schedule');
    expect(blockIds(scheduled)).toContain('send_date');
    expect(blockIds(scheduled)).toContain('send_time');
    expect(element(scheduled, 'send_timing').initial_option).toMatchObject({ value: 'schedule' });
    expect(scheduled.state.values.send_message).toEqual({
      message: { type: 'plain_text_input', value: 'For the launch' },
    });
    expect(scheduled.state.values.send_recipients).toEqual({
      recipients: { type: 'multi_users_select', selected_users: ['U_EMP2'] },
    });
    const before = scheduled.hash;
    await e2e.stack.sim.clickButton({ viewId: view.id }, 'timing', 'U_MANAGER', 'now');
    const now = await e2e.stack.sim.waitFor(() => {
      const v = e2e.stack.sim.openViews('U_MANAGER').find((x) => x.id === view.id)!;
      return v.hash !== before && v;
    });
    expect(blockIds(now)).not.toContain('send_date');
    expect(now.state.values.send_message).toEqual({ message: { type: 'plain_text_input', value: 'For the launch' } });
  });

  it('More options shows campaign, e-mail template and refund, keeping what was typed', async () => {
    const view = await openForm();
    view.state = { values: { send_amount: { amount: { type: 'number_input', value: '40' } } } };
    const more = await revealInSendForm(e2e.stack.sim, view.id, 'U_MANAGER', 'more');
    expect(blockIds(more)).toEqual(expect.arrayContaining(['send_campaign', 'send_template', 'send_refund']));
    expect(blockIds(more)).not.toContain('send_more');
    expect(more.state.values.send_amount).toEqual({ amount: { type: 'number_input', value: '40' } });
    // Schedule picked afterwards keeps the options shown.
    const both = await revealInSendForm(e2e.stack.sim, view.id, 'U_MANAGER', 'schedule');
    expect(blockIds(both)).toEqual(expect.arrayContaining(['send_campaign', 'send_date', 'send_time']));
  });

  it('the sender and a bot picked are refused inline; nothing is sent', async () => {
    const view = await openForm();
    await e2e.stack.sim.submitView(
      view.id,
      {
        send_recipients: { recipients: { type: 'multi_users_select', selected_users: ['U_MANAGER'] } },
        send_amount: { amount: { type: 'number_input', value: '25' } },
      },
      'U_MANAGER',
    );
    expect(e2e.stack.sim.viewErrors(view.id).send_recipients).toMatch(/yourself/);
    await e2e.stack.sim.submitView(
      view.id,
      {
        send_recipients: { recipients: { type: 'multi_users_select', selected_users: ['U_BOT'] } },
        send_amount: { amount: { type: 'number_input', value: '25' } },
      },
      'U_MANAGER',
    );
    expect(e2e.stack.sim.viewErrors(view.id).send_recipients).toMatch(/a bot/);
    expect(await e2e.db.select().from(kudos)).toEqual([]);
  });

  it('an admin requires a message (/kudos settings): the form asks for one, and refuses a send without it inline', async () => {
    await e2e.stack.sim.slashCommand('U_ADMIN', 'settings', 'C_GENERAL');
    const settings = await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.openViews('U_ADMIN').find((v) => v.callback_id === 'kudos_settings'),
    );
    expect(element(settings, 'settings_require_message')).toMatchObject({ type: 'checkboxes' });
    await e2e.stack.sim.submitView(
      settings.id,
      {
        settings_require_message: {
          require_message: {
            type: 'checkboxes',
            selected_options: [{ text: { type: 'plain_text', text: 'x' }, value: 'require' }],
          },
        },
      },
      'U_ADMIN',
    );
    await eventually(async () => (await e2e.stack.app.settings.get({ teamId: 'T0KUDOS' })).requireMessage);

    const view = await openForm();
    const message = blocksOf(view).find((b) => b.block_id === 'send_message')!;
    expect(message.optional).toBe(false);
    await e2e.stack.sim.submitView(
      view.id,
      {
        send_recipients: { recipients: { type: 'multi_users_select', selected_users: ['U_EMP1'] } },
        send_amount: { amount: { type: 'number_input', value: '25' } },
        send_message: { message: { type: 'plain_text_input', value: '  ' } },
      },
      'U_MANAGER',
    );
    expect(e2e.stack.sim.viewErrors(view.id).send_message).toMatch(/Say why in a message/);
    expect(await e2e.db.select().from(kudos)).toEqual([]);
  });
});
