// Who may spend company money, and how much, through the real routing: who may send kudos with cards
// (everyone, one user group's members, Kudos admins), monthly allowances (the default, a person's, a
// user group's) with what is left shown in the send form and on App Home, the refusal that says why
// and what to do, the race of two sends against one allowance, and money given back on rejection.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { kudos, senderAllowances } from '../../../src/db/schema/index.js';
import { setAllowanceOverride } from '../../../src/domain/workspaces/allowance-overrides.js';
import type { SettingsPatch } from '../../../src/domain/workspaces/settings.js';
import type { View } from '../../../src/simulator/slack.js';
import {
  eventually,
  postSignedPayload,
  sendModalValues,
  submitSendForm,
  submitSendValues,
  useAppPerTest,
  viewSubmissionPayload,
} from '../../support/app.js';

const WS = { teamId: 'T0KUDOS' };

const e2e = useAppPerTest({
  env: {
    KUDOS_NOTIFY_CHANNEL: 'C_KUDOS',
    KUDOS_APPROVAL_CHANNEL: 'C_APPROVALS',
    KUDOS_APPROVERS: 'U_APPROVER',
    KUDOS_ADMINS: 'U_ADMIN',
    KUDOS_APPROVAL_THRESHOLD: '1000',
  },
  app: { tuning: { approvalsSweepMs: 0 } },
});

const settings = (patch: SettingsPatch) => e2e.stack.app.settings.update(WS, 'U_ADMIN', patch);
const textOf = (view: View | undefined) => JSON.stringify(view?.blocks ?? []);

/** Opens a new send modal (not one opened before) as `userId`. */
async function openModal(userId: string): Promise<View> {
  const before = new Set(e2e.stack.sim.openViews(userId).map((v) => v.id));
  await e2e.stack.sim.slashCommand(userId, '', 'C_GENERAL');
  return e2e.stack.sim.waitFor(() =>
    e2e.stack.sim.openViews(userId).find((v) => v.callback_id === 'kudos_send' && !before.has(v.id)),
  );
}

/** Submits a send form; answers the inline errors (none: recorded) and the rows recorded from it. */
async function trySend(userId: string, to: string, amount: string, view?: View) {
  const modal = view ?? (await openModal(userId));
  const answer = await e2e.stack.sim.submitView(
    modal.id,
    sendModalValues({ users: [to], design: 'CC-THANK-YOU', amount }),
    userId,
  );
  const errors = {
    ...e2e.stack.sim.viewErrors(modal.id),
    ...((answer.body as { errors?: Record<string, string> } | undefined)?.errors ?? {}),
  };
  const rows = await e2e.db.select().from(kudos).where(eq(kudos.sourceViewId, modal.id));
  return { errors, rows, text: Object.values(errors).join(' ') };
}

const monthDay = () =>
  new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() + 1, 1)).toLocaleDateString('en-US', {
    month: 'short',
    day: 'numeric',
    timeZone: 'UTC',
  });

describe('who may send kudos with cards', () => {
  it('everyone by default; with a user group, only its members (and Kudos admins); with admins, only admins', async () => {
    expect((await trySend('U_EMP3', 'U_EMP1', '10')).rows).toHaveLength(1);

    e2e.stack.sim.workspace.usergroups.push({ id: 'S_LEADS', handle: 'leads', name: 'Leads', users: ['U_MANAGER'] });
    await settings({ cardSenders: 'usergroup', senderUsergroupId: 'S_LEADS' });
    const outsider = await trySend('U_EMP3', 'U_EMP1', '10');
    expect(outsider.text).toBe('Only members of @leads can send kudos with cards. Ask a Kudos admin.');
    expect(outsider.rows).toHaveLength(0);
    expect((await trySend('U_MANAGER', 'U_EMP1', '10')).rows).toHaveLength(1);
    expect((await trySend('U_ADMIN', 'U_EMP1', '10')).rows).toHaveLength(1);

    await settings({ cardSenders: 'admins', senderUsergroupId: null });
    const manager = await trySend('U_MANAGER', 'U_EMP1', '10');
    expect(manager.text).toBe('Only Kudos admins can send kudos with cards. Ask a Kudos admin.');
    expect(manager.rows).toHaveLength(0);
    expect((await trySend('U_ADMIN', 'U_EMP2', '10')).rows).toHaveLength(1);
  });

  it('a sender group that was deleted: nobody but admins may send, and the refusal says to pick another', async () => {
    await settings({ cardSenders: 'usergroup', senderUsergroupId: 'S_GONE' });
    const refused = await trySend('U_MANAGER', 'U_EMP1', '10');
    expect(refused.text).toContain('a user group that no longer exists');
    expect(refused.rows).toHaveLength(0);
    expect((await trySend('U_ADMIN', 'U_EMP1', '10')).rows).toHaveLength(1);
  });
});

describe('monthly allowances', () => {
  it('the default, a user group’s (the most generous of several), a person’s over both; a deleted group’s is ignored', async () => {
    await settings({ monthlyBudgetCents: 5000, overAllowance: 'refuse' });
    e2e.stack.sim.workspace.usergroups.push(
      { id: 'S_SMALL', handle: 'small', name: 'Small', users: ['U_EMP1', 'U_MANAGER'] },
      { id: 'S_LARGE', handle: 'large', name: 'Large', users: ['U_MANAGER'] },
    );
    await setAllowanceOverride(e2e.db, WS, 'U_ADMIN', { kind: 'usergroup', id: 'S_SMALL' }, 7000);
    await setAllowanceOverride(e2e.db, WS, 'U_ADMIN', { kind: 'usergroup', id: 'S_LARGE' }, 20_000);
    await setAllowanceOverride(e2e.db, WS, 'U_ADMIN', { kind: 'usergroup', id: 'S_GONE' }, 90_000);
    await setAllowanceOverride(e2e.db, WS, 'U_ADMIN', { kind: 'user', id: 'U_EMP2' }, 3000);

    // The form says what is left of each one's own allowance.
    expect(textOf(await openModal('U_EMP3'))).toContain('You have $50 left this month');
    expect(textOf(await openModal('U_EMP1'))).toContain('You have $70 left this month');
    expect(textOf(await openModal('U_MANAGER'))).toContain('You have $200 left this month');
    expect(textOf(await openModal('U_EMP2'))).toContain('You have $30 left this month');

    const over = await trySend('U_EMP2', 'U_EMP1', '40');
    expect(over.text).toBe(
      `That is $10 over your $30 monthly allowance; $30 is left until ${monthDay()}. Send less, or ask a Kudos admin for a higher allowance.`,
    );
    expect(over.rows).toHaveLength(0);
    expect((await trySend('U_EMP2', 'U_EMP1', '30')).rows).toHaveLength(1);
    expect((await trySend('U_MANAGER', 'U_EMP1', '150')).rows).toHaveLength(1);

    // No allowance at all: no line.
    await settings({ monthlyBudgetCents: null });
    expect(textOf(await openModal('U_EMP3'))).not.toContain('left this month');
  });

  it('what is left shows in the form and on App Home, and counts what was sent', async () => {
    await settings({ monthlyBudgetCents: 10_000, overAllowance: 'refuse' });
    await submitSendForm(
      e2e.stack,
      e2e.db,
      'U_EMP3',
      sendModalValues({ users: ['U_EMP1'], design: 'CC-THANK-YOU', amount: '25' }),
    );
    expect(textOf(await openModal('U_EMP3'))).toContain('You have $75 left this month');
    await e2e.stack.sim.sendEvent({ type: 'app_home_opened', user: 'U_EMP3', channel: 'D_U_EMP3', tab: 'home' });
    const home = await e2e.stack.sim.waitFor(() => {
      const view = e2e.stack.sim.homeView('U_EMP3');
      return textOf(view).includes('left this month') ? view : undefined;
    });
    expect(textOf(home)).toContain('You have $75 left this month');
  });

  it('an allowance used up between opening the form and sending: an inline error, nothing recorded', async () => {
    await settings({ monthlyBudgetCents: 10_000, overAllowance: 'refuse' });
    const first = await openModal('U_EMP3');
    expect(textOf(first)).toContain('You have $100 left this month');
    // Meanwhile, from another Slack client (its own form): $80.
    const other = await submitSendValues(
      e2e.stack.app.url,
      'U_EMP3',
      sendModalValues({ users: ['U_EMP1'], design: 'CC-THANK-YOU', amount: '80' }),
    );
    expect(other.errors).toEqual({});
    const late = await trySend('U_EMP3', 'U_EMP2', '40', first);
    expect(late.errors.send_amount).toContain('That is $20 over your $100 monthly allowance; $20 is left until');
    expect(late.rows).toHaveLength(0);
    expect(await e2e.db.select().from(kudos)).toHaveLength(1);
  });

  it('a send waiting for approval counts from the moment it is recorded, and is released when rejected', async () => {
    await settings({ monthlyBudgetCents: 10_000, overAllowance: 'refuse', approvalThresholdCents: 3000 });
    const waiting = await submitSendForm(
      e2e.stack,
      e2e.db,
      'U_EMP3',
      sendModalValues({ users: ['U_EMP1'], design: 'CC-THANK-YOU', amount: '40' }),
    );
    expect(waiting.status).toBe('awaiting_approval');
    expect(textOf(await openModal('U_EMP3'))).toContain('You have $60 left this month');
    const refused = await trySend('U_EMP3', 'U_EMP2', '70');
    expect(refused.text).toContain('That is $10 over your $100 monthly allowance; $60 is left');

    // The approver rejects it (button, then the reason's modal): the $40 is given back.
    const request = await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.messages('C_APPROVALS').find((m) => JSON.stringify(m.blocks ?? []).includes(waiting.id)),
    );
    await e2e.stack.sim.clickButton({ channel: request.channel, ts: request.ts }, 'approval_reject', 'U_APPROVER');
    const modal = await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.openViews('U_APPROVER').find((v) => v.callback_id === 'approval_reject_modal'),
    );
    await e2e.stack.sim.submitView(
      modal.id,
      { approval_reject_reason: { reason: { type: 'plain_text_input', value: 'not this one' } } },
      'U_APPROVER',
    );
    await eventually(
      async () => (await e2e.db.select().from(kudos).where(eq(kudos.id, waiting.id)))[0]?.status === 'rejected',
    );
    expect(textOf(await openModal('U_EMP3'))).toContain('You have $100 left this month');
    // Under the $30 threshold, within what is left: straight out.
    expect((await trySend('U_EMP3', 'U_EMP2', '30')).rows).toHaveLength(1);
  });

  it.skipIf(!process.env.DATABASE_URL)(
    'two sends submitted at once against an allowance that covers one: exactly one passes',
    async () => {
      await settings({ monthlyBudgetCents: 5000, overAllowance: 'refuse' });
      const views = [await openModal('U_MANAGER'), await openModal('U_MANAGER')];
      const answers = await Promise.all(
        views.map((view, i) =>
          postSignedPayload(
            e2e.stack.app.url,
            viewSubmissionPayload(
              view as never,
              sendModalValues({ users: [i === 0 ? 'U_EMP1' : 'U_EMP2'], design: 'CC-THANK-YOU', amount: '40' }),
              'U_MANAGER',
            ),
          ),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      const refusals = answers.filter((a) => a.text.includes('over your $50 monthly allowance'));
      expect(refusals).toHaveLength(1);
      const rows = await eventually(async () => {
        const all = await e2e.db.select().from(kudos);
        return all.length >= 1 && all.every((k) => k.status !== 'pending') ? all : undefined;
      });
      expect(rows).toHaveLength(1);
      expect((await e2e.stack.app.rewards.orders.list({ pageSize: 100 })).data).toHaveLength(1);
    },
  );
});

describe('allowances in /kudos settings', () => {
  async function openSettings(): Promise<View> {
    await e2e.stack.sim.slashCommand('U_ADMIN', 'settings', 'C_GENERAL');
    return e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.openViews('U_ADMIN').find((v) => v.callback_id === 'kudos_settings'),
    );
  }

  /** The modal's current values, as Slack would send them, with `changes` on top. */
  function valuesWith(view: View, changes: Record<string, Record<string, unknown>>) {
    const values: Record<string, Record<string, unknown>> = {};
    for (const block of view.blocks as Array<{ type: string; block_id?: string; element?: Record<string, unknown> }>) {
      if (block.type !== 'input' || !block.block_id || !block.element) continue;
      const el = block.element;
      const leaf: Record<string, unknown> = { type: el.type };
      if ('initial_value' in el) leaf.value = el.initial_value;
      if ('initial_option' in el) leaf.selected_option = el.initial_option;
      if ('initial_options' in el) leaf.selected_options = el.initial_options;
      if ('initial_users' in el) leaf.selected_users = el.initial_users;
      if ('initial_conversation' in el) leaf.selected_conversation = el.initial_conversation;
      values[block.block_id] = { [el.action_id as string]: leaf };
    }
    return { ...values, ...changes };
  }

  const person = (id: string) => ({
    settings_allowance_person: { allowance_person: { type: 'users_select', selected_user: id } },
  });
  const amount = (value: string) => ({
    settings_allowance_amount: { allowance_amount: { type: 'plain_text_input', value } },
  });
  const radio = (block: string, action: string, value: string) => ({
    [block]: {
      [action]: { type: 'radio_buttons', selected_option: { text: { type: 'plain_text', text: value }, value } },
    },
  });

  it('an admin sets who may send, the default and a person’s allowance; bad figures are refused inline', async () => {
    let view = await openSettings();
    for (const bad of ['-5', 'lots']) {
      await e2e.stack.sim.submitView(view.id, valuesWith(view, { ...person('U_EMP1'), ...amount(bad) }), 'U_ADMIN');
      expect(e2e.stack.sim.viewErrors(view.id).settings_allowance_amount).toMatch(/negative|Enter dollars/);
    }
    await e2e.stack.sim.submitView(view.id, valuesWith(view, amount('50')), 'U_ADMIN');
    expect(e2e.stack.sim.viewErrors(view.id).settings_allowance_person).toContain('Pick the person');
    await e2e.stack.sim.submitView(
      view.id,
      valuesWith(view, radio('settings_card_senders', 'card_senders', 'usergroup')),
      'U_ADMIN',
    );
    expect(e2e.stack.sim.viewErrors(view.id).settings_sender_group).toContain('Pick the user group');
    expect(await e2e.db.select().from(senderAllowances)).toHaveLength(0);

    await e2e.stack.sim.submitView(
      view.id,
      valuesWith(view, {
        ...person('U_EMP1'),
        ...amount('$1,200'),
        ...radio('settings_over_allowance', 'over_allowance', 'refuse'),
        settings_budget: { budget: { type: 'number_input', value: '100' } },
      }),
      'U_ADMIN',
    );
    const saved = await eventually(async () => {
      const rows = await e2e.db.select().from(senderAllowances);
      return rows.length === 1 ? rows : undefined;
    });
    expect(saved[0]).toMatchObject({ subjectKind: 'user', subjectId: 'U_EMP1', allowanceCents: 120_000 });
    const stored = await e2e.stack.app.settings.get(WS);
    expect(stored).toMatchObject({ monthlyBudgetCents: 10_000, overAllowance: 'refuse' });

    // Shown in the modal next time, and removable there.
    view = await openSettings();
    expect(textOf(view)).toContain('$1,200 a month');
    await e2e.stack.sim.submitView(
      view.id,
      valuesWith(view, {
        settings_allowance_remove: {
          allowance_remove: { type: 'multi_static_select', selected_options: [{ value: saved[0]!.id }] },
        },
      }),
      'U_ADMIN',
    );
    await eventually(async () => (await e2e.db.select().from(senderAllowances)).length === 0);
  });
});
