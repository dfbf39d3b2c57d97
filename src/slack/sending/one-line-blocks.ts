// The one-line send's faces: the ephemeral confirmation (what will be sent, to whom, the total; Send
// and Edit), and the one line that replaces it once Send was pressed.
import type { KudosRow, NewKudosRow } from '../../db/schema/index.js';
import { formatFace } from '../../domain/branded/currency.js';
import { formatUsd } from '../../domain/common/money.js';
import { COMMAND, OneLine } from '../ids.js';
import { type Block, context, plain, section, type SlackMessageContent } from '../kit/mrkdwn.js';
import { escapeAndClip, escapeMrkdwn } from '../kit/mrkdwn-escape.js';
import { perPerson, sendRecipients } from '../kit/recipients.js';

type SendShown = Pick<
  NewKudosRow,
  | 'recipients'
  | 'recipientCount'
  | 'recipientGroupName'
  | 'slackUsergroupId'
  | 'recipientGroupId'
  | 'amountCents'
  | 'totalCents'
  | 'designName'
  | 'message'
  | 'valueName'
  | 'valueEmoji'
  | 'cardType'
  | 'faceCurrency'
  | 'faceCents'
>;

/** A brand's send as the confirmation names it: the brand, and the USD estimate of the whole send when known. */
export interface BrandShown {
  brandName: string;
  aboutUsdCents?: number | undefined;
}

function whom(send: SendShown): string {
  return sendRecipients({
    recipients: send.recipients,
    recipientCount: send.recipientCount,
    recipientGroupName: send.recipientGroupName ?? null,
    slackUsergroupId: send.slackUsergroupId ?? null,
    recipientGroupId: send.recipientGroupId ?? null,
  });
}

/**
 * "a £25 Tesco gift card to <@A> (about $33)", "a £25 Tesco gift card each to <@A> and <@B> (about $66
 * in all)": a brand in its own currency; without `brand` (after Send) the product's name ("a £25 Tesco
 * Gift Card to <@A>").
 */
function brandedLine(send: SendShown, faceCents: number, currency: string, brand: BrandShown | undefined): string {
  const each = send.recipientCount > 1 ? ' each' : '';
  // After Send the row has the product's name ("Tesco Gift Card").
  const what = brand ? `${escapeMrkdwn(brand.brandName)} gift card` : escapeMrkdwn(send.designName);
  const about =
    brand?.aboutUsdCents !== undefined && currency !== 'USD'
      ? ` (about ${formatUsd(brand.aboutUsdCents)}${send.recipientCount > 1 ? ' in all' : ''})`
      : '';
  return `a *${escapeMrkdwn(formatFace(faceCents, currency))}* ${what}${each} to ${whom(send)}${valueOf(send)}${about}`;
}

function valueOf(send: SendShown): string {
  return send.valueName
    ? ` for ${send.valueEmoji ? `:${send.valueEmoji}: ` : ''}*${escapeMrkdwn(send.valueName)}*`
    : '';
}

/** "$25 each to <@A> and <@B>, a Thank You card: $50 in all". */
function sendLine(send: SendShown, brand?: BrandShown): string {
  if (send.cardType === 'BRANDED_CARD' && send.faceCents && send.faceCurrency)
    return brandedLine(send, send.faceCents, send.faceCurrency, brand);
  const total = send.recipientCount > 1 ? `: *${formatUsd(send.totalCents)}* in all` : '';
  const value = valueOf(send);
  return `*${perPerson({ amountCents: send.amountCents, recipientCount: send.recipientCount })}* to ${whom(send)}, a *${escapeMrkdwn(send.designName)}* card${value}${total}`;
}

/** The confirmation: the send, its message, what the sender should know; Send and Edit carry `value`. */
export function buildOneLineConfirmation(
  send: SendShown,
  opts: { value: string; approvalReason?: string | undefined; notes: string[]; brand?: BrandShown | undefined },
): SlackMessageContent {
  const blocks: Block[] = [section(`:gift: Send ${sendLine(send, opts.brand)}?`)];
  const message = send.message?.trim() ?? '';
  if (message !== '') blocks.push(section(`>${escapeAndClip(message, 2900).split('\n').join('\n>')}`));
  const aside = [
    ...(opts.approvalReason ? [`Needs approval first: ${escapeMrkdwn(opts.approvalReason)}`] : []),
    ...opts.notes.map(escapeMrkdwn),
  ];
  if (aside.length > 0) blocks.push(context(aside.join(' ')));
  blocks.push({
    type: 'actions',
    elements: [
      { type: 'button', action_id: OneLine.actions.send, text: plain('Send'), style: 'primary', value: opts.value },
      { type: 'button', action_id: OneLine.actions.edit, text: plain('Edit'), value: opts.value },
    ],
  });
  const face = send.cardType === 'BRANDED_CARD' && send.faceCents && send.faceCurrency;
  return {
    text: face
      ? `Send ${formatFace(send.faceCents!, send.faceCurrency!)} ${opts.brand?.brandName ?? send.designName} ${send.recipientCount > 1 ? 'cards each ' : 'card '}to ${send.recipientCount} ${send.recipientCount === 1 ? 'person' : 'people'}?`
      : `Send ${formatUsd(send.amountCents)} ${send.recipientCount > 1 ? 'each ' : ''}to ${send.recipientCount} ${send.recipientCount === 1 ? 'person' : 'people'} (${formatUsd(send.totalCents)} in all)?`,
    blocks,
  };
}

/** After Send: what became of it, in one line. */
export function oneLineOutcome(row: KudosRow, waitsForApproval: boolean): string {
  if (row.status === 'awaiting_approval' || waitsForApproval)
    return `:hourglass_flowing_sand: Sent for approval: ${sendLine(row)}. You will get a message when it is decided.`;
  if (['rejected', 'expired', 'canceled', 'failed'].includes(row.status))
    return `This kudos was already handled (${row.status}); nothing more was sent.`;
  return `:white_check_mark: Sent: ${sendLine(row)}. You will get a message when it is on its way.`;
}

export const ONE_LINE_EXPIRED = `This confirmation expired (after an hour); nothing was sent. Type \`${COMMAND} …\` again.`;
export const ONE_LINE_EDITED = 'Opened in the send form; nothing was sent from here.';

/** A send refused at Send: the problem, and that nothing was sent. */
export function oneLineNotSent(problem: string): string {
  return `:warning: Nothing was sent. ${problem}`;
}
