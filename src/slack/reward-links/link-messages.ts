// Messages of reward links: the links by DM (in parts), a failed or partial request, and the
// approvers' request with what the requester is told. Pure builders; every piece of outside text is escaped.
import type { RewardLinkRequestRow } from '../../db/schema/index.js';
import { formatFace } from '../../domain/branded/currency.js';
import { SAFETY_MARGIN_PERCENT } from '../../domain/branded/usd-cost.js';
import { formatUsd } from '../../domain/common/money.js';
import { linkFace } from '../../domain/reward-links/branded-links.js';
import { LinkApproval } from '../ids.js';
import { type Block, context, plain, section, type SlackMessageContent } from '../kit/mrkdwn.js';
import { escapeMrkdwn, mentionUser } from '../kit/mrkdwn-escape.js';

/** One DM with (a part of) the links of a reward-link order. */
export function buildRewardLinksDm(
  request: RewardLinkRequestRow,
  orderId: string,
  links: string[],
  part: { index: number; count: number },
): SlackMessageContent {
  const head = `:link: Your ${request.quantity} reward ${request.quantity === 1 ? 'link' : 'links'} of ${linkFace(request)} (${escapeMrkdwn(request.designName)}) are ready${part.count > 1 ? ` (part ${part.index + 1} of ${part.count})` : ''}. Each link is a gift card: share them privately.`;
  const list = links.map((link) => `• ${escapeMrkdwn(link)}`).join('\n');
  return {
    text: `Your reward links are ready${part.count > 1 ? ` (part ${part.index + 1} of ${part.count})` : ''}:\n${links.join('\n')}`,
    blocks: [
      section(head),
      ...chunkLines(list, 2900).map((chunk) => section(chunk)),
      context(`Order \`${escapeMrkdwn(orderId)}\``),
    ],
  };
}

export function buildRewardLinksFailed(request: RewardLinkRequestRow, reason: string): SlackMessageContent {
  const text = `Your ${request.quantity} reward links of ${linkFace(request)} could not be created: ${reason}`;
  return { text, blocks: [section(`:warning: ${escapeMrkdwn(text)}`)] };
}

/** Some parts of a reward-link request were created, the rest refused: exactly what was charged and what was not. */
export function buildRewardLinksPartial(request: RewardLinkRequestRow, reason: string): SlackMessageContent {
  const missing = request.quantity - request.createdQuantity;
  const text =
    `Only ${request.createdQuantity} of your ${request.quantity} reward links of ${linkFace(request)} were created ` +
    `(${formatUsd(request.costCents ?? request.createdQuantity * request.amountCents)} charged, order${request.orderIds.length === 1 ? '' : 's'} ${request.orderIds.join(', ')}). ` +
    `The other ${missing} could not be created: ${reason} Nothing was charged for them. ` +
    `The ${request.createdQuantity} created links will reach you here once they are ready. To make the rest, ask for ${missing} more.`;
  return { text, blocks: [section(`:warning: ${escapeMrkdwn(text)}`)] };
}

/** Splits newline-separated text into pieces of at most `max` characters, on line boundaries. */
function chunkLines(text: string, max: number): string[] {
  const chunks: string[] = [];
  let current = '';
  for (const line of text.split('\n')) {
    if (current && current.length + 1 + line.length > max) {
      chunks.push(current);
      current = '';
    }
    current = current ? `${current}\n${line}` : line;
  }
  if (current) chunks.push(current);
  return chunks;
}

/**
 * What a request costs in USD as far as is known: what it was charged, else a choice card's (or a USD
 * brand's) total, the judged cost of a branded card (its learned rate plus the safety margin), or
 * that it is known only after charging (no rate learned yet).
 */
function linksCost(request: RewardLinkRequestRow): string {
  if (request.costCents !== null && request.partsCreated > 0) return `${formatUsd(request.costCents)} charged`;
  const judged = formatUsd(request.quantity * request.amountCents);
  if (request.cardType !== 'BRANDED_CARD' || request.faceCurrency === 'USD' || !request.faceCurrency)
    return `${judged} in total`;
  const face = formatFace((request.faceCents ?? 0) * request.quantity, request.faceCurrency);
  if (request.amountCents === 0) return `${face} in total; the USD total is known only after charging`;
  return `${face} in total, up to ${judged} in USD (the learned ${request.faceCurrency} rate plus a ${SAFETY_MARGIN_PERCENT}% safety margin)`;
}

/** A reason without its closing full stop, to sit inside a sentence (a branded card's reason has one). */
function sentence(reason: string): string {
  return reason.replace(/\.$/, '');
}

function linksSummary(request: RewardLinkRequestRow): string {
  return `${request.quantity} reward ${request.quantity === 1 ? 'link' : 'links'} of ${linkFace(request)} (${escapeMrkdwn(request.designName)}), ${linksCost(request)}`;
}

/** The approvers' message about a reward-link request: Approve/Reject while it waits, the decision after. */
export function buildLinkApprovalRequest(request: RewardLinkRequestRow): SlackMessageContent {
  const head = `:link: ${mentionUser(request.requesterUserId)} asks for ${linksSummary(request)}.`;
  const why = request.approvalReason ? `\nIt needs approval: ${escapeMrkdwn(sentence(request.approvalReason))}.` : '';
  const blocks: Block[] = [section(`${head}${why}`)];
  if (request.status === 'awaiting_approval') {
    blocks.push({
      type: 'actions',
      block_id: `${LinkApproval.blockPrefix}${request.id}`,
      elements: [
        {
          type: 'button',
          action_id: LinkApproval.actions.approve,
          text: plain('Approve', 75),
          style: 'primary',
          value: request.id,
          confirm: {
            title: plain('Approve these links?', 100),
            text: plain(`The Rewards balance pays for them: ${linksCost(request)}.`, 300),
            confirm: plain('Approve', 30),
            deny: plain('Not yet', 30),
          },
        },
        {
          type: 'button',
          action_id: LinkApproval.actions.reject,
          text: plain('Reject', 75),
          style: 'danger',
          value: request.id,
          confirm: {
            title: plain('Reject these links?', 100),
            text: plain('Nothing is charged; the requester is told.', 300),
            confirm: plain('Reject', 30),
            deny: plain('Not yet', 30),
          },
        },
      ],
    });
  } else {
    const by = request.decidedBy ? ` by ${mentionUser(request.decidedBy)}` : '';
    blocks.push(
      context(request.status === 'rejected' ? `:no_entry_sign: Rejected${by}.` : `:white_check_mark: Approved${by}.`),
    );
  }
  return {
    text: `Reward-link approval request: ${request.quantity} links of ${linkFace(request)}`,
    blocks,
  };
}

/** To the requester: the links wait for approval. */
export function buildLinksWaiting(request: RewardLinkRequestRow, asked: number): SlackMessageContent {
  const who =
    asked > 0
      ? 'The approvers have been asked.'
      : 'No approver could be reached: ask an admin to set approvers in /kudos settings.';
  const text = `Your ${linksSummary(request)} need approval${request.approvalReason ? ` (${sentence(request.approvalReason)})` : ''}. Nothing is charged until an approver says yes. ${who}`;
  return { text, blocks: [section(`:hourglass_flowing_sand: ${escapeMrkdwn(text)}`)] };
}

/** To the requester: approved (being created) or rejected. */
export function buildLinksDecided(request: RewardLinkRequestRow): SlackMessageContent {
  const what = `Your request for ${request.quantity} reward links of ${linkFace(request)} was ${request.status === 'rejected' ? 'rejected' : 'approved'}`;
  const after =
    request.status === 'rejected'
      ? 'Nothing was charged.'
      : 'They are being created; they will reach you here when ready.';
  const by = request.decidedBy ? ` by ${mentionUser(request.decidedBy)}` : '';
  return {
    text: `${what}. ${after}`,
    blocks: [
      section(
        `${request.status === 'rejected' ? ':no_entry_sign:' : ':white_check_mark:'} ${escapeMrkdwn(what)}${by}. ${after}`,
      ),
    ],
  };
}
