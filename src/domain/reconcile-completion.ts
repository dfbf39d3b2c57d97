// What happens when a watched order is finished. Every Slack post goes through postOnce, so running
// this twice (a retry after a Slack failure, two instances, the webhook racing reconciliation) posts
// each notice once.
//   kudos:        completion notice in the announcement's thread (or the notification channel),
//                 a DM to the sender, and one DM per bounced recipient with "Fix address and resend";
//                 a scheduled kudos is announced here, when it actually went out;
//   reward links: the links by DM to the requester only (never in a channel);
//   other orders: (placed outside Slack) a completion notice under the "placed outside Slack" notice.
import { eq } from 'drizzle-orm';
import type { KudosRow, OrderCheckRow } from '../db/schema/index.js';
import { rewardLinkRequests } from '../db/schema/index.js';
import type { Order } from '../rewards/index.js';
import { buildAnnouncement } from '../slack/blocks/messages.js';
import { buildCompletionNotice, buildRewardLinksDm, buildSenderCompletionDm, LINKS_PER_MESSAGE, type DeliveryCounts } from '../slack/blocks/notification-messages.js';
import type { PostedMessage } from '../slack/gateway.js';
import { getKudos, updateKudos } from './kudos-store.js';
import { findNotification, postOnce } from './notifications.js';
import type { ReconcileDeps } from './reconcile.js';
import { notifyBounces } from './resend-bounces.js';

export type CompletionResult = { done: true } | { done: false; retryInMs: number };

/** The worker posts its confirmation and announcement right after placing; wait for them first. */
const WAIT_FOR_WORKER_MS = 1000;

export async function handleOrderComplete(deps: ReconcileDeps, check: OrderCheckRow, order: Order): Promise<CompletionResult> {
  if (check.kudosId) {
    const row = await getKudos(deps.db, check.kudosId);
    if (row) return completeKudos(deps, row, order);
  }
  if (check.rewardLinkRequestId) return deliverRewardLinks(deps, check.rewardLinkRequestId, order);
  return completeExternal(deps, order);
}

export async function handleOrderCanceled(deps: ReconcileDeps, check: OrderCheckRow): Promise<void> {
  if (!check.kudosId) return;
  const row = await getKudos(deps.db, check.kudosId);
  if (row && row.orderStatus !== 'CANCELED') await updateKudos(deps.db, row.id, { orderStatus: 'CANCELED' });
}

function countsOf(order: Order, fallbackRecipients: number): DeliveryCounts {
  return { sentCount: order.sentCount ?? 0, bouncedCount: order.bouncedCount ?? 0, recipientCount: order.recipientCount ?? (order.recipients.length || fallbackRecipients) };
}

async function completeKudos(deps: ReconcileDeps, row: KudosRow, order: Order): Promise<CompletionResult> {
  if (!row.notifiedAt && (row.status === 'placed' || row.status === 'scheduled' || row.status === 'pending')) {
    return { done: false, retryInMs: WAIT_FOR_WORKER_MS };
  }
  if (row.orderStatus !== 'COMPLETE') row = await updateKudos(deps.db, row.id, { orderStatus: 'COMPLETE', ...(row.orderId ? {} : { orderId: order.orderId }) });
  const ws = { teamId: row.teamId, enterpriseId: row.enterpriseId };
  const counts = countsOf(order, row.recipientCount);

  let thread: PostedMessage | undefined =
    row.announcementChannel && row.announcementTs ? { channel: row.announcementChannel, ts: row.announcementTs } : undefined;
  const channel = deps.config.notifyChannel;
  if (!thread && channel && row.scheduledAt) {
    // A scheduled send is announced when it goes out, not when it was booked.
    const announced = await postOnce(deps.db, { kind: 'kudos.announcement', subject: row.id, ...ws }, () => deps.slack.postMessage(channel, buildAnnouncement(row)));
    if (announced.posted) {
      thread = announced.message;
      await updateKudos(deps.db, row.id, { announcementChannel: thread.channel, announcementTs: thread.ts });
    } else if (announced.existing?.channel && announced.existing.ts) {
      thread = { channel: announced.existing.channel, ts: announced.existing.ts };
    }
  }
  const target = thread ? { channel: thread.channel, threadTs: thread.ts } : channel ? { channel } : undefined;
  if (target) {
    await postOnce(deps.db, { kind: 'order.completed', subject: order.orderId, ...ws }, () =>
      deps.slack.postMessage(target.channel, { ...buildCompletionNotice({ orderId: order.orderId, counts, kudos: row, ...(order.cardName ? { cardName: order.cardName } : {}) }), ...(target.threadTs ? { threadTs: target.threadTs } : {}) }),
    );
  }
  await postOnce(deps.db, { kind: 'order.completed.dm', subject: order.orderId, ...ws }, () => deps.slack.sendDirectMessage(row.senderUserId, buildSenderCompletionDm(row, counts)));
  if (counts.bouncedCount > 0) await notifyBounces(deps, row, order);
  return { done: true };
}

async function deliverRewardLinks(deps: ReconcileDeps, requestId: string, order: Order): Promise<CompletionResult> {
  const [request] = await deps.db.select().from(rewardLinkRequests).where(eq(rewardLinkRequests.id, requestId));
  if (!request) return { done: true };
  const links = order.recipients.map((r) => r.rewardLink).filter((link): link is string => typeof link === 'string' && link.length > 0);
  if (links.length === 0 && (order.recipientCount ?? 1) > 0) return { done: false, retryInMs: 5000 };
  const parts = Math.max(1, Math.ceil(links.length / LINKS_PER_MESSAGE));
  for (let index = 0; index < parts; index++) {
    const chunk = links.slice(index * LINKS_PER_MESSAGE, (index + 1) * LINKS_PER_MESSAGE);
    // Links are gift cards: they go to the requester's DM only, never to a channel.
    await postOnce(deps.db, { kind: 'reward_links.delivered', subject: `${order.orderId}#${index}`, teamId: request.teamId, enterpriseId: request.enterpriseId }, () =>
      deps.slack.sendDirectMessage(request.requesterUserId, buildRewardLinksDm(request, order.orderId, chunk, { index, count: parts })),
    );
  }
  return { done: true };
}

async function completeExternal(deps: ReconcileDeps, order: Order): Promise<CompletionResult> {
  const channel = deps.config.notifyChannel;
  // Reward links of someone else: nothing to say in a channel (and links must never go there).
  if (!channel || order.orderType === 'LINK' || order.orderId.startsWith('LO')) return { done: true };
  const placedNotice = await findNotification(deps.db, 'order.external', order.orderId);
  const target = placedNotice?.channel && placedNotice.ts ? { channel: placedNotice.channel, threadTs: placedNotice.ts } : { channel };
  await postOnce(deps.db, { kind: 'order.completed', subject: order.orderId }, () =>
    deps.slack.postMessage(target.channel, {
      ...buildCompletionNotice({ orderId: order.orderId, counts: countsOf(order, 0), ...(order.cardName ? { cardName: order.cardName } : {}) }),
      ...('threadTs' in target ? { threadTs: target.threadTs } : {}),
    }),
  );
  return { done: true };
}
