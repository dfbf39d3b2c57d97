// Messages the app posts: confirmation to the sender, public announcement, failure notice,
// the scheduled list with Cancel buttons, balance and help.
import type { KudosRecipientSnapshot, KudosRow } from '../../db/schema/index.js';
import { escapeMrkdwn, mentionUser, splitMrkdwn } from '../../domain/common/mrkdwn-escape.js';
import { orderIdsOf, placedRecipientCount } from '../../domain/sending/kudos-parts.js';
import { formatUsd } from '../../domain/common/money.js';
import { formatScheduled } from '../../domain/common/zoned-time.js';
import { COMMAND, ScheduledList } from '../ids.js';
import { isSafePermalink } from '../sending/send-modal-blocks.js';
import { context, plain, section, type Block } from '../kit/mrkdwn.js';

export interface SlackMessageContent {
  text: string;
  blocks: Block[];
}

/** "<@U1>, <@U2> and Jane Doe": Slack users as mentions, address-book people by escaped name. */
export function recipientList(recipients: KudosRecipientSnapshot[], max = 10): string {
  const names = recipients.map((r) => (r.slackUserId ? mentionUser(r.slackUserId) : escapeMrkdwn(r.name || r.email)));
  const shown = names.slice(0, max);
  const more = names.length - shown.length;
  if (more > 0) return `${shown.join(', ')} and ${more} more`;
  if (shown.length <= 1) return shown.join('');
  return `${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1]}`;
}

/** Beyond this many people, a group send names the group instead of mentioning its members. */
const MENTIONS_PER_MESSAGE = 10;

/**
 * Whom a send went to, for messages: its people (recipientList), or for a big group send the group by
 * name and its size ("@engineering (1,000 people)"), never a mention of the group (that would ping
 * everyone in it) nor a thousand mentions (Block Kit's 3,000-character sections).
 */
export function sendRecipients(
  row: Pick<KudosRow, 'recipients' | 'recipientCount' | 'recipientGroupName' | 'slackUsergroupId' | 'recipientGroupId'>,
  count = row.recipientCount,
  max = 10,
): string {
  const people = `${count.toLocaleString('en-US')} ${count === 1 ? 'person' : 'people'}`;
  if (row.recipientCount <= MENTIONS_PER_MESSAGE) return recipientList(row.recipients, max);
  const group = row.recipientGroupName?.trim();
  if (group && (row.slackUsergroupId || row.recipientGroupId))
    return `${escapeMrkdwn(group.replace(/[<>&*_~`]/g, ''))} (${people})`;
  return people;
}

/** "order `O1`", or for a send in several parts "10 orders (`O1` … `O10`)". */
function ordersText(row: Pick<KudosRow, 'orderId' | 'orderIds'>): string {
  const ids = orderIdsOf(row);
  if (ids.length <= 1) return `Order \`${escapeMrkdwn(row.orderId ?? '')}\``;
  return `${ids.length} orders (\`${escapeMrkdwn(ids[0]!)}\` … \`${escapeMrkdwn(ids.at(-1)!)}\`)`;
}

function quote(message: string): string {
  return escapeMrkdwn(message)
    .split('\n')
    .map((line) => `>${line}`)
    .join('\n');
}

// Escaping can make a message up to four times longer (`<` becomes `&lt;`) than the 3000 units of a
// section: the message is shown whole over several sections rather than cut. A section that continues a
// line starts with its own `>` (hence 2999). Six sections hold the longest message the form accepts
// in all but contrived cases (1000 characters, escaped); anything beyond is left off.
const MESSAGE_SECTIONS = 6;

function quoteSections(message: string): Block[] {
  const pieces = splitMrkdwn(quote(message), 2999).slice(0, MESSAGE_SECTIONS);
  return pieces.map((piece, i) => section(i > 0 && !pieces[i - 1]!.endsWith('\n') ? `>${piece}` : piece));
}

/** "$25" for one person, "$25 each" for several. */
export function perPerson(row: Pick<KudosRow, 'amountCents' | 'recipientCount'>): string {
  return row.recipientCount > 1 ? `${formatUsd(row.amountCents)} each` : formatUsd(row.amountCents);
}

export function buildConfirmation(row: KudosRow): SlackMessageContent {
  const cost = row.costCents !== null ? formatUsd(row.costCents, row.costCurrency ?? 'USD') : formatUsd(row.totalCents);
  const when =
    row.status === 'scheduled' && row.scheduledAt
      ? `is scheduled for ${formatScheduled(row.scheduledAt, row.scheduleTimezone ?? 'UTC')}`
      : 'is on its way';
  const headline = `Your kudos to ${sendRecipients(row)} ${when}: a ${escapeMrkdwn(row.designName)} card of ${perPerson(row)}.`;
  const orders = orderIdsOf(row);
  return {
    text: `Your kudos ${when}. ${orders.length > 1 ? `${orders.length} orders, the first ${orders[0]}` : `Order ${row.orderId ?? ''}`}, cost ${cost}.`,
    blocks: [section(`:white_check_mark: ${headline}`), context(`${ordersText(row)} · cost ${cost}`)],
  };
}

export function buildAnnouncement(row: KudosRow): SlackMessageContent {
  // A partial send is announced for the people it reached.
  const reached = placedRecipientCount(row);
  const who = sendRecipients(row, reached);
  const blocks: Block[] = [
    section(`:tada: ${mentionUser(row.senderUserId)} sent kudos to ${who} with a ${perPerson(row)} gift card!`),
  ];
  if (row.message.trim() !== '') blocks.push(...quoteSections(row.message));
  if (row.sourceMessageUrl && isSafePermalink(row.sourceMessageUrl))
    blocks.push(context(`:speech_balloon: For <${row.sourceMessageUrl}|this message>`));
  return {
    text: `Kudos from ${escapeMrkdwn(row.senderName)} to ${reached} ${reached === 1 ? 'person' : 'people'}`,
    blocks,
  };
}

/** To the sender: a send in several orders went out in part; exactly who got what, and why the rest did not. */
export function buildPartial(row: KudosRow, reason: string): SlackMessageContent {
  const reached = placedRecipientCount(row);
  const left = row.recipientCount - reached;
  const cost = formatUsd(row.costCents ?? reached * row.amountCents, row.costCurrency ?? 'USD');
  const text = `Your kudos to ${sendRecipients(row)} went out only in part: ${reached.toLocaleString('en-US')} of ${row.recipientCount.toLocaleString('en-US')} people get their ${perPerson(row)} ${escapeMrkdwn(row.designName)} card (cost ${cost}); the other ${left.toLocaleString('en-US')} were not sent and nothing was charged for them: ${reason}`;
  return {
    text: `Your kudos went out to ${reached} of ${row.recipientCount} people; the other ${left} were not sent: ${reason}`,
    blocks: [section(`:warning: ${text}`), context(`${ordersText(row)} · cost ${cost}`)],
  };
}

/** Plain text: the order may exist, so the sender must not send again. */
export function buildOutcomeUnknown(row: Pick<KudosRow, 'totalCents' | 'recipientCount'>): { text: string } {
  return {
    text: `Your kudos (${formatUsd(row.totalCents)} to ${row.recipientCount === 1 ? '1 person' : `${row.recipientCount} people`}) may or may not have gone out: the Rewards API did not answer in time. Kudos keeps checking and will tell you the outcome here. Please do not send it again meanwhile.`,
  };
}

export function buildFailure(row: KudosRow, reason: string): SlackMessageContent {
  const text = `Your kudos to ${sendRecipients(row)} (${perPerson(row)}) could not be sent: ${reason}`;
  return { text: `Your kudos could not be sent: ${reason}`, blocks: [section(`:warning: ${text}`)] };
}

export interface ScheduledItem {
  row: KudosRow;
  /** Cancellable now (more than 10 minutes before it goes out). */
  cancellable: boolean;
}

export function buildScheduledList(
  items: ScheduledItem[],
  opts: { showSender: boolean; note?: string },
): SlackMessageContent {
  if (items.length === 0) {
    return {
      text: 'No scheduled kudos.',
      blocks: [section(opts.note ? `${opts.note}\nNo scheduled kudos.` : 'No scheduled kudos.')],
    };
  }
  const blocks: Block[] = [{ type: 'header', text: plain('Scheduled kudos', 150) }];
  if (opts.note) blocks.push(context(opts.note));
  // 50 blocks per message: at most 2 per item after the header.
  for (const { row, cancellable } of items.slice(0, 20)) {
    blocks.push(scheduledItemBlock(row, cancellable, opts.showSender));
  }
  if (items.length > 20) blocks.push(context(`…and ${items.length - 20} more.`));
  return { text: `${items.length} scheduled kudos`, blocks };
}

export function scheduledItemText(row: KudosRow, showSender: boolean): string {
  const when = row.scheduledAt ? formatScheduled(row.scheduledAt, row.scheduleTimezone ?? 'UTC') : 'soon';
  const from = showSender ? `${mentionUser(row.senderUserId)} → ` : 'To ';
  return `${from}${row.recipientCount > MENTIONS_PER_MESSAGE ? sendRecipients(row) : recipientList(row.recipients, 5)} · ${perPerson(row)} · *${escapeMrkdwn(when)}*`;
}

function scheduledItemBlock(row: KudosRow, cancellable: boolean, showSender: boolean): Block {
  const text = scheduledItemText(row, showSender);
  const blockId = `${ScheduledList.blockPrefix}${row.id}`;
  if (!cancellable) {
    return {
      type: 'section',
      block_id: blockId,
      text: {
        type: 'mrkdwn',
        text: `${text}\n_Can no longer be cancelled: it goes out in less than 10 minutes._`,
        verbatim: true,
      },
    };
  }
  return {
    type: 'section',
    block_id: blockId,
    text: { type: 'mrkdwn', text, verbatim: true },
    accessory: cancelButton(ScheduledList.actions.cancel, row.id),
  };
}

/** Cancel on a scheduled send (the /kudos scheduled list, App Home), asking for confirmation first. */
export function cancelButton(actionId: string, kudosId: string) {
  return {
    type: 'button' as const,
    action_id: actionId,
    text: plain('Cancel', 75),
    style: 'danger' as const,
    value: kudosId,
    confirm: {
      title: plain('Cancel this kudos?', 100),
      text: plain('The card will not be sent and the amount returns to the balance.', 300),
      confirm: plain('Cancel it', 30),
      deny: plain('Keep it', 30),
    },
  };
}

export function buildBalance(balance: {
  availableCents: number;
  pendingCents: number;
  currency: string;
}): SlackMessageContent {
  const text = `Available balance: ${formatUsd(balance.availableCents, balance.currency)} · pending top-ups: ${formatUsd(balance.pendingCents, balance.currency)}`;
  return {
    text,
    blocks: [
      section(
        `:moneybag: *Available:* ${formatUsd(balance.availableCents, balance.currency)}\n*Pending top-ups:* ${formatUsd(balance.pendingCents, balance.currency)}`,
      ),
    ],
  };
}

export function buildHelp(prefix?: string): SlackMessageContent {
  const lines = [
    `*${COMMAND}* — open the send form`,
    `*${COMMAND} @person [@person…] AMOUNT [message]* — the form, filled in`,
    `*${COMMAND} balance* — available and pending balance`,
    `*${COMMAND} scheduled* — your scheduled sends, with Cancel`,
    `*${COMMAND} settings* — channels, approvers, threshold, budget, defaults, admins, +1 reaction, leaderboard amounts, weekly digest (admins)`,
    `*${COMMAND} audit* / *${COMMAND} audit csv* — the audit trail, or all of it as CSV by DM (admins)`,
    `*${COMMAND} links N AMOUNT [design]* — N reward links of AMOUNT each, sent to you by DM (admins)`,
    `*${COMMAND} topup* — ask for an ACH top-up; a second admin approves it (admins)`,
    `*${COMMAND} limits* — ask for higher daily / monthly spending limits (admins; \`balance\` shows what is used)`,
    `*${COMMAND} ledger [YYYY-MM] [csv]* — the month's balance movements, reconciled with Kudos orders; \`csv\` sends them by DM (admins)`,
    `*${COMMAND} templates* — the recipients' e-mail templates: list, create, edit as new, send yourself a test e-mail (admins)`,
    `*${COMMAND} campaigns* — campaigns (design, amount range, e-mail template) senders pick in the send form, with their spend: list, create, edit, archive (admins)`,
    `*${COMMAND} celebrations* — birthdays and anniversaries: opt out (\`optout\`, \`optin\`) or of public posts (\`private\`, \`public\`); admins: rules, CSV upload, the next 30 days with Skip`,
    `*${COMMAND} recurring* / *${COMMAND} recurring new* — your recurring kudos (pause, resume, delete, skip one), or start one`,
    `*${COMMAND} stats [month] [#channel | @group]* — the month's leaderboard, for everyone, a channel or a user group; *stats optout* to stay off it`,
    `*${COMMAND} help* — this help`,
  ];
  const body = lines.join('\n');
  return {
    text: `${prefix ? `${prefix} ` : ''}Kudos commands: ${COMMAND}, balance, scheduled, settings, audit, links, topup, limits, ledger, templates, campaigns, celebrations, recurring, stats, help`,
    blocks: [...(prefix ? [section(prefix)] : []), section(body)],
  };
}
