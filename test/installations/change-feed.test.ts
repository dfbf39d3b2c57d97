// The change feed of the per-workspace caches (src/domain/workspaces/change-feed.ts): two instances (two sets of
// caches, each with its own feed) over one database. What one changes (uninstall, token refresh,
// tokens_revoked, reinstall, a settings edit, a Rewards connect or disconnect) is seen by the other
// after its next poll, without waiting for any TTL; until then, and for every workspace that did not
// change, a cached lookup costs no query. When the polls fail the caches go back to short TTLs.
// Runs on PGlite and PostgreSQL.
import { afterEach, describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/config/logger.js';
import type { Database } from '../../src/db/client.js';
import { workspaceRewardsAccounts } from '../../src/domain/accounts/rewards-accounts.js';
import { createRewardsConnectionStore } from '../../src/domain/accounts/rewards-connections.js';
import { type ChangeFeed, createChangeFeed } from '../../src/domain/workspaces/change-feed.js';
import { createSettingsStore } from '../../src/domain/workspaces/settings.js';
import { generateKey, parseKeyRing } from '../../src/secrets/key-ring.js';
import { NotInstalledError } from '../../src/slack/install/installation-store.js';
import { createDistributionTenancy } from '../../src/slack/install/tenancy.js';
import { distributionEnv, silentBoltLogger } from '../support/config.js';
import { useTestDatabase } from '../support/db.js';
import { countQueries } from '../support/query-count.js';

const testDb = useTestDatabase();
const ENCRYPTION_KEY = generateKey('k1');

// Slack and the Rewards API are never called: no token here is near its expiry, no Rewards client is built.
const config = loadConfig(distributionEnv(ENCRYPTION_KEY));

const silent = createLogger({ level: 'silent' });
const silentBolt = silentBoltLogger;
const T1 = { teamId: 'T1', enterpriseId: null };
const T2 = { teamId: 'T2', enterpriseId: null };
const CREDENTIALS = { clientId: 'client', clientSecret: 'client-secret', webhookSecret: 'webhook-secret' };

const feeds: ChangeFeed[] = [];
afterEach(async () => {
  await Promise.all(feeds.splice(0).map((f) => f.stop()));
});

/** One app instance's caches on the request path, with its own feed (polled by the test: no timer). */
function instance(opts: { db?: Database; now?: () => number } = {}) {
  const db = opts.db ?? testDb.db;
  // No overlap: a change is reported by the first poll after it and only by that one, so a test can
  // tell an eviction by the feed from one by a change it did not make.
  const changes = createChangeFeed({ db, installations: true, overlapMs: 0, ...(opts.now ? { now: opts.now } : {}) });
  feeds.push(changes);
  const tenancy = createDistributionTenancy({ config, db, logger: silent, slackLogger: silentBolt, changes });
  const settings = createSettingsStore({ db, config, changes, ...(opts.now ? { now: opts.now } : {}) });
  const connections = createRewardsConnectionStore({ db, keyRing: parseKeyRing(ENCRYPTION_KEY) });
  const accounts = workspaceRewardsAccounts(
    connections,
    () => {
      throw new Error('no Rewards client is built by a status lookup');
    },
    { changes },
  );
  changes.listen({
    installation: (key) => tenancy.evictInstallation(key),
    settings: (teamId) => settings.evict(teamId),
    connection: (teamId) => accounts.changed(teamId),
  });
  return { changes, tenancy, settings, connections, accounts };
}

function install(teamId: string, token: string) {
  return {
    team: { id: teamId, name: teamId },
    enterprise: undefined,
    user: { id: 'U1', token: undefined, scopes: undefined },
    bot: {
      token,
      refreshToken: `xoxe-1-${token}`,
      expiresAt: Math.floor(Date.now() / 1000) + 12 * 3600,
      scopes: ['commands'],
      id: `B${teamId}`,
      userId: `UBOT${teamId}`,
    },
    appId: 'A1',
    isEnterpriseInstall: false,
    authVersion: 'v2' as const,
    tokenType: 'bot' as const,
  };
}

/** Queries sent while `fn` runs. */
async function queriesOf(fn: () => Promise<unknown>): Promise<number> {
  const counter = countQueries(testDb.db);
  try {
    await fn();
    return counter.count();
  } finally {
    counter.restore();
  }
}

describe('the change feed of the per-workspace caches', () => {
  it("another instance's uninstall, token refresh, tokens_revoked and reinstall are seen after one poll; a cached lookup costs no query", async () => {
    const here = instance();
    const there = instance();
    await there.tenancy.store.storeInstallation(install('T1', 'xoxb-first'));
    await there.tenancy.store.storeInstallation(install('T2', 'xoxb-two'));
    await here.changes.poll();
    expect(here.changes.watching()).toBe(true);
    expect(await here.tenancy.botToken(T1)).toBe('xoxb-first');
    expect(await here.tenancy.botToken(T2)).toBe('xoxb-two');
    expect(await queriesOf(() => Promise.all([here.tenancy.botToken(T1), here.tenancy.botToken(T2)]))).toBe(0);

    // A token refresh there (as InstallProvider.authorize stores it): cached here until the poll.
    const fetched = await there.tenancy.store.fetchInstallation({
      teamId: 'T1',
      enterpriseId: undefined,
      isEnterpriseInstall: false,
    });
    await there.tenancy.store.storeInstallation({ ...fetched, bot: { ...fetched.bot!, token: 'xoxb-refreshed' } });
    expect(await here.tenancy.botToken(T1)).toBe('xoxb-first');
    await here.changes.poll();
    expect(await here.tenancy.botToken(T1)).toBe('xoxb-refreshed');
    // T2 did not change: still answered from the cache.
    expect(await queriesOf(() => here.tenancy.botToken(T2))).toBe(0);

    // Uninstall there.
    await there.tenancy.store.uninstall({ teamId: 'T1' });
    await here.changes.poll();
    await expect(here.tenancy.botToken(T1)).rejects.toBeInstanceOf(NotInstalledError);

    // Reinstall there.
    await there.tenancy.store.storeInstallation(install('T1', 'xoxb-reinstalled'));
    await here.changes.poll();
    expect(await here.tenancy.botToken(T1)).toBe('xoxb-reinstalled');

    // tokens_revoked (the bot token) there.
    await there.tenancy.store.revokeTokens({ teamId: 'T1' }, { botUserIds: ['UBOTT1'], userIds: [] });
    await here.changes.poll();
    await expect(here.tenancy.botToken(T1)).rejects.toBeInstanceOf(NotInstalledError);
    expect(await queriesOf(() => here.tenancy.botToken(T2))).toBe(0);
  });

  it("another instance's settings edit is seen after one poll; until then and for other workspaces, no query", async () => {
    const here = instance();
    const there = instance();
    // Seeded there first (a seed is a new row: a change of its own).
    await Promise.all([there.settings.get(T1), there.settings.get(T2)]);
    await here.changes.poll();
    expect((await here.settings.get(T1)).defaultAmountCents).toBeNull();
    await here.settings.get(T2);
    expect(await queriesOf(() => Promise.all([here.settings.get(T1), here.settings.get(T2)]))).toBe(0);

    await there.settings.update(T1, 'U_ADMIN', { defaultAmountCents: 2500 });
    expect((await here.settings.get(T1)).defaultAmountCents).toBeNull();
    await here.changes.poll();
    expect((await here.settings.get(T1)).defaultAmountCents).toBe(2500);
    expect(await queriesOf(() => here.settings.get(T2))).toBe(0);
  });

  it("another instance's Rewards connect and disconnect are seen after one poll; a workspace without an account costs no query per lookup", async () => {
    const here = instance();
    const there = instance();
    await here.changes.poll();
    expect(await here.accounts.isConnected(T1)).toBe(false);
    expect(await here.accounts.isConnected(T2)).toBe(false);
    expect(await queriesOf(() => Promise.all([here.accounts.isConnected(T1), here.accounts.isConnected(T2)]))).toBe(0);

    await there.connections.save(T1, CREDENTIALS, 'U_ADMIN');
    await there.accounts.evict(T1);
    expect(await there.accounts.isConnected(T1)).toBe(true);
    expect(await here.accounts.isConnected(T1)).toBe(false);
    await here.changes.poll();
    expect(await here.accounts.isConnected(T1)).toBe(true);
    expect(await queriesOf(() => here.accounts.isConnected(T1))).toBe(0);

    await there.connections.disconnect(T1);
    await there.accounts.evict(T1);
    expect(await there.accounts.isConnected(T1)).toBe(false);
    await here.changes.poll();
    expect(await here.accounts.isConnected(T1)).toBe(false);
    expect(await queriesOf(() => here.accounts.isConnected(T2))).toBe(0);
  });

  it('while the polls fail, the caches go back to their short TTLs (settings: 5 s)', async () => {
    let now = Date.now();
    let broken = false;
    const db = new Proxy(testDb.db, {
      get(target, prop) {
        if (prop === 'execute' && broken) return () => Promise.reject(new Error('connection lost'));
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const here = instance({ db, now: () => now });
    const there = instance();
    await here.changes.poll();
    await here.settings.get(T1);
    await there.settings.update(T1, 'U_ADMIN', { approvalThresholdCents: 12_300 });

    broken = true;
    await here.changes.poll();
    // The last good poll is recent: still the long TTL.
    now += 6000;
    expect((await here.settings.get(T1)).approvalThresholdCents).not.toBe(12_300);
    // No good poll for a while: an entry older than the short TTL is read again.
    now += 20_000;
    expect(here.changes.watching()).toBe(false);
    expect((await here.settings.get(T1)).approvalThresholdCents).toBe(12_300);

    // The feed back: the cursor did not move while it failed, so what changed meanwhile is evicted.
    await there.settings.update(T1, 'U_ADMIN', { approvalThresholdCents: 45_600 });
    broken = false;
    await here.changes.poll();
    expect(here.changes.watching()).toBe(true);
    expect((await here.settings.get(T1)).approvalThresholdCents).toBe(45_600);
  });
});
