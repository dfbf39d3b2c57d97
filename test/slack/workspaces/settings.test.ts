// Settings end to end: seeded from the environment, changed by an admin in the /kudos settings modal,
// refused for everyone else, recorded in the audit trail, and used by the app at once.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { approvalRequests, auditEvents, kudos, workspaceSettings } from '../../../src/db/schema/index.js';
import type { Message, View } from '../../../src/simulator/slack.js';
import { eventually, postSignedPayload, sendModalValues, submitSendForm, useAppPerTest } from '../../support/app.js';

const ENV = {
  KUDOS_NOTIFY_CHANNEL: 'C_KUDOS',
  KUDOS_APPROVAL_CHANNEL: 'C_APPROVALS',
  KUDOS_APPROVERS: 'U_APPROVER',
  KUDOS_ADMINS: 'U_ADMIN',
  KUDOS_APPROVAL_THRESHOLD: '100',
};

const e2e = useAppPerTest({ env: ENV, app: { tuning: { approvalsSweepMs: 0 } } });

type Element = Record<string, unknown> & { type: string; action_id: string };

function element(view: View, blockId: string): Element {
  const block = (view.blocks as Array<{ block_id?: string; element?: Element }>).find((b) => b.block_id === blockId);
  if (!block?.element) throw new Error(`no input block ${blockId}`);
  return block.element;
}

async function openSettings(userId: string): Promise<View> {
  for (let attempt = 1; ; attempt++) {
    const answer = await e2e.stack.sim.slashCommand(userId, 'settings', 'C_GENERAL');
    expect(answer.status).toBe(200);
    const view = await e2e.stack.sim
      .waitFor(() => e2e.stack.sim.openViews(userId).find((v) => v.callback_id === 'kudos_settings'))
      .catch(() => undefined);
    if (view || attempt >= 3) return view!;
  }
}

const value = (type: string, v: string | null) => ({ type, value: v });
const conversation = (id: string | null) => ({ type: 'conversations_select', selected_conversation: id });
const users = (ids: string[]) => ({ type: 'multi_users_select', selected_users: ids });
const option = (v: string) => ({
  type: 'external_select',
  selected_option: { text: { type: 'plain_text', text: v }, value: v },
});
const checked = (...values: string[]) => ({
  type: 'checkboxes',
  selected_options: values.map((v) => ({ text: { type: 'plain_text', text: v }, value: v })),
});
const optionValues = (answer: { body: unknown }) =>
  ((answer.body as { options?: Array<{ value: string }> }).options ?? []).map((o) => o.value);

function rendered(m: Message): string {
  return `${m.text}\n${JSON.stringify(m.blocks ?? [])}`;
}

async function settingsRow() {
  const [row] = await e2e.db.select().from(workspaceSettings).where(eq(workspaceSettings.teamId, 'T0KUDOS'));
  return row;
}

/** A send through the modal; like a user, tries again when a cold app on a loaded machine misses Slack's 3 s. */
async function send(userId: string, amount: string, users_: string[] = ['U_EMP3']) {
  return sendAs(userId, sendModalValues({ users: users_, design: 'CC-THANK-YOU', amount }));
}

async function sendAs(userId: string, values: Record<string, Record<string, unknown>>) {
  return submitSendForm(e2e.stack, e2e.db, userId, values);
}

describe('/kudos settings', () => {
  it('is seeded from the environment at first use and shown prefilled to an admin', async () => {
    const view = await openSettings('U_ADMIN');
    expect(element(view, 'settings_notify_channel').initial_conversation).toBe('C_KUDOS');
    expect(element(view, 'settings_approval_channel').initial_conversation).toBe('C_APPROVALS');
    expect(element(view, 'settings_approvers').initial_users).toEqual(['U_APPROVER']);
    expect(element(view, 'settings_admins').initial_users).toEqual(['U_ADMIN']);
    expect(element(view, 'settings_threshold').initial_value).toBe('100.00');
    expect(element(view, 'settings_expiry_hours').initial_value).toBe('72');
    expect(element(view, 'settings_budget').initial_value).toBeUndefined();
    // Long lists are searched as the admin types (external_select, options load URL in the manifest).
    expect(element(view, 'settings_approver_group')).toMatchObject({ type: 'external_select', min_query_length: 0 });
    expect(element(view, 'settings_default_design')).toMatchObject({ type: 'external_select', min_query_length: 0 });
    // Recognition: the +1 reaction (default :gift:), amounts and the weekly digest off.
    expect(element(view, 'settings_reaction').initial_value).toBe(':gift:');
    expect(element(view, 'settings_recognition')).toMatchObject({ type: 'checkboxes' });
    expect(element(view, 'settings_recognition').initial_options).toBeUndefined();
    const row = await settingsRow();
    expect(row).toMatchObject({
      notifyChannel: 'C_KUDOS',
      approvalChannel: 'C_APPROVALS',
      approverUserIds: ['U_APPROVER'],
      adminUserIds: ['U_ADMIN'],
      approvalThresholdCents: 10_000,
      approvalExpiryHours: 72,
      monthlyBudgetCents: null,
    });
  });

  it('refuses non-admins with an ephemeral message and opens nothing', async () => {
    await e2e.stack.sim.slashCommand('U_MANAGER', 'settings', 'C_GENERAL');
    const reply = e2e.stack.sim
      .messages('C_GENERAL')
      .filter((m) => m.ephemeral && m.visible_to === 'U_MANAGER')
      .at(-1)!;
    expect(reply.text).toContain('Only Kudos admins');
    expect(e2e.stack.sim.openViews('U_MANAGER')).toHaveLength(0);
    // An approver is not an admin.
    await e2e.stack.sim.slashCommand('U_APPROVER', 'settings', 'C_GENERAL');
    expect(e2e.stack.sim.openViews('U_APPROVER')).toHaveLength(0);
  });

  it('an admin changes settings: saved, summarised to them, audited (who, what: old -> new), and used at once', async () => {
    const view = await openSettings('U_ADMIN');
    const answer = await e2e.stack.sim.submitView(
      view.id,
      {
        settings_notify_channel: { notify_channel: conversation('C_GENERAL') },
        settings_approvers: { approvers: users([]) },
        settings_approver_group: { approver_group: option('S_TEAM') },
        settings_threshold: { threshold: value('number_input', '200') },
        settings_budget: { budget: value('number_input', '1000.50') },
        settings_default_design: { default_design: option('CC-BIRTHDAY') },
        settings_default_amount: { default_amount: value('number_input', '25') },
        settings_expiry_hours: { expiry_hours: value('number_input', '24') },
      },
      'U_ADMIN',
    );
    expect(answer.body).toBe('');
    expect(e2e.stack.sim.openViews('U_ADMIN')).toHaveLength(0);

    const summary = await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.messages('U_ADMIN').find((m) => m.text.includes('settings changed')),
    );
    expect(rendered(summary)).toContain('approval threshold*: $100 → $200');
    expect(rendered(summary)).toContain('announcement channel*: <#C_KUDOS> → <#C_GENERAL>');

    const row = await settingsRow();
    expect(row).toMatchObject({
      notifyChannel: 'C_GENERAL',
      approverUserIds: null,
      approverUsergroupId: 'S_TEAM',
      approvalThresholdCents: 20_000,
      monthlyBudgetCents: 100_050,
      defaultProductId: 'CC-BIRTHDAY',
      defaultAmountCents: 2500,
      approvalExpiryHours: 24,
      updatedBy: 'U_ADMIN',
    });
    const audit = await e2e.db.select().from(auditEvents).where(eq(auditEvents.action, 'settings.changed'));
    expect(audit).toHaveLength(1);
    expect(audit[0]!.actorUserId).toBe('U_ADMIN');
    expect(audit[0]!.details).toEqual({
      changes: {
        notifyChannel: { from: 'C_KUDOS', to: 'C_GENERAL' },
        approverUserIds: { from: ['U_APPROVER'], to: null },
        approverUsergroupId: { from: null, to: 'S_TEAM' },
        approvalThresholdCents: { from: 10_000, to: 20_000 },
        monthlyBudgetCents: { from: null, to: 100_050 },
        defaultProductId: { from: null, to: 'CC-BIRTHDAY' },
        defaultAmountCents: { from: null, to: 2500 },
        approvalExpiryHours: { from: 72, to: 24 },
      },
    });

    // $150 is now under the threshold: sent directly, announced in the new channel.
    const direct = await send('U_MANAGER', '150');
    expect(['pending', 'placed']).toContain(direct.status); // straight out (the worker may have placed it already)
    const announcement = await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.messages('C_GENERAL').find((m) => !m.ephemeral && m.text.startsWith('Kudos from')),
    );
    expect(rendered(announcement)).toContain('<@U_EMP3>');
    expect(e2e.stack.sim.messages('C_KUDOS').filter((m) => m.text.startsWith('Kudos from'))).toHaveLength(0);

    // $250 needs approval; the user group's members approve now, the old approver no longer does.
    const big = await send('U_MANAGER', '250');
    expect(big.status).toBe('awaiting_approval');
    const request = await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.messages('C_APPROVALS').find((m) => JSON.stringify(m.blocks ?? []).includes(big.id)),
    );
    await eventually(
      async () =>
        (await e2e.db.select().from(approvalRequests).where(eq(approvalRequests.kudosId, big.id)))[0]?.postedAt,
    );
    const [stored] = await e2e.db.select().from(approvalRequests).where(eq(approvalRequests.kudosId, big.id));
    expect(stored!.expiresAt.getTime() - stored!.createdAt.getTime()).toBeGreaterThan(23.9 * 3_600_000);
    expect(stored!.expiresAt.getTime() - stored!.createdAt.getTime()).toBeLessThan(24.1 * 3_600_000);
    await e2e.stack.sim.clickButton({ channel: 'C_APPROVALS', ts: request.ts }, 'approval_approve', 'U_APPROVER');
    await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.messages('C_APPROVALS').find((m) => m.ephemeral && m.visible_to === 'U_APPROVER'),
    );
    expect((await e2e.db.select().from(kudos).where(eq(kudos.id, big.id)))[0]!.status).toBe('awaiting_approval');
    await e2e.stack.sim.clickButton({ channel: 'C_APPROVALS', ts: request.ts }, 'approval_approve', 'U_EMP1');
    await eventually(
      async () => (await e2e.db.select().from(kudos).where(eq(kudos.id, big.id)))[0]!.status === 'placed',
    );

    // The send form is prefilled with the default design and amount.
    await e2e.stack.sim.slashCommand('U_MANAGER', '', 'C_GENERAL');
    const form = await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.openViews('U_MANAGER').find((v) => v.callback_id === 'kudos_send'),
    );
    expect(element(form, 'send_amount').initial_value).toBe('25');
    expect(element(form, 'send_design').initial_option).toMatchObject({
      value: 'CC-BIRTHDAY',
      text: { text: 'Happy Birthday' },
    });
  });

  it('saving without changes records nothing', async () => {
    const view = await openSettings('U_ADMIN');
    await e2e.stack.sim.submitView(view.id, {}, 'U_ADMIN');
    await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.messages('U_ADMIN').find((m) => m.text.includes('nothing changed')),
    );
    expect(await e2e.db.select().from(auditEvents)).toHaveLength(0);
  });

  it('shows bad values inline and keeps the modal', async () => {
    const view = await openSettings('U_ADMIN');
    await e2e.stack.sim.submitView(
      view.id,
      {
        settings_threshold: { threshold: value('number_input', '12.345') },
        settings_expiry_hours: { expiry_hours: value('number_input', '0') },
      },
      'U_ADMIN',
    );
    const errors = e2e.stack.sim.viewErrors(view.id);
    expect(errors.settings_threshold).toContain('USD');
    expect(errors.settings_expiry_hours).toContain('1 to 720');
    expect(e2e.stack.sim.openViews('U_ADMIN')).toHaveLength(1);
    await e2e.stack.sim.submitView(view.id, { settings_admins: { admins: users(['U_APPROVER']) } }, 'U_ADMIN');
    expect(e2e.stack.sim.viewErrors(view.id).settings_admins).toContain('Keep yourself');
    expect((await settingsRow())!.approvalThresholdCents).toBe(10_000);
    expect(await e2e.db.select().from(auditEvents)).toHaveLength(0);
  });

  it('a settings modal submitted by someone who is no longer an admin saves nothing', async () => {
    const view = await openSettings('U_ADMIN');
    await e2e.stack.app.settings.update({ teamId: 'T0KUDOS' }, 'U_APPROVER', { adminUserIds: ['U_APPROVER'] });
    await e2e.stack.sim.submitView(
      view.id,
      { settings_threshold: { threshold: value('number_input', '5') } },
      'U_ADMIN',
    );
    expect(e2e.stack.sim.viewErrors(view.id).settings_threshold).toContain('Only Kudos admins');
    expect((await settingsRow())!.approvalThresholdCents).toBe(10_000);
  });

  it('any of hundreds of user groups can be chosen as approvers: the select searches them all (the 101st too); designs likewise', async () => {
    for (let i = 1; i <= 150; i++) {
      e2e.stack.sim.workspace.usergroups.push({
        id: `S_G${String(i).padStart(3, '0')}`,
        handle: `group-${i}`,
        name: `Group ${i}`,
        users: i === 101 ? ['U_EMP4'] : ['U_EMP1'],
      });
    }
    const view = await openSettings('U_ADMIN');
    const first = await e2e.stack.sim.loadOptions(view.id, 'approver_group', 'settings_approver_group', '', 'U_ADMIN');
    expect(optionValues(first)[0]).toBe('none');
    expect(optionValues(first)).toHaveLength(100); // Slack's limit; typing narrows it
    const typed = await e2e.stack.sim.loadOptions(
      view.id,
      'approver_group',
      'settings_approver_group',
      'group-101',
      'U_ADMIN',
    );
    expect(optionValues(typed)).toEqual(['S_G101']);
    const designs = await e2e.stack.sim.loadOptions(
      view.id,
      'default_design',
      'settings_default_design',
      'birth',
      'U_ADMIN',
    );
    expect(optionValues(designs)).toEqual(['CC-BIRTHDAY']);
    // Someone who is not an admin gets no list.
    const stranger = await postSignedPayload(e2e.stack.app.url, {
      type: 'block_suggestion',
      user: { id: 'U_MANAGER', team_id: 'T0KUDOS' },
      team: { id: 'T0KUDOS', domain: 'kudos-demo' },
      api_app_id: 'A0KUDOS',
      action_id: 'approver_group',
      block_id: 'settings_approver_group',
      value: 'group',
      container: { type: 'view', view_id: view.id },
      view,
    });
    expect(JSON.parse(stranger.text)).toEqual({ options: [] });

    await e2e.stack.sim.submitView(
      view.id,
      { settings_approver_group: { approver_group: option('S_G101') } },
      'U_ADMIN',
    );
    await eventually(async () => (await settingsRow())!.approverUsergroupId === 'S_G101');
    // The next modal shows it by name.
    const again = await openSettings('U_ADMIN');
    expect(element(again, 'settings_approver_group').initial_option).toMatchObject({
      value: 'S_G101',
      text: { text: '@group-101 (Group 101)' },
    });
  });

  it('the +1 reaction, amounts on the leaderboard and the weekly digest are settings; a bad emoji or a digest without a channel is refused inline', async () => {
    const view = await openSettings('U_ADMIN');
    await e2e.stack.sim.submitView(
      view.id,
      { settings_reaction: { reaction: value('plain_text_input', 'two words') } },
      'U_ADMIN',
    );
    expect(e2e.stack.sim.viewErrors(view.id).settings_reaction).toContain('one emoji name');
    await e2e.stack.sim.submitView(
      view.id,
      {
        settings_notify_channel: { notify_channel: conversation(null) },
        settings_recognition: { recognition: checked('weekly_digest') },
      },
      'U_ADMIN',
    );
    expect(e2e.stack.sim.viewErrors(view.id).settings_recognition).toContain('announcement channel');
    expect(await e2e.db.select().from(auditEvents)).toHaveLength(0);

    await e2e.stack.sim.submitView(
      view.id,
      {
        settings_reaction: { reaction: value('plain_text_input', ':Tada:') },
        settings_recognition: { recognition: checked('amounts', 'weekly_digest') },
      },
      'U_ADMIN',
    );
    const summary = await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.messages('U_ADMIN').find((m) => m.text.includes('settings changed')),
    );
    expect(rendered(summary)).toContain('+1 reaction*: :gift: → :tada:');
    expect(rendered(summary)).toContain('weekly digest*: off → on');
    expect(rendered(summary)).toContain('amounts on the leaderboard*: off → on');
    expect(await settingsRow()).toMatchObject({ reactionEmoji: 'tada', weeklyDigest: true, leaderboardAmounts: true });

    const again = await openSettings('U_ADMIN');
    expect(element(again, 'settings_reaction').initial_value).toBe(':tada:');
    expect(
      (element(again, 'settings_recognition').initial_options as Array<{ value: string }>).map((o) => o.value),
    ).toEqual(['amounts', 'weekly_digest']);
  });
});
