// What happens when a watched order is finished. Every Slack post goes through the notice outbox
// (outbox.ts), so running this twice (a retry, two instances, the webhook racing
// reconciliation) posts each notice once. Its work is done once the notices are recorded: a notice
// Slack does not take now (paced to a post a second per channel, rate-limited, its answer lost) and
// one that must follow an announcement still waiting for its turn are posted by the outbox, so the
// check closes and the Rewards API is not asked about the order again.
//   kudos:        completion notice in the announcement's thread (or the notification channel; the
//                 cards delivered only, never a bounce), the sender's one DM edited to delivered (each
//                 bounced card in it with "Fix address and resend"), each recipient's DM edited to say
//                 where to look; a scheduled kudos is announced (and its recipients told) here;
//   reward links: the links by DM to the requester only (never in a channel);
//   other orders: (placed outside Slack) a completion notice under the "placed outside Slack" notice.
import { eq } from 'drizzle-orm';

import type { Logger } from '../../config/logger.js';
import type { Database } from '../../db/client.js';
import type { KudosRow, OrderCheckRow } from '../../db/schema/index.js';
import { rewardLinkRequests } from '../../db/schema/index.js';
import type { Order } from '../../rewards/index.js';
import type { Messenger, PostedMessage } from '../common/ports.js';
import { type DeliveryCounts, LINKS_PER_NOTICE, type NoticePresenter } from '../notices/notices.js';
import {
  findNotification,
  isLeftToOutbox,
  postAllOnce,
  postOnceOrLater,
  queueNoticeInThreadOf,
  REWARD_LINKS_NOTICE_KIND,
} from '../notices/outbox.js';
import { linkNoticeNumbering } from '../reward-links/link-parts.js';
import { announcementChannelOf, announcementNotice } from '../sending/announce.js';
import { orderIdsOf, partCount } from '../sending/kudos-parts.js';
import {
  getKudos,
  markAllPartsComplete,
  markCanceledOutside,
  markOrderComplete,
  updateKudos,
} from '../sending/kudos-store.js';
import { tellRecipientsDelivered } from '../sending/recipient-dms.js';
import { pointBouncesAt, senderDmNotice, senderDmState, updateSenderDm } from '../sending/sender-dm.js';
import type { NotifyChannelOf } from '../workspaces/settings.js';
import { notifyBounces, recordBounces } from './bounces.js';

/** What telling about a finished order needs (order-checks.ts adds the Rewards client for checking). */
export interface CompletionDeps {
  db: Database;
  chat: Messenger;
  present: NoticePresenter;
  /** Announcement channel of a workspace, from its settings at the time of the notice. */
  notifyChannelOf: NotifyChannelOf;
  logger: Logger;
}

/** Not done: tried again in `retryInMs`, with the order's answer kept (`askAgain`: the API has still to say more). */
export type CompletionResult = { done: true } | { done: false; retryInMs: number; askAgain?: boolean };

/** The worker posts its confirmation and announcement right after placing; wait for them first. */
const WAIT_FOR_WORKER_MS = 1000;

export async function handleOrderComplete(
  deps: CompletionDeps,
  check: OrderCheckRow,
  order: Order,
): Promise<CompletionResult> {
  if (check.kudosId) {
    // Recorded first (one statement that also reads the row back); the notices follow.
    const row = await markOrderComplete(deps.db, check.kudosId, order.orderId, countsOf(order, 0));
    if (row) return completeKudos(deps, row, order);
  }
  if (check.rewardLinkRequestId) return deliverRewardLinks(deps, check.rewardLinkRequestId, order);
  return completeExternal(deps, order);
}

export async function handleOrderCanceled(deps: CompletionDeps, check: OrderCheckRow): Promise<void> {
  if (!check.kudosId) return;
  const row = await getKudos(deps.db, check.kudosId);
  if (!row || (row.orderStatus === 'CANCELED' && row.status === 'canceled')) return;
  // Cancelled outside Slack (the provider's portal), or our own cancel whose database write was lost:
  // the kudos leaves the sender's spend and scheduled list too, not only the order status.
  if (row.status === 'scheduled' || row.status === 'placed') await markCanceledOutside(deps.db, row.id);
  else await updateKudos(deps.db, row.id, { orderStatus: 'CANCELED' });
}

function countsOf(order: Order, fallbackRecipients: number): DeliveryCounts {
  return {
    sentCount: order.sentCount ?? 0,
    bouncedCount: order.bouncedCount ?? 0,
    recipientCount: order.recipientCount ?? (order.recipients.length || fallbackRecipients),
  };
}

/**
 * A send of several orders is told complete once, when its last part is: `post` for the check that
 * finds every part complete and the sender told; `wait` while the worker has still to tell (or to mark
 * the last part placed); `part_done` for any other part (its own bounces only: a later part's check posts).
 */
function partsDecision(row: KudosRow): 'post' | 'wait' | 'part_done' {
  const ids = orderIdsOf(row);
  if (ids.length === 0 || !ids.every((id) => row.partsCompleted[id])) return 'part_done';
  if (row.status === 'pending') return row.partsPlaced < partCount(row) ? 'part_done' : 'wait';
  if (!row.notifiedAt && (row.status === 'placed' || row.status === 'scheduled' || row.status === 'partial'))
    return 'wait';
  return 'post';
}

/** The delivery counts of every part of a send, summed. */
function summedCounts(row: KudosRow): DeliveryCounts {
  const parts = Object.values(row.partsCompleted);
  return {
    sentCount: parts.reduce((n, p) => n + p.sentCount, 0),
    bouncedCount: parts.reduce((n, p) => n + p.bouncedCount, 0),
    recipientCount: parts.reduce((n, p) => n + p.recipientCount, 0),
  };
}

async function completeKudos(deps: CompletionDeps, row: KudosRow, order: Order): Promise<CompletionResult> {
  const several = partCount(row) > 1;
  if (several) {
    const decision = partsDecision(row);
    if (decision === 'wait') return { done: false, retryInMs: WAIT_FOR_WORKER_MS };
    if (decision === 'part_done') {
      if ((order.bouncedCount ?? 0) > 0) await notifyBounces(deps, row, order);
      return { done: true };
    }
    await markAllPartsComplete(deps.db, row.id);
  } else if (!row.notifiedAt && (row.status === 'placed' || row.status === 'scheduled' || row.status === 'pending')) {
    return { done: false, retryInMs: WAIT_FOR_WORKER_MS };
  }
  const ws = { teamId: row.teamId, enterpriseId: row.enterpriseId };
  const counts = several ? summedCounts(row) : countsOf(order, row.recipientCount);
  // One notice and one DM per send: a send of several orders is told under its own id.
  const subject = several ? `kudos:${row.id}` : order.orderId;
  const orderId = several ? orderIdsOf(row)[0]! : order.orderId;

  let thread: PostedMessage | undefined =
    row.announcementChannel && row.announcementTs
      ? { channel: row.announcementChannel, ts: row.announcementTs }
      : undefined;
  /** The announcement, still waiting in the outbox (paced, or its answer lost): the notice follows it into its thread. */
  let pendingAnnouncement: { id: string; channel: string } | undefined;
  const channel = await announcementChannelOf(row, ws, deps.notifyChannelOf);
  if (!thread && channel) {
    let announcement = await findNotification(deps.db, 'kudos.announcement', row.id);
    if (!announcement && row.scheduledAt) {
      // A scheduled send is announced when it goes out, not when it was booked.
      const announced = await postOnceOrLater(
        deps,
        { kind: 'kudos.announcement', subject: row.id, ...ws },
        { to: { channel }, message: deps.present(await announcementNotice(deps.db, row)) },
      );
      if (announced !== 'later' && announced.posted) {
        thread = announced.message;
        await updateKudos(deps.db, row.id, { announcementChannel: thread.channel, announcementTs: thread.ts });
      } else announcement = await findNotification(deps.db, 'kudos.announcement', row.id);
    }
    if (!thread && announcement?.ts && announcement.channel)
      thread = { channel: announcement.channel, ts: announcement.ts };
    else if (!thread && announcement && !announcement.postedAt && !announcement.failedAt)
      pendingAnnouncement = { id: announcement.id, channel: announcement.channel ?? channel };
  }
  const target = thread ? { channel: thread.channel, threadTs: thread.ts } : channel ? { channel } : undefined;
  const completedKey = { kind: 'order.completed', subject, ...ws };
  const completedMessage = () =>
    deps.present({
      type: 'order.completed',
      orderId,
      counts,
      kudos: row,
      ...(order.cardName ? { cardName: order.cardName } : {}),
    });
  // Bounces stay out of the channel: its notice counts the cards delivered, and none when none was.
  const bounced = (order.bouncedCount ?? 0) > 0 ? await recordBounces(deps, row, order) : new Set<string>();
  if (counts.sentCount > 0 && pendingAnnouncement) {
    await queueNoticeInThreadOf(deps.db, completedKey, {
      channel: pendingAnnouncement.channel,
      threadOf: pendingAnnouncement.id,
      message: completedMessage(),
    });
  } else if (counts.sentCount > 0 && target) {
    // Recorded is enough (the outbox posts what Slack did not take now); Slack's refusal is tried again.
    const [result] = await postAllOnce(deps, [
      { key: completedKey, notice: { to: target, message: completedMessage() } },
    ]);
    if (result?.status === 'rejected' && !isLeftToOutbox(result.reason)) throw result.reason;
  }
  // The sender's one DM, edited in place: delivered, with each bounced card and its fix.
  const dm = await updateSenderDm(deps, row, 'delivered', deps.present(await senderDmNotice(deps.db, row, true)));
  if (dm && bounced.size > 0) await pointBouncesAt(deps.db, row.id, dm);
  const untold = await tellRecipientsDelivered(deps, row, await bouncedEmailsOf(deps.db, row.id, bounced));
  // A scheduled send tells its recipients only now: the sender hears who could not be told.
  if (untold.length > 0)
    await updateSenderDm(deps, row, 'untold_at_delivery', deps.present(await senderDmNotice(deps.db, row, true)));
  return { done: true };
}

/** Every address of a send that bounced (earlier parts' too), lower case. */
async function bouncedEmailsOf(db: Database, kudosId: string, these: Set<string>): Promise<Set<string>> {
  const { bounces } = await senderDmState(db, kudosId);
  return new Set([...these, ...bounces.filter((b) => b.status !== 'resent').map((b) => b.email.toLowerCase())]);
}

async function deliverRewardLinks(deps: CompletionDeps, requestId: string, order: Order): Promise<CompletionResult> {
  const [request] = await deps.db.select().from(rewardLinkRequests).where(eq(rewardLinkRequests.id, requestId));
  if (!request) return { done: true };
  const links = order.recipients
    .map((r) => r.rewardLink)
    .filter((link): link is string => typeof link === 'string' && link.length > 0);
  if (links.length === 0 && (order.recipientCount ?? 1) > 0) return { done: false, retryInMs: 5000, askAgain: true };
  const parts = Math.max(1, Math.ceil(links.length / LINKS_PER_NOTICE));
  // One series over the whole request: the DMs of its different orders never share a number.
  const numbering = linkNoticeNumbering(request, order);
  const count = Math.max(numbering.count, numbering.first + parts);
  for (let index = 0; index < parts; index++) {
    const chunk = links.slice(index * LINKS_PER_NOTICE, (index + 1) * LINKS_PER_NOTICE);
    // Links are gift cards: they go to the requester's DM only, never to a channel.
    await postOnceOrLater(
      deps,
      {
        kind: REWARD_LINKS_NOTICE_KIND,
        subject: `${order.orderId}#${index}`,
        teamId: request.teamId,
        enterpriseId: request.enterpriseId,
      },
      {
        to: { userId: request.requesterUserId },
        message: deps.present({
          type: 'reward_links.ready',
          request,
          orderId: order.orderId,
          links: chunk,
          part: { index: numbering.first + index, count },
        }),
      },
    );
  }
  return { done: true };
}

async function completeExternal(deps: CompletionDeps, order: Order): Promise<CompletionResult> {
  // Placed outside Slack: no workspace on the order, so the home workspace's channel.
  const channel = await deps.notifyChannelOf(undefined);
  // Reward links of someone else: nothing to say in a channel (and links must never go there).
  if (!channel || order.orderType === 'LINK' || order.orderId.startsWith('LO')) return { done: true };
  const placedNotice = await findNotification(deps.db, 'order.external', order.orderId);
  const key = { kind: 'order.completed', subject: order.orderId };
  const message = deps.present({
    type: 'order.completed',
    orderId: order.orderId,
    counts: countsOf(order, 0),
    ...(order.cardName ? { cardName: order.cardName } : {}),
  });
  if (placedNotice && !placedNotice.postedAt && !placedNotice.failedAt) {
    // The "placed outside Slack" notice is still waiting in the outbox: this one follows it into its thread.
    await queueNoticeInThreadOf(deps.db, key, {
      channel: placedNotice.channel ?? channel,
      threadOf: placedNotice.id,
      message,
    });
    return { done: true };
  }
  const target =
    placedNotice?.channel && placedNotice.ts
      ? { channel: placedNotice.channel, threadTs: placedNotice.ts }
      : { channel };
  await postOnceOrLater(deps, key, { to: target, message });
  return { done: true };
}
