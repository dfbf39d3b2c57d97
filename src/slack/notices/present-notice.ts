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
import {
  buildBounceDm,
  buildBounceResendFailed,
  buildBounceResolved,
  buildCompletionNotice,
  buildExternalOrderNotice,
  buildSenderCompletionDm,
} from '../orders/order-messages.js';
import { buildWeeklyDigest } from '../recognition/stats-blocks.js';
import {
  buildLinkApprovalRequest,
  buildLinksDecided,
  buildLinksWaiting,
  buildRewardLinksDm,
  buildRewardLinksFailed,
  buildRewardLinksPartial,
} from '../reward-links/link-messages.js';
import {
  buildAnnouncement,
  buildConfirmation,
  buildFailure,
  buildOutcomeUnknown,
  buildPartial,
} from '../sending/send-messages.js';

export const presentNotice: NoticePresenter = (notice) => {
  switch (notice.type) {
    case 'kudos.placed':
      return buildConfirmation(notice.kudos);
    case 'kudos.announced':
      return buildAnnouncement(notice.kudos);
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
    case 'order.delivered':
      return buildSenderCompletionDm(notice.kudos, notice.counts);
    case 'order.bounced':
      return buildBounceDm(notice.bounce);
    case 'bounce.resent':
      return buildBounceResolved(notice.bounce, notice.bounce.correctedEmail ?? '', notice.note);
    case 'bounce.resend_failed':
      return buildBounceResendFailed(notice.bounce, notice.reason);
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
