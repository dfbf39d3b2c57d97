// The send modal (/kudos), short: recipients, or a group; design (the workspace's, preselected);
// amount; message; company value; now or later (the date and time only once "Schedule" is picked). Campaign, e-mail
// template and refund wait behind "More options" (both open the view again with views.update,
// send-form-views.ts; Slack keeps what was typed in every block whose id stays).
import { MESSAGE_MAX_CHARACTERS } from '../../domain/sending/message-text.js';
import type { CompanyValue, PickedValue } from '../../domain/workspaces/company-values.js';
import { CardChoice, GroupValuePrefix, RefundChoice, SendModal, SendModalMore, TimingChoice } from '../ids.js';
import { type Block, clip, context, plain, section } from '../kit/mrkdwn.js';
import { escapeMrkdwn } from '../kit/mrkdwn-escape.js';
import { brandBlocks, type BrandFields } from './brand-blocks.js';

export interface SendModalState {
  /** Slack user ids to preselect (from `/kudos @a @b 25 thanks`). */
  userIds?: string[];
  amountDollars?: number;
  /** The workspace's default design (settings), preselected. */
  design?: { productId: string; name: string };
  message?: string;
  /** The sender's IANA zone: the date and time pickers are read in it (unknown if Slack was slow). */
  timezone?: string;
  /**
   * Slack answered and the sender's profile has no (usable) time zone: scheduled times are read in
   * UTC, and the modal says so.
   */
  noTimezone?: boolean;
  /** YYYY-MM-DD in the sender's zone, to prefill the date picker. */
  today?: string;
  /** The Slack user group named in `/kudos @group …`, preselected. */
  group?: { id: string; handle: string };
  /** The campaign picked (its defaults fill design, amount and template). */
  campaign?: { id: string; name: string };
  /** A line under the campaign: its range and template, or why it cannot be used. */
  campaignNote?: string;
  /** The e-mail template preselected (from the campaign). */
  template?: { templateId: string; name: string };
  /** "You have $75 left this month …": the sender's monthly allowance, when they have one. */
  allowanceLine?: string;
  /** The workspace's company values to pick from, and whether one must be picked; no field when there are none. */
  values?: { options: CompanyValue[]; required: boolean };
  /** The value preselected (`/kudos @a 25 #teamwork …`). */
  value?: CompanyValue;
  /** "Schedule for later" is picked: the date and time pickers are shown. */
  scheduled?: boolean;
  /** The workspace asks for a message with every send (settings `requireMessage`). */
  requireMessage?: boolean;
  /** The brand fields, when "A brand" is picked (metadata `card`). */
  brand?: BrandFields;
  /** Carried to the submission. */
  metadata: SendModalMetadata;
}

export interface SendModalMetadata {
  /** Channel the command came from. */
  channelId?: string | undefined;
  /** Permalink of the message the kudos is for ("Give kudos for this"). */
  sourceMessageUrl?: string | undefined;
  /**
   * Set when a campaign's defaults were filled in (views.update): the design, amount and template
   * blocks get ids with this suffix, since Slack keeps what was entered in a block whose id stays and
   * would ignore the new initial values.
   */
  fill?: string | undefined;
  /** "More options" was pressed: campaign, e-mail template and refund are shown. */
  more?: boolean | undefined;
  /** "A brand" was picked: the brand fields replace design and amount. */
  card?: 'brand' | undefined;
}

/** The block id of a field the campaign fills, in the modal whose metadata has `fill`. */
export function filledBlockId(block: string, fill: string | undefined): string {
  return fill ? `${block}_${fill}` : block;
}

/** A Slack permalink we can put in a `<url|label>` link safely. */
export function isSafePermalink(url: string | undefined): url is string {
  return typeof url === 'string' && url.length <= 500 && /^https:\/\/[^\s|<>&"]+$/.test(url);
}

export function buildSendModal(state: SendModalState): Record<string, unknown> {
  const more = state.metadata.more === true;
  const blocks: Block[] = [
    ...sourceMessageBlocks(state.metadata.sourceMessageUrl),
    ...recipientBlocks(state),
    ...cardBlocks(state),
    ...valueBlocks(state),
    ...(state.allowanceLine ? [context(escapeMrkdwn(state.allowanceLine))] : []),
    ...timingBlocks(state),
    ...(more ? [...campaignBlocks(state), templateBlock(state), refundBlock()] : [moreOptionsBlock()]),
  ];
  return {
    type: 'modal',
    callback_id: SendModal.callbackId,
    title: plain('Send kudos', 24),
    submit: plain('Send', 24),
    close: plain('Cancel', 24),
    private_metadata: JSON.stringify(state.metadata),
    blocks,
  };
}

/** The message the kudos is for ("Give kudos for this"), when its permalink is safe to link. */
function sourceMessageBlocks(sourceMessageUrl: string | undefined): Block[] {
  if (!isSafePermalink(sourceMessageUrl)) return [];
  return [
    {
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: `:speech_balloon: For <${sourceMessageUrl}|this message>; the announcement links to it.`,
        },
      ],
    },
  ];
}

/** Who is thanked: people, or a whole group. */
function recipientBlocks(state: SendModalState): Block[] {
  const { blocks: B, actions: A } = SendModal;
  return [
    {
      type: 'input',
      block_id: B.recipients,
      optional: true,
      label: plain('Who do you want to thank?'),
      element: {
        type: 'multi_users_select',
        action_id: A.recipients,
        placeholder: plain('Pick people'),
        ...(state.userIds && state.userIds.length > 0 ? { initial_users: state.userIds } : {}),
      },
    },
    {
      type: 'input',
      block_id: B.group,
      optional: true,
      label: plain('…or a whole group'),
      hint: plain(
        'A Slack user group, or a saved group from the address book. If you are in it, you are left out: nobody sends kudos to themselves. Guests, and people invited who have not joined yet, are left out unless a Kudos admin allows them in the settings.',
      ),
      element: {
        type: 'external_select',
        action_id: A.group,
        min_query_length: 0,
        placeholder: plain('Search groups'),
        ...(state.group
          ? {
              initial_option: {
                text: plain(clip(`@${state.group.handle}`, 75)),
                value: groupOptionValue('slack', state.group.id),
              },
            }
          : {}),
      },
    },
  ];
}

/** The campaign picker (picking one fills the fields it sets), and the note under it. */
function campaignBlocks(state: SendModalState): Block[] {
  const { blocks: B, actions: A } = SendModal;
  return [
    {
      type: 'input',
      block_id: B.campaign,
      optional: true,
      dispatch_action: true,
      label: plain('Campaign'),
      hint: plain(
        'Optional. A campaign fills in its design, amount and e-mail template, and its spend is counted. Campaigns send choice cards (the recipient picks the brand).',
      ),
      element: {
        type: 'external_select',
        action_id: A.campaign,
        min_query_length: 0,
        placeholder: plain('Search campaigns'),
        ...(state.campaign
          ? { initial_option: { text: plain(clip(state.campaign.name, 75)), value: state.campaign.id } }
          : {}),
      },
    },
    ...(state.campaignNote
      ? [{ type: 'context', elements: [{ type: 'mrkdwn', text: state.campaignNote, verbatim: true }] } as Block]
      : []),
  ];
}

/** The card: a choice card (design, amount) or a brand (its fields), then the message. */
function cardBlocks(state: SendModalState): Block[] {
  const { blocks: B, actions: A } = SendModal;
  const fill = state.metadata.fill;
  const choice = { text: plain('Choice card (they pick the brand)'), value: CardChoice.choice };
  const brand = { text: plain('A brand'), value: CardChoice.brand };
  const cardType: Block = {
    type: 'input',
    block_id: B.cardType,
    dispatch_action: true,
    label: plain('Card'),
    element: {
      type: 'radio_buttons',
      action_id: A.cardType,
      options: [choice, brand],
      initial_option: state.metadata.card === 'brand' ? brand : choice,
    },
  };
  const card =
    state.metadata.card === 'brand' ? brandBlocks(state.brand ?? { categories: [] }, fill) : choiceCardBlocks(state);
  return [cardType, ...card, messageBlock(state)];
}

/** A choice card's design and amount in whole dollars (the campaign fills both). */
function choiceCardBlocks(state: SendModalState): Block[] {
  const { blocks: B, actions: A } = SendModal;
  const fill = state.metadata.fill;
  return [
    {
      type: 'input',
      block_id: filledBlockId(B.design, fill),
      label: plain('Card design'),
      element: {
        type: 'external_select',
        action_id: A.design,
        min_query_length: 0,
        placeholder: plain('Search designs'),
        ...(state.design
          ? { initial_option: { text: plain(clip(state.design.name, 75)), value: state.design.productId } }
          : {}),
      },
    },
    {
      type: 'input',
      block_id: filledBlockId(B.amount, fill),
      label: plain('Amount per person (USD)'),
      hint: plain(
        state.campaign ? 'Whole dollars, within the campaign’s range.' : 'Whole dollars, within the design’s range.',
      ),
      element: {
        type: 'number_input',
        action_id: A.amount,
        is_decimal_allowed: false,
        min_value: '1',
        ...(state.amountDollars !== undefined ? { initial_value: String(state.amountDollars) } : {}),
      },
    },
  ];
}

/** Why: the message (required when the workspace says so). */
function messageBlock(state: SendModalState): Block {
  const { blocks: B, actions: A } = SendModal;
  return {
    type: 'input',
    block_id: B.message,
    optional: !state.requireMessage,
    label: plain(state.requireMessage ? 'Message (why?)' : 'Message'),
    hint: plain(`Up to ${MESSAGE_MAX_CHARACTERS} characters, shown in public with the announcement.`),
    element: {
      type: 'plain_text_input',
      action_id: A.message,
      multiline: true,
      max_length: MESSAGE_MAX_CHARACTERS,
      placeholder: plain('Say why'),
      ...(state.message ? { initial_value: clip(state.message, MESSAGE_MAX_CHARACTERS) } : {}),
    },
  };
}

/** A value's option: `:rocket: Teamwork`, carrying its id and the revision shown (a rename meanwhile is caught). */
function valueOption(value: CompanyValue) {
  return {
    text: plain(clip(`:${value.emoji}: ${value.name}`, 75)),
    ...(value.description ? { description: plain(clip(value.description, 75)) } : {}),
    value: `${value.id}:${value.revision}`,
  };
}

/** The form's value field as submitted, or undefined (nothing picked, or not a value this form offered). */
export function pickedValueOf(optionValue: string | undefined): PickedValue | undefined {
  const match = /^([0-9a-f-]{36}):(\d{1,9})$/.exec(optionValue ?? '');
  return match ? { id: match[1]!, revision: Number(match[2]) } : undefined;
}

/** What the kudos is for: one of the workspace's company values (required when the workspace says so). */
function valueBlocks(state: SendModalState): Block[] {
  const { blocks: B, actions: A } = SendModal;
  if (!state.values || state.values.options.length === 0) return [];
  const picked = state.value && state.values.options.find((v) => v.id === state.value!.id);
  return [
    {
      type: 'input',
      block_id: B.value,
      optional: !state.values.required,
      label: plain('Company value'),
      hint: plain(
        state.values.required
          ? 'What this kudos is for; shown in the announcement.'
          : 'Optional. What this kudos is for; shown in the announcement.',
      ),
      element: {
        type: 'static_select',
        action_id: A.value,
        placeholder: plain('Pick a value'),
        options: state.values.options.map(valueOption),
        ...(picked ? { initial_option: valueOption(picked) } : {}),
      },
    },
  ];
}

/** The e-mail template (a campaign fills it); behind More options. */
function templateBlock(state: SendModalState): Block {
  const { blocks: B, actions: A } = SendModal;
  return {
    type: 'input',
    block_id: filledBlockId(B.template, state.metadata.fill),
    optional: true,
    label: plain('E-mail template'),
    hint: plain('The e-mail the recipients get; the account’s default when empty.'),
    element: {
      type: 'external_select',
      action_id: A.template,
      min_query_length: 0,
      placeholder: plain('Search templates'),
      ...(state.template
        ? { initial_option: { text: plain(clip(state.template.name, 75)), value: state.template.templateId } }
        : {}),
    },
  };
}

/** The button that shows campaign, e-mail template and refund. */
function moreOptionsBlock(): Block {
  return {
    type: 'actions',
    block_id: SendModalMore.block,
    elements: [{ type: 'button', action_id: SendModalMore.action, text: plain('More options'), value: 'more' }],
  };
}

function refundBlock(): Block {
  const { blocks: B, actions: A } = SendModal;
  const noRefund = { text: plain('No refund'), value: RefundChoice.none };
  const refundOptions = [
    noRefund,
    { text: plain('30 days (50% refunded)'), value: RefundChoice.d30 },
    { text: plain('60 days (40% refunded)'), value: RefundChoice.d60 },
    { text: plain('90 days (30% refunded)'), value: RefundChoice.d90 },
  ];
  return {
    type: 'input',
    block_id: B.refund,
    optional: true,
    label: plain('Refund unredeemed value'),
    element: {
      type: 'static_select',
      action_id: A.refund,
      options: refundOptions,
      initial_option: noRefund,
    },
  };
}

/** Now or later, and the date and time of a scheduled send. */
function timingBlocks(state: SendModalState): Block[] {
  const { blocks: B, actions: A } = SendModal;
  const sendNow = { text: plain('Send now'), value: TimingChoice.now };
  const later = { text: plain('Schedule for later'), value: TimingChoice.schedule };
  const when: Block = {
    type: 'input',
    block_id: B.timing,
    dispatch_action: true,
    label: plain('When'),
    element: {
      type: 'radio_buttons',
      action_id: A.timing,
      options: [sendNow, later],
      initial_option: state.scheduled ? later : sendNow,
    },
  };
  if (!state.scheduled) return [when];
  return [
    when,
    {
      type: 'input',
      block_id: B.date,
      optional: true,
      label: plain('Date'),
      element: { type: 'datepicker', action_id: A.date, ...(state.today ? { initial_date: state.today } : {}) },
    },
    {
      type: 'input',
      block_id: B.time,
      optional: true,
      label: plain('Time'),
      hint: plain(timeHint(state)),
      element: {
        type: 'timepicker',
        action_id: A.time,
        initial_time: '09:00',
        ...(state.timezone ? { timezone: state.timezone } : {}),
      },
    },
  ];
}

/** In which zone the date and time pickers are read: the sender's, or UTC (said, never silent). */
export function timeHint(state: Pick<SendModalState, 'timezone' | 'noTimezone'>): string {
  if (state.timezone) return `In your Slack time zone, ${state.timezone}. At least 10 minutes from now.`;
  if (state.noTimezone)
    return 'Your Slack profile has no time zone, so this time is in UTC (set your time zone in Slack to schedule in your own). At least 10 minutes from now.';
  return 'In your Slack time zone (UTC if your profile has none). At least 10 minutes from now.';
}

export function groupOptionValue(kind: 'slack' | 'addressBook', id: string): string {
  return `${kind === 'slack' ? GroupValuePrefix.slack : GroupValuePrefix.addressBook}${id}`;
}

/** A modal that only tells (no Send button): what became of a submitted send form. */
function sendOutcomeView(lines: string[]): Record<string, unknown> {
  return {
    type: 'modal',
    title: plain('Kudos', 24),
    close: plain('Close', 24),
    blocks: lines.map((line) => section(line)),
  };
}

/**
 * The send form's answer while its checks take longer than Slack waits (a big group read from Slack
 * page by page): the send goes on, and this window (or a direct message) says how it ended.
 */
export function buildSendChecking(groupLabel: string | undefined): Record<string, unknown> {
  const who = groupLabel ? `the people of ${escapeMrkdwn(groupLabel)}` : 'the people';
  return sendOutcomeView([
    `:hourglass_flowing_sand: Checking ${who} takes a few seconds more. Kudos sends it once they are checked and tells you here and in a message; you can close this window.`,
  ]);
}

/** The send form's answer once the send is recorded, with what the sender should know (a group's guests left out). */
export function buildSendAccepted(notes: string[]): Record<string, unknown> {
  return sendOutcomeView([
    ':white_check_mark: Your kudos is recorded; you will get a message when it is on its way (or if it waits for approval).',
    ...notes.map(escapeMrkdwn),
  ]);
}

/** The send form's answer when a check that finished after the form was answered found a problem. */
export function buildSendNotSent(problems: string[]): Record<string, unknown> {
  return sendOutcomeView([':warning: Nothing was sent.', ...problems.map(escapeMrkdwn)]);
}
