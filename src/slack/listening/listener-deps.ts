// What listeners get: thin handlers call the domain through these.
import type { AppConfig } from '../../config/index.js';
import type { Logger } from '../../config/logger.js';
import type { Database } from '../../db/client.js';
import type { DesignCatalogs } from '../../domain/accounts/design-catalog.js';
import type { RewardsAccounts } from '../../domain/accounts/rewards-accounts.js';
import type { RewardsSetup } from '../../domain/accounts/rewards-connections.js';
import type { ApprovalService } from '../../domain/approvals/approval-service.js';
import type { AutomationService } from '../../domain/automations/automation-runner.js';
import type { WorkflowStepDeps } from '../../domain/automations/workflow-steps.js';
import type { BrandCatalogs } from '../../domain/branded/brand-catalog.js';
import type { Workspace } from '../../domain/common/workspace.js';
import type { FinanceService } from '../../domain/finance/finance-service.js';
import type { SendPolicy } from '../../domain/sending/send-policy.js';
import type { SettingsStore } from '../../domain/workspaces/settings.js';
import type { HomePublisher } from '../home/home-publisher.js';
import type { SlackWorkspaces } from '../web-api/workspace-gateways.js';

export interface ListenerDeps {
  config: AppConfig;
  db: Database;
  logger: Logger;
  /** The Rewards client of a workspace (domain/accounts/rewards-accounts.ts): always asked by workspace. */
  rewards: RewardsAccounts;
  /** Slack, per workspace: `slack.for(workspaceOf(body))` in a listener (src/slack/web-api/workspace-gateways.ts). */
  slack: SlackWorkspaces;
  catalog: DesignCatalogs;
  /** Branded products of each workspace's Rewards account. */
  brands: BrandCatalogs;
  /** Each workspace connects its own Rewards account (distribution mode); undefined: the environment's one account. */
  rewardsSetup?: RewardsSetup | undefined;
  /** Decides whether a send goes ahead; the approvals issue swaps in routing to approvers. */
  policy: SendPolicy;
  /** Tells the worker a send was recorded: it starts placing that one at once. */
  wakeWorker(recordedId?: string): void;
  now(): Date;
  /** The one admin rule (isWorkspaceAdmin), read from this workspace's settings on every call. */
  isAdmin(ws: Workspace, userId: string): Promise<boolean>;
  /** Creates a recorded reward-link request's order(s) in the background (webhooks issue). */
  placeRewardLinks?(requestId: string): void;
  /** Per-workspace settings (database, seeded from the environment). */
  settings: SettingsStore;
  /** Approval requests, decisions, expiry (src/domain/approvals/approval-service.ts). */
  approvals: ApprovalService;
  /** Publishes App Home tabs and keeps them current. */
  home: HomePublisher;
  /** Workflow steps kept until their send has an outcome (domain/automations/workflow-steps.ts); undefined without a key ring. */
  workflowSteps?: WorkflowStepDeps | undefined;
  /** Celebrations and recurring kudos runner (tests call tick). */
  automations: AutomationService;
  /** Low balance, top-ups, spending limits, ledger (src/domain/finance/finance-service.ts). */
  finance: FinanceService;
  /** Campaigns: how long after a create call whose answer was lost an empty search counts as "not created" (domain/finance/campaigns.ts; tests shorten it). */
  campaignSettleMs?: number | undefined;
  /** How long a workflow step waits for its send's outcome before answering (automations/workflow-step.ts; tests shorten it). */
  workflowStepWaitMs?: number | undefined;
  /** Distribution mode: what uninstalling and revoking tokens do (undefined in single-workspace mode). */
  installations?: InstallationEvents | undefined;
}

/** An installation as an event names it: a workspace, or an Enterprise Grid org (org-wide install). */
export interface InstallationRef {
  teamId: string | null;
  enterpriseId: string | null;
  isEnterpriseInstall: boolean;
}

export interface InstallationEvents {
  /** app_uninstalled: the installation's tokens are deleted at once; its data is purged after the retention. */
  uninstalled(installation: InstallationRef): Promise<void>;
  /** tokens_revoked: the installation's own bot token (which ends the installation) and/or its installer's user token, when listed. */
  tokensRevoked(installation: InstallationRef, revoked: { botUserIds: string[]; userIds: string[] }): Promise<void>;
  /** /kudos settings → Delete our data: the workspace's data goes at the next purge, not after the retention. */
  requestDeletion?: (ws: Workspace, actorUserId: string) => Promise<void>;
}

/** Workspace of a request body (team, and enterprise where present). */
export function workspaceOf(body: {
  team?: { id?: string | undefined } | null | undefined;
  team_id?: string | undefined;
  user?: { team_id?: string | undefined } | string | undefined;
  enterprise?: { id?: string | undefined } | null | undefined;
  enterprise_id?: string | null | undefined;
}): {
  teamId: string;
  enterpriseId: string | null;
} {
  const userTeam = typeof body.user === 'object' ? body.user?.team_id : undefined;
  return {
    teamId: body.team?.id ?? body.team_id ?? userTeam ?? 'unknown',
    enterpriseId: body.enterprise?.id ?? body.enterprise_id ?? null,
  };
}
