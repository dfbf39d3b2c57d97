// The admins' settings modal, prefilled with the current values, and the summary of a change.
import type { CardRecipients, CompanyValueRow } from '../../db/schema/index.js';
import type { Design } from '../../domain/accounts/design-catalog.js';
import { centsToDecimal, formatUsd } from '../../domain/common/money.js';
import type { ProfileField } from '../../domain/common/ports.js';
import type { AllowanceOverride } from '../../domain/workspaces/allowance-overrides.js';
import { countryName } from '../../domain/workspaces/people-countries.js';
import type { SettingsChanges, SettingsField, WorkspaceSettings } from '../../domain/workspaces/settings.js';
import { SettingsModal } from '../ids.js';
import type { SlackMessageContent } from '../kit/mrkdwn.js';
import { type Block, context, plain, section } from '../kit/mrkdwn.js';
import { escapeMrkdwn, mentionUser } from '../kit/mrkdwn-escape.js';
import type { SlackUsergroup } from '../web-api/gateway.js';
import { allowanceSettingsBlocks, CARD_SENDER_LABELS, OVER_ALLOWANCE_LABELS } from './allowance-settings-blocks.js';
import { companyValuesSettingsBlocks } from './company-value-blocks.js';
import { peopleCountriesSettingsBlocks } from './people-countries-blocks.js';

export function buildSettingsModal(input: {
  settings: WorkspaceSettings;
  usergroups: SlackUsergroup[];
  designs: Design[];
  /** People's and user groups' own monthly allowances. */
  allowances?: AllowanceOverride[];
  /** The workspace's company values (managed in a view of their own, pushed from here). */
  values?: CompanyValueRow[];
  /** The workspace's custom profile fields, to map the one holding people's country. */
  profileFields?: ProfileField[];
  /** How many people have a country of their own, by source. */
  knownCountries?: { csv: number; profile: number };
  deleteData?: boolean;
}): Record<string, unknown> {
  const { settings: s } = input;
  const blocks: Block[] = [
    ...approvalBlocks(s, input.usergroups),
    ...allowanceSettingsBlocks(s, input.usergroups, input.allowances ?? []),
    ...sendDefaultBlocks(s, input.designs),
    ...adminBlocks(s),
    ...recognitionBlocks(s),
    ...companyValuesSettingsBlocks(s, input.values ?? []),
    ...peopleCountriesSettingsBlocks(s, input.profileFields ?? [], input.knownCountries ?? { csv: 0, profile: 0 }),
  ];
  // Distribution mode: an admin can have the workspace's data deleted now rather than after an uninstall's retention.
  if (input.deleteData) blocks.push(...deleteDataBlocks());
  return {
    type: 'modal',
    callback_id: SettingsModal.callbackId,
    title: plain('Kudos settings', 24),
    submit: plain('Save', 24),
    close: plain('Cancel', 24),
    blocks,
  };
}

/** Where announcements and requests go, who approves, and when a send needs approval. */
function approvalBlocks(s: WorkspaceSettings, usergroups: SlackUsergroup[]): Block[] {
  const { blocks: B, actions: A } = SettingsModal;
  // User groups are searched as the admin types (external_select, served by src/slack/options): a
  // workspace with hundreds of groups can pick any of them, not only the first 100. The list passed in
  // only names the current value; one Slack did not list (slow, renamed) is shown by its id, so that
  // saving the form never clears it by accident.
  const group = s.approverUsergroupId ? usergroups.find((g) => g.id === s.approverUsergroupId) : undefined;
  const initialGroup = s.approverUsergroupId ? settingsGroupOption(group ?? { id: s.approverUsergroupId }) : undefined;
  return [
    input_(
      B.notifyChannel,
      'Announcement channel',
      channelSelect(A.notifyChannel, s.notifyChannel),
      true,
      'Public kudos announcements go here. Empty: none.',
    ),
    input_(
      B.approvalChannel,
      'Approval channel',
      channelSelect(A.approvalChannel, s.approvalChannel),
      true,
      'Requests go here. Empty: each approver gets a direct message.',
    ),
    input_(
      B.approvers,
      'Approvers',
      usersSelect(A.approvers, s.approverUserIds),
      true,
      'Empty (and no group): workspace admins and owners approve.',
    ),
    input_(
      B.approverGroup,
      '…or an approver user group',
      searchableSelect(A.approverGroup, 'Search user groups', initialGroup),
      true,
      'Type to search every user group of the workspace.',
    ),
    input_(
      B.threshold,
      'Approval threshold (USD)',
      numberInput(A.threshold, centsToDecimal(s.approvalThresholdCents), true),
      false,
      'Sends with a higher total need approval. 0: every send.',
    ),
  ];
}

const requireMessageOption = {
  text: plain('Every kudos needs a message'),
  description: plain('The sender says why: the send form and the one-line /kudos ask for it.'),
  value: SettingsModal.requireMessage,
};

/** What the send form starts with. */
function sendDefaultBlocks(s: WorkspaceSettings, designs: Design[]): Block[] {
  const { blocks: B, actions: A } = SettingsModal;
  // Designs are searched as the admin types, like user groups: one the catalog did not list is shown by its id.
  const design = s.defaultProductId ? designs.find((d) => d.productId === s.defaultProductId) : undefined;
  const initialDesign = s.defaultProductId
    ? settingsDesignOption(design ?? { productId: s.defaultProductId })
    : undefined;
  return [
    input_(
      B.defaultDesign,
      'Default card design',
      searchableSelect(A.defaultDesign, 'Search designs', initialDesign),
      true,
    ),
    input_(
      B.defaultAmount,
      'Default amount per person (USD)',
      numberInput(A.defaultAmount, s.defaultAmountCents === null ? null : String(s.defaultAmountCents / 100), false),
      true,
    ),
    input_(
      B.requireMessage,
      'Message',
      {
        type: 'checkboxes',
        action_id: A.requireMessage,
        options: [requireMessageOption],
        ...(s.requireMessage ? { initial_options: [requireMessageOption] } : {}),
      },
      true,
    ),
  ];
}

/** Who administers Kudos, how long requests wait, and where and when admins hear of a low balance. */
function adminBlocks(s: WorkspaceSettings): Block[] {
  const { blocks: B, actions: A } = SettingsModal;
  return [
    input_(
      B.admins,
      'Kudos admins',
      usersSelect(A.admins, s.adminUserIds),
      true,
      'They change these settings, see the audit trail and everyone’s sends. Empty: workspace admins and owners.',
    ),
    input_(
      B.expiryHours,
      'Requests expire after (hours)',
      numberInput(A.expiryHours, String(s.approvalExpiryHours), false),
      false,
    ),
    input_(
      B.adminChannel,
      'Admin channel',
      channelSelect(A.adminChannel, s.adminChannel),
      true,
      'Low-balance alerts and top-up requests go here. Empty: each admin gets a direct message.',
    ),
    input_(
      B.lowBalance,
      'Low-balance alert under (USD)',
      numberInput(
        A.lowBalance,
        s.lowBalanceThresholdCents === null ? null : centsToDecimal(s.lowBalanceThresholdCents),
        true,
      ),
      true,
      'Admins are alerted once each time the available balance falls below this. Empty: no alert.',
    ),
  ];
}

/** The +1 reaction, recurring kudos limits, who receives cards, and the leaderboard. */
function recognitionBlocks(s: WorkspaceSettings): Block[] {
  const { blocks: B, actions: A } = SettingsModal;
  const recognitionOptions = [
    {
      text: plain('Show dollar amounts on the leaderboard'),
      description: plain('Off: counts only.'),
      value: SettingsModal.recognition.amounts,
    },
    {
      text: plain('Post a weekly digest in the announcement channel'),
      description: plain('Mondays: last week’s leaderboard.'),
      value: SettingsModal.recognition.digest,
    },
  ];
  const recognitionOn = recognitionOptions.filter((o) =>
    o.value === SettingsModal.recognition.amounts ? s.leaderboardAmounts : s.weeklyDigest,
  );
  const cardRecipientOptions = CARD_RECIPIENTS.map((value) => ({ text: plain(CARD_RECIPIENT_LABELS[value]), value }));
  return [
    input_(
      B.reaction,
      'Reaction that +1s an announcement',
      { type: 'plain_text_input', action_id: A.reaction, initial_value: `:${s.reactionEmoji}:`, max_length: 66 },
      false,
      'An emoji name, e.g. :gift: or :tada:. Counted in the stats; no money moves.',
    ),
    input_(
      B.seriesPerPerson,
      'Recurring kudos per person',
      numberInput(A.seriesPerPerson, String(s.maxSeriesPerPerson), false),
      false,
      'How many recurring series (active or paused) one person may have.',
    ),
    input_(
      B.seriesPerWorkspace,
      'Recurring kudos in the workspace',
      numberInput(A.seriesPerWorkspace, String(s.maxSeriesPerWorkspace), false),
      false,
      'How many recurring series the whole workspace may have.',
    ),
    input_(
      B.cardRecipients,
      'Who receives cards',
      {
        type: 'radio_buttons',
        action_id: A.cardRecipients,
        options: cardRecipientOptions,
        initial_option: cardRecipientOptions.find((o) => o.value === s.cardRecipients) ?? cardRecipientOptions[0],
      },
      false,
      'Guests (multi- and single-channel) and people invited who have not joined yet are left out of every send unless allowed here; the send form says so.',
    ),
    input_(
      B.recognition,
      'Leaderboard',
      {
        type: 'checkboxes',
        action_id: A.recognition,
        options: recognitionOptions,
        ...(recognitionOn.length > 0 ? { initial_options: recognitionOn } : {}),
      },
      true,
    ),
  ];
}

/** The "Delete our data" button, behind a confirmation. */
function deleteDataBlocks(): Block[] {
  const { blocks: B, actions: A } = SettingsModal;
  return [
    { type: 'divider' } as unknown as Block,
    {
      type: 'section',
      block_id: B.deleteData,
      text: {
        type: 'mrkdwn',
        text: '*Delete our data*\nDeletes everything Kudos keeps for this workspace: kudos history, settings, audit trail, celebrations. Gift cards already sent stay sent.',
      },
      accessory: {
        type: 'button',
        action_id: A.deleteData,
        style: 'danger',
        text: plain('Delete our data…'),
        confirm: {
          title: plain('Delete this workspace’s data?'),
          text: {
            type: 'mrkdwn',
            text: 'Everything Kudos keeps for this workspace is deleted now, for good. This cannot be undone.',
          },
          confirm: plain('Delete everything'),
          deny: plain('Keep it'),
          style: 'danger',
        },
      },
    } as unknown as Block,
  ];
}

function searchableSelect(action: string, placeholder: string, initial: SelectOption | undefined) {
  return {
    type: 'external_select',
    action_id: action,
    placeholder: plain(placeholder),
    min_query_length: 0,
    ...(initial ? { initial_option: initial } : {}),
  };
}

function channelSelect(action: string, initial: string | null) {
  return {
    type: 'conversations_select',
    action_id: action,
    placeholder: plain('Pick a channel'),
    filter: { include: ['public', 'private'], exclude_bot_users: true },
    ...(initial ? { initial_conversation: initial } : {}),
  };
}

function usersSelect(action: string, initial: string[] | null) {
  return {
    type: 'multi_users_select',
    action_id: action,
    placeholder: plain('Pick people'),
    ...(initial?.length ? { initial_users: initial } : {}),
  };
}

function numberInput(action: string, initial: string | null, decimal: boolean) {
  return {
    type: 'number_input',
    action_id: action,
    is_decimal_allowed: decimal,
    min_value: '0',
    ...(initial !== null ? { initial_value: initial } : {}),
  };
}

type SelectOption = { text: ReturnType<typeof plain>; value: string };

/** The choices of "Who receives cards", in the order shown. */
export const CARD_RECIPIENTS: readonly CardRecipients[] = ['members', 'guests', 'invited'];

const CARD_RECIPIENT_LABELS: Record<CardRecipients, string> = {
  members: 'Full members only',
  guests: 'Full members and guests',
  invited: 'Full members, guests and invited people',
};

/** A user group as an option of the settings' approver group select (the options load answers the same shape). */
export function settingsGroupOption(g: { id: string; handle?: string; name?: string }): SelectOption {
  return { text: plain(g.handle ? `@${g.handle} (${g.name ?? g.handle})` : g.id, 75), value: g.id };
}

/** A design as an option of the settings' default design select. */
export function settingsDesignOption(d: { productId: string; name?: string }): SelectOption {
  return { text: plain(d.name ?? d.productId, 75), value: d.productId.slice(0, 150) };
}

/** The "None" choice of the settings' searchable selects (clears the value). */
export const SETTINGS_NONE_OPTION: SelectOption = { text: plain('None'), value: SettingsModal.none };

export function input_(
  blockId: string,
  label: string,
  element: Record<string, unknown>,
  optional: boolean,
  hint?: string,
): Block {
  return {
    type: 'input',
    block_id: blockId,
    optional,
    label: plain(label, 2000),
    element,
    ...(hint ? { hint: plain(hint, 2000) } : {}),
  } as unknown as Block;
}

const LABELS: Record<SettingsField, string> = {
  notifyChannel: 'announcement channel',
  approvalChannel: 'approval channel',
  approverUserIds: 'approvers',
  approverUsergroupId: 'approver group',
  approvalThresholdCents: 'approval threshold',
  monthlyBudgetCents: 'monthly allowance per sender',
  overAllowance: 'a send over the allowance',
  cardSenders: 'who may send kudos with cards',
  senderUsergroupId: 'the user group that may send',
  defaultProductId: 'default design',
  defaultCountry: 'default country',
  countryProfileFieldId: 'profile field with people’s country',
  defaultAmountCents: 'default amount',
  adminUserIds: 'admins',
  approvalExpiryHours: 'request expiry',
  adminChannel: 'admin channel',
  lowBalanceThresholdCents: 'low-balance alert',
  reactionEmoji: '+1 reaction',
  maxSeriesPerPerson: 'recurring kudos per person',
  maxSeriesPerWorkspace: 'recurring kudos in the workspace',
  weeklyDigest: 'weekly digest',
  leaderboardAmounts: 'amounts on the leaderboard',
  cardRecipients: 'who receives cards',
  valuesRequired: 'company value required',
  requireMessage: 'message required',
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
    case 'senderUsergroupId':
      return `user group ${escapeMrkdwn(String(shown))}`; // not a <!subteam^…> mention: that would ping the group
    case 'approvalThresholdCents':
    case 'monthlyBudgetCents':
    case 'defaultAmountCents':
    case 'lowBalanceThresholdCents':
      return formatUsd(Number(value));
    case 'defaultCountry':
      return escapeMrkdwn(countryName(String(shown)));
    case 'approvalExpiryHours':
      return `${String(shown)} h`;
    case 'reactionEmoji':
      return `:${escapeMrkdwn(String(shown))}:`;
    case 'weeklyDigest':
    case 'leaderboardAmounts':
    case 'valuesRequired':
    case 'requireMessage':
      return value === true ? 'on' : 'off';
    case 'cardSenders':
      return (
        (CARD_SENDER_LABELS as Record<string, string | undefined>)[String(shown)]?.toLowerCase() ??
        escapeMrkdwn(String(shown))
      );
    case 'overAllowance':
      return (
        (OVER_ALLOWANCE_LABELS as Record<string, string | undefined>)[String(shown)]?.toLowerCase() ??
        escapeMrkdwn(String(shown))
      );
    case 'cardRecipients':
      return (
        (CARD_RECIPIENT_LABELS as Record<string, string | undefined>)[String(shown)]?.toLowerCase() ??
        escapeMrkdwn(String(shown))
      );
    default:
      return escapeMrkdwn(String(shown));
  }
}

export function buildSettingsSaved(changes: SettingsChanges): SlackMessageContent {
  const fields = Object.keys(changes) as SettingsField[];
  if (fields.length === 0)
    return { text: 'Settings saved: nothing changed.', blocks: [section('Settings saved: nothing changed.')] };
  const lines = fields.map(
    (f) =>
      `• *${LABELS[f]}*: ${describeSettingValue(f, changes[f]!.from)} → ${describeSettingValue(f, changes[f]!.to)}`,
  );
  return {
    text: `Kudos settings changed: ${fields.map((f) => LABELS[f]).join(', ')}`,
    blocks: [
      section(`:gear: Kudos settings changed:\n${lines.join('\n')}`),
      context('Recorded in the audit trail (`/kudos audit`).'),
    ],
  };
}
