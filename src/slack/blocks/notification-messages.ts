// Messages of order notifications: completion notice (thread or channel), the sender's DM, bounced
// recipients with "Fix address and resend", orders placed outside Slack, and reward links by DM.
// Pure builders; every piece of outside text is escaped.
import type { KudosRow } from '../../db/schema/index.js';
import type { BouncedRecipientRow, RewardLinkRequestRow } from '../../db/schema/index.js';
import { escapeMrkdwn, mentionUser } from '../../domain/common/mrkdwn-escape.js';
import { formatUsd } from '../../domain/common/money.js';
import type { DeliveryCounts } from '../../domain/notices/notices.js';
import { BounceFix, LinkApproval } from '../ids.js';
import { orderIdsOf } from '../../domain/sending/kudos-parts.js';
import { sendRecipients, type SlackMessageContent } from './messages.js';
import { context, plain, section, type Block } from '../kit/mrkdwn.js';

function countsText(c: DeliveryCounts): string {
  const sent = `${c.sentCount} of ${c.recipientCount} ${c.recipientCount === 1 ? 'card' : 'cards'} delivered`;
  return c.bouncedCount > 0 ? `${sent}, ${c.bouncedCount} bounced` : sent;
}

/** The public completion notice: in the thread of the kudos announcement, or in the notification channel. */
export function buildCompletionNotice(input: {
  orderId: string;
  counts: DeliveryCounts;
  kudos?: KudosRow;
  cardName?: string;
}): SlackMessageContent {
  const icon = input.counts.bouncedCount > 0 ? ':warning:' : ':white_check_mark:';
  const what = input.kudos
    ? `Kudos from ${mentionUser(input.kudos.senderUserId)}`
    : `Order \`${escapeMrkdwn(input.orderId)}\``;
  const text = `${what}: ${countsText(input.counts)}.`;
  const orders = input.kudos ? orderIdsOf(input.kudos).length : 1;
  return {
    text: `${input.kudos ? 'Kudos' : `Order ${input.orderId}`}: ${countsText(input.counts)}.`,
    blocks: [
      section(`${icon} ${text}`),
      context(
        `${orders > 1 ? `${orders} orders, the first \`${escapeMrkdwn(input.orderId)}\`` : `Order \`${escapeMrkdwn(input.orderId)}\``}${input.cardName ? ` · ${escapeMrkdwn(input.cardName)}` : ''} · complete`,
      ),
    ],
  };
}

/** The sender's DM when their order is complete. */
export function buildSenderCompletionDm(row: KudosRow, counts: DeliveryCounts): SlackMessageContent {
  const bounced =
    counts.bouncedCount > 0
      ? ` ${counts.bouncedCount === 1 ? 'One address' : `${counts.bouncedCount} addresses`} bounced: see below to fix and resend.`
      : '';
  const text = `Your kudos to ${sendRecipients(row)} went out: ${countsText(counts)}.${bounced}`;
  const orders = orderIdsOf(row);
  return {
    text: `Your kudos went out: ${countsText(counts)}.`,
    blocks: [
      section(`${counts.bouncedCount > 0 ? ':warning:' : ':mailbox_with_mail:'} ${text}`),
      context(
        orders.length > 1
          ? `${orders.length} orders, the first \`${escapeMrkdwn(orders[0]!)}\``
          : `Order \`${escapeMrkdwn(row.orderId ?? '')}\``,
      ),
    ],
  };
}

function who(b: Pick<BouncedRecipientRow, 'slackUserId' | 'name' | 'email'>): string {
  const person = b.slackUserId ? mentionUser(b.slackUserId) : escapeMrkdwn(b.name || b.email);
  return person;
}

/** DM to the sender for one bounced (or, when the API did not say which, possibly bounced) recipient. */
export function buildBounceDm(b: BouncedRecipientRow): SlackMessageContent {
  const lead = b.confirmed
    ? `:envelope_with_arrow: The card for ${who(b)} bounced: *${escapeMrkdwn(b.email)}* did not accept it.`
    : `:grey_question: Some cards of this order bounced and the Rewards API does not say which. Please check ${who(b)}'s address *${escapeMrkdwn(b.email)}*.`;
  const blocks: Block[] = [
    {
      type: 'section',
      block_id: `bounce_${b.id}`,
      text: { type: 'mrkdwn', text: lead, verbatim: true },
      accessory: {
        type: 'button',
        action_id: BounceFix.actions.open,
        text: plain('Fix address and resend', 75),
        style: 'primary',
        value: b.id,
      },
    },
    context(`Order \`${escapeMrkdwn(b.orderId)}\``),
  ];
  // The top-level text is rendered too (notifications, some clients): escaped like the blocks.
  return { text: `The card for ${escapeMrkdwn(b.name || b.email)} bounced (${escapeMrkdwn(b.email)}).`, blocks };
}

/** The bounce DM once resent: no button any more. */
export function buildBounceResolved(b: BouncedRecipientRow, resentTo: string, note?: string): SlackMessageContent {
  const lines = [
    `:white_check_mark: Resent the card for ${who(b)} to *${escapeMrkdwn(resentTo)}* (was ${escapeMrkdwn(b.email)}).`,
  ];
  if (note) lines.push(note);
  return {
    text: `Resent the card to ${resentTo}.`,
    blocks: [section(lines.join('\n'), `bounce_${b.id}`), context(`Order \`${escapeMrkdwn(b.orderId)}\``)],
  };
}

/** The bounce DM after a failed resend: the reason, and the button again. */
export function buildBounceResendFailed(b: BouncedRecipientRow, reason: string): SlackMessageContent {
  const dm = buildBounceDm(b);
  return {
    text: `Resending failed: ${reason}`,
    blocks: [...dm.blocks, context(`:warning: Resending failed: ${escapeMrkdwn(reason)}`)],
  };
}

/** Notice for an order placed outside Slack (the portal, another integration). */
export function buildExternalOrderNotice(data: {
  orderId: string;
  cardType: string;
  totalAmount: string;
  currency: string;
  recipientCount: number;
}): SlackMessageContent {
  const card =
    data.cardType === 'BRANDED_CARD'
      ? 'branded card'
      : data.cardType === 'CHOICE_CARD'
        ? 'choice card'
        : escapeMrkdwn(data.cardType);
  const total = `${escapeMrkdwn(data.totalAmount)} ${escapeMrkdwn(data.currency)}`;
  const people = `${data.recipientCount} ${data.recipientCount === 1 ? 'recipient' : 'recipients'}`;
  return {
    text: `An order was placed outside Slack: ${data.orderId}, ${total}, ${people}.`,
    blocks: [
      section(`:receipt: An order was placed outside Slack: ${card} for ${people}, ${total}.`),
      context(`Order \`${escapeMrkdwn(data.orderId)}\``),
    ],
  };
}

/** One DM with (a part of) the links of a reward-link order. */
export function buildRewardLinksDm(
  request: RewardLinkRequestRow,
  orderId: string,
  links: string[],
  part: { index: number; count: number },
): SlackMessageContent {
  const head = `:link: Your ${request.quantity} reward ${request.quantity === 1 ? 'link' : 'links'} of ${formatUsd(request.amountCents)} (${escapeMrkdwn(request.designName)}) are ready${part.count > 1 ? ` (part ${part.index + 1} of ${part.count})` : ''}. Each link is a gift card: share them privately.`;
  const list = links.map((link) => `• ${escapeMrkdwn(link)}`).join('\n');
  return {
    text: `Your reward links are ready${part.count > 1 ? ` (part ${part.index + 1} of ${part.count})` : ''}:\n${links.join('\n')}`,
    blocks: [
      section(head),
      ...chunkLines(list, 2900).map((chunk) => section(chunk)),
      context(`Order \`${escapeMrkdwn(orderId)}\``),
    ],
  };
}

export function buildRewardLinksFailed(request: RewardLinkRequestRow, reason: string): SlackMessageContent {
  const text = `Your ${request.quantity} reward links of ${formatUsd(request.amountCents)} could not be created: ${reason}`;
  return { text, blocks: [section(`:warning: ${escapeMrkdwn(text)}`)] };
}

/** Some parts of a reward-link request were created, the rest refused: exactly what was charged and what was not. */
export function buildRewardLinksPartial(request: RewardLinkRequestRow, reason: string): SlackMessageContent {
  const missing = request.quantity - request.createdQuantity;
  const text =
    `Only ${request.createdQuantity} of your ${request.quantity} reward links of ${formatUsd(request.amountCents)} were created ` +
    `(${formatUsd(request.createdQuantity * request.amountCents)} charged, order${request.orderIds.length === 1 ? '' : 's'} ${request.orderIds.join(', ')}). ` +
    `The other ${missing} could not be created: ${reason} Nothing was charged for them. ` +
    `The ${request.createdQuantity} created links will reach you here once they are ready. To make the rest, ask for ${missing} more.`;
  return { text, blocks: [section(`:warning: ${escapeMrkdwn(text)}`)] };
}

/** Splits newline-separated text into pieces of at most `max` characters, on line boundaries. */
function chunkLines(text: string, max: number): string[] {
  const chunks: string[] = [];
  let current = '';
  for (const line of text.split('\n')) {
    if (current && current.length + 1 + line.length > max) {
      chunks.push(current);
      current = '';
    }
    current = current ? `${current}\n${line}` : line;
  }
  if (current) chunks.push(current);
  return chunks;
}

function linksSummary(request: RewardLinkRequestRow): string {
  return `${request.quantity} reward ${request.quantity === 1 ? 'link' : 'links'} of ${formatUsd(request.amountCents)} (${escapeMrkdwn(request.designName)}), ${formatUsd(request.quantity * request.amountCents)} in total`;
}

/** The approvers' message about a reward-link request: Approve/Reject while it waits, the decision after. */
export function buildLinkApprovalRequest(request: RewardLinkRequestRow): SlackMessageContent {
  const head = `:link: ${mentionUser(request.requesterUserId)} asks for ${linksSummary(request)}.`;
  const why = request.approvalReason ? `\nIt needs approval: ${escapeMrkdwn(request.approvalReason)}.` : '';
  const blocks: Block[] = [section(`${head}${why}`)];
  if (request.status === 'awaiting_approval') {
    blocks.push({
      type: 'actions',
      block_id: `${LinkApproval.blockPrefix}${request.id}`,
      elements: [
        {
          type: 'button',
          action_id: LinkApproval.actions.approve,
          text: plain('Approve', 75),
          style: 'primary',
          value: request.id,
          confirm: {
            title: plain('Approve these links?', 100),
            text: plain(
              `${formatUsd(request.quantity * request.amountCents)} will be spent from the Rewards balance.`,
              300,
            ),
            confirm: plain('Approve', 30),
            deny: plain('Not yet', 30),
          },
        },
        {
          type: 'button',
          action_id: LinkApproval.actions.reject,
          text: plain('Reject', 75),
          style: 'danger',
          value: request.id,
          confirm: {
            title: plain('Reject these links?', 100),
            text: plain('Nothing is charged; the requester is told.', 300),
            confirm: plain('Reject', 30),
            deny: plain('Not yet', 30),
          },
        },
      ],
    });
  } else {
    const by = request.decidedBy ? ` by ${mentionUser(request.decidedBy)}` : '';
    blocks.push(
      context(request.status === 'rejected' ? `:no_entry_sign: Rejected${by}.` : `:white_check_mark: Approved${by}.`),
    );
  }
  return {
    text: `Reward-link approval request: ${request.quantity} links of ${formatUsd(request.amountCents)}`,
    blocks,
  };
}

/** To the requester: the links wait for approval. */
export function buildLinksWaiting(request: RewardLinkRequestRow, asked: number): SlackMessageContent {
  const who =
    asked > 0
      ? 'The approvers have been asked.'
      : 'No approver could be reached: ask an admin to set approvers in /kudos settings.';
  const text = `Your ${linksSummary(request)} need approval${request.approvalReason ? ` (${request.approvalReason})` : ''}. Nothing is charged until an approver says yes. ${who}`;
  return { text, blocks: [section(`:hourglass_flowing_sand: ${escapeMrkdwn(text)}`)] };
}

/** To the requester: approved (being created) or rejected. */
export function buildLinksDecided(request: RewardLinkRequestRow): SlackMessageContent {
  const what = `Your request for ${request.quantity} reward links of ${formatUsd(request.amountCents)} was ${request.status === 'rejected' ? 'rejected' : 'approved'}`;
  const after =
    request.status === 'rejected'
      ? 'Nothing was charged.'
      : 'They are being created; they will reach you here when ready.';
  const by = request.decidedBy ? ` by ${mentionUser(request.decidedBy)}` : '';
  return {
    text: `${what}. ${after}`,
    blocks: [
      section(
        `${request.status === 'rejected' ? ':no_entry_sign:' : ':white_check_mark:'} ${escapeMrkdwn(what)}${by}. ${after}`,
      ),
    ],
  };
}
