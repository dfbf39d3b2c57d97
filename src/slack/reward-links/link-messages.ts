// Messages of reward links: the links by DM (in parts), a failed or partial request, and the
// approvers' request with what the requester is told. Pure builders; every piece of outside text is escaped.
import type { RewardLinkRequestRow } from '../../db/schema/index.js';
import { faceAmount, usdInAll, valueInAll } from '../../domain/branded/card-amounts.js';
import { formatUsd } from '../../domain/common/money.js';
import { LinkApproval } from '../ids.js';
import { brandedOf, cardColumns, spendSentence } from '../kit/card-amounts.js';
import { type Block, context, plain, section, type SlackMessageContent } from '../kit/mrkdwn.js';
import { escapeMrkdwn, mentionUser } from '../kit/mrkdwn-escape.js';

/** One link's value: "$25"; a branded card's face in its currency, "£25". */
export function linkAmount(request: RewardLinkRequestRow): string {
  const face = brandedOf(request);
  return face ? faceAmount(face) : formatUsd(request.amountCents);
}

/** `count` links' value: "$250"; a branded card's face with its USD, "£250 (about $333)". */
export function linksValue(request: RewardLinkRequestRow, count: number): string {
  return brandedOf(request) ? valueInAll(cardColumns(request), count) : formatUsd(count * request.amountCents);
}

/** What `count` links cost in USD alone: "$250", "about $333", "USD cost known after ordering". */
function linksUsd(request: RewardLinkRequestRow, count: number): string {
  return brandedOf(request) ? usdInAll(cardColumns(request), count) : formatUsd(count * request.amountCents);
}

/** One DM with (a part of) the links of a reward-link order. */
export function buildRewardLinksDm(
  request: RewardLinkRequestRow,
  orderId: string,
  links: string[],
  part: { index: number; count: number },
): SlackMessageContent {
  const head = `:link: Your ${request.quantity} reward ${request.quantity === 1 ? 'link' : 'links'} of ${linkAmount(request)} (${escapeMrkdwn(request.designName)}) are ready${part.count > 1 ? ` (part ${part.index + 1} of ${part.count})` : ''}. Each link is a gift card: share them privately.`;
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
  const text = `Your ${request.quantity} reward links of ${linkAmount(request)} could not be created: ${reason}`;
  return { text, blocks: [section(`:warning: ${escapeMrkdwn(text)}`)] };
}

/** Some parts of a reward-link request were created, the rest refused: exactly what was charged and what was not. */
export function buildRewardLinksPartial(request: RewardLinkRequestRow, reason: string): SlackMessageContent {
  const missing = request.quantity - request.createdQuantity;
  const text =
    `Only ${request.createdQuantity} of your ${request.quantity} reward links of ${linkAmount(request)} were created ` +
    `(${linksUsd(request, request.createdQuantity)} charged, order${request.orderIds.length === 1 ? '' : 's'} ${request.orderIds.join(', ')}). ` +
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

function linksSummary(request: RewardLinkRequestRow): string {
  return `${request.quantity} reward ${request.quantity === 1 ? 'link' : 'links'} of ${linkAmount(request)} (${escapeMrkdwn(request.designName)}), ${linksValue(request, request.quantity)} in total`;
}

/** The approvers' message about a reward-link request: Approve/Reject while it waits, the decision after. */
export function buildLinkApprovalRequest(request: RewardLinkRequestRow): SlackMessageContent {
  const head = `:link: ${mentionUser(request.requesterUserId)} asks for ${linksSummary(request)}.`;
  const why = request.approvalReason ? `\nIt needs approval: ${escapeMrkdwn(request.approvalReason)}.` : '';
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
            text: plain(spendSentence(request, request.quantity), 300),
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
    text: `Reward-link approval request: ${request.quantity} links of ${linkAmount(request)}`,
    blocks,
  };
}

/** To the requester: the links wait for approval. */
export function buildLinksWaiting(request: RewardLinkRequestRow, asked: number): SlackMessageContent {
  const who =
    asked > 0
      ? 'The approvers have been asked.'
      : 'No approver could be reached: ask an admin to set approvers in /kudos settings.';
  const text = `Your ${linksSummary(request)} need approval${request.approvalReason ? ` (${request.approvalReason})` : ''}. Nothing is charged until an approver says yes. ${who}`;
  return { text, blocks: [section(`:hourglass_flowing_sand: ${escapeMrkdwn(text)}`)] };
}

/** To the requester: approved (being created) or rejected. */
export function buildLinksDecided(request: RewardLinkRequestRow): SlackMessageContent {
  const what = `Your request for ${request.quantity} reward links of ${linkAmount(request)} was ${request.status === 'rejected' ? 'rejected' : 'approved'}`;
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
