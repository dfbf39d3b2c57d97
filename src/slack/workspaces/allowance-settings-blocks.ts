// The settings modal's "who may spend" part: who may send kudos with cards, the default monthly
// allowance per sender and what happens over it, and allowances of their own for people and user
// groups (one added or changed per save, any removed).
import type { CardSenders, OverAllowance } from '../../db/schema/index.js';
import { centsToDecimal, formatUsd } from '../../domain/common/money.js';
import type { AllowanceOverride } from '../../domain/workspaces/allowance-overrides.js';
import type { WorkspaceSettings } from '../../domain/workspaces/settings.js';
import { SettingsModal } from '../ids.js';
import { type Block, context, plain } from '../kit/mrkdwn.js';
import { escapeMrkdwn, mentionUser } from '../kit/mrkdwn-escape.js';
import type { SlackUsergroup } from '../web-api/gateway.js';

export const CARD_SENDER_LABELS: Record<CardSenders, string> = {
  everyone: 'Everyone',
  usergroup: 'The members of one user group (and Kudos admins)',
  admins: 'Kudos admins only',
};

export const OVER_ALLOWANCE_LABELS: Record<OverAllowance, string> = {
  approval: 'It waits for an approver',
  refuse: 'It is refused (the sender is told what is left)',
};

/** An override's subject for people: a mention of the person, or the group's handle (never a ping). */
export function overrideSubject(o: AllowanceOverride, usergroups: SlackUsergroup[]): string {
  if (o.subject.kind === 'user') return mentionUser(o.subject.id);
  const group = usergroups.find((g) => g.id === o.subject.id);
  return group ? `@${escapeMrkdwn(group.handle)}` : `user group ${escapeMrkdwn(o.subject.id)} (no longer listed)`;
}

/** An input block (settings-blocks.ts builds the others the same way; kept apart to avoid an import cycle). */
function input_(blockId: string, label: string, element: Record<string, unknown>, optional: boolean, hint?: string) {
  return {
    type: 'input',
    block_id: blockId,
    optional,
    label: plain(label, 2000),
    element,
    ...(hint ? { hint: plain(hint, 2000) } : {}),
  } as unknown as Block;
}

/** A user group as an option of the settings' group selects (the options load answers the same shape). */
function groupOption(g: { id: string; handle?: string; name?: string }) {
  return { text: plain(g.handle ? `@${g.handle} (${g.name ?? g.handle})` : g.id, 75), value: g.id };
}

const amountOf = (cents: number | null) => (cents === null ? 'no limit' : `${formatUsd(cents)} a month`);

function radio<T extends string>(action: string, labels: Record<T, string>, current: T) {
  const options = (Object.keys(labels) as T[]).map((value) => ({ text: plain(labels[value], 75), value }));
  return {
    type: 'radio_buttons',
    action_id: action,
    options,
    initial_option: options.find((o) => o.value === current) ?? options[0],
  };
}

function groupSelect(action: string, initial: ReturnType<typeof groupOption> | undefined) {
  return {
    type: 'external_select',
    action_id: action,
    placeholder: plain('Search user groups'),
    min_query_length: 0,
    ...(initial ? { initial_option: initial } : {}),
  };
}

export function allowanceSettingsBlocks(
  s: WorkspaceSettings,
  usergroups: SlackUsergroup[],
  overrides: AllowanceOverride[],
): Block[] {
  const { blocks: B, actions: A } = SettingsModal;
  const group = s.senderUsergroupId ? usergroups.find((g) => g.id === s.senderUsergroupId) : undefined;
  const initialGroup = s.senderUsergroupId ? groupOption(group ?? { id: s.senderUsergroupId }) : undefined;
  const listed = overrides.map((o) => `• ${overrideSubject(o, usergroups)}: ${amountOf(o.allowanceCents)}`);
  const removable = overrides.slice(0, 100).map((o) => ({
    text: plain(
      `${o.subject.kind === 'user' ? o.subject.id : `@${usergroups.find((g) => g.id === o.subject.id)?.handle ?? o.subject.id}`}: ${amountOf(o.allowanceCents)}`,
      75,
    ),
    value: o.id,
  }));
  return [
    { type: 'divider' } as unknown as Block,
    input_(
      B.cardSenders,
      'Who may send kudos with cards',
      radio(A.cardSenders, CARD_SENDER_LABELS, s.cardSenders),
      false,
    ),
    input_(
      B.senderGroup,
      'The user group that may send',
      groupSelect(A.senderGroup, initialGroup),
      true,
      'Only with “The members of one user group” above.',
    ),
    input_(
      B.budget,
      'Monthly allowance per sender (USD)',
      {
        type: 'number_input',
        action_id: A.budget,
        is_decimal_allowed: true,
        min_value: '0',
        ...(s.monthlyBudgetCents === null ? {} : { initial_value: centsToDecimal(s.monthlyBudgetCents) }),
      },
      true,
      'What one person may send in a calendar month (UTC), sends waiting for approval included. Empty: no allowance.',
    ),
    input_(
      B.overAllowance,
      'A send over the sender’s allowance',
      radio(A.overAllowance, OVER_ALLOWANCE_LABELS, s.overAllowance),
      false,
    ),
    context(
      listed.length > 0
        ? `*Allowances of their own* (a person’s wins over a group’s; of several groups, the most generous):\n${listed.join('\n')}`
        : '*Allowances of their own*: none yet. A person’s wins over a group’s; of several groups, the most generous.',
    ),
    input_(
      B.allowancePerson,
      'Set the allowance of a person…',
      { type: 'users_select', action_id: A.allowancePerson, placeholder: plain('Pick a person') },
      true,
    ),
    input_(B.allowanceGroup, '…or of a user group', groupSelect(A.allowanceGroup, undefined), true),
    input_(
      B.allowanceAmount,
      'Their monthly allowance (USD)',
      {
        type: 'plain_text_input',
        action_id: A.allowanceAmount,
        placeholder: plain('e.g. 200, or none'),
        max_length: 12,
      },
      true,
      'Dollars a month, or “none” for no limit.',
    ),
    ...(removable.length > 0
      ? [
          input_(
            B.allowanceRemove,
            'Remove allowances of their own',
            {
              type: 'multi_static_select',
              action_id: A.allowanceRemove,
              placeholder: plain('Pick any to remove'),
              options: removable,
            },
            true,
          ),
        ]
      : []),
  ];
}
