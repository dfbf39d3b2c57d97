// The domain's notices (src/domain/notices/notices.ts) as Slack messages: one case per notice, each one of
// the pure Block Kit builders of the feature the notice is about.
import type { NoticePresenter } from '../../domain/notices/notices.js';
import {
  buildApprovalMessage,
  buildDecisionNotice,
  buildReopenedNotice,
  buildWaitingNotice,
} from '../approvals/approval-blocks.js';
import { buildAutomationRefused } from '../automations/automation-blocks.js';
import { buildCompletionNotice, buildExternalOrderNotice } from '../orders/order-messages.js';
import { buildWeeklyDigest } from '../recognition/stats-blocks.js';
import {
  buildLinkApprovalRequest,
  buildLinksDecided,
  buildLinksWaiting,
  buildRewardLinksDm,
  buildRewardLinksFailed,
  buildRewardLinksPartial,
} from '../reward-links/link-messages.js';
import { buildRecipientDm, buildResentNotice, buildThanks } from '../sending/recipient-messages.js';
import { buildAnnouncement, buildFailure, buildOutcomeUnknown, buildPartial } from '../sending/send-messages.js';
import { buildSenderDm } from '../sending/sender-dm-blocks.js';

export const presentNotice: NoticePresenter = (notice) => {
  switch (notice.type) {
    case 'kudos.placed':
      return buildSenderDm({ type: 'kudos.sender_dm', kudos: notice.kudos, delivered: false, bounces: [], untold: [] });
    case 'kudos.sender_dm':
      return buildSenderDm(notice);
    case 'kudos.recipient':
      return buildRecipientDm(notice);
    case 'kudos.thanks':
      return buildThanks(notice);
    case 'kudos.resent':
      return buildResentNotice(notice.bounce);
    case 'kudos.announced':
      return buildAnnouncement(notice.kudos, notice.picture);
    case 'kudos.outcome_unknown':
      return buildOutcomeUnknown(notice.kudos);
    case 'kudos.failed':
      return buildFailure(notice.kudos, notice.reason);
    case 'kudos.partial':
      return buildPartial(notice.kudos, notice.reason);
    case 'order.completed':
      return buildCompletionNotice({
        orderId: notice.orderId,
        counts: notice.counts,
        ...(notice.kudos ? { kudos: notice.kudos } : {}),
        ...(notice.cardName ? { cardName: notice.cardName } : {}),
      });
    case 'order.external':
      return buildExternalOrderNotice(notice);
    case 'reward_links.ready':
      return buildRewardLinksDm(notice.request, notice.orderId, notice.links, notice.part);
    case 'reward_links.failed':
      return buildRewardLinksFailed(notice.request, notice.reason);
    case 'reward_links.approval':
      return buildLinkApprovalRequest(notice.request);
    case 'reward_links.waiting':
      return buildLinksWaiting(notice.request, notice.asked);
    case 'reward_links.decided':
      return buildLinksDecided(notice.request);
    case 'reward_links.partial':
      return buildRewardLinksPartial(notice.request, notice.reason);
    case 'approval.request':
      return buildApprovalMessage(notice.approval);
    case 'approval.waiting':
      return buildWaitingNotice(notice.approval, notice.asked);
    case 'approval.decided':
      return buildDecisionNotice(notice.approval);
    case 'approval.reopened':
      return buildReopenedNotice(notice.approval, notice.audience);
    case 'automation.refused':
      return buildAutomationRefused(notice);
    case 'digest.weekly':
      return buildWeeklyDigest({
        weekLabel: weekLabel(notice.digest.weekStart),
        weekCount: notice.digest.weekCount,
        weekPlusOnes: notice.digest.weekPlusOnes,
        weekValues: notice.digest.weekValues ?? [],
        board: notice.digest.board,
        amounts: notice.digest.amounts,
      });
  }
};

/** "Nov 16 – Nov 22" for the week starting on that Monday (UTC). */
function weekLabel(monday: Date): string {
  const day = (d: Date) => d.toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
  return `${day(monday)} – ${day(new Date(monday.getTime() + 6 * 24 * 3_600_000))}`;
}
