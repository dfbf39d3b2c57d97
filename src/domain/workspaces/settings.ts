// Per-workspace settings in the database, seeded from the environment (the README's configuration table) the
// first time a workspace is seen, then changed by admins in `/kudos settings`. Reads are cached:
// replaced at once in this process on a change; another instance's change reaches this one through the
// change feed (change-feed.ts) within a poll, so an entry lives an hour while the feed runs and a few
// seconds when it does not (or its polls fail). Under steady traffic no request waits for the database:
// in the last fifth of the TTL a read returns the cached value and starts one background reload per
// workspace; concurrent misses share one query.
// Every change is one audit row listing each changed field as { from, to }.
import { and, eq, isNull, sql } from 'drizzle-orm';
import { LRUCache } from 'lru-cache';

import type { AppConfig } from '../../config/index.js';
import type { Database } from '../../db/client.js';
import {
  auditEvents,
  type CardRecipients,
  type CardSenders,
  type OverAllowance,
  workspaceSettings,
  type WorkspaceSettingsRow,
} from '../../db/schema/index.js';
import type { Workspace } from '../common/workspace.js';
import type { ChangeWatch } from './change-feed.js';

export const DEFAULT_APPROVAL_EXPIRY_HOURS = 72;
/** Recurring series one person may have (active or paused), until an admin changes it. */
export const DEFAULT_MAX_SERIES_PER_PERSON = 20;
/** Recurring series a workspace may have (active or paused), until an admin changes it. */
export const DEFAULT_MAX_SERIES_PER_WORKSPACE = 500;

export interface WorkspaceSettings {
  teamId: string;
  enterpriseId: string | null;
  notifyChannel: string | null;
  approvalChannel: string | null;
  /** null or empty with no user group: workspace admins and owners approve. */
  approverUserIds: string[] | null;
  approverUsergroupId: string | null;
  approvalThresholdCents: number;
  /** The default monthly allowance per sender (cents, calendar month in UTC); null: none. */
  monthlyBudgetCents: number | null;
  /** A send over its sender's allowance waits for an approver (`approval`) or is refused (`refuse`). */
  overAllowance: OverAllowance;
  /** Who may send kudos with cards: everyone, the members of senderUsergroupId, or Kudos admins. */
  cardSenders: CardSenders;
  senderUsergroupId: string | null;
  defaultProductId: string | null;
  /** The country (alpha-3) whose brands people are offered unless their own is known (people-countries.ts); null: every country. */
  defaultCountry: string | null;
  /** The Slack custom profile field holding people's country, read daily (people-countries-profile.ts). */
  countryProfileFieldId: string | null;
  defaultAmountCents: number | null;
  /** null or empty: workspace admins and owners are admins. */
  adminUserIds: string[] | null;
  approvalExpiryHours: number;
  /** Channel for admin alerts; null: admins by direct message. */
  adminChannel: string | null;
  /** Available balance (cents) under which admins are alerted once per crossing; null: no alert. */
  lowBalanceThresholdCents: number | null;
  /** Emoji name (no colons) whose reaction "+1"s an announcement; default `gift`. */
  reactionEmoji: string;
  /** Recurring series (active or paused) one person may have. */
  maxSeriesPerPerson: number;
  /** Recurring series (active or paused) the workspace may have. */
  maxSeriesPerWorkspace: number;
  /** A weekly leaderboard digest in the announcement channel (off by default). */
  weeklyDigest: boolean;
  /** The leaderboard shows dollar amounts beside the counts (counts only by default). */
  leaderboardAmounts: boolean;
  /** Who receives cards: full members only (default), also guests, also invited people (recipients.ts). */
  cardRecipients: CardRecipients;
  /** Senders must pick a company value when the workspace has any (company-values.ts); optional by default. */
  valuesRequired: boolean;
  /** A person's send must carry a message (the send form, `/kudos @a 25 …`); off by default. */
  requireMessage: boolean;
  updatedBy: string | null;
  updatedAt: Date;
}

/** The fields an admin can change. */
export type SettingsPatch = Partial<Omit<WorkspaceSettings, 'teamId' | 'enterpriseId' | 'updatedBy' | 'updatedAt'>>;
export type SettingsField = keyof SettingsPatch;

export const SETTINGS_FIELDS: readonly SettingsField[] = [
  'notifyChannel',
  'approvalChannel',
  'approverUserIds',
  'approverUsergroupId',
  'approvalThresholdCents',
  'monthlyBudgetCents',
  'overAllowance',
  'cardSenders',
  'senderUsergroupId',
  'defaultProductId',
  'defaultCountry',
  'countryProfileFieldId',
  'defaultAmountCents',
  'adminUserIds',
  'approvalExpiryHours',
  'adminChannel',
  'lowBalanceThresholdCents',
  'reactionEmoji',
  'maxSeriesPerPerson',
  'maxSeriesPerWorkspace',
  'weeklyDigest',
  'leaderboardAmounts',
  'cardRecipients',
  'valuesRequired',
  'requireMessage',
];

export type SettingsChanges = Partial<Record<SettingsField, { from: unknown; to: unknown }>>;

export interface SettingsStore {
  /** The workspace's settings; the first read of a new workspace seeds them from the environment. */
  get(ws: Workspace): Promise<WorkspaceSettings>;
  /** Applies an admin's change and records it in the audit trail; no row is written when nothing changed. */
  update(
    ws: Workspace,
    actorUserId: string,
    patch: SettingsPatch,
  ): Promise<{ settings: WorkspaceSettings; changes: SettingsChanges }>;
  /**
   * Records `productId` as the default design of a workspace that has none (recorded as the `system`
   * actor's change, in the audit trail); a default set meanwhile (an admin, another instance) stays.
   * Answers the settings as they are then.
   */
  adoptDefaultDesign(ws: Workspace, productId: string): Promise<WorkspaceSettings>;
  /** Forgets the workspace's cached settings (changed by another instance): the next read asks the database. */
  evict(teamId: string): void;
}

/** Who a change the app made by itself (a first default design) is recorded as. */
const SETTINGS_SYSTEM_ACTOR = 'system';

/**
 * The announcement channel of a workspace, read from its settings on every call. `undefined`: an
 * order placed outside Slack, which belongs to the workspace the app is installed in (its home).
 */
export type NotifyChannelOf = (ws: Workspace | undefined) => Promise<string | undefined>;

export function notifyChannelLookup(
  settings: Pick<SettingsStore, 'get'>,
  home: () => Promise<Workspace>,
): NotifyChannelOf {
  return async (ws) => (await settings.get(ws ?? (await home()))).notifyChannel ?? undefined;
}

/** The values a new workspace starts with: the environment of the README's configuration table. */
export function seedFromConfig(
  config: Pick<
    AppConfig,
    | 'notifyChannel'
    | 'approvalChannel'
    | 'approvers'
    | 'approvalThresholdCents'
    | 'admins'
    | 'adminChannel'
    | 'lowBalanceThresholdCents'
  >,
): SettingsPatch {
  return {
    notifyChannel: config.notifyChannel ?? null,
    approvalChannel: config.approvalChannel ?? null,
    approverUserIds: config.approvers && config.approvers.length > 0 ? config.approvers : null,
    approverUsergroupId: null,
    approvalThresholdCents: config.approvalThresholdCents,
    monthlyBudgetCents: null,
    overAllowance: 'approval',
    cardSenders: 'everyone',
    senderUsergroupId: null,
    defaultProductId: null,
    defaultCountry: null,
    countryProfileFieldId: null,
    defaultAmountCents: null,
    adminUserIds: config.admins && config.admins.length > 0 ? config.admins : null,
    approvalExpiryHours: DEFAULT_APPROVAL_EXPIRY_HOURS,
    adminChannel: config.adminChannel ?? null,
    lowBalanceThresholdCents: config.lowBalanceThresholdCents ?? null,
    reactionEmoji: 'gift',
    maxSeriesPerPerson: DEFAULT_MAX_SERIES_PER_PERSON,
    maxSeriesPerWorkspace: DEFAULT_MAX_SERIES_PER_WORKSPACE,
    weeklyDigest: false,
    leaderboardAmounts: false,
    cardRecipients: 'members',
    valuesRequired: false,
    requireMessage: false,
  };
}

/**
 * A workspace's stored settings read through `reader` (a transaction's), bypassing the cache; undefined
 * before the workspace's first read seeded them. Inside a transaction, the cache's own read would take
 * another connection, which embedded PGlite (one connection) only grants after the transaction: a deadlock.
 */
export async function readStoredSettings(
  reader: Pick<Database, 'select'>,
  teamId: string,
): Promise<WorkspaceSettings | undefined> {
  const [row] = await reader.select().from(workspaceSettings).where(eq(workspaceSettings.teamId, teamId));
  return row ? fromRow(row) : undefined;
}

function fromRow(row: WorkspaceSettingsRow): WorkspaceSettings {
  return {
    teamId: row.teamId,
    enterpriseId: row.enterpriseId,
    notifyChannel: row.notifyChannel,
    approvalChannel: row.approvalChannel,
    approverUserIds: row.approverUserIds,
    approverUsergroupId: row.approverUsergroupId,
    approvalThresholdCents: row.approvalThresholdCents,
    monthlyBudgetCents: row.monthlyBudgetCents,
    overAllowance: row.overAllowance,
    cardSenders: row.cardSenders,
    senderUsergroupId: row.senderUsergroupId,
    defaultProductId: row.defaultProductId,
    defaultCountry: row.defaultCountry,
    countryProfileFieldId: row.countryProfileFieldId,
    defaultAmountCents: row.defaultAmountCents,
    adminUserIds: row.adminUserIds,
    approvalExpiryHours: row.approvalExpiryHours,
    adminChannel: row.adminChannel,
    lowBalanceThresholdCents: row.lowBalanceThresholdCents,
    reactionEmoji: row.reactionEmoji,
    maxSeriesPerPerson: row.maxSeriesPerPerson,
    maxSeriesPerWorkspace: row.maxSeriesPerWorkspace,
    weeklyDigest: row.weeklyDigest,
    leaderboardAmounts: row.leaderboardAmounts,
    cardRecipients: row.cardRecipients,
    valuesRequired: row.valuesRequired,
    requireMessage: row.requireMessage,
    updatedBy: row.updatedBy,
    updatedAt: row.updatedAt,
  };
}

/** Lists compare as sets (order in a multi-select is not a change); everything else by value. */
function normalised(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? null : [...(value as unknown[])].sort();
  return value ?? null;
}

export function diffSettings(before: WorkspaceSettings, patch: SettingsPatch): SettingsChanges {
  const changes: SettingsChanges = {};
  for (const field of SETTINGS_FIELDS) {
    if (!(field in patch)) continue;
    const from = normalised(before[field]);
    const to = normalised(patch[field]);
    if (JSON.stringify(from) !== JSON.stringify(to)) changes[field] = { from, to };
  }
  return changes;
}

/**
 * Workspaces whose settings are kept in memory at most (least recently used out first): about half a
 * KiB each, so every workspace of a 10,000-workspace installation base that was seen stays.
 */
const SETTINGS_CACHE_MAX = 10_000;

export function createSettingsStore(deps: {
  db: Database;
  config: AppConfig;
  /** Without the change feed (or while its polls fail): default 5 s. */
  ttlMs?: number;
  /** While the change feed runs: default an hour. */
  watchedTtlMs?: number;
  /** Another instance's changes, seen within a poll (change-feed.ts); without it, ttlMs always. */
  changes?: ChangeWatch;
  maxCached?: number;
  now?: () => number;
}): SettingsStore {
  // A value is never served more than the TTL after the read that produced it started.
  const shortTtlMs = deps.ttlMs ?? 5000;
  const watchedTtlMs = deps.watchedTtlMs ?? 3600_000;
  const ttlNow = () => (deps.changes?.watching() ? watchedTtlMs : shortTtlMs);
  const clock = deps.now ?? Date.now;
  const load = (ws: Workspace) => loadSettings(deps.db, deps.config, ws);
  // Least recently used out past the bound, so thousands of workspaces seen once do not stay in memory
  // for good. No TTL of its own: the TTL depends on the change feed when read, so get() decides. One
  // read per workspace at a time, shared by its callers; a set() or delete() (an update here, another
  // instance's seen by the feed) while it runs means its answer may be older, so it is not kept
  // (ignoreFetchAbort: its callers are still answered). A failed reload leaves the entry there was.
  const cache = new LRUCache<string, { at: number; settings: WorkspaceSettings }, Workspace>({
    max: deps.maxCached ?? SETTINGS_CACHE_MAX,
    ignoreFetchAbort: true,
    noDeleteOnFetchRejection: true,
    fetchMethod: async (_teamId, _stale, { context: ws }) => {
      const at = clock();
      return { at, settings: await load(ws) };
    },
  });

  async function read(ws: Workspace): Promise<WorkspaceSettings> {
    const fetched = await cache.fetch(ws.teamId, { forceRefresh: true, context: ws });
    // A change made while it ran is newer than what it read.
    return (cache.peek(ws.teamId) ?? fetched!).settings;
  }
  return {
    async get(ws) {
      const hit = cache.get(ws.teamId);
      const age = hit ? clock() - hit.at : Infinity;
      const ttlMs = ttlNow();
      if (!hit || age >= ttlMs) return read(ws);
      // Refresh ahead, so that under traffic the entry never expires in front of a request.
      if (age >= ttlMs * 0.8) read(ws).catch(() => {});
      return hit.settings;
    },
    async update(ws, actorUserId, patch) {
      await load(ws); // seeds a new workspace first
      const result = await writeSettingsPatch(deps.db, ws, actorUserId, patch);
      cache.set(ws.teamId, { at: clock(), settings: result.settings });
      return result;
    },
    async adoptDefaultDesign(ws, productId) {
      await load(ws); // seeds a new workspace first
      const settings =
        (await adoptDefaultDesignRow(deps.db, ws, productId)) ?? (await readStoredSettings(deps.db, ws.teamId))!;
      cache.set(ws.teamId, { at: clock(), settings });
      return settings;
    },
    evict(teamId) {
      cache.delete(teamId);
    },
  };
}

/** A workspace's settings as stored; the first time it is seen, seeded from the environment first. */
async function loadSettings(db: Database, config: AppConfig, ws: Workspace): Promise<WorkspaceSettings> {
  const [existing] = await db.select().from(workspaceSettings).where(eq(workspaceSettings.teamId, ws.teamId));
  if (existing) return fromRow(existing);
  // First time this workspace is seen: seed from the environment. Concurrent seeders agree (same values).
  const seed = seedFromConfig(config);
  await db
    .insert(workspaceSettings)
    .values({
      teamId: ws.teamId,
      enterpriseId: ws.enterpriseId ?? null,
      ...seed,
      approvalThresholdCents: seed.approvalThresholdCents ?? 0,
    })
    .onConflictDoNothing({ target: workspaceSettings.teamId });
  const [seeded] = await db.select().from(workspaceSettings).where(eq(workspaceSettings.teamId, ws.teamId));
  if (!seeded) throw new Error(`settings of ${ws.teamId} could not be seeded`);
  return fromRow(seeded);
}

/** Applies the fields of `patch` that change something, with their audit event, in one transaction. */
async function writeSettingsPatch(
  db: Database,
  ws: Workspace,
  actorUserId: string,
  patch: SettingsPatch,
): Promise<{ settings: WorkspaceSettings; changes: SettingsChanges }> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(workspaceSettings)
      .where(eq(workspaceSettings.teamId, ws.teamId))
      .for('update');
    if (!row) throw new Error(`settings of ${ws.teamId} vanished`);
    const before = fromRow(row);
    const changes = diffSettings(before, patch);
    if (Object.keys(changes).length === 0) return { settings: before, changes };
    const set: Partial<WorkspaceSettingsRow> = {};
    for (const field of Object.keys(changes) as SettingsField[]) {
      (set as Record<string, unknown>)[field] = normalised(patch[field]);
    }
    const [updated] = await tx
      .update(workspaceSettings)
      .set({ ...set, updatedBy: actorUserId, updatedAt: sql`clock_timestamp()` })
      .where(eq(workspaceSettings.teamId, ws.teamId))
      .returning();
    await tx.insert(auditEvents).values({
      teamId: ws.teamId,
      enterpriseId: ws.enterpriseId ?? row.enterpriseId,
      actorUserId,
      action: 'settings.changed',
      subjectType: 'settings',
      subjectId: ws.teamId,
      details: { changes },
    });
    return { settings: fromRow(updated!), changes };
  });
}

/** Sets the default design only where none is set yet, with its audit event; undefined when one was. */
async function adoptDefaultDesignRow(
  db: Database,
  ws: Workspace,
  productId: string,
): Promise<WorkspaceSettings | undefined> {
  return db.transaction(async (tx) => {
    const [updated] = await tx
      .update(workspaceSettings)
      .set({ defaultProductId: productId, updatedBy: SETTINGS_SYSTEM_ACTOR, updatedAt: sql`clock_timestamp()` })
      .where(and(eq(workspaceSettings.teamId, ws.teamId), isNull(workspaceSettings.defaultProductId)))
      .returning();
    if (!updated) return undefined;
    await tx.insert(auditEvents).values({
      teamId: ws.teamId,
      enterpriseId: ws.enterpriseId ?? updated.enterpriseId,
      actorUserId: SETTINGS_SYSTEM_ACTOR,
      action: 'settings.changed',
      subjectType: 'settings',
      subjectId: ws.teamId,
      details: { changes: { defaultProductId: { from: null, to: productId } } },
    });
    return fromRow(updated);
  });
}

/**
 * The one admin rule, for every check (settings, audit, reward links, everyone's scheduled sends,
 * bounce fixes): the workspace's own admin list when set, otherwise its Slack admins and owners.
 * Read per workspace on every call, never from another workspace or a process-wide value.
 */
export async function isWorkspaceAdmin(
  deps: {
    settings: Pick<SettingsStore, 'get'>;
    users: {
      userInfo(
        ws: Workspace,
        userId: string,
      ): Promise<{ isAdmin: boolean; isOwner: boolean; deleted?: boolean } | undefined>;
    };
  },
  ws: Workspace,
  userId: string,
): Promise<boolean> {
  const settings = await deps.settings.get(ws);
  if (settings.adminUserIds && settings.adminUserIds.length > 0) return settings.adminUserIds.includes(userId);
  const user = await deps.users.userInfo(ws, userId);
  return Boolean(user && !user.deleted && (user.isAdmin || user.isOwner));
}
