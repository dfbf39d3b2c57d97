// How work finds its Rewards client: always by workspace (ARCHITECTURE.md, "Which Rewards account").
// Single-workspace mode: the environment's one client for every workspace, exactly as before.
// Distribution mode: the workspace's own connection (rewards-connections.ts); each connection gets a
// client of its own (its own OAuth token, connection pool and rate-limit budget), kept in a bounded
// cache: least recently used out first, rebuilt when the connection's credentials change (reconnect
// on this or another instance: the row's version is rechecked at most every `recheckMs`), dropped at
// once on disconnect. Nothing here ever picks "some" client: no workspace, no client.
import type { RateLimitStatus, RewardsClient } from '../rewards/index.js';
import type { RewardsConnection, RewardsConnectionStore } from './rewards-connections.js';
import type { WorkspaceRef } from './settings.js';

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
  /** Forgets the workspace's cached client (after connect, reconnect, disconnect). */
  evict(ws: WorkspaceRef): Promise<void>;
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
    close: () => client.close(),
  };
}

export interface WorkspaceRewardsAccountsOptions {
  /** Clients kept at most (least recently used closed first). Default 200. */
  maxClients?: number;
  /** A cached client's connection is rechecked (row version) at most this often. Default 30 s. */
  recheckMs?: number;
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
  const recheckMs = opts.recheckMs ?? 30_000;
  const now = opts.now ?? Date.now;
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
        const entry: Entry = { connectionId: connection.id, version: connection.version, checkedAt: now(), client: createClient(connection) };
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
    if (now() - entry.checkedAt >= recheckMs) {
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
      return (await entryFor(ws)) !== undefined;
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
      await drop(ws.teamId);
    },
    async close() {
      await Promise.all([...cache.keys()].map((teamId) => drop(teamId)));
    },
  };
}
