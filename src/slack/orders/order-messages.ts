// Messages of order notifications: completion notice (thread or channel), the sender's DM, bounced
// recipients with "Fix address and resend", orders placed outside Slack.
// Pure builders; every piece of outside text is escaped.
import type { BouncedRecipientRow, KudosRow } from '../../db/schema/index.js';
import type { DeliveryCounts } from '../../domain/notices/notices.js';
import { orderIdsOf } from '../../domain/sending/kudos-parts.js';
import { BounceFix } from '../ids.js';
import { type Block, context, plain, section, type SlackMessageContent } from '../kit/mrkdwn.js';
import { escapeMrkdwn, mentionUser } from '../kit/mrkdwn-escape.js';
import { sendRecipients } from '../kit/recipients.js';

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
