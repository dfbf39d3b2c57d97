// The approvals flow: a send that needs approval is recorded as `awaiting_approval`, posted to the
// approval channel (or DMed to each approver), decided exactly once (approval-store.ts), then placed
// by the same worker as direct sends. A periodic sweep (approval-sweep.ts) expires old requests,
// re-opens refused sends, re-posts interrupted requests and copies order outcomes into the audit trail.
// The steps live beside this file: approval-posting.ts, approval-decisions.ts, approval-announce.ts.
import type { Logger } from '../../config/logger.js';
import type { Database } from '../../db/client.js';
import type { KudosRow } from '../../db/schema/index.js';
import { createPeriodicJob, type PeriodicJob } from '../../lib/periodic-job.js';
import type { RewardsAccounts } from '../accounts/rewards-accounts.js';
import type { Messenger } from '../common/ports.js';
import type { Workspace } from '../common/workspace.js';
import type { NoticePresenter } from '../notices/notices.js';
import type { AllowanceStanding } from '../sending/allowances.js';
import type { SendPolicy } from '../sending/send-policy.js';
import { createGroupMembership } from '../sending/sender-rules.js';
import { isWorkspaceAdmin, type SettingsStore } from '../workspaces/settings.js';
import { tellDecisionBeforeOutcome } from './approval-announce.js';
import { checkDecider, type Decider, decideRequest, type Refusal } from './approval-decisions.js';
import { approvalPolicy, type ApprovalPolicyDeps, senderStanding } from './approval-policy.js';
import { submitForApproval } from './approval-posting.js';
import type { ApprovalCase, Decision } from './approval-store.js';
import { reopenAfterRefusal, type SweepDeps, sweepOnce, type SweepReport } from './approval-sweep.js';
import { type ApproverDirectory, isApprover } from './approvers.js';

export interface ApprovalsDeps {
  db: Database;
  chat: Messenger;
  present: NoticePresenter;
  rewards: RewardsAccounts;
  settings: SettingsStore;
  directory: ApproverDirectory;
  logger: Logger;
  wakeWorker(): void;
  now: () => Date;
}

export interface ApprovalService {
  /** Routes sends: who may send, allowances and the threshold, from the workspace settings. */
  policy: SendPolicy;
  /** A sender's monthly allowance and what is left of it (the send form's line, App Home). */
  allowance(ws: Workspace, userId: string): Promise<AllowanceStanding>;
  /** A kudos row was recorded as awaiting_approval: create the request and post it to approvers. */
  submit(row: KudosRow, reason: string): Promise<void>;
  /** May this user decide this request now? (Reject checks before opening its modal.) */
  checkDecider(kudosId: string, actor: Decider): Promise<{ ok: true; request: ApprovalCase } | Refusal>;
  /**
   * Takes the decision (exactly once) and returns `announce`, which updates the request messages and
   * tells the sender; listeners call it after their ack.
   */
  decide(
    kudosId: string,
    actor: Decider,
    decision: Decision,
  ): Promise<{ ok: true; announce(): Promise<void> } | Refusal>;
  /** Admins of a workspace: the settings' list, or Slack admins and owners. */
  isAdmin(ws: Workspace, userId: string): Promise<boolean>;
  /** May this person decide approval requests in this workspace (App Home shows them the requests)? */
  isApprover(ws: Workspace, userId: string): Promise<boolean>;
  /**
   * The worker's hook for a refused order: an approved send refused for a fixable reason (limits,
   * balance) goes straight back to the approvers, and the sender hears it once. True when re-opened.
   */
  handleOrderFailure(row: KudosRow): Promise<boolean>;
  /** The worker's hook before a send's outcome edits its sender's DM: the decision is recorded first. */
  beforeOutcomeEdit(row: KudosRow): Promise<void>;
  /** One pass of the periodic work; `now` is injectable for tests. */
  sweep(now?: Date): Promise<SweepReport>;
  start(intervalMs?: number): void;
  stop(): Promise<void>;
}

export function createApprovalService(deps: ApprovalsDeps): ApprovalService {
  const log = deps.logger.child({ part: 'approvals' });
  // What every step is given: the service's deps, logging as the approvals part.
  const steps: SweepDeps = { ...deps, log };
  let sweeps: PeriodicJob<unknown> | undefined;
  let sweeping: Promise<unknown> | undefined;

  const isAdmin = (ws: Workspace, userId: string) =>
    isWorkspaceAdmin({ settings: deps.settings, users: deps.directory.users }, ws, userId);
  const policyDeps: ApprovalPolicyDeps = {
    db: deps.db,
    settings: deps.settings,
    now: deps.now,
    senders: {
      membership: createGroupMembership(deps.directory.users),
      isAdmin,
      ...(deps.directory.users.usergroupHandle
        ? { usergroupHandle: deps.directory.users.usergroupHandle.bind(deps.directory.users) }
        : {}),
    },
  };

  const service: ApprovalService = {
    policy: approvalPolicy(policyDeps),
    allowance: (ws, userId) => senderStanding(policyDeps, ws, userId),
    submit: (row, reason) => submitForApproval(steps, row, reason),
    checkDecider: (kudosId, actor) => checkDecider(steps, kudosId, actor),
    decide: (kudosId, actor, decision) => decideRequest(steps, kudosId, actor, decision),
    handleOrderFailure: (row) => reopenAfterRefusal(steps, row),
    beforeOutcomeEdit: (row) => tellDecisionBeforeOutcome(steps, row),
    isAdmin,

    async isApprover(ws, userId) {
      return isApprover(deps.directory, await deps.settings.get(ws), userId);
    },

    async sweep(now) {
      // One sweep at a time per process; concurrent instances are safe through the store's conditions.
      while (sweeping) await sweeping.catch(() => {});
      const run = sweepOnce(steps, now ?? deps.now());
      sweeping = run;
      try {
        return await run;
      } finally {
        sweeping = undefined;
      }
    },

    start(intervalMs = 30_000) {
      if (sweeps) return;
      sweeps = createPeriodicJob({
        name: 'approvals sweep',
        logger: log,
        periodMs: intervalMs,
        step: () => service.sweep(),
      });
      sweeps.start();
    },

    async stop() {
      const stopping = sweeps?.stop();
      sweeps = undefined;
      await stopping;
      await sweeping?.catch(() => {});
    },
  };
  return service;
}
