// How work finds its Rewards client: always by workspace (ARCHITECTURE.md, "Which Rewards account").
// Single-workspace mode: the environment's one client for every workspace.
// Distribution mode: the workspace's own connection (rewards-connections.ts); each connection gets a
// client of its own (its own OAuth token, connection pool and rate-limit budget), kept in a bounded
// cache: least recently used out first, rebuilt when the connection's credentials change (reconnect
// on this or another instance: the row's version is rechecked at most every `recheckMs`), dropped at
// once on disconnect. Whether a workspace is connected at all is kept too (bounded), so a workspace
// without an account does not cost a query per request. With the change feed running (change-feed.ts),
// another instance's connect or disconnect reaches both within a poll and they live up to an hour;
// without it (or while its polls fail) the recheck above applies. Nothing here ever picks "some" client: no workspace, no client.
import type { RateLimitStatus, RewardsClient } from '../../rewards/index.js';
import type { Workspace } from '../common/workspace.js';
import type { ChangeWatch } from '../workspaces/change-feed.js';
import type { RewardsConnection, RewardsConnectionStore } from './rewards-connections.js';

export class RewardsNotConnectedError extends Error {
  override readonly name = 'RewardsNotConnectedError';
  readonly code = 'REWARDS_NOT_CONNECTED';
  constructor(readonly teamId: string) {
    super(`workspace ${teamId} has no Rewards account connected`);
  }
}

export function isRewardsNotConnected(error: unknown): error is RewardsNotConnectedError {
  return error instanceof RewardsNotConnectedError;
}

export interface RewardsAccounts {
  readonly mode: 'single' | 'distribution';
  /** The workspace's client; throws RewardsNotConnectedError when it has none. */
  for(ws: Workspace): Promise<RewardsClient>;
  /** Whether the workspace can reach Rewards (single mode: always). */
  isConnected(ws: Workspace): Promise<boolean>;
  /** Every client there is, with its workspace (distribution) for sweeps that go account by account (the order poller). */
  all(): Promise<Array<{ ws: Workspace | undefined; connectionId: string | undefined; client: RewardsClient }>>;
  /**
   * The rate-limit figures the poll budget paces itself by: single mode, the one client's; distribution,
   * none (each account has its own window; the budget then keeps its default pace).
   */
  rateLimit(): RateLimitStatus | undefined;
  /** Forgets the workspace's cached client and connection status (after connect, reconnect, disconnect). */
  evict(ws: Workspace): Promise<void>;
  /**
   * Another instance changed the workspace's connection (the change feed): its status is asked again,
   * its client's version rechecked at its next use (rebuilt only if the credentials changed).
   */
  changed(teamId: string): void;
  close(): Promise<void>;
}

/** Single-workspace mode: the environment's client, for every workspace. */
export function singleRewardsAccount(client: RewardsClient): RewardsAccounts {
  return {
    mode: 'single',
    for: () => Promise.resolve(client),
    isConnected: () => Promise.resolve(true),
    all: () => Promise.resolve([{ ws: undefined, connectionId: undefined, client }]),
    rateLimit: () => client.rateLimit(),
    evict: () => Promise.resolve(),
    changed: () => {},
    close: () => client.close(),
  };
}

export interface WorkspaceRewardsAccountsOptions {
  /** Clients kept at most (least recently used closed first). Default 200. */
  maxClients?: number;
  /** A cached client's connection is rechecked (row version) at most this often without the change feed. Default 30 s. */
  recheckMs?: number;
  /** Another instance's changes, seen within a poll: clients and statuses then trusted up to `watchedTtlMs` (default an hour). */
  changes?: ChangeWatch;
  watchedTtlMs?: number;
  /** Connection statuses (connected or not) kept at most, least recently used out first. Default 10,000. */
  maxStatuses?: number;
  now?: () => number;
  /** Workspaces with a connection, for `all()` (the order poller). */
  listConnected?: () => Promise<Workspace[]>;
}

/** Distribution mode: each workspace's own connected account. */
export function workspaceRewardsAccounts(
  store: Pick<RewardsConnectionStore, 'get' | 'versionOf'>,
  createClient: (connection: RewardsConnection) => RewardsClient,
  opts: WorkspaceRewardsAccountsOptions = {},
): RewardsAccounts {
  const s: AccountsCache = {
    store,
    createClient,
    opts,
    maxClients: opts.maxClients ?? 200,
    shortRecheckMs: opts.recheckMs ?? 30_000,
    watchedTtlMs: opts.watchedTtlMs ?? 3600_000,
    maxStatuses: opts.maxStatuses ?? 10_000,
    now: opts.now ?? Date.now,
    statuses: new Map(),
    reading: new Map(),
    cache: new Map(),
    building: new Map(),
  };
  return {
    mode: 'distribution',
    async for(ws) {
      const entry = await entryFor(s, ws);
      if (!entry) throw new RewardsNotConnectedError(ws.teamId);
      return entry.client;
    },
    isConnected: (ws) => isConnected(s, ws),
    all: () => allClients(s),
    rateLimit: () => undefined,
    async evict(ws) {
      forgetStatus(s, ws.teamId);
      await dropClient(s, ws.teamId);
    },
    changed(teamId) {
      forgetStatus(s, teamId);
      const entry = s.cache.get(teamId);
      if (entry) entry.checkedAt = -Infinity;
    },
    async close() {
      await Promise.all([...s.cache.keys()].map((teamId) => dropClient(s, teamId)));
    },
  };
}

interface ClientEntry {
  connectionId: string;
  version: string;
  checkedAt: number;
  client: RewardsClient;
}

/** Distribution mode's settings, cached clients and connection statuses, by team id. */
interface AccountsCache {
  store: Pick<RewardsConnectionStore, 'get' | 'versionOf'>;
  createClient: (connection: RewardsConnection) => RewardsClient;
  opts: WorkspaceRewardsAccountsOptions;
  maxClients: number;
  shortRecheckMs: number;
  watchedTtlMs: number;
  maxStatuses: number;
  now: () => number;
  /**
   * Whether a workspace has an active connection, as last read: trusted only while the change feed
   * runs (without it a "not connected" was never cached, and is not now).
   */
  statuses: Map<string, { connected: boolean; at: number }>;
  /** One status read in flight per workspace; a change drops it, so a read that began before it is not kept. */
  reading: Map<string, Promise<boolean>>;
  /** Clients, least recently used first. */
  cache: Map<string, ClientEntry>;
  /** One client build in flight per workspace. */
  building: Map<string, Promise<ClientEntry | undefined>>;
}

function watching(s: AccountsCache): boolean {
  return s.opts.changes?.watching() ?? false;
}

/** How old a cached client's version may be before it is read again. */
function recheckMs(s: AccountsCache): number {
  return watching(s) ? s.watchedTtlMs : s.shortRecheckMs;
}

function forgetStatus(s: AccountsCache, teamId: string): void {
  s.statuses.delete(teamId);
  s.reading.delete(teamId);
}

async function isConnected(s: AccountsCache, ws: Workspace): Promise<boolean> {
  const entry = s.cache.get(ws.teamId);
  if (entry) return (await entryFor(s, ws)) !== undefined;
  const known = s.statuses.get(ws.teamId);
  if (known && watching(s) && s.now() - known.at < s.watchedTtlMs) {
    // Most recently used last.
    s.statuses.delete(ws.teamId);
    s.statuses.set(ws.teamId, known);
    return known.connected;
  }
  // One narrow read (no secret opened); the client is built when something calls Rewards.
  return readStatus(s, ws);
}

function readStatus(s: AccountsCache, ws: Workspace): Promise<boolean> {
  const pending = s.reading.get(ws.teamId);
  if (pending) return pending;
  const at = s.now();
  const read: Promise<boolean> = s.store.versionOf(ws).then(
    (version) => {
      const connected = version !== undefined;
      if (s.reading.get(ws.teamId) === read) {
        s.reading.delete(ws.teamId);
        s.statuses.delete(ws.teamId);
        s.statuses.set(ws.teamId, { connected, at });
        if (s.statuses.size > s.maxStatuses) s.statuses.delete(s.statuses.keys().next().value!);
      }
      return connected;
    },
    (error: unknown) => {
      if (s.reading.get(ws.teamId) === read) s.reading.delete(ws.teamId);
      throw error;
    },
  );
  s.reading.set(ws.teamId, read);
  return read;
}

async function allClients(
  s: AccountsCache,
): Promise<Array<{ ws: Workspace; connectionId: string; client: RewardsClient }>> {
  const workspaces = (await s.opts.listConnected?.()) ?? [];
  const out: Array<{ ws: Workspace; connectionId: string; client: RewardsClient }> = [];
  for (const ws of workspaces) {
    const entry = await entryFor(s, ws).catch(() => undefined);
    if (entry) out.push({ ws, connectionId: entry.connectionId, client: entry.client });
  }
  return out;
}

function dropClient(s: AccountsCache, teamId: string): Promise<unknown> {
  const entry = s.cache.get(teamId);
  s.cache.delete(teamId);
  return entry ? entry.client.close().catch(() => undefined) : Promise.resolve();
}

function buildClient(s: AccountsCache, ws: Workspace): Promise<ClientEntry | undefined> {
  let pending = s.building.get(ws.teamId);
  if (!pending) {
    pending = (async () => {
      const connection = await s.store.get(ws);
      await dropClient(s, ws.teamId);
      if (!connection) return undefined;
      const entry: ClientEntry = {
        connectionId: connection.id,
        version: connection.version,
        checkedAt: s.now(),
        client: s.createClient(connection),
      };
      s.cache.set(ws.teamId, entry);
      while (s.cache.size > s.maxClients) await dropClient(s, s.cache.keys().next().value!);
      return entry;
    })().finally(() => s.building.delete(ws.teamId));
    s.building.set(ws.teamId, pending);
  }
  return pending;
}

async function entryFor(s: AccountsCache, ws: Workspace): Promise<ClientEntry | undefined> {
  const entry = s.cache.get(ws.teamId);
  if (!entry) return buildClient(s, ws);
  if (s.now() - entry.checkedAt >= recheckMs(s)) {
    const version = await s.store.versionOf(ws);
    if (version !== entry.version) return buildClient(s, ws);
    entry.checkedAt = s.now();
  }
  // Most recently used last.
  s.cache.delete(ws.teamId);
  s.cache.set(ws.teamId, entry);
  return entry;
}
