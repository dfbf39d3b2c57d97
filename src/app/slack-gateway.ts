// The Slack part: Bolt over the receivers, the Web API clients, and the gateway through which every
// Slack call names its workspace (in distribution mode it carries that workspace's token), paced per
// workspace across instances (src/slack/web-api/pacing.ts, src/domain/pacing/slack-call-schedules.ts).
import { App, type Authorize, type Logger as BoltLogger, LogLevel, webApi } from '@slack/bolt';

import type { AppConfig } from '../config/index.js';
import type { Logger } from '../config/logger.js';
import type { Database } from '../db/client.js';
import type { Workspace } from '../domain/common/workspace.js';
import { type CallSchedules, createCallSchedules } from '../domain/pacing/slack-call-schedules.js';
import type { ChangeFeed } from '../domain/workspaces/change-feed.js';
import { createEventReceipts } from '../domain/workspaces/event-receipts.js';
import { createDistributionTenancy, type DistributionTenancy } from '../slack/install/tenancy.js';
import { ackUnanswered, dropRedeliveredEvents } from '../slack/listening/middleware.js';
import { createDirectWebApi, type DirectWebApi } from '../slack/web-api/direct-web-api.js';
import { createSlackGateway, createUserLister, POST_CLIENT_OPTIONS } from '../slack/web-api/gateway.js';
import { createSlackPacer, type SlackPacer, type SlackPacingOptions, UNPACED } from '../slack/web-api/pacing.js';
import { perWorkspace, singleWorkspace, type SlackWorkspaces } from '../slack/web-api/workspace-gateways.js';
import type { AppPart } from './parts.js';
import type { SlackReceiversPart } from './slack-receivers.js';

export interface SlackPart extends AppPart {
  bolt: App;
  slack: SlackWorkspaces;
  /** Distribution mode: installations, InstallProvider, token lookup. */
  tenancy: DistributionTenancy | undefined;
  /** Single-workspace mode: the bot token's identity (auth.test, asked once). */
  identity: BotIdentity | undefined;
  /** Learns the bot identity now, so the first Slack request (3 s budget) does not wait for auth.test. */
  warmUp(): void;
}

export interface SlackPartDeps {
  config: AppConfig;
  db: Database;
  logger: Logger;
  now: () => Date;
  changes: ChangeFeed | undefined;
}

export interface SlackPartOptions {
  slackHistoryReads?: boolean | undefined;
  slackPacing?: SlackPacingOptions | false | undefined;
}

export function startSlack(deps: SlackPartDeps, receivers: SlackReceiversPart, options: SlackPartOptions): SlackPart {
  const { config, db, logger, now, changes } = deps;
  // Single-workspace mode: SLACK_BOT_TOKEN. Distribution mode: no token of its own; each workspace's
  // installation has one (src/slack/install/tenancy.ts).
  const botToken = config.mode === 'single' ? config.slackBotToken : undefined;
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
    receiver: receivers.receiver,
    // Nothing reads context.conversation: skip the conversation-store middleware (it builds an Error per event).
    convoStore: false,
    logger: slackLogger,
    clientOptions,
  });
  const { socket, httpReceiver } = receivers;
  // In Socket Mode the HTTP receiver, when there is one, serves the same Bolt app.
  if (socket && httpReceiver) httpReceiver.init(bolt);
  if (socket) bolt.use(ackUnanswered(socket));
  bolt.use(dropRedeliveredEvents(createEventReceipts(db, now), logger));
  // chat.postMessage has no idempotency key: a retried request whose first answer was lost posts
  // twice. Posts go through a client that never retries; the notice outbox recovers instead.
  const postClient = new webApi.WebClient(botToken, { ...clientOptions, ...POST_CLIENT_OPTIONS });
  // users.info and views.open, on every `/kudos`, skip WebClient's layers (src/slack/web-api/direct-web-api.ts).
  const directWebApi = createDirectWebApi({ apiUrl: config.slackApiUrl, token: botToken });
  const callSchedules = createCallSchedules(db, {
    onError: (error) =>
      logger.warn('the shared Slack call schedule could not be read or written; calling unpaced', { error }),
  });
  const clients: SlackClients = { slackClient, postClient, directWebApi, callSchedules };
  const slack = slackWorkspaces(config, clients, tenancy, identity, options);
  return {
    bolt,
    slack,
    tenancy,
    identity,
    warmUp() {
      if (identity)
        authorize({} as never).catch((error: unknown) =>
          logger.warn('slack auth.test failed; retrying at the first request', { error }),
        );
    },
    // So does work waiting for its slot in a Slack schedule; a post not sent is posted by the outbox later.
    interrupt: () => callSchedules.stop(),
    release: () => directWebApi.close(),
  };
}

interface SlackClients {
  slackClient: webApi.WebClient;
  postClient: webApi.WebClient;
  directWebApi: DirectWebApi;
  callSchedules: CallSchedules;
}

/** Every Slack call names its workspace; in distribution mode it carries that workspace's token. */
function slackWorkspaces(
  config: AppConfig,
  { slackClient, postClient, directWebApi, callSchedules }: SlackClients,
  tenancy: DistributionTenancy | undefined,
  identity: BotIdentity | undefined,
  options: SlackPartOptions,
): SlackWorkspaces {
  const historyReads = options.slackHistoryReads ?? config.mode !== 'distribution';
  const pacerOf = (teamId: string | (() => Promise<string>)): SlackPacer =>
    options.slackPacing === false
      ? UNPACED
      : createSlackPacer(callSchedules, teamId, options.slackPacing ?? { scale: config.slackRateScale ?? 1 });
  if (tenancy)
    return perWorkspace({
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
    });
  // The bot token's workspace (auth.test, asked once); unknown while Slack cannot be reached.
  const pacer = pacerOf(async () => (await identity!.homeWorkspace().catch(() => ({ teamId: '' }))).teamId);
  return singleWorkspace(
    createSlackGateway(slackClient, { postClient, direct: directWebApi.call, historyReads, pacer }),
    createUserLister(slackClient, undefined, pacer),
  );
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

export interface BotIdentity {
  authorize: Authorize<boolean>;
  homeWorkspace: () => Promise<Workspace>;
}

/**
 * The bot's identity from auth.test, asked once (again after a failure): Bolt's authorize, and the
 * workspace the bot token belongs to (home: where orders placed outside Slack are announced).
 */
function botIdentity(client: webApi.WebClient, botToken: string): BotIdentity {
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
