// Approval request message (in the approval channel or approvers' DMs), its decided forms, the reject
// modal, and the notices the sender gets. Pure functions of the stored rows.
import type { ApprovalMessageRef, ApprovalRequestRow, KudosRow } from '../../db/schema/index.js';
import type { ApprovalCase } from '../../domain/approvals/approval-store.js';
import { faceAmount, usdInAll } from '../../domain/branded/card-amounts.js';
import { formatUsd } from '../../domain/common/money.js';
import { formatScheduled } from '../../domain/common/zoned-time.js';
import type { ApproversAsked } from '../../domain/notices/notices.js';
import { Approval } from '../ids.js';
import { brandedOf, cardColumns, spendSentence, valueTotal } from '../kit/card-amounts.js';
import { kudosValueLabel } from '../kit/company-value.js';
import type { SlackMessageContent } from '../kit/mrkdwn.js';
import { type Block, context, plain, section } from '../kit/mrkdwn.js';
import { escapeAndClip, escapeMrkdwn, mentionUser } from '../kit/mrkdwn-escape.js';
import { readerTime } from '../kit/reader-time.js';
import { cardsTo, peopleCount, sendRecipients } from '../kit/recipients.js';

type ApprovalView = ApprovalCase;

function quote(message: string): string {
  return escapeAndClip(message, 2500)
    .split('\n')
    .map((line) => `>${line}`)
    .join('\n');
}

/**
 * " ($50 in all)" for several people; nothing for one (the card's amount is the total). A branded
 * card adds its USD: " (*£50* in all, about $67)", " (about $33)", " (USD cost known after ordering)".
 */
function inAll(k: KudosRow): string {
  const face = brandedOf(k);
  if (face) {
    const usd = usdBeside(k);
    if (k.recipientCount > 1) return ` (*${faceAmount(face, k.recipientCount)}* in all${usd ? `, ${usd}` : ''})`;
    return usd ? ` (${usd})` : '';
  }
  return k.recipientCount > 1 ? ` (*${formatUsd(k.totalCents)}* in all)` : '';
}

/** A branded card's USD in all ("about $67", "$63.50", "USD cost known after ordering"); none for a USD face. */
function usdBeside(k: KudosRow): string {
  const face = brandedOf(k);
  return face && face.currency !== 'USD' ? usdInAll(cardColumns(k), k.recipientCount) : '';
}

/** The request's sentence after the card: " *$50* in all." (several people); a branded card's USD always. */
function requestTotal(k: KudosRow): string {
  const face = brandedOf(k);
  if (!face) return k.recipientCount > 1 ? ` *${formatUsd(k.totalCents)}* in all.` : '';
  const usd = usdBeside(k);
  const total = k.recipientCount > 1 ? `*${faceAmount(face, k.recipientCount)}* in all` : '';
  const words = [total, usd].filter((w) => w !== '').join(', ');
  return words ? ` ${words.charAt(0).toUpperCase()}${words.slice(1)}.` : '';
}

export function whenText(k: Pick<KudosRow, 'scheduledAt' | 'scheduleTimezone'>): string {
  return k.scheduledAt ? `scheduled for ${formatScheduled(k.scheduledAt, k.scheduleTimezone ?? 'UTC')}` : 'right away';
}

/**
 * The request as approvers see it: open (with buttons) or decided (outcome, no buttons). The company
 * value is the row's copy, as the sender picked it (a later rename does not change the request).
 */
export function buildApprovalMessage({ kudos: k, request: r }: ApprovalView): SlackMessageContent {
  const value = kudosValueLabel(k);
  const blocks: Block[] = [
    section(
      `:raised_hand: *Kudos approval request*\n${mentionUser(k.senderUserId)} wants to send ${cardsTo(k)}${value ? ` for ${value}` : ''}.${requestTotal(k)}`,
    ),
  ];
  if (k.message.trim() !== '') blocks.push(section(quote(k.message)));
  const when = r.sentNowInsteadOf
    ? `was ${whenText({ scheduledAt: r.sentNowInsteadOf, scheduleTimezone: k.scheduleTimezone })}`
    : whenText(k);
  blocks.push(context(`When: ${escapeMrkdwn(when)} · Why: ${escapeMrkdwn(r.reason)}`));

  const outcome = outcomeLine({ kudos: k, request: r });
  if (outcome) {
    blocks.push(section(outcome, `${Approval.blockPrefix}outcome`));
    return {
      text: `Kudos approval request from ${escapeMrkdwn(k.senderName)}${k.valueName ? ` for ${escapeMrkdwn(k.valueName)}` : ''}: ${outcomeWord(r)}`,
      blocks,
    };
  }
  if (r.lastFailureCode) {
    const by = r.decidedBy ? `Approved by ${mentionUser(r.decidedBy)}, but the` : 'The';
    blocks.push(
      section(
        `:warning: ${by} order could not be placed: ${escapeMrkdwn(r.lastFailureMessage ?? r.lastFailureCode)}\nApprove it again once that is fixed, or reject it.`,
      ),
    );
  }
  blocks.push(context(`Expires ${readerTime(r.expiresAt)} if nobody decides.`));
  blocks.push({
    type: 'actions',
    block_id: `${Approval.blockPrefix}${k.id}`,
    elements: [
      {
        type: 'button',
        action_id: Approval.actions.approve,
        text: plain('Approve', 75),
        style: 'primary',
        value: k.id,
        confirm: {
          title: plain('Approve this kudos?', 100),
          text: plain(spendSentence(k, k.recipientCount), 300),
          confirm: plain('Approve', 30),
          deny: plain('Not yet', 30),
        },
      },
      {
        type: 'button',
        action_id: Approval.actions.reject,
        text: plain('Reject', 75),
        style: 'danger',
        value: k.id,
        confirm: {
          title: plain('Reject this kudos?', 100),
          text: plain('You can give a reason next; the sender is told.', 300),
          confirm: plain('Reject', 30),
          deny: plain('Not yet', 30),
        },
      },
    ],
  });
  return {
    text: `Kudos approval request: ${escapeMrkdwn(k.senderName)} wants to send ${valueTotal(k)} to ${peopleCount(k.recipientCount)}${k.valueName ? ` for ${escapeMrkdwn(k.valueName)}` : ''}`,
    blocks,
  };
}

function outcomeWord(r: ApprovalRequestRow): string {
  return r.status === 'approved'
    ? 'approved'
    : r.status === 'rejected'
      ? 'rejected'
      : r.status === 'expired'
        ? 'expired'
        : 'waiting';
}

function outcomeLine({ request: r }: ApprovalView): string | undefined {
  const at = r.decidedAt ? readerTime(r.decidedAt) : '';
  switch (r.status) {
    case 'approved': {
      const by = r.decidedBy ? ` by ${mentionUser(r.decidedBy)}` : '';
      const now = r.sentNowInsteadOf ? ' Its scheduled time had passed or was too close, so it is sent now.' : '';
      return `:white_check_mark: *Approved*${by} on ${at}.${now}`;
    }
    case 'rejected': {
      const by = r.decidedBy ? ` by ${mentionUser(r.decidedBy)}` : '';
      return `:x: *Rejected*${by} on ${at}. ${r.rejectReason ? `Reason: ${escapeMrkdwn(r.rejectReason)}` : 'No reason given.'}`;
    }
    case 'expired':
      return `:hourglass: *Expired* on ${at} without a decision. Nothing was sent.`;
    default:
      return undefined;
  }
}

/** What the sender is told while the request waits. */
export function buildWaitingNotice(view: ApprovalView, asked: ApproversAsked): SlackMessageContent {
  const k = view.kudos;
  const approversText = askedText(asked);
  const text = `:hourglass_flowing_sand: Your kudos, ${cardsTo(k)}${inAll(k)}${k.scheduledAt ? `, ${escapeMrkdwn(whenText(k))}` : ''}, needs approval because ${escapeMrkdwn(view.request.reason)}. It is waiting for ${approversText}; it expires ${readerTime(view.request.expiresAt)} if nobody decides.`;
  return { text: `Your kudos is waiting for approval (${valueTotal(k)}).`, blocks: [section(text)] };
}

export function buildDecisionNotice(view: ApprovalView): SlackMessageContent {
  const k = view.kudos;
  const r = view.request;
  const who = `Your kudos to ${sendRecipients(k)} (${valueTotal(k)})`;
  switch (r.status) {
    case 'approved': {
      const now = r.sentNowInsteadOf
        ? ` It was ${escapeMrkdwn(whenText({ scheduledAt: r.sentNowInsteadOf, scheduleTimezone: k.scheduleTimezone }))}; that time has passed or is too close to keep, so it is sent now.`
        : '';
      return {
        text: `Your kudos was approved${r.sentNowInsteadOf ? ' and is sent now' : ''}.`,
        blocks: [section(`:white_check_mark: ${who} was approved by ${mentionUser(r.decidedBy ?? '')}.${now}`)],
      };
    }
    case 'rejected':
      return {
        text: `Your kudos was rejected.${r.rejectReason ? ` Reason: ${escapeMrkdwn(r.rejectReason)}` : ''}`,
        blocks: [
          section(
            `:x: ${who} was rejected by ${mentionUser(r.decidedBy ?? '')}. ${r.rejectReason ? `Reason: ${escapeMrkdwn(r.rejectReason)}` : 'No reason given.'} Nothing was sent.`,
          ),
        ],
      };
    case 'expired':
      return {
        text: 'Your kudos request expired without a decision.',
        blocks: [section(`:hourglass: ${who} expired: nobody approved it in time. Nothing was sent.`)],
      };
    default:
      return { text: 'Your kudos is waiting for approval.', blocks: [section(`${who} is waiting for approval.`)] };
  }
}

/** After an approved order was refused for a fixable reason: to the sender and to the approver. */
export function buildReopenedNotice(view: ApprovalView, audience: 'sender' | 'approver'): SlackMessageContent {
  const k = view.kudos;
  const reason = escapeMrkdwn(
    view.request.lastFailureMessage ?? view.request.lastFailureCode ?? 'the Rewards API refused it',
  );
  const what =
    audience === 'sender'
      ? `Your approved kudos to ${sendRecipients(k)}`
      : `The kudos you approved from ${mentionUser(k.senderUserId)} to ${sendRecipients(k)}`;
  const next =
    audience === 'sender'
      ? 'It is back with the approvers, who can approve it again once that is fixed.'
      : 'The request is open again: approve it once that is fixed, or reject it.';
  return {
    text: `An approved kudos could not be placed: ${reason}`,
    blocks: [section(`:warning: ${what} (${valueTotal(k)}) could not be placed: ${reason} ${next}`)],
  };
}

/** `seenIn`: the request message whose Reject opened it (its copy is updated with the decision). */
export function buildRejectModal(input: {
  kudosId: string;
  summary: string;
  seenIn?: ApprovalMessageRef | undefined;
}): Record<string, unknown> {
  return {
    type: 'modal',
    callback_id: Approval.rejectModal.callbackId,
    private_metadata: JSON.stringify({ kudosId: input.kudosId, ...(input.seenIn ? { seenIn: input.seenIn } : {}) }),
    title: plain('Reject kudos', 24),
    submit: plain('Reject', 24),
    close: plain('Back', 24),
    blocks: [
      section(input.summary),
      {
        type: 'input',
        block_id: Approval.rejectModal.blocks.reason,
        optional: true,
        label: plain('Reason (the sender sees it)'),
        element: {
          type: 'plain_text_input',
          action_id: Approval.rejectModal.actions.reason,
          multiline: true,
          max_length: 500,
        },
      },
    ],
  };
}

export function rejectSummary(k: KudosRow): string {
  return `${mentionUser(k.senderUserId)} → ${sendRecipients(k, k.recipientCount, 5)} · ${valueTotal(k)}`;
}

function askedText(asked: ApproversAsked): string {
  switch (asked.kind) {
    case 'channel':
      return `the approvers in <#${asked.channel}>`;
    case 'people':
      return asked.userIds.map(mentionUser).join(', ');
    case 'unreachable':
      return 'an approver, but none could be reached: ask an admin to set approvers in `/kudos settings`';
    case 'unknown':
      return 'the approvers';
  }
}
