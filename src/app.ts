// Wires the app: config -> database (migrated) -> Rewards accounts -> Slack receivers and gateway ->
// settings -> background work -> listeners -> one HTTP server; each part lives in src/app/. startApp is
// used by `npm start`, `npm run dev` and tests.
import { createBackgroundWork } from './app/background-work.js';
import { openChangeFeed, openDatabase } from './app/database.js';
import { startHttpServers } from './app/http-servers.js';
import { createPurges } from './app/installations.js';
import { registerSlackListeners } from './app/listeners.js';
import { type AppPart, stopParts } from './app/parts.js';
import { startRewardsAccounts } from './app/rewards-accounts.js';
import { startSlack } from './app/slack-gateway.js';
import { openSlackReceivers } from './app/slack-receivers.js';
import { startWorkspaceCaches } from './app/workspace-caches.js';
import type { AppConfig } from './config/index.js';
import { createLogger, type Logger } from './config/logger.js';
import type { Database } from './db/client.js';
import type { RewardsAccounts } from './domain/accounts/rewards-accounts.js';
import type { RewardsConnectionStore, RewardsSetup } from './domain/accounts/rewards-connections.js';
import type { ApprovalService } from './domain/approvals/approval-service.js';
import type { AutomationService } from './domain/automations/automation-runner.js';
import type { FinanceService } from './domain/finance/finance-service.js';
import type { RateBudgetOptions, RateBudgets } from './domain/pacing/rewards-rate-budget.js';
import type { DigestJob } from './domain/recognition/digest.js';
import type { KudosWorker, WorkerOptions } from './domain/sending/place-sends.js';
import type { SendPolicy } from './domain/sending/send-policy.js';
import type { ChangeFeed } from './domain/workspaces/change-feed.js';
import type { SettingsStore } from './domain/workspaces/settings.js';
import { type AppMetrics, createMetrics } from './observability/metrics.js';
import type { RewardsClient } from './rewards/index.js';
import type { HomePublisher, HomePublisherOptions } from './slack/home/home-publisher.js';
import type { DistributionTenancy } from './slack/install/tenancy.js';
import type { SlackPacingOptions } from './slack/web-api/pacing.js';
import type { SlackWorkspaces } from './slack/web-api/workspace-gateways.js';
import type { SocketModeConnection, SocketModeConnectionOptions } from './socket-mode/connection.js';
import type { BackgroundProcessing, BackgroundProcessingOptions } from './webhooks/processing.js';

export interface StartAppOptions {
  config: AppConfig;
  /** Default: config.metricsPort. 0 picks a free port. */
  metricsPort?: number;
  /** Default: config.port. 0 picks a free port. */
  port?: number;
  /** Default: config.host (HOST). */
  host?: string;
  /** A database handle to use instead of connecting (tests share one); the caller migrates and closes it. */
  db?: Database | undefined;
  logger?: Logger;
  /** Knobs only tests and benchmarks set; production never does, and runs on their defaults (StartAppTuning). */
  tuning?: StartAppTuning;
}

/**
 * What only tests and benchmarks set: loop periods, clocks, switches for passes a test runs itself,
 * and variants a benchmark compares. Production (src/main.ts, `npm run dev`) never sets any of it, so
 * every default below is what production runs.
 */
export interface StartAppTuning {
  /** Clock of the app. Default: the system clock. */
  now?: () => Date;
  /** The worker's knobs, over StartAppOptions.worker; `enabled: false`: it never starts (the test places sends). */
  worker?: WorkerOptions & { enabled?: boolean };
  /** Webhook event processing, completion checks and notifications; `enabled: false` never starts them. */
  webhooks?: BackgroundProcessingOptions & { enabled?: boolean };
  /** Replaces the approvals routing. Default: the settings' threshold and budget, within the spending limits. */
  policy?: SendPolicy;
  /** Approvals sweep period (expiry, re-opening after refused orders); 0 disables the timer (tests call sweep). Default 30 s. */
  approvalsSweepMs?: number;
  /** App Home re-publishing (poll period, rate); `enabled: false` stops the poll (tests call pollOnce). */
  home?: HomePublisherOptions & { enabled?: boolean };
  /** Automations pass period (celebrations, recurring kudos); 0 disables the timer (tests call tick). Default 60 s. */
  automationsMs?: number;
  /** How long the workflow step's handler waits for its send's outcome. Default 60 s. */
  workflowStepWaitMs?: number;
  /** Campaigns: the settle time of a create whose answer was lost. Default 2 min (domain/finance/campaigns.ts). */
  campaignSettleMs?: number;
  /** Distribution mode: how often uninstalled workspaces' data is purged once due; 0 disables the timer (tests call purgeDue). Default 1 h. */
  purgeMs?: number;
  /** Finance sweep period (low-balance check, top-up settlement); 0 disables the timer (tests call sweep). Default 5 min. */
  financeSweepMs?: number;
  /** Weekly digest pass period; 0 disables the timer (tests call runOnce). Default 5 min. */
  digestMs?: number;
  /**
   * The change feed of the per-workspace caches (src/domain/workspaces/change-feed.ts): its poll period (default
   * 2 s); `false`: no feed, the caches keep their short TTLs; `{ intervalMs: 0 }`: no timer (the test calls
   * `changes.poll()`).
   */
  changeFeed?: { intervalMs?: number } | false;
  /** How long close() lets in-flight orders finish before aborting and releasing them. Default 6 s. */
  shutdownGraceMs?: number;
  /**
   * Each workspace connects its own Rewards account (rewards_connections) instead of the environment's
   * one. Default: on in distribution mode, off in single-workspace mode. Tests turn it on beside a
   * single Slack token to run two workspaces' Rewards accounts side by side.
   */
  rewardsPerWorkspace?: boolean;
  /**
   * The shared Rewards rate budget's figures (default: those of src/domain/pacing/rewards-rate-budget.ts); `false`:
   * none, each client paces itself from its own answers (the benchmark's baseline).
   */
  rateBudget?: RateBudgetOptions | false;
  /**
   * Lost-post recovery may read conversations.history/.replies. Default: yes in single-workspace mode,
   * no in distribution mode (a lost answer is then posted again: src/domain/notices/outbox.ts).
   */
  slackHistoryReads?: boolean;
  /**
   * Pacing to Slack's rate limits (src/slack/web-api/pacing.ts). Default: Slack's documented floors, scaled by
   * KUDOS_SLACK_RATE_SCALE; `scale` multiplies them (a bench against a simulator scaled alike); `false`: unpaced.
   */
  slackPacing?: SlackPacingOptions | false;
  /**
   * Socket Mode reconnect delays (src/socket-mode/connection.ts). Default: 0 s, 1 s, 2 s, 5 s, 10 s, then 30 s;
   * 60 s once Slack refused the token.
   */
  socketMode?: Pick<SocketModeConnectionOptions, 'retryDelaysMs' | 'failedRetryMs'>;
}

export interface RunningApp {
  url: string;
  db: Database;
  worker: KudosWorker;
  /**
   * Single-workspace Rewards: the environment's client. Per workspace: an object whose every use
   * fails (there is no one client); use `rewardsAccounts.for(ws)`.
   */
  rewards: RewardsClient;
  /** How work finds a workspace's Rewards client (src/domain/accounts/rewards-accounts.ts). */
  rewardsAccounts: RewardsAccounts;
  /** The Rewards rate budgets shared through the database (one per account). */
  rateBudgets: RateBudgets;
  /** Per-workspace mode: the connected accounts (undefined in single-workspace Rewards). */
  rewardsConnections: RewardsConnectionStore | undefined;
  /** Per-workspace mode: connect and disconnect a workspace's account (uninstall calls disconnect). */
  rewardsSetup: RewardsSetup | undefined;
  slack: SlackWorkspaces;
  logger: Logger;
  settings: SettingsStore;
  approvals: ApprovalService;
  home: HomePublisher;
  /** Celebrations and recurring kudos (src/domain/automations/automation-runner.ts). */
  automations: AutomationService;
  /** Low balance, top-ups, limits (src/domain/finance/finance-service.ts). */
  finance: FinanceService;
  /** The weekly digest in announcement channels (src/domain/recognition/digest.ts). */
  digest: DigestJob;
  /** Where GET /metrics is served (METRICS_HOST:METRICS_PORT); undefined when that port could not be opened. */
  metricsUrl: string | undefined;
  /** Prometheus metrics of this instance (GET /metrics on metricsUrl). */
  metrics: AppMetrics;
  /** Background processing: webhook events, completion checks, the order poller. */
  background: BackgroundProcessing;
  /** Distribution mode: deletes the data of workspaces uninstalled KUDOS_RETENTION_DAYS ago (the periodic job's pass). */
  purgeDue(): Promise<Array<{ installationKey: string; rows: number }>>;
  /** Distribution mode: installations, InstallProvider, token lookup (undefined in single-workspace mode). */
  tenancy: DistributionTenancy | undefined;
  /** What other instances changed, evicted from this one's caches (undefined with `tuning.changeFeed: false`). */
  changes: ChangeFeed | undefined;
  /** The Socket Mode connection, when SLACK_APP_TOKEN is set. */
  socket: SocketModeConnection | undefined;
  /** Stops accepting requests, finishes or releases in-flight work, closes the database (if ours). */
  close(): Promise<void>;
}

export async function startApp(opts: StartAppOptions): Promise<RunningApp> {
  const { config } = opts;
  const tuning = opts.tuning ?? {};
  const logger = opts.logger ?? createLogger();
  const now = tuning.now ?? (() => new Date());
  // The worker's operations settings come from the environment (KUDOS_WORKER_CONCURRENCY,
  // KUDOS_WORKER_LEASE_MS); a test's knobs go over them.
  const worker: WorkerOptions & { enabled?: boolean } = {
    ...(config.workerConcurrency ? { concurrency: config.workerConcurrency } : {}),
    ...(config.workerLeaseMs ? { leaseMs: config.workerLeaseMs } : {}),
    ...tuning.worker,
  };

  const database = await openDatabase(config, opts.db);
  const { db } = database;
  if (config.mode === 'single' && !config.slackBotToken)
    throw new Error('SLACK_BOT_TOKEN is required in single-workspace mode');
  const metrics = createMetrics({ db });
  const changes = openChangeFeed(db, config, logger, tuning.changeFeed);
  // The base of each workspace's webhook URL: KUDOS_PUBLIC_URL, else where Slack's last request came.
  let seenPublicUrl: string | undefined;
  const rewards = await startRewardsAccounts(
    { config, db, logger, metrics, now, changes, seenPublicUrl: () => seenPublicUrl },
    tuning,
  );
  const onPublicUrl = (url: string) => {
    seenPublicUrl = url;
  };
  const receivers = openSlackReceivers({ config, logger, metrics, onPublicUrl }, tuning.socketMode);
  const slack = startSlack({ config, db, logger, now, changes }, receivers, tuning);
  const { tenancy } = slack;
  const caches = startWorkspaceCaches(
    { config, db, logger, changes, tenancy, rewardsAccounts: rewards.rewardsAccounts },
    tuning.changeFeed,
  );
  const { settings } = caches;
  const work = await createBackgroundWork(
    { ...rewards, config, db, logger, now, metrics, slack: slack.slack, identity: slack.identity, settings },
    { ...tuning, worker },
  );
  registerSlackListeners({ config, db, logger, now, settings, rewards, slack, work }, tuning);
  const http = await startHttpServers(
    { ...rewards, config, db, logger, metrics, receivers, tenancy, background: work.background },
    opts,
  );
  const purges = createPurges({ config, db, logger, now, tenancy }, tuning.purgeMs);

  receivers.start();
  slack.warmUp();
  work.start();
  purges.start();
  logger.info('kudos app listening', { url: http.url, metricsUrl: http.metricsUrl });

  // Stopped in reverse (src/app/parts.ts).
  const parts: AppPart[] = [database, rewards, receivers, slack, caches, work, http, purges];
  let closing: Promise<void> | undefined;
  return {
    url: http.url,
    metricsUrl: http.metricsUrl,
    db,
    worker: work.worker,
    rewards: rewards.rewards,
    rewardsAccounts: rewards.rewardsAccounts,
    rateBudgets: rewards.rateBudgets,
    rewardsConnections: rewards.rewardsConnections,
    rewardsSetup: rewards.rewardsSetup,
    slack: slack.slack,
    logger,
    settings,
    approvals: work.approvals,
    home: work.home,
    automations: work.automations,
    finance: work.finance,
    digest: work.digest,
    metrics,
    socket: receivers.socket,
    tenancy,
    changes,
    purgeDue: purges.purgeDue,
    background: work.background,
    close() {
      closing ??= stopParts(parts).then(() => logger.info('kudos app stopped'));
      return closing;
    },
  };
}
