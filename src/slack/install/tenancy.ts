// How a request, or a row of background work, finds the installation and token it acts with
// (the README's installation modes). Single-workspace mode: SLACK_BOT_TOKEN for everything.
// Distribution mode: Bolt's own OAuth, @slack/oauth's InstallProvider (its state store, state cookie
// and callback), with our drizzle installationStore (installation-store.ts); the bot token of a
// workspace comes from InstallProvider.authorize, which refreshes rotating tokens before they expire,
// behind a bounded cache that uninstall and token changes evict: on this instance at once, on
// another through the change feed (src/domain/workspaces/change-feed.ts) within a poll.
import type { IncomingMessage, ServerResponse } from 'node:http';

import type { Authorize, AuthorizeResult, AuthorizeSourceData, Logger as BoltLogger } from '@slack/bolt';
import slackOAuth, {
  type CodedError,
  type InstallProvider,
  type InstallURLOptions,
  type Logger as OAuthLogger,
  type StateStore,
} from '@slack/oauth';
import { LRUCache } from 'lru-cache';

import type { AppConfig } from '../../config/index.js';
import type { Logger } from '../../config/logger.js';
import type { Database } from '../../db/client.js';
import type { Workspace } from '../../domain/common/workspace.js';
import type { ChangeWatch } from '../../domain/workspaces/change-feed.js';
import {
  type InstallFailure,
  installFailurePage,
  installPage,
  installSuccessPage,
  protectInstallPage,
} from './install-pages.js';
import {
  createInstallationStore,
  type InstallationLookup,
  type KudosInstallationStore,
  NotInstalledError,
} from './installation-store.js';
import { DISTRIBUTION_BOT_SCOPES } from './scopes.js';

// @slack/oauth is CommonJS and re-exports its state stores with `export *`, which Node's ESM loader
// cannot name: take the classes off the default export.
const { ClearStateStore, InstallProvider: InstallProviderClass } = slackOAuth;

/** Refreshes start this long before a rotating token expires (InstallProvider's own window: 2 h). */
const REFRESH_WINDOW_MS = 2 * 3600_000;
/**
 * An authorize answer is reused at most this long while another instance's change (refresh,
 * uninstall) could go unseen: without the change feed, or while its polls fail.
 */
const AUTHORIZE_CACHE_TTL_MS = 60_000;
/** While the change feed runs (another instance's change evicts the answer within a poll). */
const AUTHORIZE_CACHE_WATCHED_TTL_MS = 3600_000;
/**
 * Authorize answers kept at most (least recently used out first): about 1 KiB each, so every
 * workspace active within the TTL of a 10,000-workspace installation base stays warm.
 */
const AUTHORIZE_CACHE_MAX = 10_000;
/** How long an OAuth state is good for (Bolt's default: 10 minutes). */
const STATE_TTL_SECONDS = 600;

export interface DistributionTenancy {
  store: KudosInstallationStore;
  installer: InstallProvider;
  /** Bolt's `authorize`: the installation of the request's team, or its org's for an org-wide install. */
  authorize: Authorize<boolean>;
  /** The bot token of the installation serving a workspace (cached; refreshed before it expires). */
  botToken(ws: Workspace): Promise<string>;
  /** GET /slack/install: the "Add to Slack" page; sets the state cookie. */
  installRoute(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** GET /slack/oauth_redirect: checks state and cookie, oauth.v2.access, stores, answers a page. */
  redirectRoute(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Drops cached tokens of an installation (uninstall, tokens_revoked, refresh elsewhere). */
  evict(lookup: InstallationLookup): void;
  /** The same by the installation's key (`team:T…`, `enterprise:E…`): what the change feed reports. */
  evictInstallation(installationKey: string): void;
}

export interface DistributionTenancyOptions {
  config: AppConfig;
  db: Database;
  logger: Logger;
  /** The one logger of Bolt and every WebClient (app.ts), which never prints request bodies. */
  slackLogger: BoltLogger;
  now?: () => Date;
  /** Called after an installation is stored (e.g. to greet the installer). */
  onInstalled?: (lookup: InstallationLookup) => void;
  /** Authorize answers cached at most (default 10,000). */
  maxCached?: number;
  /** Another instance's installation changes, seen within a poll: answers then live up to an hour. */
  changes?: ChangeWatch;
}

export function createDistributionTenancy(opts: DistributionTenancyOptions): DistributionTenancy {
  const { config } = opts;
  const oauth = config.slackOAuth;
  const keyRing = config.keyRing;
  if (config.mode !== 'distribution' || !oauth || !keyRing)
    throw new Error(
      'distribution mode needs SLACK_CLIENT_ID, SLACK_CLIENT_SECRET, SLACK_STATE_SECRET and KUDOS_ENCRYPTION_KEY',
    );
  const log = opts.logger.child({ part: 'installations' });
  const cache = createAuthorizeCache(opts.maxCached ?? AUTHORIZE_CACHE_MAX, opts.changes);
  const store = createInstallationStore({
    db: opts.db,
    keyRing,
    retentionDays: config.retentionDays,
    ...(opts.now ? { now: opts.now } : {}),
    // Any change of an installation's tokens drops every cached answer that may have come from it.
    onChange: cache.evictKey,
  });
  const installUrlOptions: InstallURLOptions = { scopes: [...DISTRIBUTION_BOT_SCOPES] };
  const installer = new InstallProviderClass({
    clientId: oauth.clientId,
    clientSecret: oauth.clientSecret,
    stateStore: singleUseStateStore(new ClearStateStore(oauth.stateSecret, STATE_TTL_SECONDS)),
    stateVerification: true,
    installationStore: store,
    installUrlOptions,
    // Slack's authorize page sits beside its Web API (https://slack.com/oauth/v2/authorize next to
    // https://slack.com/api/): with SLACK_API_URL pointing at the simulator, so does the install.
    authorizationUrl: new URL('../oauth/v2/authorize', config.slackApiUrl).toString(),
    renderHtmlForInstallPath: installPage,
    logger: oauthLogger(opts.slackLogger),
    // oauth.v2.access (install and token refresh) and auth.test go to SLACK_API_URL too.
    clientOptions: {
      slackApiUrl: config.slackApiUrl,
      timeout: 5000,
      retryConfig: { retries: 1, factor: 1, minTimeout: 200, maxTimeout: 500 },
    },
  });
  const tenancy: Tenancy = { cache, store, installer };

  return {
    store,
    installer,
    async authorize(source: AuthorizeSourceData<boolean>) {
      const lookup: InstallationLookup = {
        teamId: source.teamId ?? null,
        enterpriseId: source.enterpriseId ?? null,
        isEnterpriseInstall: source.isEnterpriseInstall,
      };
      const result = await authorizeLookup(tenancy, lookup);
      // What Bolt needs of it; the request's own team stays the request's (an org install has none).
      // Not the bot token: Bolt would build a WebClient for each workspace and token and keep it for
      // good (App.clients, never evicted: ~30 KiB per workspace, one more at every token rotation).
      // Listeners call Slack through deps.slack (the gateway, with the same token from this cache);
      // Bolt's own `client` argument is left tokenless, and a workflow step's `complete`/`fail` use
      // the step's own token.
      return {
        ...(result.botId ? { botId: result.botId } : {}),
        ...(result.botUserId ? { botUserId: result.botUserId } : {}),
        ...(source.teamId ? { teamId: source.teamId } : {}),
        ...(result.enterpriseId ? { enterpriseId: result.enterpriseId } : {}),
      };
    },
    async botToken(ws) {
      const result = await authorizeLookup(tenancy, {
        teamId: ws.teamId || null,
        enterpriseId: ws.enterpriseId ?? null,
      });
      if (!result.botToken) throw new NotInstalledError(ws);
      return result.botToken;
    },
    async installRoute(req, res) {
      protectInstallPage(res);
      await installer.handleInstallPath(req, res);
    },
    async redirectRoute(req, res) {
      protectInstallPage(res);
      await handleRedirect(installer, log, opts.onInstalled, req, res);
    },
    evict(lookup) {
      for (const key of store.keysFor(lookup)) cache.evictKey(key);
    },
    evictInstallation: cache.evictKey,
  };
}

/**
 * An authorize answer and when its lookup started. `tokenUntil`: a rotating token is not reused past
 * the point where InstallProvider would refresh it.
 */
type Answer = { result: AuthorizeResult; at: number; tokenUntil: number };

/** A lookup the cache did not answer, given when it starts. */
type Load = (nowMs: number) => Promise<AuthorizeResult>;

/** The authorize answers of this instance, bounded, least recently used out first. */
interface AuthorizeCache {
  /** The answer under a cache key while it is fresh, else `load`'s: concurrent callers share one lookup. */
  get(cacheKey: string, load: Load): Promise<AuthorizeResult>;
  /** Drops every answer an installation key is part of, a lookup still running included. */
  evictKey: (key: string) => void;
  /**
   * The cache keys each installation key is part of, for the keys of more than one installation (a
   * workspace of an Enterprise Grid org: `team:T…|enterprise:E…`); a key of one installation is its
   * own cache key and needs no entry here (most workspaces: nothing kept per workspace).
   */
  byInstallation: ReadonlyMap<string, ReadonlySet<string>>;
}

export function createAuthorizeCache(maxCached: number, changes: ChangeWatch | undefined): AuthorizeCache {
  const byInstallation = new Map<string, Set<string>>();
  const partsOf = (cacheKey: string) => (cacheKey.includes('|') ? cacheKey.split('|') : []);
  const unindex = (cacheKey: string) => {
    for (const key of partsOf(cacheKey)) {
      const keys = byInstallation.get(key);
      keys?.delete(cacheKey);
      if (keys?.size === 0) byInstallation.delete(key);
    }
  };
  // lru-cache keeps a lookup's promise only while it runs, then the answer alone (the promise holds
  // the async context of the request that asked: ~250 bytes more).
  const answers = new LRUCache<string, Answer, Load>({
    max: maxCached,
    // A lookup whose entry goes while it runs (a change, or the bound) still answers its callers; its
    // answer, read before the change, is not kept.
    ignoreFetchAbort: true,
    // An entry leaving the cache leaves the index: an answer through dispose (not when its refresh
    // replaces it: 'set'), a running lookup through its signal, which lru-cache aborts when the
    // lookup is evicted, dropped, or fails.
    dispose: (_answer, cacheKey, reason) => {
      if (reason !== 'set') unindex(cacheKey);
    },
    fetchMethod: async (cacheKey, _stale, { signal, context: load }) => {
      for (const key of partsOf(cacheKey)) {
        let keys = byInstallation.get(key);
        if (!keys) byInstallation.set(key, (keys = new Set()));
        keys.add(cacheKey);
      }
      signal.addEventListener('abort', () => unindex(cacheKey), { once: true });
      const at = Date.now();
      const result = await load(at);
      const tokenUntil = result.botTokenExpiresAt ? result.botTokenExpiresAt * 1000 - REFRESH_WINDOW_MS : Infinity;
      return { result, at, tokenUntil };
    },
  });
  /** How long an answer is reused now: longer while the change feed runs. */
  const ttl = () => (changes?.watching() ? AUTHORIZE_CACHE_WATCHED_TTL_MS : AUTHORIZE_CACHE_TTL_MS);
  return {
    async get(cacheKey, load) {
      // Freshness is checked here, not by lru-cache's ttl: an answer's life changes with the change feed.
      const nowMs = Date.now();
      const cached = answers.peek(cacheKey);
      const fresh = cached !== undefined && nowMs < cached.tokenUntil && nowMs - cached.at < ttl();
      // A fresh answer is served (the most recently used now); else the lookup running, or a new one.
      // Always an answer: the lookup returns one, and no abort reaches its callers (ignoreFetchAbort).
      const answer = await answers.fetch(cacheKey, { context: load, forceRefresh: !fresh });
      return answer!.result;
    },
    evictKey: (key) => {
      answers.delete(key);
      for (const cacheKey of [...(byInstallation.get(key) ?? [])]) answers.delete(cacheKey);
    },
    byInstallation,
  };
}

/** What a lookup uses: the cache, the installation store, and InstallProvider (which refreshes tokens). */
interface Tenancy {
  cache: AuthorizeCache;
  store: KudosInstallationStore;
  installer: InstallProvider;
}

/**
 * A lookup the cache did not answer: the live row's bot token alone (one narrow read, one token
 * opened), unless a token of it is due for refresh: then InstallProvider.authorize, which refreshes
 * and stores it. Either way only what a request uses is kept: no refresh token, no user token.
 */
async function lookUp(
  store: KudosInstallationStore,
  installer: InstallProvider,
  lookup: InstallationLookup,
  nowMs: number,
): Promise<AuthorizeResult> {
  const query = {
    teamId: lookup.isEnterpriseInstall ? undefined : (lookup.teamId ?? undefined),
    enterpriseId: lookup.enterpriseId ?? undefined,
    isEnterpriseInstall: Boolean(lookup.isEnterpriseInstall),
  };
  const live = await store.liveBot(lookup, new Date(nowMs + REFRESH_WINDOW_MS));
  if (!live) throw new NotInstalledError(lookup);
  const bot = live === 'refresh' ? await installer.authorize(query).catch(unwrapNotInstalled) : live;
  const teamId = bot.teamId ?? query.teamId;
  const enterpriseId = bot.enterpriseId ?? query.enterpriseId;
  // One literal of one shape, every field present (kept per workspace in the cache, where conditional
  // spreads would make objects of several shapes); Bolt reads each field as optional.
  return {
    botToken: bot.botToken || undefined,
    botId: bot.botId || undefined,
    botUserId: bot.botUserId || undefined,
    teamId: teamId || undefined,
    enterpriseId: enterpriseId || undefined,
    botTokenExpiresAt: bot.botTokenExpiresAt || undefined,
  } as AuthorizeResult;
}

/** InstallProvider wraps what the store threw; keep ours recognisable. */
function unwrapNotInstalled(error: unknown): never {
  const original = (error as { original?: unknown }).original;
  throw original instanceof NotInstalledError ? original : error;
}

function authorizeLookup(tenancy: Tenancy, lookup: InstallationLookup): Promise<AuthorizeResult> {
  const key = tenancy.store.keysFor(lookup).join('|');
  if (!key) return Promise.reject(new NotInstalledError(lookup));
  return tenancy.cache.get(key, (nowMs) => lookUp(tenancy.store, tenancy.installer, lookup, nowMs));
}

/** GET /slack/oauth_redirect through InstallProvider: the success page, or the failure page that says why. */
async function handleRedirect(
  installer: InstallProvider,
  log: Logger,
  onInstalled: ((lookup: InstallationLookup) => void) | undefined,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  await installer.handleCallback(req, res, {
    success: () => {
      /* successAsync answers */
    },
    successAsync: async (installation, _options, _req, response) => {
      const lookup = installation.isEnterpriseInstall
        ? { enterpriseId: installation.enterprise?.id, isEnterpriseInstall: true }
        : { teamId: installation.team?.id, enterpriseId: installation.enterprise?.id };
      log.info('installed', {
        teamId: installation.team?.id,
        enterpriseId: installation.enterprise?.id,
        orgWide: Boolean(installation.isEnterpriseInstall),
      });
      onInstalled?.(lookup);
      const page = installSuccessPage({
        name: installation.team?.name ?? installation.enterprise?.name ?? 'your workspace',
        orgWide: Boolean(installation.isEnterpriseInstall),
        ...(installation.appId ? { appId: installation.appId } : {}),
        ...(installation.team?.id ? { teamId: installation.team.id } : {}),
      });
      response.setHeader('Content-Type', 'text/html; charset=utf-8');
      response.writeHead(200);
      response.end(page);
    },
    failure: () => {
      /* failureAsync answers */
    },
    failureAsync: async (error: CodedError, _options, request, response) => {
      const failure = classifyFailure(error, request);
      log.warn('installation failed', { reason: failure, code: error.code, error: error.message });
      failurePage(response, failure);
    },
  });
}

function failurePage(res: ServerResponse, failure: InstallFailure): void {
  if (res.headersSent) return;
  const page = installFailurePage(failure);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.writeHead(page.status);
  res.end(page.html);
}

/** Which failure page: the error InstallProvider reports, in the words of the page. */
function classifyFailure(error: CodedError, req: IncomingMessage): InstallFailure {
  const params = new URL(req.url ?? '/', 'http://localhost').searchParams;
  if (params.get('error') === 'access_denied') return 'denied';
  if (params.get('error')) return 'slack_error';
  switch (error.code) {
    case 'slack_oauth_missing_state':
    case 'slack_oauth_invalid_state':
      // No state cookie at all: another browser, or cookies blocked. A cookie that does not match: forged or replayed.
      return (req.headers.cookie ?? '').includes('slack-app-oauth-state=') ? 'state' : 'cookie';
    case 'slack_oauth_missing_code':
      return 'state';
    default:
      return 'exchange';
  }
}

/**
 * ClearStateStore signs the state with SLACK_STATE_SECRET and gives it 10 minutes; this makes each
 * state good for one install too, so a replayed redirect (same state) is refused even with its cookie.
 * Per instance: with several instances the state cookie (deleted by the first callback) is the guard.
 */
function singleUseStateStore(inner: StateStore): StateStore {
  const used = new Map<string, number>();
  return {
    generateStateParam: (options, now) => inner.generateStateParam(options, now),
    async verifyStateParam(now, state) {
      for (const [s, at] of used) if (now.getTime() - at > STATE_TTL_SECONDS * 1000) used.delete(s);
      if (used.has(state))
        throw Object.assign(new Error('The state parameter was used already.'), { code: 'slack_oauth_invalid_state' });
      const options = await inner.verifyStateParam(now, state);
      used.set(state, now.getTime());
      return options;
    },
  };
}

/** @slack/oauth's logger interface over Bolt's (which never prints bodies, and so no token). */
function oauthLogger(log: BoltLogger): OAuthLogger {
  return {
    debug: (...m: unknown[]) => log.debug(...m),
    info: (...m: unknown[]) => log.info(...m),
    warn: (...m: unknown[]) => log.warn(...m),
    error: (...m: unknown[]) => log.error(...m),
    setLevel: (l) => log.setLevel(l),
    getLevel: () => log.getLevel(),
    setName: () => {},
  };
}
