// Distribution mode (the README's installation modes): the installationStore of Bolt's InstallProvider
// (@slack/oauth), on our database through drizzle. One row per installation (src/db/schema/installations.ts),
// keyed `team:<team id>` for a workspace install and `enterprise:<enterprise id>` for an Enterprise Grid org-wide install.
// Tokens are sealed with the KUDOS_ENCRYPTION_KEY key ring under a context naming the row and the role
// of the token: a dump of the table holds no token in clear, and a sealed token copied to another
// row or column does not open.
import type { Installation, InstallationQuery, InstallationStore } from '@slack/oauth';
import { and, eq, inArray, isNotNull, isNull, type SQL, sql } from 'drizzle-orm';

import type { Database } from '../../db/client.js';
import { prepared } from '../../db/prepared.js';
import { type InstallationRow, installations } from '../../db/schema/index.js';
import { installationTokenContext } from '../../db/sealed-columns.js';
import type { KeyRing } from '../../secrets/key-ring.js';

/** Who a request or a row belongs to: a workspace, in an Enterprise Grid org or not. */
export interface InstallationLookup {
  teamId?: string | null | undefined;
  enterpriseId?: string | null | undefined;
  /** The request says it comes through an org-wide install. */
  isEnterpriseInstall?: boolean | undefined;
}

/** No usable installation for a workspace: never installed, uninstalled, or its bot token revoked. */
export class NotInstalledError extends Error {
  override readonly name = 'NotInstalledError';
  readonly code = 'slack_not_installed';
  constructor(readonly lookup: InstallationLookup) {
    super(`Kudos is not installed in ${describeLookup(lookup)}`);
  }
}

export const teamKey = (teamId: string) => `team:${teamId}`;
export const enterpriseKey = (enterpriseId: string) => `enterprise:${enterpriseId}`;

/**
 * updated_at of every write, by the database's clock (not the app's `now`): other instances' change
 * feeds (src/domain/workspaces/change-feed.ts) ask for the rows changed since their last poll by that clock.
 */
const changedNow = sql`clock_timestamp()`;

/** The sealing context of a token: the row and the role, so a sealed value opens nowhere else (the same one `npm run keys:rotate` uses). */
const contextOf = installationTokenContext;

/**
 * Marks an Installation returned by fetchInstallation. InstallProvider.authorize stores the fetched
 * installation again (spread, which keeps symbol keys) after refreshing its tokens: such a store
 * only replaces the tokens of the row it came from, and never brings back an uninstalled one.
 */
const FETCHED = Symbol('kudos.fetchedInstallation');
type Fetched = { [FETCHED]?: { key: string; installedAt: number } | undefined };

export interface KudosInstallationStore extends InstallationStore {
  /** The keys to try for a workspace, most specific first (its own install, then its org's). */
  keysFor(lookup: InstallationLookup): string[];
  /** The live installation row serving a workspace (tokens still sealed), or undefined. */
  findLive(lookup: InstallationLookup): Promise<InstallationRow | undefined>;
  /**
   * The bot of the live installation serving a workspace, for the lookup on every request: one
   * narrow read and only the bot token opened. `refresh` when a rotating token of it (bot or user)
   * expires before `refreshFrom` (InstallProvider.authorize then refreshes and stores it).
   */
  liveBot(lookup: InstallationLookup, refreshFrom: Date): Promise<LiveBot | 'refresh' | undefined>;
  /**
   * app_uninstalled: clears every token of exactly the installation named (a workspace's own, or an
   * org's org-wide one; never the other as a fallback), schedules the purge. Returns its key, if any.
   */
  uninstall(installation: InstallationLookup): Promise<string | undefined>;
  /**
   * tokens_revoked for exactly the installation named: its bot token only when `botUserIds` holds
   * its own bot user (then the installation is as good as uninstalled), its installer's user token
   * only when `userIds` holds the installer. Ids of any other bot or user change nothing.
   */
  revokeTokens(
    installation: InstallationLookup,
    revoked: { botUserIds: string[]; userIds: string[] },
  ): Promise<RevokedTokens | undefined>;
}

/** What a tokens_revoked took from an installation. */
export interface RevokedTokens {
  key: string;
  bot: boolean;
  user: boolean;
}

/** What a request needs of its installation (src/slack/install/tenancy.ts caches it). */
export interface LiveBot {
  botToken: string;
  botId: string | undefined;
  botUserId: string | undefined;
  /** The installation's workspace (none for an org-wide install). */
  teamId: string | undefined;
  enterpriseId: string | undefined;
  /** When the bot token rotates: its expiry, seconds since the epoch. */
  botTokenExpiresAt: number | undefined;
}

export interface InstallationStoreDeps {
  db: Database;
  keyRing: KeyRing;
  /** Days an uninstalled installation's data is kept (KUDOS_RETENTION_DAYS). */
  retentionDays: number;
  now?: () => Date;
  /** Told the key of every installation whose tokens changed or went (the authorize cache evicts it). */
  onChange?: (key: string) => void;
}

export function createInstallationStore(deps: InstallationStoreDeps): KudosInstallationStore {
  const store: Store = { ...deps, now: deps.now ?? (() => new Date()) };
  return {
    keysFor,
    findLive: (lookup) => findLive(store.db, lookup),
    liveBot: (lookup, refreshFrom) => liveBot(store, lookup, refreshFrom),

    async storeInstallation(installation) {
      const fetched = (installation as Fetched)[FETCHED];
      const at = store.now();
      if (fetched) return storeRefreshedTokens(store, fetched, installation);
      return storeNewInstallation(store, installation, at);
    },

    async fetchInstallation(query: InstallationQuery<boolean>) {
      const row = await findLive(store.db, query);
      if (!row) throw new NotInstalledError(query);
      return toInstallation(store, row);
    },

    async deleteInstallation(query: InstallationQuery<boolean>) {
      await clearTokens(store, exactKey(query), 'all');
    },

    uninstall: (installation) => clearTokens(store, exactKey(installation), 'all'),
    revokeTokens: (installation, revoked) => revokeTokens(store, installation, revoked),
  };
}

/** The store's deps, its clock filled in. */
type Store = InstallationStoreDeps & { now: () => Date };

const seal = (store: Store, value: string | undefined, key: string, role: Parameters<typeof contextOf>[1]) =>
  value ? store.keyRing.seal(value, contextOf(key, role)) : null;
const open = (store: Store, value: string | null, key: string, role: Parameters<typeof contextOf>[1]) =>
  value ? store.keyRing.open(value, contextOf(key, role)) : undefined;

function changed(store: Store, key: string | undefined): string | undefined {
  if (key) store.onChange?.(key);
  return key;
}

function keysFor(lookup: InstallationLookup): string[] {
  const keys: string[] = [];
  if (lookup.isEnterpriseInstall && lookup.enterpriseId) return [enterpriseKey(lookup.enterpriseId)];
  if (lookup.teamId) keys.push(teamKey(lookup.teamId));
  if (lookup.enterpriseId) keys.push(enterpriseKey(lookup.enterpriseId));
  return keys;
}

async function findLive(db: Database, lookup: InstallationLookup): Promise<InstallationRow | undefined> {
  for (const key of keysFor(lookup)) {
    const [row] = await db
      .select()
      .from(installations)
      .where(and(eq(installations.installationKey, key), isNull(installations.uninstalledAt)))
      .limit(1);
    if (row?.botToken) return row;
  }
  return undefined;
}

// Prepared once: drizzle would otherwise build this SQL again for every request it serves.
const liveBotQuery = (db: Database) =>
  prepared(db, 'installations.liveBot', (d) =>
    d
      .select({
        key: installations.installationKey,
        teamId: installations.teamId,
        enterpriseId: installations.enterpriseId,
        isEnterpriseInstall: installations.isEnterpriseInstall,
        botId: installations.botId,
        botUserId: installations.botUserId,
        botToken: installations.botToken,
        botTokenExpiresAt: installations.botTokenExpiresAt,
        botRotates: sql<boolean>`${installations.botRefreshToken} is not null`,
        userTokenExpiresAt: installations.userTokenExpiresAt,
        userRotates: sql<boolean>`${installations.userRefreshToken} is not null`,
      })
      .from(installations)
      .where(and(eq(installations.installationKey, sql.placeholder('key')), isNull(installations.uninstalledAt)))
      .limit(1)
      .prepare('installations_live_bot'),
  );

async function liveBot(
  store: Store,
  lookup: InstallationLookup,
  refreshFrom: Date,
): Promise<LiveBot | 'refresh' | undefined> {
  for (const key of keysFor(lookup)) {
    const [row] = await liveBotQuery(store.db).execute({ key });
    if (!row?.botToken) continue;
    // InstallProvider's own rule: a token with a refresh token and an expiry inside the window.
    const due = (rotates: boolean, expiresAt: Date | null) =>
      Boolean(rotates && expiresAt && expiresAt.getTime() <= refreshFrom.getTime());
    if (due(row.botRotates, row.botTokenExpiresAt) || due(row.userRotates, row.userTokenExpiresAt)) return 'refresh';
    return {
      botToken: open(store, row.botToken, row.key, 'bot')!,
      botId: row.botId ?? undefined,
      botUserId: row.botUserId ?? undefined,
      teamId: row.isEnterpriseInstall ? undefined : (row.teamId ?? undefined),
      enterpriseId: row.enterpriseId ?? undefined,
      botTokenExpiresAt: row.botRotates ? seconds(row.botTokenExpiresAt) : undefined,
    };
  }
  return undefined;
}

function toInstallation(store: Store, row: InstallationRow): Installation<'v2', boolean> & Fetched {
  const key = row.installationKey;
  const botToken = open(store, row.botToken, key, 'bot');
  const userToken = open(store, row.userToken, key, 'user');
  const userRefreshToken = open(store, row.userRefreshToken, key, 'user-refresh');
  const botRefreshToken = open(store, row.botRefreshToken, key, 'bot-refresh');
  const installation: Installation<'v2', boolean> & Fetched = {
    team:
      row.isEnterpriseInstall || !row.teamId
        ? undefined
        : { id: row.teamId, ...(row.teamName ? { name: row.teamName } : {}) },
    enterprise: row.enterpriseId
      ? { id: row.enterpriseId, ...(row.enterpriseName ? { name: row.enterpriseName } : {}) }
      : undefined,
    user: {
      id: row.installerUserId ?? '',
      token: userToken,
      scopes: row.userScopes ?? undefined,
      ...(userRefreshToken ? refreshing(userRefreshToken, row.userTokenExpiresAt) : {}),
    },
    ...(botToken
      ? {
          bot: {
            token: botToken,
            scopes: row.botScopes ?? [],
            id: row.botId ?? '',
            userId: row.botUserId ?? '',
            ...(botRefreshToken ? refreshing(botRefreshToken, row.botTokenExpiresAt) : {}),
          },
        }
      : {}),
    ...(row.appId ? { appId: row.appId } : {}),
    ...(row.enterpriseUrl ? { enterpriseUrl: row.enterpriseUrl } : {}),
    tokenType: 'bot',
    isEnterpriseInstall: row.isEnterpriseInstall,
    authVersion: 'v2',
  };
  installation[FETCHED] = { key, installedAt: row.installedAt.getTime() };
  return installation;
}

/** The one installation an event or InstallProvider names: the org's when org-wide, otherwise the workspace's own. */
function exactKey(lookup: InstallationLookup): string | undefined {
  if (lookup.isEnterpriseInstall) return lookup.enterpriseId ? enterpriseKey(lookup.enterpriseId) : undefined;
  return lookup.teamId ? teamKey(lookup.teamId) : undefined;
}

/** Clears the tokens of the installation `key`, when `only` (a condition on its row) holds. Returns the key when it did. */
async function clearTokens(
  store: Store,
  key: string | undefined,
  what: 'all' | 'user',
  only?: SQL,
): Promise<string | undefined> {
  if (!key) return undefined;
  const at = store.now();
  const updated = await store.db
    .update(installations)
    .set(
      what === 'all'
        ? {
            botToken: null,
            botRefreshToken: null,
            botTokenExpiresAt: null,
            userToken: null,
            userRefreshToken: null,
            userTokenExpiresAt: null,
            updatedAt: changedNow,
            // The first uninstall starts the retention clock; a repeated event does not restart it.
            uninstalledAt: sql`coalesce(${installations.uninstalledAt}, ${at.toISOString()}::timestamptz)`,
            purgeAfter: sql`coalesce(${installations.purgeAfter}, ${new Date(at.getTime() + store.retentionDays * 86_400_000).toISOString()}::timestamptz)`,
          }
        : { userToken: null, userRefreshToken: null, userTokenExpiresAt: null, updatedAt: changedNow },
    )
    .where(and(eq(installations.installationKey, key), only))
    .returning({ key: installations.installationKey });
  return updated.length > 0 ? changed(store, key) : undefined;
}

async function storeRefreshedTokens(
  store: Store,
  fetched: NonNullable<Fetched[typeof FETCHED]>,
  installation: Installation<'v1' | 'v2', boolean>,
): Promise<void> {
  const { db } = store;
  const bot = installation.bot;
  const user = installation.user;
  // A token refresh by InstallProvider.authorize: new tokens for the row they were read from, only
  // while it is still that installation (not uninstalled, not re-installed meanwhile).
  const key = fetched.key;
  await db
    .update(installations)
    .set({
      botToken: seal(store, bot?.token, key, 'bot'),
      botRefreshToken: seal(store, bot?.refreshToken, key, 'bot-refresh'),
      botTokenExpiresAt: expiry(bot?.expiresAt),
      userToken: seal(store, user.token, key, 'user'),
      userRefreshToken: seal(store, user.refreshToken, key, 'user-refresh'),
      userTokenExpiresAt: expiry(user.expiresAt),
      updatedAt: changedNow,
    })
    .where(
      and(
        eq(installations.installationKey, key),
        isNull(installations.uninstalledAt),
        eq(installations.installedAt, new Date(fetched.installedAt)),
      ),
    );
  changed(store, key);
}

async function storeNewInstallation(
  store: Store,
  installation: Installation<'v1' | 'v2', boolean>,
  at: Date,
): Promise<void> {
  const { db } = store;
  const bot = installation.bot;
  const user = installation.user;
  const orgWide = installation.isEnterpriseInstall === true;
  const enterpriseId = installation.enterprise?.id;
  const teamId = installation.team?.id;
  if (orgWide ? !enterpriseId : !teamId) throw new Error('an installation names neither its workspace nor its org');
  if (!bot?.token) throw new Error('an installation without a bot token (the bot scopes were not granted)');
  const key = orgWide ? enterpriseKey(enterpriseId!) : teamKey(teamId!);
  const row = {
    teamId: orgWide ? null : teamId!,
    teamName: orgWide ? null : (installation.team?.name ?? null),
    enterpriseId: enterpriseId ?? null,
    enterpriseName: installation.enterprise?.name ?? null,
    isEnterpriseInstall: orgWide,
    appId: installation.appId ?? null,
    installerUserId: user.id || null,
    botId: bot.id || null,
    botUserId: bot.userId || null,
    botScopes: bot.scopes,
    botToken: seal(store, bot.token, key, 'bot'),
    botRefreshToken: seal(store, bot.refreshToken, key, 'bot-refresh'),
    botTokenExpiresAt: expiry(bot.expiresAt),
    userScopes: user.scopes ?? null,
    userToken: seal(store, user.token, key, 'user'),
    userRefreshToken: seal(store, user.refreshToken, key, 'user-refresh'),
    userTokenExpiresAt: expiry(user.expiresAt),
    enterpriseUrl: installation.enterpriseUrl ?? null,
    installedAt: at,
    updatedAt: changedNow,
    uninstalledAt: null,
    purgeAfter: null,
    purgedAt: null,
  };
  await db
    .insert(installations)
    .values({ installationKey: key, ...row })
    .onConflictDoUpdate({ target: installations.installationKey, set: row });
  changed(store, key);
}

async function revokeTokens(
  store: Store,
  installation: InstallationLookup,
  revoked: { botUserIds: string[]; userIds: string[] },
): Promise<RevokedTokens | undefined> {
  const key = exactKey(installation);
  if (!key) return undefined;
  // One conditional statement each: the ids are compared with the row's own, so a list naming
  // another installation's bot or user matches nothing here.
  const bot =
    revoked.botUserIds.length > 0 &&
    (await clearTokens(store, key, 'all', inArray(installations.botUserId, revoked.botUserIds))) !== undefined;
  const user =
    !bot &&
    revoked.userIds.length > 0 &&
    (await clearTokens(
      store,
      key,
      'user',
      and(inArray(installations.installerUserId, revoked.userIds), isNotNull(installations.userToken)),
    )) !== undefined;
  return bot || user ? { key, bot, user } : undefined;
}

function seconds(at: Date | null): number | undefined {
  return at ? Math.floor(at.getTime() / 1000) : undefined;
}

/** A rotating token's refresh token, with its expiry when one is stored. */
function refreshing(refreshToken: string, expiresAt: Date | null): { refreshToken: string; expiresAt?: number } {
  const at = seconds(expiresAt);
  return at === undefined ? { refreshToken } : { refreshToken, expiresAt: at };
}

function expiry(expiresAtSeconds: number | undefined): Date | null {
  return expiresAtSeconds ? new Date(expiresAtSeconds * 1000) : null;
}

function describeLookup(lookup: InstallationLookup): string {
  if (lookup.isEnterpriseInstall && lookup.enterpriseId) return `the org ${lookup.enterpriseId}`;
  return `the workspace ${lookup.teamId ?? '(unknown)'}${lookup.enterpriseId ? ` (org ${lookup.enterpriseId})` : ''}`;
}
