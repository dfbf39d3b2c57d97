// Distribution mode's cache of Rewards clients and connection statuses, over a store and clients in
// memory: one build per workspace at a time, the row version rechecked, least recently used out first
// past the bound, every client dropped closed, and nothing read before a change kept after it.
import { describe, expect, it } from 'vitest';

import {
  isRewardsNotConnected,
  workspaceRewardsAccounts,
  type WorkspaceRewardsAccountsOptions,
} from '../../../src/domain/accounts/rewards-accounts.js';
import type { RewardsConnection } from '../../../src/domain/accounts/rewards-connections.js';
import type { Workspace } from '../../../src/domain/common/workspace.js';
import type { RewardsClient } from '../../../src/rewards/index.js';

const A = { teamId: 'TA', enterpriseId: null };
const B = { teamId: 'TB', enterpriseId: null };
const C = { teamId: 'TC', enterpriseId: null };

interface FakeClient {
  version: string;
  closes: number;
}

/**
 * Connections by team and the clients built for them (each counting its closes). `holdNext()` keeps
 * the next read's answer (read at once) from the cache until released; while `state.failing` is set,
 * reading a connection (to build its client) fails as a lost connection would.
 */
function setup(opts: WorkspaceRewardsAccountsOptions = {}) {
  const connections = new Map<string, RewardsConnection>();
  const reads = { get: 0, versionOf: 0 };
  let hold: Promise<void> | undefined;
  const state = { failing: false };
  const answer = async <T>(value: T): Promise<T> => {
    const held = hold;
    hold = undefined;
    await held;
    return value;
  };
  const store = {
    get: (ws: Workspace) =>
      state.failing ? Promise.reject(new Error('connection lost')) : (reads.get++, answer(connections.get(ws.teamId))),
    versionOf: (ws: Workspace) => (reads.versionOf++, answer(connections.get(ws.teamId)?.version)),
  };
  const built: FakeClient[] = [];
  const accounts = workspaceRewardsAccounts(
    store,
    (connection) => {
      const client = { version: connection.version, closes: 0 };
      built.push(client);
      return { ...client, close: () => (client.closes++, Promise.resolve()), fake: client } as unknown as RewardsClient;
    },
    opts,
  );
  return {
    accounts,
    state,
    reads,
    built,
    /** The fake behind a client handed out. */
    fake: (client: RewardsClient) => (client as unknown as { fake: FakeClient }).fake,
    connect(ws: Workspace, version: string) {
      connections.set(ws.teamId, {
        id: `connection-${ws.teamId}`,
        teamId: ws.teamId,
        enterpriseId: null,
        connectedBy: 'U_ADMIN',
        connectedAt: new Date(0),
        version,
        clientId: 'client',
        clientSecret: 'secret',
        webhookSecret: 'webhook',
      });
    },
    disconnect: (ws: Workspace) => connections.delete(ws.teamId),
    holdNext: (): (() => void) => {
      let release!: () => void;
      hold = new Promise<void>((resolve) => (release = resolve));
      return release;
    },
  };
}

describe('Rewards clients by workspace', () => {
  it('builds once for concurrent uses, rechecks the version after recheckMs, rebuilds on a change and closes the old client', async () => {
    let now = 0;
    const t = setup({ recheckMs: 1000, now: () => now });
    t.connect(A, 'v1');
    const [first, ...others] = await Promise.all([t.accounts.for(A), t.accounts.for(A), t.accounts.for(A)]);
    expect(others).toEqual([first, first]);
    expect(t.reads).toEqual({ get: 1, versionOf: 0 });

    now = 500;
    expect(await t.accounts.for(A)).toBe(first);
    now = 1500;
    expect(await t.accounts.for(A)).toBe(first);
    expect(t.reads).toEqual({ get: 1, versionOf: 1 });

    t.connect(A, 'v2');
    now = 3000;
    t.state.failing = true;
    await expect(t.accounts.for(A)).rejects.toThrow('connection lost');
    t.state.failing = false;
    expect(t.fake(first).closes).toBe(0); // a failed read leaves the client there was
    const second = await t.accounts.for(A);
    expect(t.fake(second).version).toBe('v2');
    expect(t.built.map((c) => [c.version, c.closes])).toEqual([
      ['v1', 1],
      ['v2', 0],
    ]);
  });

  it('keeps maxClients, the least recently used closed first', async () => {
    const t = setup({ maxClients: 2 });
    for (const ws of [A, B, C]) t.connect(ws, `v-${ws.teamId}`);
    const a = await t.accounts.for(A);
    const b = await t.accounts.for(B);
    await t.accounts.for(A);
    const c = await t.accounts.for(C);
    expect([a, b, c].map((client) => t.fake(client).closes)).toEqual([0, 1, 0]);
    expect(await t.accounts.for(A)).toBe(a);
    expect(await t.accounts.for(C)).toBe(c);
    expect(await t.accounts.for(B)).not.toBe(b);
    expect(t.reads.get).toBe(4);
  });

  it('drops the client at once on disconnect, and on evict and close once it is closed', async () => {
    let now = 0;
    const t = setup({ recheckMs: 1000, now: () => now });
    t.connect(A, 'v1');
    t.connect(B, 'v1');
    const a = await t.accounts.for(A);
    t.disconnect(A);
    now = 2000;
    await expect(t.accounts.for(A)).rejects.toSatisfy(isRewardsNotConnected);
    expect(t.fake(a).closes).toBe(1);
    expect(await t.accounts.isConnected(A)).toBe(false);

    const b = await t.accounts.for(B);
    await t.accounts.evict(B);
    expect(t.fake(b).closes).toBe(1);
    const rebuilt = await t.accounts.for(B);
    expect(rebuilt).not.toBe(b);
    await t.accounts.close();
    expect(t.fake(rebuilt).closes).toBe(1);
  });

  it('does not keep a build under way when the workspace is evicted: its client is closed, its callers get one built after', async () => {
    const t = setup();
    t.connect(A, 'v1');
    const release = t.holdNext();
    const using = t.accounts.for(A); // reads v1, answered after the reconnect
    t.connect(A, 'v2');
    await t.accounts.evict(A);
    release();
    const client = await using;
    expect(t.fake(client).version).toBe('v2');
    expect(t.built.map((c) => [c.version, c.closes])).toEqual([
      ['v1', 1],
      ['v2', 0],
    ]);
    expect(await t.accounts.for(A)).toBe(client);
  });

  it('keeps statuses while the change feed watches; a change drops one, and a read under way then is not kept', async () => {
    const t = setup({ changes: { watching: () => true } });
    expect(await t.accounts.isConnected(A)).toBe(false);
    expect(await t.accounts.isConnected(A)).toBe(false);
    expect(t.reads.versionOf).toBe(1);

    t.accounts.changed(A.teamId);
    const release = t.holdNext();
    const reading = t.accounts.isConnected(A); // read before the connect, answered after it
    t.connect(A, 'v1');
    t.accounts.changed(A.teamId);
    release();
    expect(await reading).toBe(false);
    expect(await t.accounts.isConnected(A)).toBe(true);
    expect(await t.accounts.isConnected(A)).toBe(true);
    expect(t.reads.versionOf).toBe(3);
    expect(t.reads.get).toBe(0);
  });
});
