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
import { LRUCache } from 'lru-cache';

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
  const now = opts.now ?? Date.now;
  // In both, one read per workspace at a time, shared by its callers. A delete() (a change) while it
  // runs means it may have read what was there before: its answer is not kept, though its callers still
  // get it (ignoreFetchAbort). A failed read leaves the entry there was.
  const s: AccountsCache = {
    store,
    opts,
    shortRecheckMs: opts.recheckMs ?? 30_000,
    watchedTtlMs: opts.watchedTtlMs ?? 3600_000,
    now,
    statuses: new LRUCache({
      max: opts.maxStatuses ?? 10_000,
      ignoreFetchAbort: true,
      noDeleteOnFetchRejection: true,
      fetchMethod: async (_teamId, _stale, { context: ws }) => {
        const at = now();
        return { connected: (await store.versionOf(ws)) !== undefined, at };
      },
    }),
    clients: new LRUCache({
      max: opts.maxClients ?? 200,
      ignoreFetchAbort: true,
      noDeleteOnFetchRejection: true,
      fetchMethod: async (_teamId, _stale, { context: ws }) => {
        const connection = await store.get(ws);
        return (
          connection && {
            connectionId: connection.id,
            version: connection.version,
            checkedAt: now(),
            client: createClient(connection),
          }
        );
      },
      // Pushed out, replaced by a rebuild, dropped by evict() or close(). dispose, not disposeAfter: the
      // close does not touch the cache.
      dispose: closeEntry,
    }),
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
      s.statuses.delete(ws.teamId);
      const entry = s.clients.peek(ws.teamId);
      s.clients.delete(ws.teamId);
      await entry?.closed;
    },
    changed(teamId) {
      s.statuses.delete(teamId);
      const entry = s.clients.peek(teamId);
      if (entry) entry.checkedAt = -Infinity;
    },
    async close() {
      const entries: ClientEntry[] = [];
      s.clients.forEach((entry) => entries.push(entry));
      s.clients.clear(); // each one's close starts here
      for (const entry of entries) await entry.closed;
    },
  };
}

interface ClientEntry {
  connectionId: string;
  version: string;
  checkedAt: number;
  client: RewardsClient;
  /** Once dropped: its client's close. */
  closed?: Promise<unknown>;
}

/** Closes the entry's client, once. */
function closeEntry(entry: ClientEntry): void {
  entry.closed ??= entry.client.close().catch(() => undefined);
}

/** Distribution mode's settings, cached clients and connection statuses, by team id. */
interface AccountsCache {
  store: Pick<RewardsConnectionStore, 'get' | 'versionOf'>;
  opts: WorkspaceRewardsAccountsOptions;
  shortRecheckMs: number;
  watchedTtlMs: number;
  now: () => number;
  /**
   * Whether a workspace has an active connection, as last read: trusted only while the change feed
   * runs (without it a "not connected" was never cached, and is not now).
   */
  statuses: LRUCache<string, { connected: boolean; at: number }, Workspace>;
  /** Clients, least recently used out first. */
  clients: LRUCache<string, ClientEntry, Workspace>;
}

function watching(s: AccountsCache): boolean {
  return s.opts.changes?.watching() ?? false;
}

/** How old a cached client's version may be before it is read again. */
function recheckMs(s: AccountsCache): number {
  return watching(s) ? s.watchedTtlMs : s.shortRecheckMs;
}

async function isConnected(s: AccountsCache, ws: Workspace): Promise<boolean> {
  if (s.clients.has(ws.teamId)) return (await entryFor(s, ws)) !== undefined;
  const known = s.statuses.get(ws.teamId);
  if (known && watching(s) && s.now() - known.at < s.watchedTtlMs) return known.connected;
  // One narrow read (no secret opened); the client is built when something calls Rewards.
  const read = await s.statuses.fetch(ws.teamId, { forceRefresh: true, context: ws });
  return read!.connected;
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

async function buildClient(s: AccountsCache, ws: Workspace): Promise<ClientEntry | undefined> {
  const built = await s.clients.fetch(ws.teamId, { forceRefresh: true, context: ws });
  if (!built) {
    // No connection: a fetch that answers nothing leaves the client there was, which goes now.
    s.clients.delete(ws.teamId);
    return undefined;
  }
  if (s.clients.peek(ws.teamId) !== built) {
    // Dropped while it was built (evicted after a change, closed, pushed out): it may be older, so it is
    // closed and the workspace's client asked for again.
    closeEntry(built);
    return entryFor(s, ws);
  }
  return built;
}

async function entryFor(s: AccountsCache, ws: Workspace): Promise<ClientEntry | undefined> {
  const entry = s.clients.get(ws.teamId);
  if (!entry) return buildClient(s, ws);
  if (s.now() - entry.checkedAt >= recheckMs(s)) {
    const version = await s.store.versionOf(ws);
    if (version !== entry.version) return buildClient(s, ws);
    entry.checkedAt = s.now();
  }
  return entry;
}
