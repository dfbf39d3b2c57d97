// The work the app does besides answering Slack: the worker placing orders, background processing of
// webhook events and completion checks, and the periodic passes (approvals, App Home, automations,
// finance, the weekly digest). Built here; started once the HTTP servers listen.
import { randomUUID } from 'node:crypto';

import type { AppConfig } from '../config/index.js';
import type { Logger } from '../config/logger.js';
import { type Database, leavingConnections } from '../db/client.js';
import { createDesignCatalogs, type DesignCatalogs } from '../domain/accounts/design-catalog.js';
import type { RewardsAccounts } from '../domain/accounts/rewards-accounts.js';
import type { RewardsSetup } from '../domain/accounts/rewards-connections.js';
import { type ApprovalService, createApprovalService } from '../domain/approvals/approval-service.js';
import { type AutomationService, createAutomationService } from '../domain/automations/automation-runner.js';
import type { WorkflowStepDeps } from '../domain/automations/workflow-steps.js';
import { type BrandCatalogs, createBrandCatalogs } from '../domain/branded/brand-catalog.js';
import { createFinanceService, type FinanceService } from '../domain/finance/finance-service.js';
import { withSpendingLimits } from '../domain/finance/spending-limits.js';
import { createDigestJob, type DigestJob } from '../domain/recognition/digest.js';
import { createWorker, type KudosWorker, type WorkerOptions } from '../domain/sending/place-sends.js';
import type { SendPolicy } from '../domain/sending/send-policy.js';
import { notifyChannelLookup, type NotifyChannelOf, type SettingsStore } from '../domain/workspaces/settings.js';
import type { AppMetrics } from '../observability/metrics.js';
import { createFinanceNotifier } from '../slack/finance/finance-notifier.js';
import { createHomePublisher, type HomePublisher, type HomePublisherOptions } from '../slack/home/home-publisher.js';
import { presentNotice } from '../slack/notices/present-notice.js';
import type { SlackWorkspaces } from '../slack/web-api/workspace-gateways.js';
import {
  type BackgroundProcessing,
  type BackgroundProcessingOptions,
  createBackgroundProcessing,
} from '../webhooks/processing.js';
import { type AppPart, stopPassesWithin } from './parts.js';
import type { BotIdentity } from './slack-gateway.js';

export interface BackgroundWorkDeps {
  config: AppConfig;
  db: Database;
  logger: Logger;
  now: () => Date;
  metrics: AppMetrics;
  rewardsAccounts: RewardsAccounts;
  rewardsSetup: RewardsSetup | undefined;
  slack: SlackWorkspaces;
  identity: BotIdentity | undefined;
  settings: SettingsStore;
}

export interface BackgroundWorkOptions {
  worker?: (WorkerOptions & { enabled?: boolean }) | undefined;
  webhooks?: (BackgroundProcessingOptions & { enabled?: boolean }) | undefined;
  policy?: SendPolicy | undefined;
  approvalsSweepMs?: number | undefined;
  home?: (HomePublisherOptions & { enabled?: boolean }) | undefined;
  automationsMs?: number | undefined;
  financeSweepMs?: number | undefined;
  digestMs?: number | undefined;
  shutdownGraceMs?: number | undefined;
}

export interface BackgroundWorkPart extends AppPart {
  worker: KudosWorker;
  background: BackgroundProcessing;
  finance: FinanceService;
  approvals: ApprovalService;
  catalog: DesignCatalogs;
  brands: BrandCatalogs;
  digest: DigestJob;
  home: HomePublisher;
  automations: AutomationService;
  /** One policy for every send: the form, the workflow step and automations all meet the known spending limits. */
  sendPolicy: SendPolicy;
  wakeWorker: (recordedId?: string) => void;
  workflowSteps: WorkflowStepDeps | undefined;
  /** Starts the worker, then every pass whose period is not 0. */
  start(): void;
}

export async function createBackgroundWork(
  deps: BackgroundWorkDeps,
  options: BackgroundWorkOptions,
): Promise<BackgroundWorkPart> {
  const { config, db, logger, now, rewardsAccounts, slack, settings } = deps;
  const { background, finance, worker, approvals } = createOrderWork(deps, options);
  const catalog = createDesignCatalogs(rewardsAccounts);
  const brands = createBrandCatalogs(rewardsAccounts);
  const digest = createDigestJob({
    db,
    chat: slack,
    present: presentNotice,
    logger: logger.child({ part: 'digest' }),
    now,
  });
  // Home renders use at most the pool less two connections: acknowledgements and /healthz keep those.
  const home = createHomePublisher(
    {
      db: await leavingConnections(db, 2),
      slack,
      rewards: rewardsAccounts,
      rewardsSetup: deps.rewardsSetup,
      settings,
      approvals,
      finance,
      logger,
      now,
    },
    options.home,
  );
  const wakeWorker = (recordedId?: string) => (recordedId ? worker.placeNow(recordedId) : worker.wake());
  // Workflow steps whose send outlives the event's handler are finished later by any instance with the
  // workflow's token, which is stored sealed: only with a key ring (else the handler's wait is all).
  const workflowSteps = config.keyRing
    ? { db, keyRing: config.keyRing, finisher: slack, logger: logger.child({ part: 'workflow-steps' }), now }
    : undefined;
  const sendPolicy = options.policy ?? withSpendingLimits(approvals.policy, { db, now });
  const automations = createAutomationService(
    {
      db,
      users: slack,
      rewards: rewardsAccounts,
      catalog,
      brands,
      policy: sendPolicy,
      settings,
      approvals,
      wakeWorker,
      now,
      logger: logger.child({ part: 'automations' }),
      notices: { db, chat: slack, present: presentNotice },
      profiles: slack,
      ...(workflowSteps ? { workflowSteps } : {}),
    },
    `automations-${randomUUID().slice(0, 8)}`,
  );
  const work = { worker, background, finance, approvals, catalog, brands, digest, home, automations };
  return {
    ...work,
    sendPolicy,
    wakeWorker,
    workflowSteps,
    start: () => startBackgroundWork(work, options),
    stop: () => stopBackgroundWork(work, options, logger),
  };
}

/** The order pipeline: placing orders, following them up, and what their outcomes set off. */
function createOrderWork(deps: BackgroundWorkDeps, options: BackgroundWorkOptions) {
  const { db, logger, now, metrics, rewardsAccounts, slack, identity, settings } = deps;
  // An order placed outside Slack belongs to the one workspace of single-workspace mode; in
  // distribution mode there is no such workspace, and it is not announced.
  const notifyChannelOf: NotifyChannelOf = identity
    ? notifyChannelLookup(settings, identity.homeWorkspace)
    : async (ws) => (ws ? ((await settings.get(ws)).notifyChannel ?? undefined) : undefined);
  const background = createBackgroundProcessing(
    {
      db,
      rewards: rewardsAccounts,
      chat: slack,
      present: presentNotice,
      notifyChannelOf,
      logger,
      webhooks: deps.config.rewardsWebhooks,
    },
    // One lease setting for every background claim on money (KUDOS_WORKER_LEASE_MS): the worker's and the reward links'.
    options.worker?.leaseMs !== undefined && options.webhooks?.rewardLinkLeaseMs === undefined
      ? { ...options.webhooks, rewardLinkLeaseMs: options.worker.leaseMs }
      : options.webhooks,
  );
  const finance = createFinanceService({
    db,
    rewards: rewardsAccounts,
    settings,
    notifier: createFinanceNotifier({ db, slack, settings, logger }),
    logger,
    now,
    webhooks: deps.config.rewardsWebhooks,
    keyRing: deps.config.keyRing,
  });
  const worker = createWorker(
    {
      db,
      rewards: rewardsAccounts,
      chat: slack,
      present: presentNotice,
      notifyChannelOf,
      logger,
      // Each order's completion check is scheduled in the statement that records it (markPlaced).
      firstCheckDelayMs: background.firstCheckDelayMs,
      onOrderPlaced: async (row) => {
        // The balance check runs on its own and never holds up the worker.
        void finance.lowBalance.afterOrder({ teamId: row.teamId, enterpriseId: row.enterpriseId });
        background.orderPlaced();
      },
      onOrderFailed: async (row) => {
        await finance.lowBalance.onOrderFailed(row);
        return approvals.handleOrderFailure(row);
      },
      beforeOutcomeEdit: (row) => approvals.beforeOutcomeEdit(row),
      onPickup: (seconds) => metrics.observePickupLatency(seconds),
    },
    options.worker,
  );
  const approvals = createApprovalService({
    db,
    chat: slack,
    present: presentNotice,
    rewards: rewardsAccounts,
    settings,
    directory: { users: slack, listUsers: (ws) => slack.listUsers(ws) },
    logger,
    wakeWorker: () => worker.wake(),
    now,
  });
  return { background, finance, worker, approvals };
}

type BackgroundWork = Pick<
  BackgroundWorkPart,
  'worker' | 'background' | 'approvals' | 'home' | 'automations' | 'finance' | 'digest'
>;

function startBackgroundWork(work: BackgroundWork, options: BackgroundWorkOptions): void {
  if (options.worker?.enabled !== false) work.worker.start();
  if (options.webhooks?.enabled !== false) work.background.start();
  if (options.approvalsSweepMs !== 0) work.approvals.start(options.approvalsSweepMs ?? 30_000);
  if (options.home?.enabled !== false) work.home.start();
  if (options.automationsMs !== 0) work.automations.start(options.automationsMs ?? 60_000);
  if (options.financeSweepMs !== 0) work.finance.start(options.financeSweepMs ?? 300_000);
  if (options.digestMs !== 0) work.digest.start(options.digestMs ?? 300_000);
}

/**
 * Every piece stops at once, not one after another: the worker's grace and the passes in flight (a
 * Home refresh, a sweep) run side by side.
 */
async function stopBackgroundWork(work: BackgroundWork, options: BackgroundWorkOptions, logger: Logger): Promise<void> {
  const { worker, background, approvals, home, automations, finance, digest } = work;
  await Promise.all([
    worker.stop(options.shutdownGraceMs ?? 6000),
    background.stop(3000),
    stopPassesWithin({ approvals, home, automations, finance, digest }, logger),
  ]);
}
