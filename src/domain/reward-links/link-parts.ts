// The parts of a reward-link request (at most 500 links each, one order per part) and how its links
// are numbered in the requester's DMs: one series over the whole request ("part 12 of 40"), never one
// per order, so DMs of different orders never share a number.
import type { RewardLinkRequestRow } from '../../db/schema/index.js';
import { deriveIdempotencyKey, splitQuantity } from '../../rewards/index.js';
import { LINKS_PER_NOTICE } from '../notices/notices.js';

/** The key of part `index` (0-based): the request's own key when there is one part. */
export function partKey(row: Pick<RewardLinkRequestRow, 'idempotencyKey' | 'quantity'>, index: number): string {
  return splitQuantity(row.quantity).length === 1
    ? row.idempotencyKey
    : deriveIdempotencyKey(row.idempotencyKey, index + 1);
}

const noticesFor = (links: number) => Math.max(1, Math.ceil(links / LINKS_PER_NOTICE));

/**
 * Where the DMs of one order sit in the request's series: `first` is the 0-based number of its first
 * DM, `count` the DMs of the whole request (of the parts created, once the request is settled).
 * The order's part is found by its key (clientOrderId), else by its place among the recorded orders.
 */
export function linkNoticeNumbering(
  request: Pick<RewardLinkRequestRow, 'idempotencyKey' | 'quantity' | 'status' | 'partsCreated' | 'orderIds'>,
  order: { orderId: string; clientOrderId?: string | undefined; idempotencyKey?: string | undefined },
): { first: number; count: number } {
  const planned = splitQuantity(request.quantity);
  const key = order.clientOrderId ?? order.idempotencyKey;
  let part = key ? planned.findIndex((_, i) => partKey(request, i) === key) : -1;
  if (part < 0) part = Math.max(0, request.orderIds.indexOf(order.orderId));
  const settled = request.status === 'placed' || request.status === 'partial';
  const counted = settled ? planned.slice(0, Math.max(request.partsCreated, part + 1)) : planned;
  const first = planned.slice(0, part).reduce((sum, q) => sum + noticesFor(q), 0);
  const count = counted.reduce((sum, q) => sum + noticesFor(q), 0);
  return { first, count };
}
