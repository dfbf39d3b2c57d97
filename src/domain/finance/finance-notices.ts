// What the money side tells admins, as plain values: src/slack renders them and posts each exactly
// once through the notice outbox (one outbox key per notice and recipient). The domain decides who
// and what; it never builds Slack messages.
import type { BillingDetails, TopUpRequestRow } from '../../db/schema/index.js';
import type { Workspace } from '../common/workspace.js';

/** A top-up request as the domain hands it out: its billing details opened, wherever they are stored. */
export type TopUpRequest = Omit<TopUpRequestRow, 'billing' | 'billingSealed'> & {
  /** Undefined: sealed under a key the ring no longer holds (or no ring at all): not readable. */
  billing: BillingDetails | undefined;
};

export type FinanceNotice =
  | {
      kind: 'low_balance';
      balanceCents: number;
      currency: string;
      thresholdCents: number;
      /** Net order spend of the last 30 days (ledger), or undefined when it could not be read. */
      spend30dCents: number | undefined;
      /** Days the balance lasts at that rate; undefined when nothing was spent. */
      daysLeft: number | undefined;
    }
  | {
      kind: 'insufficient_funds';
      kudosId: string;
      senderUserId: string;
      totalCents: number;
      balanceCents: number | undefined;
      currency: string;
    }
  /** Orders open past the silence threshold and no Rewards webhook meanwhile (webhook-silence.ts). */
  | { kind: 'webhooks_silent'; openOrders: number; oldestOpenSince: Date; lastWebhookAt: Date | null }
  /** A top-up waiting for a second admin: the approval buttons. */
  | { kind: 'top_up_request'; request: TopUpRequest }
  /** The outcome of a top-up request, to the requester. */
  | { kind: 'top_up_outcome'; request: TopUpRequest };

/** Where admin notices go: the admin channel, or each admin by direct message. */
export interface FinanceNotifier {
  /**
   * Tells the workspace's admins, once per `subject` (an outbox key). Returns where it was posted
   * (the messages of an approval request are updated later).
   */
  toAdmins(ws: Workspace, subject: string, notice: FinanceNotice): Promise<Array<{ channel: string; ts: string }>>;
  /** Tells one person, once per `subject`. */
  toUser(ws: Workspace, userId: string, subject: string, notice: FinanceNotice): Promise<void>;
  /** Re-renders the request messages of a top-up after its decision. */
  updateTopUpMessages(request: TopUpRequest): Promise<void>;
}
