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
import type { ChangeWatch } from '../workspaces/change-feed.js';
import type { RewardsConnection, RewardsConnectionStore } from './rewards-connections.js';
import type { WorkspaceRef } from '../workspaces/settings.js';

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
  for(ws: WorkspaceRef): Promise<RewardsClient>;
  /** Whether the workspace can reach Rewards (single mode: always). */
  isConnected(ws: WorkspaceRef): Promise<boolean>;
  /** Every client there is, with its workspace (distribution) for sweeps that go account by account (the order poller). */
  all(): Promise<Array<{ ws: WorkspaceRef | undefined; connectionId: string | undefined; client: RewardsClient }>>;
  /**
   * The rate-limit figures the poll budget paces itself by: single mode, the one client's; distribution,
   * none (each account has its own window; the budget then keeps its default pace).
   */
  rateLimit(): RateLimitStatus | undefined;
  /** Forgets the workspace's cached client and connection status (after connect, reconnect, disconnect). */
  evict(ws: WorkspaceRef): Promise<void>;
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
  listConnected?: () => Promise<WorkspaceRef[]>;
}

/** Distribution mode: each workspace's own connected account. */
export function workspaceRewardsAccounts(
  store: Pick<RewardsConnectionStore, 'get' | 'versionOf'>,
  createClient: (connection: RewardsConnection) => RewardsClient,
  opts: WorkspaceRewardsAccountsOptions = {},
): RewardsAccounts {
  const maxClients = opts.maxClients ?? 200;
  const shortRecheckMs = opts.recheckMs ?? 30_000;
  const watchedTtlMs = opts.watchedTtlMs ?? 3600_000;
  const watching = () => opts.changes?.watching() ?? false;
  const recheckNow = () => (watching() ? watchedTtlMs : shortRecheckMs);
  const maxStatuses = opts.maxStatuses ?? 10_000;
  const now = opts.now ?? Date.now;
  /**
   * Whether a workspace has an active connection, as last read: trusted only while the change feed
   * runs (without it a "not connected" was never cached, and is not now).
   */
  const statuses = new Map<string, { connected: boolean; at: number }>();
  /** One status read in flight per workspace; a change drops it, so a read that began before it is not kept. */
  const reading = new Map<string, Promise<boolean>>();
  const bump = (teamId: string) => {
    statuses.delete(teamId);
    reading.delete(teamId);
  };
  const readStatus = (ws: WorkspaceRef): Promise<boolean> => {
    const pending = reading.get(ws.teamId);
    if (pending) return pending;
    const at = now();
    const read: Promise<boolean> = store.versionOf(ws).then(
      (version) => {
        const connected = version !== undefined;
        if (reading.get(ws.teamId) === read) {
          reading.delete(ws.teamId);
          statuses.delete(ws.teamId);
          statuses.set(ws.teamId, { connected, at });
          if (statuses.size > maxStatuses) statuses.delete(statuses.keys().next().value!);
        }
        return connected;
      },
      (error: unknown) => {
        if (reading.get(ws.teamId) === read) reading.delete(ws.teamId);
        throw error;
      },
    );
    reading.set(ws.teamId, read);
    return read;
  };
  interface Entry {
    connectionId: string;
    version: string;
    checkedAt: number;
    client: RewardsClient;
  }
  const cache = new Map<string, Entry>();
  const building = new Map<string, Promise<Entry | undefined>>();

  const drop = (teamId: string) => {
    const entry = cache.get(teamId);
    cache.delete(teamId);
    return entry ? entry.client.close().catch(() => undefined) : Promise.resolve();
  };

  const build = (ws: WorkspaceRef, known?: RewardsConnection): Promise<Entry | undefined> => {
    let pending = building.get(ws.teamId);
    if (!pending) {
      pending = (async () => {
        const connection = known ?? (await store.get(ws));
        await drop(ws.teamId);
        if (!connection) return undefined;
        const entry: Entry = {
          connectionId: connection.id,
          version: connection.version,
          checkedAt: now(),
          client: createClient(connection),
        };
        cache.set(ws.teamId, entry);
        while (cache.size > maxClients) await drop(cache.keys().next().value!);
        return entry;
      })().finally(() => building.delete(ws.teamId));
      building.set(ws.teamId, pending);
    }
    return pending;
  };

  const entryFor = async (ws: WorkspaceRef): Promise<Entry | undefined> => {
    const entry = cache.get(ws.teamId);
    if (!entry) return build(ws);
    if (now() - entry.checkedAt >= recheckNow()) {
      const version = await store.versionOf(ws);
      if (version !== entry.version) return build(ws);
      entry.checkedAt = now();
    }
    // Most recently used last.
    cache.delete(ws.teamId);
    cache.set(ws.teamId, entry);
    return entry;
  };

  return {
    mode: 'distribution',
    async for(ws) {
      const entry = await entryFor(ws);
      if (!entry) throw new RewardsNotConnectedError(ws.teamId);
      return entry.client;
    },
    async isConnected(ws) {
      const entry = cache.get(ws.teamId);
      if (entry) return (await entryFor(ws)) !== undefined;
      const known = statuses.get(ws.teamId);
      if (known && watching() && now() - known.at < watchedTtlMs) {
        // Most recently used last.
        statuses.delete(ws.teamId);
        statuses.set(ws.teamId, known);
        return known.connected;
      }
      // One narrow read (no secret opened); the client is built when something calls Rewards.
      return readStatus(ws);
    },
    async all() {
      const workspaces = (await opts.listConnected?.()) ?? [];
      const out: Array<{ ws: WorkspaceRef; connectionId: string; client: RewardsClient }> = [];
      for (const ws of workspaces) {
        const entry = await entryFor(ws).catch(() => undefined);
        if (entry) out.push({ ws, connectionId: entry.connectionId, client: entry.client });
      }
      return out;
    },
    rateLimit: () => undefined,
    async evict(ws) {
      bump(ws.teamId);
      await drop(ws.teamId);
    },
    changed(teamId) {
      bump(teamId);
      const entry = cache.get(teamId);
      if (entry) entry.checkedAt = -Infinity;
    },
    async close() {
      await Promise.all([...cache.keys()].map((teamId) => drop(teamId)));
    },
  };
}
