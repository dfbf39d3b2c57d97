// Company values end to end, through the settings modal: an admin opens Manage values (a view pushed
// over the settings), adds, edits and removes values with inline errors for bad input (names too long or
// taken, a bad emoji, the limit); anyone else is refused, a crafted click too; "required" is a setting.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { auditEvents, companyValues, workspaceSettings } from '../../../src/db/schema/index.js';
import { MAX_COMPANY_VALUES, saveCompanyValue } from '../../../src/domain/workspaces/company-values.js';
import type { View } from '../../../src/simulator/slack.js';
import {
  blockActionPayload,
  eventually,
  postSignedPayload,
  useAppPerTest,
  viewSubmissionPayload,
} from '../../support/app.js';

const t = useAppPerTest({ env: { KUDOS_ADMINS: 'U_ADMIN', KUDOS_NOTIFY_CHANNEL: 'C_KUDOS' } });
const WS = { teamId: 'T0KUDOS', enterpriseId: null };

const text = (value: string) => ({ value: { type: 'plain_text_input', value } });
const form = (name: string, emoji: string, description = '') => ({
  value_name: text(name),
  value_emoji: text(emoji),
  value_description: text(description),
});

async function openSettings(userId = 'U_ADMIN'): Promise<View> {
  await t.stack.sim.slashCommand(userId, 'settings', 'C_GENERAL');
  return t.stack.sim.waitFor(() => t.stack.sim.openViews(userId).find((v) => v.callback_id === 'kudos_settings'));
}

async function openList(): Promise<View> {
  const settings = await openSettings();
  await t.stack.sim.clickButton({ viewId: settings.id }, 'values_manage', 'U_ADMIN');
  return t.stack.sim.waitFor(() => t.stack.sim.openViews('U_ADMIN').find((v) => v.callback_id === 'values_list'));
}

/** The list as shown now (it is refreshed with views.update after each change). */
const listView = (id: string) => t.stack.sim.openViews('U_ADMIN').find((v) => v.id === id)!;
const shown = (view: View) => JSON.stringify(view.blocks);

async function openForm(list: View, actionId: 'value_add' | 'value_edit', value?: string): Promise<View> {
  await t.stack.sim.clickButton({ viewId: list.id }, actionId, 'U_ADMIN', value);
  return t.stack.sim.waitFor(() => t.stack.sim.openViews('U_ADMIN').find((v) => v.callback_id === 'value_form'));
}

const rows = () => t.db.select().from(companyValues);

describe('company values in /kudos settings', () => {
  it('an admin adds, edits and removes values; bad input is refused inline; each change is audited', async () => {
    const list = await openList();
    expect(shown(list)).toMatch(/No values yet/);

    let valueForm = await openForm(list, 'value_add');
    await t.stack.sim.submitView(valueForm.id, form('x'.repeat(31), 'not an emoji!', 'd'.repeat(151)), 'U_ADMIN');
    expect(t.stack.sim.viewErrors(valueForm.id)).toMatchObject({
      value_name: expect.stringMatching(/At most 30 characters/),
      value_emoji: expect.stringMatching(/one emoji name/),
      value_description: expect.stringMatching(/At most 150 characters/),
    });
    await t.stack.sim.submitView(valueForm.id, form('Teamwork', ':handshake:', 'We win together'), 'U_ADMIN');
    expect(t.stack.sim.viewErrors(valueForm.id)).toEqual({});
    // The form closed; the list under it shows the new value.
    await eventually(() => /handshake: \*Teamwork\*/.test(shown(listView(list.id))));
    expect(t.stack.sim.openViews('U_ADMIN').some((v) => v.id === valueForm.id)).toBe(false);

    // A second value of the same name (any case), or one typed the same after #, is refused.
    valueForm = await openForm(listView(list.id), 'value_add');
    await t.stack.sim.submitView(valueForm.id, form('TEAMWORK', 'rocket'), 'U_ADMIN');
    expect(t.stack.sim.viewErrors(valueForm.id).value_name).toMatch(/There is a value “Teamwork” already/);
    await t.stack.sim.submitView(valueForm.id, form('Team-work', 'rocket'), 'U_ADMIN');
    expect(t.stack.sim.viewErrors(valueForm.id).value_name).toMatch(/both are typed #teamwork/);
    await t.stack.sim.submitView(valueForm.id, form('Customer first', 'rocket'), 'U_ADMIN');
    await eventually(() => /Customer first/.test(shown(listView(list.id))));
    expect(shown(listView(list.id))).toContain('#customerfirst');

    const [teamwork] = (await rows()).filter((r) => r.name === 'Teamwork');
    valueForm = await openForm(listView(list.id), 'value_edit', teamwork!.id);
    await t.stack.sim.submitView(valueForm.id, form('Collaboration', ':people_holding_hands:'), 'U_ADMIN');
    await eventually(() => /Collaboration/.test(shown(listView(list.id))));
    expect((await rows()).find((r) => r.id === teamwork!.id)).toMatchObject({
      name: 'Collaboration',
      emoji: 'people_holding_hands',
      revision: 2,
    });

    await t.stack.sim.clickButton({ viewId: list.id }, 'value_remove', 'U_ADMIN', teamwork!.id);
    await eventually(() => /Removed/.test(shown(listView(list.id))));
    expect((await rows()).map((r) => r.name)).toEqual(['Customer first']);

    const audit = await t.db.select().from(auditEvents).where(eq(auditEvents.subjectType, 'company_value'));
    expect(audit.map((a) => a.action).sort()).toEqual([
      'value.created',
      'value.created',
      'value.removed',
      'value.updated',
    ]);
  });

  it('at most 20 values per workspace: the list says so and the form refuses one more', async () => {
    for (let i = 0; i < MAX_COMPANY_VALUES; i++)
      await saveCompanyValue(t.db, WS, 'U_ADMIN', undefined, { name: `Value ${i}`, emoji: 'star', description: '' });
    const list = await openList();
    expect(shown(list)).toMatch(/at most 20 values/);
    expect(shown(list)).not.toContain('value_add');
    // The form of a list opened before the twentieth was added.
    const outcome = await saveCompanyValue(t.db, WS, 'U_ADMIN', undefined, {
      name: 'One more',
      emoji: 'star',
      description: '',
    });
    expect(outcome).toMatchObject({ ok: false, errors: { name: expect.stringMatching(/at most 20 values/) } });
    // Another workspace has its own list.
    const other = await saveCompanyValue(t.db, { teamId: 'T_OTHER', enterpriseId: null }, 'U_X', undefined, {
      name: 'Value 0',
      emoji: 'star',
      description: '',
    });
    expect(other.ok).toBe(true);
  });

  it('admins saving at once cannot pass the limit, nor make two values of one name', async () => {
    for (let i = 0; i < MAX_COMPANY_VALUES - 2; i++)
      await saveCompanyValue(t.db, WS, 'U_ADMIN', undefined, { name: `Value ${i}`, emoji: 'star', description: '' });
    const outcomes = await Promise.all(
      ['Speed', 'speed', 'Focus', 'Grit', 'Craft'].map((name) =>
        saveCompanyValue(t.db, WS, 'U_ADMIN', undefined, { name, emoji: 'star', description: '' }),
      ),
    );
    expect(outcomes.filter((o) => o.ok)).toHaveLength(2);
    expect(await rows()).toHaveLength(MAX_COMPANY_VALUES);
    const names = (await rows()).map((r) => r.name.toLowerCase());
    expect(new Set(names).size).toBe(names.length);
  });

  it('only admins: the settings are refused, and so are crafted clicks and submissions', async () => {
    const refused = await t.stack.sim.slashCommand('U_MANAGER', 'settings', 'C_GENERAL');
    expect(JSON.stringify(refused.body)).toMatch(/Only Kudos admins/);
    await postSignedPayload(
      t.stack.app.url,
      blockActionPayload({ userId: 'U_MANAGER', actionId: 'value_add', value: 'add', channel: 'C_GENERAL' }),
    );
    await t.stack.sim.waitFor(() =>
      t.stack.sim
        .messages('C_GENERAL')
        .find((m) => m.ephemeral && m.visible_to === 'U_MANAGER' && /manage company values/.test(m.text)),
    );
    expect(t.stack.sim.openViews('U_MANAGER')).toHaveLength(0);
    // A value form submitted by someone who is not an admin (crafted, or an admin no longer).
    const answer = await postSignedPayload(
      t.stack.app.url,
      viewSubmissionPayload(
        { id: 'V_CRAFTED', callback_id: 'value_form', private_metadata: '{}' },
        form('Teamwork', 'handshake'),
        'U_MANAGER',
      ),
    );
    expect(answer.status).toBe(200);
    expect(answer.text).toMatch(/Only Kudos admins can change company values/);
    expect(await rows()).toHaveLength(0);
  });

  it('"Senders must pick a company value" is a setting, saved with the settings form', async () => {
    const settings = await openSettings();
    expect(shown(settings)).toMatch(/Company values\* \(0 of 20\)/);
    await t.stack.sim.submitView(
      settings.id,
      {
        settings_values_required: {
          values_required: {
            type: 'checkboxes',
            selected_options: [{ text: { type: 'plain_text', text: 'x' }, value: 'required' }],
          },
        },
      },
      'U_ADMIN',
    );
    expect(t.stack.sim.viewErrors(settings.id)).toEqual({});
    const [row] = await t.db.select().from(workspaceSettings).where(eq(workspaceSettings.teamId, 'T0KUDOS'));
    expect(row!.valuesRequired).toBe(true);
  });
});
