// A send to more people than one order takes (a big user group) is placed in parts: at most
// RECIPIENTS_PER_ORDER recipients per order, in the order the row recorded them, each part an order
// with its own key derived from the send's (deriveIdempotencyKey: `${key}-${part}`), so a retried or
// resumed part finds its own order (409 -> lookup) and is never placed twice. Reward links work the
// same way (link-parts.ts). A send of one part keeps the send's own key.
import type { KudosRow } from '../../db/schema/index.js';
import { deriveIdempotencyKey } from '../../rewards/index.js';

/**
 * Recipients per order. The API's maximum is not shown (spec part 8); 100 is the size every send had
 * until sends could be split (so an account that takes our orders today takes each part), a fifth of
 * what the emulator allows, and 10 orders for a 1,000-person group. An API that refuses even that is
 * reported plainly (place-sends.ts: a validation error about the recipients of a part).
 */
export const RECIPIENTS_PER_ORDER = 100;

/** The recipients of each part, in order. */
export function partsOf<T>(recipients: T[]): T[][] {
  const parts: T[][] = [];
  for (let start = 0; start < recipients.length; start += RECIPIENTS_PER_ORDER)
    parts.push(recipients.slice(start, start + RECIPIENTS_PER_ORDER));
  return parts.length > 0 ? parts : [[]];
}

export function partCount(row: Pick<KudosRow, 'recipientCount'>): number {
  return Math.max(1, Math.ceil(row.recipientCount / RECIPIENTS_PER_ORDER));
}

/** The key of part `index` (0-based): the send's own key when it has one part. */
export function kudosPartKey(row: Pick<KudosRow, 'idempotencyKey' | 'recipientCount'>, index: number): string {
  return partCount(row) === 1 ? row.idempotencyKey : deriveIdempotencyKey(row.idempotencyKey, index + 1);
}

/** The part a key belongs to (0-based), or -1: a webhook's clientOrderId matched to its send. */
export function partOfKey(row: Pick<KudosRow, 'idempotencyKey' | 'recipientCount'>, key: string): number {
  const parts = partCount(row);
  for (let index = 0; index < parts; index++)
    if (kudosPartKey(row, index).toLowerCase() === key.toLowerCase()) return index;
  return -1;
}

/** The send's key from a part's key (`<uuid>-<n>`); the key itself otherwise. */
export function sendKeyOf(key: string): string {
  const match = /^([0-9a-f-]{36})-\d+$/i.exec(key);
  return match ? match[1]! : key;
}

/** Every order of a send, in part order (rows placed before sends had parts: their one order). */
export function orderIdsOf(row: Pick<KudosRow, 'orderIds' | 'orderId'>): string[] {
  if (row.orderIds.length > 0) return row.orderIds;
  return row.orderId ? [row.orderId] : [];
}

/** Recipients in the parts created so far (what a partial send reached). */
export function placedRecipientCount(row: Pick<KudosRow, 'recipientCount' | 'partsPlaced' | 'status'>): number {
  if (row.status !== 'partial') return row.recipientCount;
  return Math.min(row.recipientCount, row.partsPlaced * RECIPIENTS_PER_ORDER);
}

/**
 * The error code of a send in parts whose next part turned up after all (order.created, the order
 * poller) while it was told partial or failed: the parts after it were never sent.
 */
export const PART_FOUND_LATER = 'PART_FOUND_LATER';

/**
 * The outbox subject of a partial send's notice to its sender: the send's id, and once a part turned
 * up later, the parts it then counts (a new truth, told once more, once).
 */
export function partialNoticeSubject(row: Pick<KudosRow, 'id' | 'errorCode' | 'partsPlaced'>): string {
  return row.errorCode === PART_FOUND_LATER ? `${row.id}#${row.partsPlaced}` : row.id;
}
