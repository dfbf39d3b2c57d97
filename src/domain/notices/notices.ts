// What the domain wants people told, as plain values. The domain decides who hears what and when
// (and records it in the notice outbox, outbox.ts); a presenter (src/slack/presenters) turns
// each value into a message. Adding a notice: a variant here, a case in the presenter.
import type { BouncedRecipientRow, KudosRow, RewardLinkRequestRow } from '../../db/schema/index.js';
import type { ApprovalCase } from '../approvals/approval-store.js';
import type { RenderedMessage } from '../common/ports.js';
import type { WeeklyDigest } from '../recognition/stats.js';

export interface DeliveryCounts {
  sentCount: number;
  bouncedCount: number;
  recipientCount: number;
}

/** Whom a request waiting for approval was put to, as the sender's "waiting" notice says it. */
export type ApproversAsked =
  | { kind: 'channel'; channel: string }
  | { kind: 'people'; userIds: string[] }
  /** Nobody could be reached: the sender is told to have an admin set approvers. */
  | { kind: 'unreachable' }
  /** Told late, after the process that posted the request died: only where it went is known. */
  | { kind: 'unknown' };

/** Most reward links in one notice: keeps each message well under the chat platform's text limits. */
export const LINKS_PER_NOTICE = 50;

export type Notice =
  /** To the sender: their order was placed (or booked for later). The first state of the sender's one DM. */
  | { type: 'kudos.placed'; kudos: KudosRow }
  /**
   * The sender's one DM about a send, as it is now (edited in place, sending/sender-dm.ts): on its way or
   * `delivered`, each bounced card with its fix (or resend), the people Slack would not let Kudos tell.
   */
  | {
      type: 'kudos.sender_dm';
      kudos: KudosRow;
      delivered: boolean;
      bounces: BouncedRecipientRow[];
      untold: string[];
      note?: string;
    }
  /**
   * To one recipient: who thanked them, with what, and where the card goes (`deliveredTo`: delivered
   * there; `resentTo`: their card bounced and is on its way again, to that corrected address).
   */
  | { type: 'kudos.recipient'; kudos: KudosRow; userId: string; deliveredTo?: string; resentTo?: string }
  /** A recipient's thank-you: to the sender (in their DM's thread) or under the announcement. */
  | { type: 'kudos.thanks'; kudos: KudosRow; fromUserId: string; words: string; audience: 'sender' | 'thread' }
  /** Under the announcement: a card that had not arrived was resent and is on its way (no word of a bounce). */
  | { type: 'kudos.resent'; kudos: KudosRow; bounce: BouncedRecipientRow }
  /** In the notification channel: who thanked whom (`picture`: the design's, an https URL an admin set). */
  | { type: 'kudos.announced'; kudos: KudosRow; picture?: string }
  /** To the sender: the API did not answer in time; the order may exist, so do not send again. */
  | { type: 'kudos.outcome_unknown'; kudos: KudosRow }
  /** To the sender: the send was given up. */
  | { type: 'kudos.failed'; kudos: KudosRow; reason: string }
  /** To the sender: a send in several orders of which the first parts went out and a later one was refused. */
  | { type: 'kudos.partial'; kudos: KudosRow; reason: string }
  /** In the channel (under the announcement when there is one): an order finished. */
  | { type: 'order.completed'; orderId: string; counts: DeliveryCounts; kudos?: KudosRow; cardName?: string }
  /** In the channel: an order was placed outside Slack. */
  | {
      type: 'order.external';
      orderId: string;
      cardType: string;
      totalAmount: string;
      currency: string;
      recipientCount: number;
    }
  /** To the requester: (a part of) their reward links. */
  | {
      type: 'reward_links.ready';
      request: RewardLinkRequestRow;
      orderId: string;
      links: string[];
      part: { index: number; count: number };
    }
  | { type: 'reward_links.failed'; request: RewardLinkRequestRow; reason: string }
  /** To approvers: a reward-link request waiting for approval (with Approve/Reject), or as decided. */
  | { type: 'reward_links.approval'; request: RewardLinkRequestRow }
  /** To the requester: the links wait for approval (`asked`: how many messages reached approvers). */
  | { type: 'reward_links.waiting'; request: RewardLinkRequestRow; asked: number }
  /** To the requester: approved (being created) or rejected (nothing charged). */
  | { type: 'reward_links.decided'; request: RewardLinkRequestRow }
  /** To the requester: some parts were created (paid, delivered when ready), the rest refused. */
  | { type: 'reward_links.partial'; request: RewardLinkRequestRow; reason: string }
  /** To approvers: the request in its current state (open with its choices, or decided). */
  | { type: 'approval.request'; approval: ApprovalCase }
  /** To the sender: the send waits for approval. */
  | { type: 'approval.waiting'; approval: ApprovalCase; asked: ApproversAsked }
  /** To the sender: approved, rejected or expired. */
  | { type: 'approval.decided'; approval: ApprovalCase }
  /** An approved send whose order was refused for a fixable reason is back with the approvers. */
  | { type: 'approval.reopened'; approval: ApprovalCase; audience: 'sender' | 'approver' }
  /**
   * To an automation's owner: a run (a celebration, a recurring kudos) did not go out and nothing was
   * charged for it. `next`: refused for good (`not_retried`, the default), waiting and tried again until
   * `until` (`retrying`), or given up at `until` (`given_up`).
   */
  | {
      type: 'automation.refused';
      source: 'birthday' | 'anniversary' | 'recurring';
      localDate: string;
      recipientUserIds: string[];
      reason: string;
      next?: 'not_retried' | 'retrying' | 'given_up';
      /** YYYY-MM-DD (UTC): the last day Kudos tries. */
      until?: string;
    }
  /** In the announcement channel, weekly when an admin turned it on: last week's kudos and the leaders. */
  | { type: 'digest.weekly'; digest: WeeklyDigest };

/** Renders a notice for the chat platform (src/slack/notices/present-notice.ts). */
export type NoticePresenter = (notice: Notice) => RenderedMessage;
