// Messages of order notifications: the public completion notice (thread or channel) and orders placed
// outside Slack. The sender's DM (bounces and their fix included) is sending/sender-dm-blocks.ts.
// Pure builders; every piece of outside text is escaped.
import type { KudosRow } from '../../db/schema/index.js';
import type { DeliveryCounts } from '../../domain/notices/notices.js';
import { context, section, type SlackMessageContent } from '../kit/mrkdwn.js';
import { escapeMrkdwn, mentionUser } from '../kit/mrkdwn-escape.js';

/** The public completion notice: in the thread of the kudos announcement, or in the notification channel. Bounces are never told here. */
export function buildCompletionNotice(input: {
  orderId: string;
  counts: DeliveryCounts;
  kudos?: KudosRow;
  cardName?: string;
}): SlackMessageContent {
  const delivered = `${input.counts.sentCount.toLocaleString('en-US')} ${input.counts.sentCount === 1 ? 'card' : 'cards'} delivered`;
  if (!input.kudos) {
    // An order placed outside Slack: its id is the only name it has.
    return {
      text: `Order ${input.orderId}: ${delivered}.`,
      blocks: [
        section(`:white_check_mark: Order \`${escapeMrkdwn(input.orderId)}\`: ${delivered}.`),
        ...(input.cardName ? [context(escapeMrkdwn(input.cardName))] : []),
      ],
    };
  }
  const what = input.counts.sentCount === 1 ? 'the card is delivered' : delivered;
  return {
    text: `Kudos: ${what}.`,
    blocks: [section(`:white_check_mark: Kudos from ${mentionUser(input.kudos.senderUserId)}: ${what}.`)],
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
