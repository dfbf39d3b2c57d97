// Company values in the send form, end to end through the Slack simulator: the form offers the
// workspace's values (optional, or required by the setting), the kudos keeps a copy of the one picked and
// the announcement shows it; `/kudos @a 25 #teamwork …` preselects it; an unknown or a second `#value`
// is one short line; a value removed or renamed while the form was open is an inline error, nothing sent.
import { describe, expect, it } from 'vitest';

import { kudos } from '../../../src/db/schema/index.js';
import { removeCompanyValue, saveCompanyValue } from '../../../src/domain/workspaces/company-values.js';
import type { View } from '../../../src/simulator/slack.js';
import { eventually, sendModalValues, useAppPerTest } from '../../support/app.js';

const t = useAppPerTest({ env: { KUDOS_NOTIFY_CHANNEL: 'C_KUDOS', KUDOS_ADMINS: 'U_ADMIN' } });
const WS = { teamId: 'T0KUDOS', enterpriseId: null };

async function addValue(name: string, emoji: string, description = '') {
  const saved = await saveCompanyValue(t.db, WS, 'U_ADMIN', undefined, { name, emoji, description });
  if (!saved.ok) throw new Error(saved.message);
  return saved.row;
}

async function openForm(text = ''): Promise<View> {
  await t.stack.sim.slashCommand('U_MANAGER', text, 'C_GENERAL');
  return t.stack.sim.waitFor(() => t.stack.sim.openViews('U_MANAGER').find((v) => v.callback_id === 'kudos_send'));
}

/** `/kudos <text>` naming people: the one-line confirmation (ephemeral, with Send and Edit). */
async function confirmation(text: string) {
  const mine = () => t.stack.sim.messages('C_GENERAL').filter((m) => m.ephemeral && m.visible_to === 'U_MANAGER');
  const before = mine().length;
  await t.stack.sim.slashCommand('U_MANAGER', text, 'C_GENERAL');
  return t.stack.sim.waitFor(
    () =>
      mine()
        .slice(before)
        .find((m) => JSON.stringify(m.blocks ?? []).includes('one_line_edit')),
    30_000,
  );
}

/** The confirmation's Edit: the send form, filled in. */
async function editInForm(text: string): Promise<View> {
  const shown = await confirmation(text);
  await t.stack.sim.clickButton({ channel: 'C_GENERAL', ts: shown.ts }, 'one_line_edit', 'U_MANAGER');
  return t.stack.sim.waitFor(() => t.stack.sim.openViews('U_MANAGER').find((v) => v.callback_id === 'kudos_send'));
}

type ValueBlock = {
  block_id?: string;
  optional?: boolean;
  element: { options: Array<{ text: { text: string }; value: string }>; initial_option?: { value: string } };
};
const valueBlock = (view: View) =>
  (view.blocks as ValueBlock[]).find((b): b is ValueBlock => b.block_id === 'send_value');

const picked = (value: string) => ({
  send_value: {
    company_value: { type: 'static_select', selected_option: { text: { type: 'plain_text', text: 'v' }, value } },
  },
});
const card = { users: ['U_EMP1'], design: 'CC-THANK-YOU', amount: '25', message: 'Thanks for the launch' };

/** The one-line answer of a command (the ack's ephemeral text). */
async function commandLine(text: string): Promise<string> {
  const answer = await t.stack.sim.slashCommand('U_MANAGER', text, 'C_GENERAL');
  return (answer.body as { text?: string }).text ?? '';
}

describe('company values in the send form', () => {
  it('no values: no field; with values: an optional field; the value picked is kept on the kudos and announced', async () => {
    expect(valueBlock(await openForm())).toBeUndefined();
    await t.stack.sim.closeView(t.stack.sim.openViews('U_MANAGER')[0]!.id, 'U_MANAGER');

    const teamwork = await addValue('Teamwork', 'handshake', 'We win together');
    await addValue('Ownership', 'bulb');
    const view = await openForm();
    const block = valueBlock(view)!;
    expect(block.optional).toBe(true);
    expect(block.element.options.map((o) => o.text.text)).toEqual([':bulb: Ownership', ':handshake: Teamwork']);

    const option = block.element.options.find((o) => o.text.text.includes('Teamwork'))!.value;
    await t.stack.sim.submitView(view.id, { ...sendModalValues(card), ...picked(option) }, 'U_MANAGER');
    expect(t.stack.sim.viewErrors(view.id)).toEqual({});
    const row = await eventually(async () => (await t.db.select().from(kudos))[0]);
    expect(row).toMatchObject({ valueId: teamwork.id, valueName: 'Teamwork', valueEmoji: 'handshake' });
    const announcement = await t.stack.sim.waitFor(() =>
      t.stack.sim.messages('C_KUDOS').find((m) => /sent kudos to/.test(JSON.stringify(m.blocks))),
    );
    expect(JSON.stringify(announcement.blocks)).toMatch(/gift card( each)? for :handshake: \*Teamwork\*!/);

    // Renaming or removing the value afterwards leaves the kudos as it was sent.
    await removeCompanyValue(t.db, WS, 'U_ADMIN', teamwork.id);
    const [after] = await t.db.select().from(kudos);
    expect(after).toMatchObject({ valueName: 'Teamwork', valueEmoji: 'handshake' });
  });

  it('required by the setting: a send without a value is refused inline; without the setting it goes', async () => {
    await addValue('Teamwork', 'handshake');
    await t.stack.app.settings.update(WS, 'U_ADMIN', { valuesRequired: true });
    const view = await openForm();
    expect(valueBlock(view)!.optional).toBe(false);
    await t.stack.sim.submitView(view.id, sendModalValues(card), 'U_MANAGER');
    expect(t.stack.sim.viewErrors(view.id).send_value).toMatch(/Pick the company value/);
    expect(await t.db.select().from(kudos)).toHaveLength(0);

    await t.stack.app.settings.update(WS, 'U_ADMIN', { valuesRequired: false });
    await t.stack.sim.submitView(view.id, sendModalValues(card), 'U_MANAGER');
    expect(t.stack.sim.viewErrors(view.id)).toEqual({});
    const row = await eventually(async () => (await t.db.select().from(kudos))[0]);
    expect(row).toMatchObject({ valueId: null, valueName: null });
  });

  it('a value removed or renamed while the form was open: an inline error on the field, nothing sent', async () => {
    const teamwork = await addValue('Teamwork', 'handshake');
    const ownership = await addValue('Ownership', 'bulb');
    const view = await openForm();
    const optionOf = (name: string) => valueBlock(view)!.element.options.find((o) => o.text.text.includes(name))!.value;

    await removeCompanyValue(t.db, WS, 'U_ADMIN', teamwork.id);
    await t.stack.sim.submitView(view.id, { ...sendModalValues(card), ...picked(optionOf('Teamwork')) }, 'U_MANAGER');
    expect(t.stack.sim.viewErrors(view.id).send_value).toBe('That value was removed; pick another.');

    await saveCompanyValue(t.db, WS, 'U_ADMIN', ownership.id, {
      name: 'Accountability',
      emoji: 'bulb',
      description: '',
    });
    await t.stack.sim.submitView(view.id, { ...sendModalValues(card), ...picked(optionOf('Ownership')) }, 'U_MANAGER');
    expect(t.stack.sim.viewErrors(view.id).send_value).toMatch(/renamed \(now “Accountability”\); pick it again/);
    expect(await t.db.select().from(kudos)).toHaveLength(0);
    expect(await t.stack.app.rewards.orders.list({ pageSize: 10 }).all()).toHaveLength(0);
  });

  it('`/kudos @a 25 #teamwork …` names the value in the confirmation and Edit preselects it; an unknown or a second #value is one line; no values: the words stay', async () => {
    // Without values, a #word is part of the message as typed.
    let shown = await confirmation('<@U_EMP1|eli> 25 #teamwork Thanks for the launch');
    expect(JSON.stringify(shown.blocks)).toContain('#teamwork Thanks for the launch');

    const teamwork = await addValue('Teamwork', 'handshake');
    await addValue('Customer first', 'star');
    shown = await confirmation('<@U_EMP1|eli> 25 #TeamWork Thanks for the launch');
    expect(JSON.stringify(shown.blocks)).toContain('for :handshake: *Teamwork*');
    let view = await editInForm('<@U_EMP1|eli> 25 #TeamWork Thanks for the launch');
    expect(valueBlock(view)!.element.initial_option!.value).toBe(`${teamwork.id}:1`);
    const message = (view.blocks as Array<{ block_id?: string; element?: { initial_value?: string } }>).find(
      (b) => b.block_id === 'send_message',
    );
    expect(message!.element!.initial_value).toBe('Thanks for the launch');
    await t.stack.sim.closeView(view.id, 'U_MANAGER');

    // Before the amount too, written with a hyphen.
    view = await editInForm('<@U_EMP1> #customer-first 25 Thanks');
    expect(valueBlock(view)!.element.initial_option!.value).toMatch(/:1$/);
    await t.stack.sim.closeView(view.id, 'U_MANAGER');

    expect(await commandLine('<@U_EMP1> 25 #speed Thanks')).toBe(
      'There is no value #speed. The values are: #customerfirst #teamwork.',
    );
    expect(await commandLine('<@U_EMP1> 25 Thanks #teamwork #customerfirst')).toMatch(
      /^A kudos has one company value: keep one of #teamwork, #customerfirst\./,
    );
    expect(t.stack.sim.openViews('U_MANAGER')).toHaveLength(0);
  });
});
