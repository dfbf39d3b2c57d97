// The admins' settings modal, prefilled with the current values, and the summary of a change.
import type { Design } from '../../domain/catalog.js';
import { centsToDecimal, formatUsd } from '../../domain/money.js';
import type { SettingsChanges, SettingsField, WorkspaceSettings } from '../../domain/settings.js';
import { escapeMrkdwn, mentionUser } from '../../domain/escape.js';
import type { SlackUsergroup } from '../gateway.js';
import { SettingsModal } from '../ids.js';
import type { SlackMessageContent } from './messages.js';
import { context, plain, section, type Block } from './text.js';

const MAX_OPTIONS = 99; // static_select takes 100 options; one is "none"

export function buildSettingsModal(input: { settings: WorkspaceSettings; usergroups: SlackUsergroup[]; designs: Design[] }): Record<string, unknown> {
  const { settings: s } = input;
  const { blocks: B, actions: A } = SettingsModal;
  const none = { text: plain('None'), value: SettingsModal.none };
  // The current value stays selectable even when Slack or the catalog did not list it (slow, renamed),
  // so that saving the form never clears it by accident.
  const withCurrent = (options: Array<{ text: ReturnType<typeof plain>; value: string }>, current: string | null) =>
    current && !options.some((o) => o.value === current) ? [...options.slice(0, MAX_OPTIONS - 1), { text: plain(current, 75), value: current }] : options.slice(0, MAX_OPTIONS);
  const groupOptions = [
    none,
    ...withCurrent(
      input.usergroups.map((g) => ({ text: plain(`@${g.handle} (${g.name})`, 75), value: g.id })),
      s.approverUsergroupId,
    ),
  ];
  const designOptions = [
    none,
    ...withCurrent(
      input.designs.map((d) => ({ text: plain(d.name, 75), value: d.productId })),
      s.defaultProductId,
    ),
  ];
  const selected = <T extends { value: string }>(options: T[], value: string | null) => options.find((o) => o.value === value && value !== SettingsModal.none);
  const initialGroup = selected(groupOptions, s.approverUsergroupId);
  const initialDesign = selected(designOptions, s.defaultProductId);
  const channelSelect = (action: string, initial: string | null) => ({
    type: 'conversations_select',
    action_id: action,
    placeholder: plain('Pick a channel'),
    filter: { include: ['public', 'private'], exclude_bot_users: true },
    ...(initial ? { initial_conversation: initial } : {}),
  });
  const number = (action: string, initial: string | null, decimal: boolean) => ({
    type: 'number_input',
    action_id: action,
    is_decimal_allowed: decimal,
    min_value: '0',
    ...(initial !== null ? { initial_value: initial } : {}),
  });
  const blocks: Block[] = [
    input_(B.notifyChannel, 'Announcement channel', channelSelect(A.notifyChannel, s.notifyChannel), true, 'Public kudos announcements go here. Empty: none.'),
    input_(B.approvalChannel, 'Approval channel', channelSelect(A.approvalChannel, s.approvalChannel), true, 'Requests go here. Empty: each approver gets a direct message.'),
    input_(
      B.approvers,
      'Approvers',
      { type: 'multi_users_select', action_id: A.approvers, placeholder: plain('Pick people'), ...(s.approverUserIds?.length ? { initial_users: s.approverUserIds } : {}) },
      true,
      'Empty (and no group): workspace admins and owners approve.',
    ),
    input_(
      B.approverGroup,
      '…or an approver user group',
      { type: 'static_select', action_id: A.approverGroup, options: groupOptions, ...(initialGroup ? { initial_option: initialGroup } : {}) },
      true,
    ),
    input_(B.threshold, 'Approval threshold (USD)', number(A.threshold, centsToDecimal(s.approvalThresholdCents), true), false, 'Sends with a higher total need approval. 0: every send.'),
    input_(
      B.budget,
      'Monthly budget per sender (USD)',
      number(A.budget, s.monthlyBudgetCents === null ? null : centsToDecimal(s.monthlyBudgetCents), true),
      true,
      'A send that would take its sender over this in a calendar month (UTC) needs approval. Empty: no budget.',
    ),
    input_(B.defaultDesign, 'Default card design', { type: 'static_select', action_id: A.defaultDesign, options: designOptions, ...(initialDesign ? { initial_option: initialDesign } : {}) }, true),
    input_(B.defaultAmount, 'Default amount per person (USD)', number(A.defaultAmount, s.defaultAmountCents === null ? null : String(s.defaultAmountCents / 100), false), true),
    input_(
      B.admins,
      'Kudos admins',
      { type: 'multi_users_select', action_id: A.admins, placeholder: plain('Pick people'), ...(s.adminUserIds?.length ? { initial_users: s.adminUserIds } : {}) },
      true,
      'They change these settings, see the audit trail and everyone’s sends. Empty: workspace admins and owners.',
    ),
    input_(B.expiryHours, 'Requests expire after (hours)', number(A.expiryHours, String(s.approvalExpiryHours), false), false),
    input_(B.adminChannel, 'Admin channel', channelSelect(A.adminChannel, s.adminChannel), true, 'Low-balance alerts and top-up requests go here. Empty: each admin gets a direct message.'),
    input_(
      B.lowBalance,
      'Low-balance alert under (USD)',
      number(A.lowBalance, s.lowBalanceThresholdCents === null ? null : centsToDecimal(s.lowBalanceThresholdCents), true),
      true,
      'Admins are alerted once each time the available balance falls below this. Empty: no alert.',
    ),
  ];
  return {
    type: 'modal',
    callback_id: SettingsModal.callbackId,
    title: plain('Kudos settings', 24),
    submit: plain('Save', 24),
    close: plain('Cancel', 24),
    blocks,
  };
}

export function input_(blockId: string, label: string, element: Record<string, unknown>, optional: boolean, hint?: string): Block {
  return { type: 'input', block_id: blockId, optional, label: plain(label, 2000), element, ...(hint ? { hint: plain(hint, 2000) } : {}) } as unknown as Block;
}

const LABELS: Record<SettingsField, string> = {
  notifyChannel: 'announcement channel',
  approvalChannel: 'approval channel',
  approverUserIds: 'approvers',
  approverUsergroupId: 'approver group',
  approvalThresholdCents: 'approval threshold',
  monthlyBudgetCents: 'monthly budget',
  defaultProductId: 'default design',
  defaultAmountCents: 'default amount',
  adminUserIds: 'admins',
  approvalExpiryHours: 'request expiry',
  adminChannel: 'admin channel',
  lowBalanceThresholdCents: 'low-balance alert',
};

/** A settings value for people: channels and users as Slack references, money in dollars. */
export function describeSettingValue(field: SettingsField, value: unknown): string {
  if (value === null || value === undefined || (Array.isArray(value) && value.length === 0)) return 'none';
  // A setting is a string, a number or a list of ids (settings schema).
  const shown = value as string | number;
  switch (field) {
    case 'notifyChannel':
    case 'approvalChannel':
    case 'adminChannel':
      return /^[CGD][A-Z0-9_]+$/.test(String(shown)) ? `<#${String(shown)}>` : escapeMrkdwn(String(shown));
    case 'approverUserIds':
    case 'adminUserIds':
      return (value as string[]).map(mentionUser).join(', ');
    case 'approverUsergroupId':
      return `user group ${escapeMrkdwn(String(shown))}`; // not a <!subteam^…> mention: that would ping the group
    case 'approvalThresholdCents':
    case 'monthlyBudgetCents':
    case 'defaultAmountCents':
    case 'lowBalanceThresholdCents':
      return formatUsd(Number(value));
    case 'approvalExpiryHours':
      return `${String(shown)} h`;
    default:
      return escapeMrkdwn(String(shown));
  }
}

export function buildSettingsSaved(changes: SettingsChanges): SlackMessageContent {
  const fields = Object.keys(changes) as SettingsField[];
  if (fields.length === 0) return { text: 'Settings saved: nothing changed.', blocks: [section('Settings saved: nothing changed.')] };
  const lines = fields.map((f) => `• *${LABELS[f]}*: ${describeSettingValue(f, changes[f]!.from)} → ${describeSettingValue(f, changes[f]!.to)}`);
  return {
    text: `Kudos settings changed: ${fields.map((f) => LABELS[f]).join(', ')}`,
    blocks: [section(`:gear: Kudos settings changed:\n${lines.join('\n')}`), context('Recorded in the audit trail (`/kudos audit`).')],
  };
}
