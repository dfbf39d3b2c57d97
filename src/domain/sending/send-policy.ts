// Who may send what. Until the approvals feature exists, a send whose total is above the
// approval threshold is refused. The approvals issue replaces `routeSend` (or the SendPolicy
// passed in deps) with one that returns `needs_approval` and routes the send to approvers.
import type { Database } from '../../db/client.js';
import { formatUsd } from '../common/money.js';

export interface SendDraftSummary {
  teamId: string;
  senderUserId: string;
  amountCents: number;
  recipientCount: number;
  totalCents: number;
  /**
   * The total is a branded card's judged USD cost (its estimate plus the safety margin on a learned
   * exchange rate), not an exact price: reasons say so.
   */
  estimated?: boolean;
  /** The recipients' e-mail addresses (the split-send rule compares them with the sender's recent sends). */
  recipientEmails?: string[];
}

export type SendRoute =
  { kind: 'send' } | { kind: 'needs_approval'; reason: string } | { kind: 'refuse'; message: string };

/** What the policy reads through: the database handle or the recording transaction's. */
export type PolicyReader = Pick<Database, 'select' | 'execute'>;

export interface SendPolicy {
  route(draft: SendDraftSummary): Promise<SendRoute> | SendRoute;
  /**
   * Decides again inside the transaction that records the send, under a per-sender lock, so that two
   * sends at once cannot both pass a budget that only one of them fits (see record-send.ts).
   */
  recheck?(db: PolicyReader, draft: SendDraftSummary): Promise<SendRoute>;
  /**
   * Reads from outside the database what `recheck` needs (a sender's user groups), for a caller that
   * records without calling `route` first: `recheck` then makes no outside call under its lock.
   */
  prepare?(draft: SendDraftSummary): Promise<void>;
}

/** Threshold in cents; 0 means every order needs approval. */
export function routeSend(draft: SendDraftSummary, thresholdCents: number): SendRoute {
  const needsApproval = thresholdCents === 0 || draft.totalCents > thresholdCents;
  if (!needsApproval) return { kind: 'send' };
  return {
    kind: 'refuse',
    message:
      thresholdCents === 0
        ? `Every send needs approval, and approvals are not available yet.`
        : `The total (${formatUsd(draft.totalCents)}) is above the ${formatUsd(thresholdCents)} limit that needs approval, and approvals are not available yet. Send less, or to fewer people.`,
  };
}
