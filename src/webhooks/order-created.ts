// order.created: match the order to what the app placed, then watch it until it is finished.
//   - a kudos (by kudos.order_id or order_ids, or by the order's clientOrderId = the kudos idempotency
//     key, or a part's `${key}-n`, which also covers the webhook arriving before the worker recorded
//     the order id): the kudos is linked to the order and its completion check scheduled; a send
//     told failed, partial or unknown although the order exists is promoted to what happened;
//   - a reward-link request (by order id or by its key, `${key}` or `${key}-n` for split batches);
//   - anything else was placed outside Slack (the portal, another integration): a short notice in
//     the notification channel, once;
//   - an order our credentials cannot see (404: the other environment) is ignored.
import { and, eq, or, sql } from 'drizzle-orm';

import type { Database } from '../db/client.js';
import { kudos, type KudosRow, type RewardLinkRequestRow, rewardLinkRequests } from '../db/schema/index.js';
import { postOnce } from '../domain/notices/outbox.js';
import { partCount, partOfKey, sendKeyOf } from '../domain/sending/kudos-parts.js';
import { promoteFoundKudosOrder, promoteFoundOrder, updateKudos } from '../domain/sending/kudos-store.js';
import { scheduleOrderCheck } from '../domain/sending/order-check-schedule.js';
import { isRewardsError, type Order, orderCreatedDataSchema } from '../rewards/index.js';
import type { EventProcessor } from './processor.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const orderCreatedProcessor: EventProcessor = {
  eventTypes: ['order.created'],
  async process(event, ctx) {
    const data = orderCreatedDataSchema.parse(event.body.data);
    const { orderId } = data;

    // Distribution mode: the event arrived on one workspace's connection, and only that workspace's
    // sends are matched (a workspace's webhook never touches another's kudos). Single mode: no team.
    const ws = event.teamId ? { teamId: event.teamId, enterpriseId: event.enterpriseId } : undefined;
    let row = await kudosByOrderId(ctx.db, orderId, ws?.teamId);
    let request = row ? undefined : await linkRequestByOrderId(ctx.db, orderId, ws?.teamId);
    /** The order as the API shows it, with the key that made it, when the app had not recorded it. */
    let unrecorded: { key: string; order: Order } | undefined;
    if (!row && !request) {
      // Not recorded under this id (yet): ask the API which key created it. Transient failures throw
      // and the event is retried; nothing is posted before the order is known to be someone else's.
      let order;
      try {
        const rewards = await ctx.rewards.for(ws ?? { teamId: '' });
        order = await rewards.orders.get(orderId, { signal: ctx.signal });
      } catch (error) {
        // Not visible with our credentials: an order of the other environment (a webhook
        // registration receives both). Nothing to say or watch.
        if (isRewardsError(error, 'NOT_FOUND')) return { outcome: 'not_found' };
        throw error;
      }
      const key = order.clientOrderId ?? order.idempotencyKey;
      if (key) {
        row = await kudosByKey(ctx.db, key, ws?.teamId);
        unrecorded = { key, order };
        if (!row) request = await linkRequestByKey(ctx.db, key, ws?.teamId);
      }
    }

    if (row) {
      // A send of several orders records its parts itself (the worker, part by part, resuming with the
      // same keys); the webhook starts watching the part, and counts a part the send was settled
      // without (its answer lost) or whose outcome is still unknown (kudos-store.ts).
      const several = partCount(row) > 1;
      if (several && unrecorded && (row.status === 'failed' || row.status === 'partial' || row.status === 'unknown')) {
        row = (await promoteFoundKudosOrder(ctx.db, row, unrecorded.key, unrecorded.order)) ?? row;
      }
      // An order whose answer was lost: the kudos said failed or unknown, but it was created. Placed.
      if (!several && (row.status === 'failed' || row.status === 'unknown'))
        row = (await promoteFoundOrder(ctx.db, row.id, orderId)) ?? row;
      if (!several && !row.orderId) row = await updateKudos(ctx.db, row.id, { orderId });
      await scheduleOrderCheck(ctx.db, {
        orderId,
        source: 'kudos',
        teamId: row.teamId,
        enterpriseId: row.enterpriseId,
        kudosId: row.id,
        notBefore: row.scheduledAt,
        firstDelayMs: ctx.firstCheckDelayMs,
      });
      return { outcome: 'kudos', teamId: row.teamId, enterpriseId: row.enterpriseId };
    }
    if (request) {
      if (!request.orderIds.includes(orderId)) {
        await ctx.db
          .update(rewardLinkRequests)
          .set({
            orderIds: sql`(select coalesce(jsonb_agg(distinct x), '[]'::jsonb) from jsonb_array_elements_text(${rewardLinkRequests.orderIds} || ${JSON.stringify([orderId])}::jsonb) as x)`,
            updatedAt: sql`now()`,
          })
          .where(eq(rewardLinkRequests.id, request.id));
      }
      await scheduleOrderCheck(ctx.db, {
        orderId,
        source: 'reward_links',
        teamId: request.teamId,
        enterpriseId: request.enterpriseId,
        rewardLinkRequestId: request.id,
        firstDelayMs: ctx.firstCheckDelayMs,
      });
      return { outcome: 'reward_links', teamId: request.teamId, enterpriseId: request.enterpriseId };
    }

    const channel = await ctx.notifyChannelOf(ws);
    if (channel) {
      await postOnce(
        ctx,
        { kind: 'order.external', subject: orderId },
        {
          to: { channel },
          message: ctx.present({
            type: 'order.external',
            orderId,
            cardType: data.cardType,
            totalAmount: data.totalAmount,
            currency: data.currency,
            recipientCount: data.recipientCount,
          }),
        },
      );
    }
    await scheduleOrderCheck(ctx.db, {
      orderId,
      source: 'webhook',
      firstDelayMs: ctx.firstCheckDelayMs,
      ...(ws ? { teamId: ws.teamId, enterpriseId: ws.enterpriseId } : {}),
    });
    return { outcome: 'external', ...(ws ? { teamId: ws.teamId, enterpriseId: ws.enterpriseId } : {}) };
  },
};

async function kudosByOrderId(
  db: Database,
  orderId: string,
  teamId: string | undefined,
): Promise<KudosRow | undefined> {
  const [row] = await db
    .select()
    .from(kudos)
    .where(
      and(
        or(eq(kudos.orderId, orderId), sql`${kudos.orderIds} @> ${JSON.stringify([orderId])}::jsonb`),
        teamId ? eq(kudos.teamId, teamId) : undefined,
      ),
    )
    .limit(1);
  return row;
}

/** The kudos whose key made this order: its own key, or one of its parts' (`${key}-n`, kudos-parts.ts). */
async function kudosByKey(db: Database, key: string, teamId: string | undefined): Promise<KudosRow | undefined> {
  const sendKey = sendKeyOf(key);
  if (!UUID.test(sendKey)) return undefined;
  const [row] = await db
    .select()
    .from(kudos)
    .where(and(eq(kudos.idempotencyKey, sendKey.toLowerCase()), teamId ? eq(kudos.teamId, teamId) : undefined))
    .limit(1);
  return row && partOfKey(row, key) >= 0 ? row : undefined;
}

async function linkRequestByOrderId(
  db: Database,
  orderId: string,
  teamId: string | undefined,
): Promise<RewardLinkRequestRow | undefined> {
  const [row] = await db
    .select()
    .from(rewardLinkRequests)
    .where(
      and(
        sql`${rewardLinkRequests.orderIds} @> ${JSON.stringify([orderId])}::jsonb`,
        teamId ? eq(rewardLinkRequests.teamId, teamId) : undefined,
      ),
    )
    .limit(1);
  return row;
}

async function linkRequestByKey(
  db: Database,
  key: string,
  teamId: string | undefined,
): Promise<RewardLinkRequestRow | undefined> {
  const base = key.slice(0, 36);
  if (!UUID.test(base) || !(key.length === 36 || /^-\d+$/.test(key.slice(36)))) return undefined;
  const [row] = await db
    .select()
    .from(rewardLinkRequests)
    .where(
      and(
        eq(rewardLinkRequests.idempotencyKey, base.toLowerCase()),
        teamId ? eq(rewardLinkRequests.teamId, teamId) : undefined,
      ),
    )
    .limit(1);
  return row;
}
