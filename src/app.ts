// Wires the app: config -> database (migrated) -> Rewards client -> Bolt (custom receiver) ->
// listeners -> worker -> one HTTP server. startApp is used by `npm start`, `npm run dev` and tests.
import { randomUUID } from 'node:crypto';
import { createAutomationService, type AutomationService } from './domain/automations/automation-runner.js';
import { App, LogLevel, webApi, type Authorize, type Logger as BoltLogger } from '@slack/bolt';
import type { AppConfig } from './config/index.js';
import { createLogger, type Logger } from './config/logger.js';
import { sql } from 'drizzle-orm';
import { connectDatabase, leavingConnections, rowsOf, type Database } from './db/client.js';
import { migrateDatabase } from './db/migrate.js';
import { createApprovalService, type ApprovalService } from './domain/approvals/approval-service.js';
import { createChangeFeed, type ChangeFeed } from './domain/workspaces/change-feed.js';
import {
  createSettingsStore,
  notifyChannelLookup,
  type NotifyChannelOf,
  type SettingsStore,
  type WorkspaceRef,
} from './domain/workspaces/settings.js';
import { createDesignCatalogs } from './domain/accounts/design-catalog.js';
import {
  createRewardsConnectionStore,
  createRewardsSetup,
  type RewardsConnectionStore,
  type RewardsSetup,
} from './domain/accounts/rewards-connections.js';
import {
  RewardsNotConnectedError,
  singleRewardsAccount,
  workspaceRewardsAccounts,
  type RewardsAccounts,
} from './domain/accounts/rewards-accounts.js';
import { createFinanceService, type FinanceService } from './domain/finance/finance-service.js';
import { createDigestJob, type DigestJob } from './domain/recognition/digest.js';
import { withSpendingLimits } from './domain/finance/spending-limits.js';
import type { SendPolicy } from './domain/sending/send-policy.js';
import { createRateBudgets, type RateBudgetOptions, type RateBudgets } from './domain/pacing/rewards-rate-budget.js';
import { createWorker, type KudosWorker, type WorkerOptions } from './domain/sending/place-sends.js';
import { createHealthRoute } from './http/health-route.js';
import type { RouteDeps } from './http/routes.js';
import { startHttpServer } from './http/server.js';
import { createMetrics, type AppMetrics } from './observability/metrics.js';
import { createMetricsRoute } from './observability/metrics-route.js';
import { SlackReceiver } from './http/slack-receiver.js';
import { createConnectionWebhooksRoute, createWebhooksRoute } from './http/webhooks-route.js';
import {
  createBackgroundProcessing,
  type BackgroundProcessing,
  type BackgroundProcessingOptions,
} from './webhooks/processing.js';
import { createRewardsClient, type RewardsClient } from './rewards/index.js';
import type { InstallationEvents, InstallationRef, ListenerDeps } from './slack/listening/listener-deps.js';
import { createDirectWebApi } from './slack/web-api/direct-web-api.js';
import { createFinanceNotifier } from './slack/finance/finance-notifier.js';
import { createSlackGateway, createUserLister, POST_CLIENT_OPTIONS } from './slack/web-api/gateway.js';
import { createSlackPacer, UNPACED, type SlackPacer, type SlackPacingOptions } from './slack/web-api/pacing.js';
import { createCallSchedules } from './domain/pacing/slack-call-schedules.js';
import { perWorkspace, singleWorkspace, type SlackWorkspaces } from './slack/web-api/workspace-gateways.js';
import { createDistributionTenancy, type DistributionTenancy } from './slack/install/tenancy.js';
import { presentNotice } from './slack/notices/present-notice.js';
import { registerListeners } from './slack/index.js';
import { createHomePublisher, type HomePublisher, type HomePublisherOptions } from './slack/home/home-publisher.js';
import { ackUnanswered, dropRedeliveredEvents } from './slack/listening/middleware.js';
import { createEventReceipts } from './domain/workspaces/event-receipts.js';
import { purgeDueWorkspaces, purgeWorkspaceData } from './domain/workspaces/data-purge.js';
import { stopWithin } from './lib/stop-within.js';
import { createPeriodicJob } from './lib/periodic-job.js';
import { SocketModeConnection, type SocketModeConnectionOptions } from './socket-mode/connection.js';

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
  worker?: WorkerOptions & { enabled?: boolean };
  /** Webhook event processing, completion checks and notifications (webhooks issue). */
  webhooks?: BackgroundProcessingOptions & { enabled?: boolean };
  /** Replaces the approvals routing (threshold and budget from the settings). */
  policy?: SendPolicy;
  /** Approvals sweep period (expiry, re-opening after refused orders); 0 disables the timer (tests call sweep). Default 30 s. */
  approvalsSweepMs?: number;
  /** App Home re-publishing (poll period, rate); `enabled: false` stops the poll (tests call pollOnce). */
  home?: HomePublisherOptions & { enabled?: boolean };
  /** Automations pass period (celebrations, recurring kudos); 0 disables the timer (tests call tick). Default 60 s. */
  automationsMs?: number;
  /** How long the workflow step's handler waits for its send's outcome (default 60 s; tests: 0). */
  workflowStepWaitMs?: number;
  /** Campaigns: the settle time of a create whose answer was lost (domain/finance/campaigns.ts CREATE_SETTLE_MS). */
  campaignSettleMs?: number;
  /** Distribution mode: how often uninstalled workspaces' data is purged once due; 0 disables the timer (tests call purgeDue). Default 1 h. */
  purgeMs?: number;
  /** Finance sweep period (low-balance check, top-up settlement); 0 disables the timer (tests call sweep). Default 5 min. */
  financeSweepMs?: number;
  /** Weekly digest pass period; 0 disables the timer (tests call runOnce). Default 5 min. */
  digestMs?: number;
  /**
   * The change feed of the per-workspace caches (src/domain/workspaces/change-feed.ts): its poll period (default
   * 2 s); `false`: no feed, the caches keep their short TTLs (tests that call `changes.poll()` themselves
   * pass `{ intervalMs: 0 }`: no timer).
   */
  changeFeed?: { intervalMs?: number } | false;
  /** Clock of the app (tests). */
  now?: () => Date;
  /** How long close() lets in-flight orders finish before aborting and releasing them. Default 6 s. */
  shutdownGraceMs?: number;
  /**
   * Each workspace connects its own Rewards account (rewards_connections) instead of the environment's
   * one. Default: on in distribution mode, off in single-workspace mode. Tests turn it on beside a
   * single Slack token to run two workspaces' Rewards accounts side by side.
   */
  rewardsPerWorkspace?: boolean;
  /**
   * The shared Rewards rate budget's figures (tests, benchmarks; src/domain/pacing/rewards-rate-budget.ts); `false`:
   * none, each client paces itself from its own answers (the benchmark's baseline).
   */
  rateBudget?: RateBudgetOptions | false;
  /**
   * Lost-post recovery may read conversations.history/.replies. Default: yes in single-workspace mode,
   * no in distribution mode (a lost answer is then posted again: src/domain/notices/outbox.ts).
   */
  slackHistoryReads?: boolean;
  /**
   * Pacing to Slack's rate limits (src/slack/web-api/pacing.ts): on by default, at Slack's documented floors;
   * `scale` multiplies them (a bench against a simulator scaled alike); `false`: unpaced.
   */
  slackPacing?: SlackPacingOptions | false;
  /** Socket Mode tuning (tests): reconnect delays. */
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
  /** What other instances changed, evicted from this one's caches (undefined with `changeFeed: false`). */
  changes: ChangeFeed | undefined;
  /** The Socket Mode connection, when SLACK_APP_TOKEN is set. */
  socket: SocketModeConnection | undefined;
  /** Stops accepting requests, finishes or releases in-flight work, closes the database (if ours). */
  close(): Promise<void>;
}

export async function startApp(opts: StartAppOptions): Promise<RunningApp> {
  const { config } = opts;
  const logger = opts.logger ?? createLogger();
  const now = opts.now ?? (() => new Date());

  let ownDb: { close(): Promise<void> } | undefined;
  let db = opts.db;
  if (!db) {
    const conn = await connectDatabase({ databaseUrl: config.databaseUrl, pgliteDir: config.pgliteDir });
    await migrateDatabase(conn);
    db = conn.db;
    ownDb = conn;
  }

  // Single-workspace mode: SLACK_BOT_TOKEN. Distribution mode: no token of its own; each workspace's
  // installation has one (src/slack/install/tenancy.ts).
  const botToken = config.mode === 'single' ? config.slackBotToken : undefined;
  if (config.mode === 'single' && !botToken) throw new Error('SLACK_BOT_TOKEN is required in single-workspace mode');
  const metrics = createMetrics({ db });
  // What other instances changed (installations, settings, Rewards connections), for the caches below.
  const changes =
    opts.changeFeed === false
      ? undefined
      : createChangeFeed({
          db,
          installations: config.mode === 'distribution',
          ...(opts.changeFeed?.intervalMs ? { intervalMs: opts.changeFeed.intervalMs } : {}),
          onError: (error) =>
            logger.warn('the change feed could not be read; per-workspace caches keep their short TTLs until it can', {
              error,
            }),
        });
  // One rate budget per Rewards account, shared by every instance (src/domain/pacing/rewards-rate-budget.ts).
  const rateBudgets = createRateBudgets(db, {
    onError: (error) =>
      logger.warn('the shared Rewards rate budget could not be read or written; pacing locally', { error }),
    ...(opts.rateBudget || {}),
  });
  const newRewardsClient = (credentials: { clientId: string; clientSecret: string }, account: string) =>
    createRewardsClient({
      baseUrl: config.rewardsApiUrl,
      clientId: credentials.clientId,
      clientSecret: credentials.clientSecret,
      onCall: (info) => metrics.observeRewardsCall(info),
      ...(opts.rateBudget === false ? {} : { rateGate: rateBudgets.gate(account) }),
    });
  // Which Rewards account serves a workspace (ARCHITECTURE.md, "Which Rewards account").
  const rewardsPerWorkspace = opts.rewardsPerWorkspace ?? (config.mode as string) === 'distribution';
  let rewardsConnections: RewardsConnectionStore | undefined;
  let rewardsSetup: RewardsSetup | undefined;
  // The base of each workspace's webhook URL: KUDOS_PUBLIC_URL, else where Slack's last request came.
  let seenPublicUrl: string | undefined;
  let rewardsAccounts: RewardsAccounts;
  let rewards: RewardsClient;
  if (rewardsPerWorkspace) {
    if (!config.keyRing)
      throw new Error(
        'KUDOS_ENCRYPTION_KEY is required when each workspace connects its own Rewards account (its secrets are stored sealed)',
      );
    const store = createRewardsConnectionStore({ db, keyRing: config.keyRing, now });
    rewardsConnections = store;
    const accounts = workspaceRewardsAccounts(store, (connection) => newRewardsClient(connection, connection.id), {
      listConnected: () => store.listConnected(),
      ...(changes ? { changes } : {}),
    });
    rewardsAccounts = accounts;
    rewardsSetup = createRewardsSetup({
      db,
      store,
      evict: (ws) => accounts.evict(ws),
      isConnected: (ws) => accounts.isConnected(ws),
      publicUrl: () => config.publicUrl ?? seenPublicUrl,
      // Inside Slack's 3 s: one token and one balance call, no retries.
      verify: async (credentials) => {
        const probe = createRewardsClient({
          baseUrl: config.rewardsApiUrl,
          ...credentials,
          timeoutMs: 2000,
          maxRetries: 0,
        });
        try {
          await probe.balance.get({ timeoutMs: 2000 });
        } finally {
          await probe.close();
        }
      },
    });
    rewards = noSingleClient();
  } else {
    rewardsAccounts = singleRewardsAccount(
      newRewardsClient(
        { clientId: config.rewardsClientId ?? '', clientSecret: config.rewardsClientSecret ?? '' },
        `env:${config.rewardsClientId ?? ''}`,
      ),
    );
    rewards = await rewardsAccounts.for({ teamId: '' });
  }

  // POST /slack/events whenever there is a signing secret (always over HTTP; optional in Socket Mode).
  const httpReceiver = config.slackSigningSecret
    ? new SlackReceiver({
        signingSecret: config.slackSigningSecret,
        logger: logger.child({ part: 'receiver' }),
        onPublicUrl: (url) => {
          seenPublicUrl = url;
        },
      })
    : undefined;
  const socket = config.slackAppToken
    ? new SocketModeConnection({
        appToken: config.slackAppToken,
        slackApiUrl: config.slackApiUrl,
        logger: logger.child({ part: 'socket' }),
        onStateChange: (state) => metrics.setSlackSocketState(state),
        ...opts.socketMode,
      })
    : undefined;
  if (socket) metrics.setSlackSocketState(socket.state);
  const receiver = socket?.receiver ?? httpReceiver;
  if (!receiver) throw new Error('no way for Slack to reach the app: set SLACK_SIGNING_SECRET or SLACK_APP_TOKEN');
  // One logger for Bolt and every WebClient (each would otherwise pick its own, some writing to the console).
  const slackLogger = boltLogger(logger.child({ part: 'bolt' }));
  const clientOptions = {
    slackApiUrl: config.slackApiUrl,
    logger: slackLogger,
    // Fail fast rather than hold a request past Slack's 3 s; the worker retries on its own schedule.
    retryConfig: { retries: 1, factor: 1, minTimeout: 200, maxTimeout: 500 },
    timeout: 5000,
  };
  // A 429 fails at once (rejectRateLimitedCalls) and the workspace's own schedule waits it out
  // (src/slack/web-api/pacing.ts): WebClient would pause its whole queue, every workspace's calls, instead.
  const slackClient = new webApi.WebClient(botToken, { ...clientOptions, rejectRateLimitedCalls: true });
  const tenancy =
    config.mode === 'distribution'
      ? createDistributionTenancy({ config, db, logger, slackLogger, now, ...(changes ? { changes } : {}) })
      : undefined;
  const identity = botToken ? botIdentity(slackClient, botToken) : undefined;
  const authorize = tenancy?.authorize ?? identity!.authorize;
  const bolt = new App({
    // Our own authorize instead of `token`: Bolt would call auth.test eagerly at construction and an
    // unreachable Slack would become an unhandled rejection. Here auth.test runs at the first request,
    // its answer is cached, and a failure is retried on the next request.
    authorize,
    receiver,
    // Nothing reads context.conversation: skip the conversation-store middleware (it builds an Error per event).
    convoStore: false,
    logger: slackLogger,
    clientOptions,
  });
  // In Socket Mode the HTTP receiver, when there is one, serves the same Bolt app.
  if (socket && httpReceiver) httpReceiver.init(bolt);
  if (socket) bolt.use(ackUnanswered(socket));
  bolt.use(dropRedeliveredEvents(createEventReceipts(db, now), logger));
  // chat.postMessage has no idempotency key: a retried request whose first answer was lost posts
  // twice. Posts go through a client that never retries; the notice outbox recovers instead.
  const postClient = new webApi.WebClient(botToken, { ...clientOptions, ...POST_CLIENT_OPTIONS });
  // users.info and views.open, on every `/kudos`, skip WebClient's layers (src/slack/web-api/direct-web-api.ts).
  const directWebApi = createDirectWebApi({ apiUrl: config.slackApiUrl, token: botToken });
  // Every Slack call names its workspace; in distribution mode it carries that workspace's token.
  const historyReads = opts.slackHistoryReads ?? config.mode !== 'distribution';
  // Slack's rate limits, paced per workspace across instances (src/slack/web-api/pacing.ts, src/domain/pacing/slack-call-schedules.ts).
  const callSchedules = createCallSchedules(db, {
    onError: (error) =>
      logger.warn('the shared Slack call schedule could not be read or written; calling unpaced', { error }),
  });
  const pacerOf = (teamId: string | (() => Promise<string>)): SlackPacer =>
    opts.slackPacing === false
      ? UNPACED
      : createSlackPacer(callSchedules, teamId, opts.slackPacing ?? { scale: config.slackRateScale ?? 1 });
  const slack = tenancy
    ? perWorkspace({
        createGateway: (token, ws) =>
          createSlackGateway(slackClient, {
            postClient,
            direct: directWebApi.call,
            token,
            historyReads,
            pacer: pacerOf(ws.teamId || ws.enterpriseId || ''),
          }),
        createUserLister: (token, ws) =>
          createUserLister(slackClient, token, pacerOf(ws.teamId || ws.enterpriseId || '')),
        botToken: (ws) => tenancy.botToken(ws),
        historyReads,
      })
    : (() => {
        // The bot token's workspace (auth.test, asked once); unknown while Slack cannot be reached.
        const pacer = pacerOf(async () => (await identity!.homeWorkspace().catch(() => ({ teamId: '' }))).teamId);
        return singleWorkspace(
          createSlackGateway(slackClient, { postClient, direct: directWebApi.call, historyReads, pacer }),
          createUserLister(slackClient, undefined, pacer),
        );
      })();

  // Settings live in the database, one row per workspace (seeded from the environment the first time
  // a workspace is seen), and are read for the workspace at hand on every request and notice.
  const settings = createSettingsStore({ db, config, ...(changes ? { changes } : {}) });
  changes?.listen({
    installation(key) {
      tenancy?.evictInstallation(key);
      // An uninstall or a purge also ends what the workspace's settings and connection were.
      if (key.startsWith('team:')) {
        settings.evict(key.slice('team:'.length));
        rewardsAccounts.changed(key.slice('team:'.length));
      }
    },
    settings: (teamId) => settings.evict(teamId),
    connection: (teamId) => rewardsAccounts.changed(teamId),
  });
  if (!(opts.changeFeed && opts.changeFeed.intervalMs === 0)) changes?.start();
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
      webhooks: config.rewardsWebhooks,
    },
    // One lease setting for every background claim on money (KUDOS_WORKER_LEASE_MS): the worker's and the reward links'.
    opts.worker?.leaseMs !== undefined && opts.webhooks?.rewardLinkLeaseMs === undefined
      ? { ...opts.webhooks, rewardLinkLeaseMs: opts.worker.leaseMs }
      : opts.webhooks,
  );
  const finance = createFinanceService({
    db,
    rewards: rewardsAccounts,
    settings,
    notifier: createFinanceNotifier({ db, slack, settings, logger }),
    logger,
    now,
    webhooks: config.rewardsWebhooks,
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
      onPickup: (seconds) => metrics.observePickupLatency(seconds),
    },
    opts.worker,
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
  const catalog = createDesignCatalogs(rewardsAccounts);
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
      rewardsSetup,
      settings,
      approvals,
      finance,
      logger,
      now,
    },
    opts.home,
  );
  const wakeWorker = (recordedId?: string) => (recordedId ? worker.placeNow(recordedId) : worker.wake());
  // Workflow steps whose send outlives the event's handler are finished later by any instance with the
  // workflow's token, which is stored sealed: only with a key ring (else the handler's wait is all).
  const workflowSteps = config.keyRing
    ? { db, keyRing: config.keyRing, finisher: slack, logger: logger.child({ part: 'workflow-steps' }), now }
    : undefined;
  // One policy for every send: the form, the workflow step and automations all meet the known spending limits.
  const sendPolicy = opts.policy ?? withSpendingLimits(approvals.policy, { db, now });
  const automations = createAutomationService(
    {
      db,
      users: slack,
      rewards: rewardsAccounts,
      catalog,
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
  const deps: ListenerDeps = {
    workflowSteps,
    config,
    db,
    logger,
    rewards: rewardsAccounts,
    rewardsSetup,
    slack,
    catalog,
    policy: sendPolicy,
    wakeWorker,
    automations,
    placeRewardLinks: (requestId) => background.placeRewardLinks(requestId),
    now,
    settings,
    approvals,
    home,
    isAdmin: (ws, userId) => approvals.isAdmin(ws, userId),
    finance,
    campaignSettleMs: opts.campaignSettleMs,
    workflowStepWaitMs: opts.workflowStepWaitMs,
    installations: tenancy ? installationEvents(tenancy, slack, db, logger, rewardsSetup) : undefined,
  };
  registerListeners(bolt, deps);
  bolt.error(async (error) => {
    // Re-thrown to the receiver, which logs it once and answers Slack: 400 for a payload of a shape
    // Slack never sends, otherwise a message the user can act on (src/http/slack-receiver.ts).
    throw error;
  });

  const routeDeps: RouteDeps = { config, db, logger, rewards: rewardsAccounts };
  const http = await startHttpServer({
    logger,
    port: opts.port ?? config.port,
    host: opts.host ?? config.host,
    onRequestDone: (info) => metrics.observeHttpRequest(info),
    routes: {
      ...(httpReceiver ? { slackEvents: (req, res) => httpReceiver.handle(req, res) } : {}),
      ...(tenancy
        ? {
            slackInstall: (req, res) => tenancy.installRoute(req, res),
            slackOAuthRedirect: (req, res) => tenancy.redirectRoute(req, res),
          }
        : {}),
      ...(config.rewardsWebhooks === 'on' && config.rewardsWebhookSecret && !rewardsConnections
        ? { rewardsWebhooks: createWebhooksRoute(routeDeps, { onEventStored: () => background.wakeEvents() }) }
        : {}),
      ...(config.rewardsWebhooks === 'on' && rewardsConnections
        ? {
            connectionWebhooks: createConnectionWebhooksRoute(
              { ...routeDeps, connections: rewardsConnections },
              { onEventStored: () => background.wakeEvents() },
            ),
          }
        : {}),
      health: createHealthRoute(routeDeps, socket),
    },
  });
  // Metrics on a port of their own, on loopback by default: the main port faces the internet.
  const metricsHttp = await startHttpServer({
    logger,
    port: opts.metricsPort ?? config.metricsPort,
    host: config.metricsHost,
    routes: { metrics: createMetricsRoute(metrics, logger), health: createHealthRoute(routeDeps, socket) },
  }).catch((error: unknown) => {
    // Serving Slack matters more than being scraped: say so loudly and go on without metrics.
    logger.error('metrics server could not start; GET /metrics is not served', {
      port: opts.metricsPort ?? config.metricsPort,
      host: config.metricsHost,
      error,
    });
    return undefined;
  });
  socket?.start();
  if (opts.worker?.enabled !== false) worker.start();
  // Learn the bot identity now, so the first Slack request (3 s budget) does not wait for auth.test.
  if (identity)
    authorize({} as never).catch((error: unknown) =>
      logger.warn('slack auth.test failed; retrying at the first request', { error }),
    );
  if (opts.webhooks?.enabled !== false) background.start();
  if (opts.approvalsSweepMs !== 0) approvals.start(opts.approvalsSweepMs ?? 30_000);
  if (opts.home?.enabled !== false) home.start();
  if (opts.automationsMs !== 0) automations.start(opts.automationsMs ?? 60_000);
  if (opts.financeSweepMs !== 0) finance.start(opts.financeSweepMs ?? 300_000);
  if (opts.digestMs !== 0) digest.start(opts.digestMs ?? 300_000);
  const purgeDue = async () => {
    const purged = await purgeDueWorkspaces(db, now());
    for (const p of purged)
      logger.info('uninstalled workspace data purged', {
        part: 'installations',
        installation: p.installationKey,
        rows: p.rows,
        retentionDays: config.retentionDays,
      });
    return purged;
  };
  const purges =
    tenancy && opts.purgeMs !== 0
      ? createPeriodicJob({
          name: 'purging uninstalled workspaces',
          logger,
          failureLevel: 'warn',
          periodMs: opts.purgeMs ?? 3_600_000,
          step: purgeDue,
        })
      : undefined;
  purges?.start();
  logger.info('kudos app listening', { url: http.url, metricsUrl: metricsHttp?.url });

  let closing: Promise<void> | undefined;
  return {
    url: http.url,
    metricsUrl: metricsHttp?.url,
    db,
    worker,
    rewards,
    rewardsAccounts,
    rateBudgets,
    rewardsConnections,
    rewardsSetup,
    slack,
    logger,
    settings,
    approvals,
    home,
    automations,
    finance,
    digest,
    metrics,
    socket,
    tenancy,
    changes,
    purgeDue,
    background,
    close() {
      closing ??= (async () => {
        // Work waiting for its turn at the Rewards rate budget (a storm of 429s, a long window) stops
        // waiting now: nothing of it was sent, and its rows are released and resumed with their keys.
        rateBudgets.stop();
        // So does work waiting for its slot in a Slack schedule; a post not sent is posted by the outbox later.
        callSchedules.stop();
        void purges?.stop();
        const httpClosed = Promise.all([http.close(3000), metricsHttp?.close(1000)]);
        // Every part stops at once, not one after another: the worker's grace and the passes in flight
        // (a Home refresh, a sweep) run side by side, and all must end well inside main.ts's 10 s hard
        // limit. A pass still running past its bound is left (the database closes under it; its work is
        // done again by the next pass of any instance), so close() ends in time and in order.
        const parts = { changes, socket, httpReceiver, approvals, home, automations, finance, digest };
        await Promise.all([
          worker.stop(opts.shutdownGraceMs ?? 6000),
          background.stop(3000),
          ...Object.entries(parts).map(([name, part]) =>
            stopWithin(part?.stop(), PASS_STOP_BOUND_MS, () =>
              logger.warn('a part did not stop in time; closing without it', { part: name }),
            ),
          ),
        ]);
        await httpClosed;
        await rewardsAccounts.close();
        await directWebApi.close();
        await ownDb?.close();
        logger.info('kudos app stopped');
      })();
      return closing;
    },
  };
}

/**
 * Distribution mode's uninstall: the installation's tokens are deleted in the database at once, and
 * every cache that could still hold them (authorize answers, per-workspace gateways) is dropped, so no
 * later call of any instance-local work uses them; scheduled work of that workspace then meets
 * `not_installed` and gives up quietly (src/slack/web-api/workspace-gateways.ts).
 */
function installationEvents(
  tenancy: DistributionTenancy,
  slack: SlackWorkspaces,
  db: Database,
  logger: Logger,
  rewardsSetup: RewardsSetup | undefined,
): InstallationEvents {
  const log = logger.child({ part: 'installations' });
  const forget = async (ref: InstallationRef) => {
    tenancy.evict(ref);
    slack.forget({ teamId: ref.teamId ?? '', enterpriseId: ref.enterpriseId });
    // The workspace's Rewards secrets go with its Slack tokens (an org-wide install: every workspace of the org).
    if (!rewardsSetup) return;
    // A workspace of the org with a live install of its own keeps its account: that install still serves it.
    const teams =
      ref.isEnterpriseInstall && ref.enterpriseId
        ? rowsOf<{ teamId: string }>(
            await db.execute(
              sql`select c.team_id as "teamId" from rewards_connections c where c.enterprise_id = ${ref.enterpriseId}
                  and not exists (select 1 from installations i where i.installation_key = 'team:' || c.team_id and i.uninstalled_at is null and i.bot_token is not null)`,
            ),
          ).map((r) => r.teamId)
        : ref.teamId
          ? [ref.teamId]
          : [];
    for (const teamId of teams) await rewardsSetup.disconnect({ teamId, enterpriseId: ref.enterpriseId });
  };
  return {
    async uninstalled(ref) {
      const key = await tenancy.store.uninstall(ref);
      // No such installation (a workspace served by its org's install, or never installed): nothing of anyone's changes.
      if (!key)
        return void log.info('app_uninstalled names no installation: nothing changed', {
          teamId: ref.teamId,
          enterpriseId: ref.enterpriseId,
          orgWide: ref.isEnterpriseInstall,
        });
      await forget(ref);
      log.info('uninstalled: tokens deleted', {
        installation: key,
        teamId: ref.teamId,
        enterpriseId: ref.enterpriseId,
        orgWide: ref.isEnterpriseInstall,
      });
    },
    async tokensRevoked(ref, revoked) {
      const taken = await tenancy.store.revokeTokens(ref, revoked);
      if (!taken) {
        // Ids of another installation's bot or user, or tokens already gone: nothing of this one changes.
        log.info('tokens_revoked names no token of this installation: nothing changed', {
          teamId: ref.teamId,
          enterpriseId: ref.enterpriseId,
          orgWide: ref.isEnterpriseInstall,
        });
        return;
      }
      if (taken.bot) await forget(ref);
      else tenancy.evict(ref);
      log.info('tokens revoked', { installation: taken.key, bot: taken.bot, user: taken.user });
    },
    async requestDeletion(ws, actorUserId) {
      // The workspace's rows go now; its installation (and so the app) stays.
      const rows = await purgeWorkspaceData(db, { teamId: ws.teamId });
      log.info('workspace data deleted at an admin request', { teamId: ws.teamId, actorUserId, rows });
    },
  };
}

/**
 * The Web API client's debug lines that carry whole request and response bodies: message text, which
 * for the `/kudos links` DM is reward links (gift cards). Only which line it was is kept.
 */
const WEB_API_BODY_LINE = /^(http request (?:body|result|headers)):/;

function boltLogger(log: Logger): BoltLogger {
  let level = LogLevel.WARN;
  const join = (msgs: unknown[]) =>
    msgs.map((m) => (typeof m === 'string' ? m : m instanceof Error ? m.message : JSON.stringify(m))).join(' ');
  const withoutBody = (line: string) => {
    const body = WEB_API_BODY_LINE.exec(line);
    return body ? `${body[1]}: [omitted]` : line;
  };
  return {
    debug: (...msgs) => log.debug(withoutBody(join(msgs))),
    info: (...msgs) => log.info(withoutBody(join(msgs))),
    warn: (...msgs) => log.warn(withoutBody(join(msgs))),
    error: (...msgs) => log.error(withoutBody(join(msgs))),
    setLevel: (l) => {
      level = l;
    },
    getLevel: () => level,
    setName: () => {},
  };
}

/**
 * The bot's identity from auth.test, asked once (again after a failure): Bolt's authorize, and the
 * workspace the bot token belongs to (home: where orders placed outside Slack are announced).
 */
function botIdentity(
  client: webApi.WebClient,
  botToken: string,
): { authorize: Authorize<boolean>; homeWorkspace: () => Promise<WorkspaceRef> } {
  let identity:
    Promise<{ botUserId?: string; botId?: string; teamId: string; enterpriseId: string | null }> | undefined;
  const learn = async () => {
    identity ??= client.auth.test().then((res) => {
      if (!res.team_id) throw new Error('auth.test did not name the workspace of the bot token');
      return {
        ...(res.user_id ? { botUserId: res.user_id } : {}),
        ...(res.bot_id ? { botId: res.bot_id } : {}),
        teamId: res.team_id,
        enterpriseId: res.enterprise_id ?? null,
      };
    });
    try {
      return await identity;
    } catch (error) {
      identity = undefined;
      throw error;
    }
  };
  return {
    async authorize() {
      const { botUserId, botId } = await learn();
      return { botToken, ...(botUserId ? { botUserId } : {}), ...(botId ? { botId } : {}) };
    },
    async homeWorkspace() {
      const { teamId, enterpriseId } = await learn();
      return { teamId, enterpriseId };
    },
  };
}

/** RunningApp.rewards when each workspace has its own account: any use names the mistake. */
function noSingleClient(): RewardsClient {
  return new Proxy({} as RewardsClient, {
    get() {
      throw new RewardsNotConnectedError('(no workspace given: use rewardsAccounts.for(ws))');
    },
  });
}

/** How long close() waits for a part to stop (a pass in flight: the worker's default grace, so they end together). */
const PASS_STOP_BOUND_MS = 6000;
