// The periodic approvals sweep (every instance; every step claim-safe): copies order outcomes into the
// audit trail, re-opens approved sends whose order the API refused for a fixable reason, expires old
// requests, tells senders a dead process left untold, and re-posts requests whose posting was
// interrupted.
import type { KudosRow } from '../../db/schema/index.js';
import type { RewardsAccounts } from '../accounts/rewards-accounts.js';
import { kudosPartKey } from '../sending/kudos-parts.js';
import { promoteFoundKudosOrder } from '../sending/kudos-store.js';
import { recordOrderEvents } from '../workspaces/audit-trail.js';
import { askedOf, tellDecision, tellReopened, tellSenderOnce, updateRequestMessages } from './approval-announce.js';
import { type PostingDeps, postRequest, submitForApproval } from './approval-posting.js';
import {
  type ApprovalCase,
  expireDue,
  findReopenable,
  findUnposted,
  findUntoldSenders,
  getApprovalCase,
  REOPENABLE_FAILURES,
  reopenAfterFailure,
  SENDER_NOTICE,
} from './approval-store.js';

export interface SweepDeps extends PostingDeps {
  rewards: RewardsAccounts;
  wakeWorker(): void;
}

export interface SweepReport {
  auditedOrders: number;
  reopened: number;
  expired: number;
  reposted: number;
  /** Senders told late (waiting or decision) after the process that should have told them died. */
  toldLate: number;
}

/**
 * The worker's hook for a refused order: an approved send refused for a fixable reason (limits,
 * balance) goes straight back to the approvers, and the sender hears it once. True when re-opened.
 */
export async function reopenAfterRefusal(deps: SweepDeps, row: KudosRow): Promise<boolean> {
  if (!row.errorCode || !(REOPENABLE_FAILURES as readonly string[]).includes(row.errorCode)) return false;
  const failed = await getApprovalCase(deps.db, row.id);
  if (!failed || failed.request.status !== 'approved') return false;
  return reopen(deps, failed, deps.now());
}

/** Puts one failed approved send back to the approvers; false when it is not (or no longer) theirs. */
async function reopen(deps: SweepDeps, failed: ApprovalCase, now: Date): Promise<boolean> {
  // Only when the refused key really produced no order (a timed-out earlier try could have). A send in
  // parts stops at the first part it cannot place: that part's own key is the one to look up (the
  // send's key is never an order's), or the re-opened send, under a fresh key, would pay it twice.
  const key = kudosPartKey(failed.kudos, failed.kudos.partsPlaced);
  const existing = await (await deps.rewards.for(failed.kudos)).orders.list({ clientOrderId: key });
  const found = existing.data[0];
  if (found) {
    // The send went out after all: recorded as placed (the worker tells the sender), never re-opened.
    deps.log.warn('not re-opening: an order exists for the failed key; recorded as placed', {
      kudosId: failed.kudos.id,
      orderId: found.orderId,
    });
    const promoted = await promoteFoundKudosOrder(deps.db, failed.kudos, key, found);
    if (promoted) deps.wakeWorker();
    return false;
  }
  const settings = await deps.settings.get({ teamId: failed.kudos.teamId });
  const reopened = await reopenAfterFailure(
    deps.db,
    failed,
    new Date(now.getTime() + settings.approvalExpiryHours * 3_600_000),
  );
  if (!reopened) return false;
  deps.log.info('approved send re-opened after a refused order', {
    kudosId: reopened.kudos.id,
    code: reopened.request.lastFailureCode,
  });
  await updateRequestMessages(deps, reopened);
  await tellReopened(deps, reopened);
  return true;
}

/** One pass; a step that fails is logged and the next one runs. */
export async function sweepOnce(deps: SweepDeps, now: Date): Promise<SweepReport> {
  const report: SweepReport = { auditedOrders: 0, reopened: 0, expired: 0, reposted: 0, toldLate: 0 };
  const step = async (name: string, fn: () => Promise<void>) => {
    try {
      await fn();
    } catch (error) {
      deps.log.error(`approvals sweep: ${name} failed`, { error });
    }
  };
  await step('order audit', async () => {
    report.auditedOrders = await recordOrderEvents(deps.db, 'all-workspaces');
  });
  await step('reopen', async () => {
    for (const failed of await findReopenable(deps.db)) {
      if (await reopen(deps, failed, now)) report.reopened++;
    }
  });
  await step('expire', async () => {
    for (const expired of await expireDue(deps.db, now)) {
      report.expired++;
      deps.log.info('approval request expired', { kudosId: expired.kudos.id });
      await updateRequestMessages(deps, expired);
      await tellDecision(deps, expired);
    }
  });
  await step('untold senders', async () => {
    for (const untold of await findUntoldSenders(deps.db, now)) {
      report.toldLate++;
      deps.log.info('telling a sender late', { kudosId: untold.kudos.id, notice: untold.notice });
      if (untold.notice === SENDER_NOTICE.decision) {
        // The request messages may still show the buttons too (chat.update is safe to repeat).
        await updateRequestMessages(deps, untold);
        await tellDecision(deps, untold);
      } else if (untold.notice === SENDER_NOTICE.reopened) {
        // A process that died after re-opening may not have put the buttons back either.
        await updateRequestMessages(deps, untold);
        await tellReopened(deps, untold);
      } else {
        await tellSenderOnce(deps, untold, untold.notice, {
          type: 'approval.waiting',
          approval: untold,
          asked: askedOf(untold),
        });
      }
    }
  });
  await step('repost', async () => {
    const { requests, orphans } = await findUnposted(deps.db, now);
    for (const r of requests) {
      report.reposted++;
      await postRequest(deps, r.id, r.kudosId);
    }
    for (const row of orphans) {
      report.reposted++;
      await submitForApproval(deps, row, 'it needs approval');
    }
  });
  return report;
}
