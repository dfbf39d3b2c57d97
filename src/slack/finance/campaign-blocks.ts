// Blocks of `/kudos campaigns`: the list (New / Edit / Archive, spend per campaign) and the form.
import type { CampaignRow } from '../../db/schema/index.js';
import { formatUsd } from '../../domain/common/money.js';
import type { CampaignSpend } from '../../domain/finance/campaigns.js';
import { Campaigns, NO_TEMPLATE } from '../ids.js';
import type { SlackMessageContent } from '../kit/mrkdwn.js';
import { type Block, clip, context, plain, plainTextInput, section } from '../kit/mrkdwn.js';
import { escapeMrkdwn } from '../kit/mrkdwn-escape.js';

/** Slack allows 50 blocks in a message: 3 per campaign plus the header, the button and the footer. */

/** Said where a campaign is made or picked: campaigns send choice cards only (the API's rule). */
const CAMPAIGN_CHOICE_ONLY =
  'Campaigns send choice cards (the recipient picks the brand); a brand is sent without a campaign.';

export const CAMPAIGN_LIST_MAX = 15;

export interface CampaignListItem {
  row: CampaignRow;
  spend: CampaignSpend | undefined;
  /** The campaign's design is no longer in the Rewards catalog. */
  designGone: boolean;
}

export function campaignRange(row: Pick<CampaignRow, 'minCents' | 'maxCents'>): string {
  return row.minCents === row.maxCents
    ? formatUsd(row.minCents)
    : `${formatUsd(row.minCents)}–${formatUsd(row.maxCents)}`;
}

export function describeCampaign(
  row: Pick<
    CampaignRow,
    'designName' | 'minCents' | 'maxCents' | 'defaultCents' | 'templateName' | 'templateId' | 'senderName' | 'subject'
  >,
): string {
  const range =
    row.minCents === row.maxCents
      ? formatUsd(row.minCents)
      : `${campaignRange(row)} (default ${formatUsd(row.defaultCents)})`;
  const template = row.templateId
    ? `template *${escapeMrkdwn(row.templateName ?? row.templateId)}*`
    : 'the account’s default e-mail template';
  const texts = [
    row.senderName ? `from “${escapeMrkdwn(row.senderName)}”` : '',
    row.subject ? `subject “${escapeMrkdwn(row.subject)}”` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return `${escapeMrkdwn(row.designName)} · ${range} per person · ${template}${texts ? ` · ${texts}` : ''}`;
}

function spendLine(spend: CampaignSpend | undefined): string {
  if (!spend || spend.sends === 0) return 'Nothing sent under it yet.';
  return `Spent ${formatUsd(spend.monthCents)} this month · ${formatUsd(spend.totalCents)} in all, ${spend.sends} ${spend.sends === 1 ? 'send' : 'sends'}`;
}

export function buildCampaignList(items: CampaignListItem[], opts: { note?: string } = {}): SlackMessageContent {
  const blocks: Block[] = [
    section(
      `*Campaigns* (${items.length})\nA campaign (e.g. “Q4 spot awards”) gives senders a design, an amount range and an e-mail template to pick in the send form (campaigns send choice cards: the recipient picks the brand); its spend is counted here, in \`/kudos audit csv\`, and it is kept in the Rewards account too.`,
    ),
    {
      type: 'actions',
      elements: [
        {
          type: 'button',
          action_id: Campaigns.actions.create,
          text: plain('New campaign', 75),
          style: 'primary',
          value: 'new',
        },
      ],
    } as unknown as Block,
  ];
  if (opts.note) blocks.push(context(opts.note));
  for (const { row, spend, designGone } of items.slice(0, CAMPAIGN_LIST_MAX)) {
    const state =
      row.status === 'creating'
        ? '\n:hourglass: _Being created in the Rewards account: its answer was lost, and Kudos is finding out whether it was created (never twice). Not offered to senders yet._'
        : designGone
          ? `\n:warning: Its design *${escapeMrkdwn(row.designName)}* was removed from the Rewards catalog: senders cannot send under it until an admin picks another (Edit).`
          : '';
    blocks.push(section(`*${escapeMrkdwn(row.name)}*\n${describeCampaign(row)}${state}`), context(spendLine(spend)), {
      type: 'actions',
      elements: [
        ...(row.status === 'active'
          ? [{ type: 'button', action_id: Campaigns.actions.edit, text: plain('Edit', 75), value: row.id }]
          : []),
        {
          type: 'button',
          action_id: Campaigns.actions.archive,
          text: plain('Archive', 75),
          style: 'danger',
          value: row.id,
          confirm: {
            title: plain('Archive this campaign?', 100),
            text: plain(
              `“${clip(row.name, 80)}” is deleted from the Rewards account and no longer offered to senders. Its sends and spend stay in the audit trail.`,
              300,
            ),
            confirm: plain('Archive', 30),
            deny: plain('Keep it', 30),
          },
        },
      ],
    } as unknown as Block);
  }
  if (items.length > CAMPAIGN_LIST_MAX) blocks.push(context(`…and ${items.length - CAMPAIGN_LIST_MAX} more.`));
  if (items.length === 0) blocks.push(context('No campaigns yet. *New campaign* creates one.'));
  return { text: `Campaigns (${items.length})`, blocks };
}

export interface CampaignModalState {
  /** Editing this campaign; absent: a new one. */
  campaignId?: string;
  name?: string;
  design?: { productId: string; name: string };
  /** The edited campaign's design is no longer in the catalog (its name). */
  designGone?: string;
  minDollars?: number;
  maxDollars?: number;
  defaultDollars?: number;
  template?: { templateId: string; name: string };
  senderName?: string;
  subject?: string;
}

function numberInput(
  blockId: string,
  label: string,
  initial: number | undefined,
  opts: { optional?: boolean; hint?: string } = {},
): Block {
  return {
    type: 'input',
    block_id: blockId,
    optional: Boolean(opts.optional),
    label: plain(label),
    ...(opts.hint ? { hint: plain(opts.hint) } : {}),
    element: {
      type: 'number_input',
      action_id: Campaigns.modal.action,
      is_decimal_allowed: false,
      min_value: '1',
      ...(initial !== undefined ? { initial_value: String(initial) } : {}),
    },
  } as unknown as Block;
}

export function buildCampaignModal(state: CampaignModalState): Record<string, unknown> {
  const B = Campaigns.modal.blocks;
  const editing = state.campaignId !== undefined;
  return {
    type: 'modal',
    callback_id: Campaigns.modal.callbackId,
    title: plain(editing ? 'Edit campaign' : 'New campaign', 24),
    submit: plain('Save campaign', 24),
    close: plain('Cancel', 24),
    private_metadata: JSON.stringify(editing ? { campaignId: state.campaignId } : {}),
    blocks: [
      ...(state.designGone
        ? [
            context(
              `:warning: ${escapeMrkdwn(`This campaign’s design “${state.designGone}” is no longer in the Rewards catalog; pick another. Nothing can be sent under the campaign until then.`)}`,
            ),
          ]
        : []),
      plainTextInput(Campaigns.modal.action, B.name, 'Campaign name', state.name, {
        max: 80,
        placeholder: 'Q4 spot awards',
      }),
      {
        type: 'input',
        block_id: B.design,
        label: plain('Card design'),
        // The Rewards API's campaigns carry choice cards only: no brand can be picked here.
        hint: plain(CAMPAIGN_CHOICE_ONLY),
        element: {
          type: 'external_select',
          action_id: Campaigns.modal.designAction,
          min_query_length: 0,
          placeholder: plain('Search designs'),
          ...(state.design
            ? { initial_option: { text: plain(clip(state.design.name, 75)), value: state.design.productId } }
            : {}),
        },
      } as unknown as Block,
      numberInput(B.min, 'Least per person (USD)', state.minDollars, {
        hint: 'Whole dollars, within the design’s range.',
      }),
      numberInput(B.max, 'Most per person (USD)', state.maxDollars),
      numberInput(B.default, 'Default amount (USD)', state.defaultDollars, {
        optional: true,
        hint: 'Filled in the send form when the campaign is picked; the least when empty. Also the amount of the campaign kept in the Rewards account.',
      }),
      {
        type: 'input',
        block_id: B.template,
        optional: true,
        label: plain('E-mail template'),
        hint: plain('The e-mail recipients get (`/kudos templates`); the account’s default when empty.'),
        element: {
          type: 'external_select',
          action_id: Campaigns.modal.templateAction,
          min_query_length: 0,
          placeholder: plain('Search templates'),
          ...(state.template
            ? { initial_option: { text: plain(clip(state.template.name, 75)), value: state.template.templateId } }
            : {}),
        },
      } as unknown as Block,
      plainTextInput(Campaigns.modal.action, B.senderName, 'E-mail sender name', state.senderName, {
        optional: true,
        max: 100,
        hint: 'Who the e-mail is from; the sender’s own name when empty.',
      }),
      plainTextInput(Campaigns.modal.action, B.subject, 'E-mail subject', state.subject, {
        optional: true,
        max: 200,
        hint: '“<sender> sent you kudos” when empty.',
      }),
    ],
  };
}

/** Template choices for the selects: "none" (the account's default) first when nothing was typed. */
export const NO_TEMPLATE_OPTION = { text: plain('None: the account’s default template', 75), value: NO_TEMPLATE };
