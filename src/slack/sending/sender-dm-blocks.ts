// The sender's one DM about a send, as it is now: on its way (or scheduled), delivered, each bounced
// card with "Fix address and resend" (or resent), and the people Slack would not let Kudos tell. Plain
// words: no order ids, no internal statuses; a scheduled time in the sender's own zone.
import type { BouncedRecipientRow, KudosRow } from '../../db/schema/index.js';
import { USD_KNOWN_AFTER_ORDERING, usdInAll } from '../../domain/branded/card-amounts.js';
import { formatUsd } from '../../domain/common/money.js';
import { formatScheduled } from '../../domain/common/zoned-time.js';
import type { Notice } from '../../domain/notices/notices.js';
import { placedRecipientCount } from '../../domain/sending/kudos-parts.js';
import { BounceFix } from '../ids.js';
import { brandedCard, brandedOf, cardColumns } from '../kit/card-amounts.js';
import { type Block, context, plain, section, type SlackMessageContent } from '../kit/mrkdwn.js';
import { escapeMrkdwn, mentionUser } from '../kit/mrkdwn-escape.js';
import { perPerson, recipientList, sendRecipients } from '../kit/recipients.js';

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** Bounced cards listed in the DM, each a section: Block Kit takes 50 blocks a message. */
const BOUNCES_SHOWN = 20;

const cards = (n: number) => `${n.toLocaleString('en-US')} ${n === 1 ? 'card' : 'cards'}`;

function who(b: Pick<BouncedRecipientRow, 'slackUserId' | 'name' | 'email'>): string {
  return b.slackUserId ? mentionUser(b.slackUserId) : escapeMrkdwn(b.name || b.email);
}

/** "cost $50", "cost about $67" (a branded card before it is charged), "USD cost known after ordering". */
function costOf(row: KudosRow): string {
  if (brandedOf(row)) {
    const usd = usdInAll(cardColumns(row), row.recipientCount);
    return usd === USD_KNOWN_AFTER_ORDERING ? usd : `cost ${usd}`;
  }
  return `cost ${row.costCents !== null ? formatUsd(row.costCents, row.costCurrency ?? 'USD') : formatUsd(row.totalCents)}`;
}

/** "a Thank You card of $25 each"; branded, "a £25 Tesco Gift Card each". */
function cardOf(row: KudosRow): string {
  const face = brandedOf(row);
  if (face) return `a ${brandedCard(face)}${row.recipientCount > 1 ? ' each' : ''}`;
  return `a ${escapeMrkdwn(row.designName)} card of ${perPerson(row)}`;
}

/** One bounced card: open (with the fix button, and why the last resend failed), being resent, or resent. */
export function bounceBlock(b: BouncedRecipientRow): Block {
  const blockId = `bounce_${b.id}`;
  if (b.status === 'resent')
    return section(
      `:white_check_mark: Resent the card for ${who(b)} to *${escapeMrkdwn(b.correctedEmail ?? '')}* (was ${escapeMrkdwn(b.email)}).`,
      blockId,
    );
  if (b.status === 'resending') return section(`:hourglass_flowing_sand: Resending the card for ${who(b)}…`, blockId);
  const lead = b.confirmed
    ? `:envelope_with_arrow: The card for ${who(b)} bounced: *${escapeMrkdwn(b.email)}* did not accept it.`
    : `:grey_question: Some cards bounced and the Rewards API does not say which. Please check ${who(b)}'s address *${escapeMrkdwn(b.email)}*.`;
  const failed = b.error ? `\n:warning: Resending failed: ${escapeMrkdwn(b.error)}` : '';
  return {
    type: 'section',
    block_id: blockId,
    text: { type: 'mrkdwn', text: `${lead}${failed}`, verbatim: true },
    accessory: {
      type: 'button',
      action_id: BounceFix.actions.open,
      text: plain('Fix address and resend', 75),
      style: 'primary',
      value: b.id,
    },
  };
}

/** The headline: where the send is now. */
function headline(row: KudosRow, delivered: boolean, bounces: BouncedRecipientRow[]): string {
  const card = cardOf(row);
  if (row.status === 'canceled')
    return `:no_entry_sign: Your kudos to ${sendRecipients(row)} was cancelled: nothing was sent.`;
  if (!delivered) {
    if (row.status === 'scheduled' && row.scheduledAt)
      return `:white_check_mark: Your kudos to ${sendRecipients(row)} is scheduled for ${formatScheduled(row.scheduledAt, row.scheduleTimezone ?? 'UTC')}: ${card}.`;
    return `:white_check_mark: Your kudos to ${sendRecipients(row)} is on its way: ${card}.`;
  }
  const reached = placedRecipientCount(row);
  const open = bounces.filter((b) => b.status !== 'resent').length;
  const people = (n: number) => `${n.toLocaleString('en-US')} ${n === 1 ? 'person' : 'people'}`;
  // A send that went out only in part says so at every step: the rest were never sent.
  const part =
    row.status === 'partial'
      ? ` It reached ${people(reached)} of ${people(row.recipientCount)}; the others were not sent and nothing was charged for them.`
      : '';
  if (open === 0) return `:mailbox_with_mail: Your kudos to ${sendRecipients(row)} was delivered: ${card}.${part}`;
  return `:warning: Your kudos to ${sendRecipients(row)} was delivered to ${(reached - open).toLocaleString('en-US')} of ${cards(reached)}; ${open === 1 ? 'one address' : `${open} addresses`} bounced (see below).${part}`;
}

export function buildSenderDm(notice: Extract<Notice, { type: 'kudos.sender_dm' }>): SlackMessageContent {
  const { kudos: row, delivered, bounces, untold } = notice;
  const blocks: Block[] = [section(headline(row, delivered, bounces))];
  blocks.push(...bounces.slice(0, BOUNCES_SHOWN).map(bounceBlock));
  if (notice.note) blocks.push(context(notice.note));
  if (untold.length > 0) {
    const people = recipientList(
      untold.map((slackUserId) => ({ slackUserId, recipientId: null, email: '', name: '' })),
      10,
    );
    blocks.push(
      context(
        `:information_source: Kudos could not tell ${people} in Slack (Slack did not let the app message them); the card still goes to their e-mail.`,
      ),
    );
  }
  blocks.push(context(capitalized(costOf(row))));
  const open = bounces.filter((b) => b.status !== 'resent').length;
  const text =
    row.status === 'canceled'
      ? 'Your kudos was cancelled: nothing was sent.'
      : !delivered
        ? row.status === 'scheduled'
          ? `Your kudos is scheduled (${costOf(row)}).`
          : `Your kudos is on its way (${costOf(row)}).`
        : open > 0
          ? `Your kudos was delivered; ${open === 1 ? 'one address' : `${open} addresses`} bounced.`
          : 'Your kudos was delivered.';
  return { text, blocks };
}
