// What a recipient sees: the DM telling them who thanked them, with what, and where the card goes
// (then, delivered, where to look; resent after a bounce, the corrected address), with "Say thanks";
// their thank-you as the sender and the announcement's thread see it; and, in that thread, a resent
// card on its way.
import type { BouncedRecipientRow } from '../../db/schema/index.js';
import { formatUsd } from '../../domain/common/money.js';
import type { Notice } from '../../domain/notices/notices.js';
import { SayThanks } from '../ids.js';
import { brandedCard, brandedOf } from '../kit/card-amounts.js';
import { type Block, context, plain, section, type SlackMessageContent } from '../kit/mrkdwn.js';
import { escapeMrkdwn, mentionUser } from '../kit/mrkdwn-escape.js';

type RecipientNotice = Extract<Notice, { type: 'kudos.recipient' }>;

function quoted(words: string): string {
  return escapeMrkdwn(words)
    .split('\n')
    .map((line) => `>${line}`)
    .join('\n');
}

/** "Maya sent you a $25 Thank You card: 'Thanks for the launch'. It is on its way to your e-mail." */
export function buildRecipientDm(notice: RecipientNotice): SlackMessageContent {
  const row = notice.kudos;
  // A branded card by its face and brand ("a £25 Tesco Gift Card"); never what it cost.
  const face = brandedOf(row);
  const named = face ? brandedCard(face) : `${formatUsd(row.amountCents)} ${escapeMrkdwn(row.designName)} card`;
  const card = `a ${named}`;
  const lead = `:gift: ${mentionUser(row.senderUserId)} sent you ${card}${row.message.trim() ? ':' : '.'}`;
  const where = notice.deliveredTo
    ? `:mailbox_with_mail: Delivered: check your inbox at *${escapeMrkdwn(notice.deliveredTo)}*.`
    : notice.resentTo
      ? `:outbox_tray: It is on its way to *${escapeMrkdwn(notice.resentTo)}*.`
      : 'It is on its way to your e-mail.';
  const blocks: Block[] = [section(lead)];
  if (row.message.trim()) blocks.push(section(quoted(row.message.slice(0, 2900))));
  blocks.push(section(where, 'recipient_where'));
  blocks.push({
    type: 'actions',
    block_id: 'recipient_thanks',
    elements: [{ type: 'button', action_id: SayThanks.actions.open, text: plain('Say thanks', 75), value: row.id }],
  });
  const text = notice.deliveredTo
    ? `${escapeMrkdwn(row.senderName)}'s ${named} was delivered: check your inbox at ${escapeMrkdwn(notice.deliveredTo)}.`
    : notice.resentTo
      ? `${escapeMrkdwn(row.senderName)} sent you ${card}. It is on its way to ${escapeMrkdwn(notice.resentTo)}.`
      : `${escapeMrkdwn(row.senderName)} sent you ${card}. It is on its way to your e-mail.`;
  return { text, blocks };
}

/** A recipient's thank-you, to the sender (under their DM) or under the announcement. */
export function buildThanks(notice: Extract<Notice, { type: 'kudos.thanks' }>): SlackMessageContent {
  const from = mentionUser(notice.fromUserId);
  const lead =
    notice.audience === 'sender' ? `:pray: ${from} says thanks for your kudos:` : `:pray: ${from} says thanks:`;
  return {
    text: `A thank-you for the kudos: ${escapeMrkdwn(notice.words.slice(0, 200))}`,
    blocks: [section(lead), section(quoted(notice.words))],
  };
}

/** Under the announcement: a card that had not arrived is on its way again (no word of the bounce). */
export function buildResentNotice(b: Pick<BouncedRecipientRow, 'slackUserId' | 'name' | 'email'>): SlackMessageContent {
  const person = b.slackUserId ? `${mentionUser(b.slackUserId)}'s` : `${escapeMrkdwn(b.name || 'One')}'s`;
  return {
    text: 'A card is on its way again.',
    blocks: [context(`:outbox_tray: ${person} card is on its way.`)],
  };
}
