// Messages about a send: public announcement, partial send, unknown outcome, failure notice. The
// sender's confirmation, kept current, is sender-dm-blocks.ts.
import type { KudosRow } from '../../db/schema/index.js';
import { formatUsdFigure, usdOf } from '../../domain/branded/card-amounts.js';
import { formatUsd } from '../../domain/common/money.js';
import { orderIdsOf, placedRecipientCount } from '../../domain/sending/kudos-parts.js';
import { brandedCard, brandedOf, cardColumns, type MaybeBrandedRow, valueTotal } from '../kit/card-amounts.js';
import { kudosValueLabel } from '../kit/company-value.js';
import { type Block, context, section, type SlackMessageContent } from '../kit/mrkdwn.js';
import { clip, escapeMrkdwn, mentionUser, splitMrkdwn } from '../kit/mrkdwn-escape.js';
import { perPerson, sendRecipients } from '../kit/recipients.js';
import { isSafePermalink } from './send-modal-blocks.js';

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

/** `picture`: the design's picture, an https URL an admin set (domain/workspaces/design-pictures.ts); none, no image. */
export function buildAnnouncement(row: KudosRow, picture?: string): SlackMessageContent {
  // A partial send is announced for the people it reached.
  const reached = placedRecipientCount(row);
  const who = sendRecipients(row, reached);
  // The value as it was when sent (the row's copy): a later rename does not rewrite the announcement.
  const value = kudosValueLabel(row);
  // A branded card is announced by its face and brand ("a £25 Tesco Gift Card"); what it cost in USD
  // is the sender's and the admins' business, not the channel's.
  const face = brandedOf(row);
  const card = face ? brandedCard(face) : `${formatUsd(row.amountCents)} gift card`;
  const blocks: Block[] = [
    section(
      `:tada: ${mentionUser(row.senderUserId)} sent kudos to ${who} with a ${card}${reached > 1 ? ' each' : ''}${value ? ` for ${value}` : ''}!`,
    ),
  ];
  if (row.message.trim() !== '') blocks.push(...quoteSections(row.message));
  if (row.sourceMessageUrl && isSafePermalink(row.sourceMessageUrl))
    blocks.push(context(`:speech_balloon: For <${row.sourceMessageUrl}|this message>`));
  if (picture?.startsWith('https://'))
    blocks.push({
      type: 'image',
      image_url: picture,
      alt_text: clip(face ? row.designName : `${row.designName} card`, 2000),
    });
  return {
    text: `Kudos from ${escapeMrkdwn(row.senderName)} to ${reached} ${reached === 1 ? 'person' : 'people'}${row.valueName ? ` for ${escapeMrkdwn(row.valueName)}` : ''}`,
    blocks,
  };
}

/** To the sender: a send in several orders went out in part; exactly who got what, and why the rest did not. */
export function buildPartial(row: KudosRow, reason: string): SlackMessageContent {
  const reached = placedRecipientCount(row);
  const left = row.recipientCount - reached;
  const face = brandedOf(row);
  const cost = face
    ? formatUsdFigure(usdOf(cardColumns(row), reached))
    : formatUsd(row.costCents ?? reached * row.amountCents, row.costCurrency ?? 'USD');
  const card = face ? brandedCard(face) : `${formatUsd(row.amountCents)} ${escapeMrkdwn(row.designName)} card`;
  const text = `Your kudos to ${sendRecipients(row)} went out only in part: ${reached.toLocaleString('en-US')} of ${row.recipientCount.toLocaleString('en-US')} people get a ${card} each (cost ${cost}); the other ${left.toLocaleString('en-US')} were not sent and nothing was charged for them: ${reason}`;
  return {
    text: `Your kudos went out to ${reached} of ${row.recipientCount} people; the other ${left} were not sent: ${reason}`,
    blocks: [section(`:warning: ${text}`), context(`${ordersText(row)} · cost ${cost}`)],
  };
}

/** Plain text: the order may exist, so the sender must not send again. */
export function buildOutcomeUnknown(row: MaybeBrandedRow & Pick<KudosRow, 'totalCents' | 'recipientCount'>): {
  text: string;
} {
  return {
    text: `Your kudos (${valueTotal(row)} to ${row.recipientCount === 1 ? '1 person' : `${row.recipientCount} people`}) may or may not have gone out: the Rewards API did not answer in time. Kudos keeps checking and will tell you the outcome here. Please do not send it again meanwhile.`,
  };
}

export function buildFailure(row: KudosRow, reason: string): SlackMessageContent {
  const text = `Your kudos to ${sendRecipients(row)} (${perPerson(row)}) could not be sent: ${reason}`;
  return { text: `Your kudos could not be sent: ${reason}`, blocks: [section(`:warning: ${text}`)] };
}
