// Whom a send went to, in mrkdwn, for every message that names a send: its people, or a big group by
// name and size. Shared by the features that show sends (sending, approvals, orders, home).
import type { KudosRecipientSnapshot, KudosRow } from '../../db/schema/index.js';
import { faceAmount } from '../../domain/branded/card-amounts.js';
import { formatUsd } from '../../domain/common/money.js';
import { brandedCard, brandedOf, type MaybeBrandedRow, usdNote } from './card-amounts.js';
import { escapeMrkdwn, mentionUser } from './mrkdwn-escape.js';

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
export const MENTIONS_PER_MESSAGE = 10;

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
  const people = peopleCount(count);
  if (row.recipientCount <= MENTIONS_PER_MESSAGE) return recipientList(row.recipients, max);
  const group = row.recipientGroupName?.trim();
  if (group && (row.slackUsergroupId || row.recipientGroupId))
    return `${escapeMrkdwn(group.replace(/[<>&*_~`]/g, ''))} (${people})`;
  return people;
}

/** "1 person", "3 people", "1,000 people". */
export function peopleCount(count: number): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? 'person' : 'people'}`;
}

/**
 * What each person gets, in plain words: "a $25 card" for one person, "a $25 card each" for several;
 * a branded card by its brand, with its USD: "a £25 Tesco Gift Card each (about $67 in all)".
 */
export function cardEach(row: MaybeBrandedRow & Pick<KudosRow, 'recipientCount'>): string {
  const each = row.recipientCount > 1 ? ' each' : '';
  const face = brandedOf(row);
  if (face) return `a ${brandedCard(face)}${each}${usdNote(row, row.recipientCount)}`;
  return `a ${formatUsd(row.amountCents)} card${each}`;
}

/** "$25" for one person, "$25 each" for several; branded, "£25 each (about $67 in all)". */
export function perPerson(row: MaybeBrandedRow & Pick<KudosRow, 'recipientCount'>): string {
  const face = brandedOf(row);
  if (face) return `${faceAmount(face)}${row.recipientCount > 1 ? ' each' : ''}${usdNote(row, row.recipientCount)}`;
  return row.recipientCount > 1 ? `${formatUsd(row.amountCents)} each` : formatUsd(row.amountCents);
}

/** "1 card", "2 cards", "1,000 cards". */
export function cardCount(count: number): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? 'card' : 'cards'}`;
}

/**
 * What a send gives, in a sentence: "a $25 Thank You card to <@U1>", "a $25 Thank You card each to
 * <@U1> and <@U2>", "a $25 Thank You card each to @engineering (1,000 people)"; a branded card by its
 * face and brand, "a £25 Tesco Gift Card each to <@U1> and <@U2>" (its USD is the caller's to add).
 */
export function cardsTo(
  row: MaybeBrandedRow &
    Pick<
      KudosRow,
      'designName' | 'recipients' | 'recipientCount' | 'recipientGroupName' | 'slackUsergroupId' | 'recipientGroupId'
    >,
  max = 5,
): string {
  const each = row.recipientCount > 1 ? ' each' : '';
  const face = brandedOf(row);
  if (face) return `a ${brandedCard(face)}${each} to ${sendRecipients(row, row.recipientCount, max)}`;
  return `a ${formatUsd(row.amountCents)} ${escapeMrkdwn(row.designName)} card${each} to ${sendRecipients(row, row.recipientCount, max)}`;
}
