// The installation lookup behind every request in distribution mode (src/slack/install/tenancy.ts): answers
// are cached (at most a minute, a bounded number of workspaces, least recently used out first), and
// an uninstall, a token refresh or a new install on this instance is seen by the very next lookup.
// "Another instance" is a second installationStore on the same database, which this tenancy's cache
// is not told about.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { AuthorizeResult } from '@slack/bolt';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/config/logger.js';
import { installations } from '../../src/db/schema/index.js';
import { generateKey, parseKeyRing } from '../../src/secrets/key-ring.js';
import { createInstallationStore, NotInstalledError } from '../../src/slack/install/installation-store.js';
import { createAuthorizeCache, createDistributionTenancy } from '../../src/slack/install/tenancy.js';
import { distributionEnv, silentBoltLogger } from '../support/config.js';
import { useTestDatabase } from '../support/db.js';

const testDb = useTestDatabase();
const ENCRYPTION_KEY = generateKey('k1');

// Slack and the Rewards API are never called: no token here is near its expiry.
const config = loadConfig(distributionEnv(ENCRYPTION_KEY));

const silent = createLogger({ level: 'silent' });
const silentBolt = silentBoltLogger;

function tenancy(maxCached?: number) {
  return createDistributionTenancy({
    config,
    db: testDb.db,
    logger: silent,
    slackLogger: silentBolt,
    ...(maxCached ? { maxCached } : {}),
  });
}

/** Another instance's installationStore on the same database: its changes reach no cache here. */
const elsewhere = () =>
  createInstallationStore({ db: testDb.db, keyRing: parseKeyRing(ENCRYPTION_KEY), retentionDays: 30 });

function install(teamId: string, token: string, expiresInSeconds = 12 * 3600) {
  return {
    team: { id: teamId, name: teamId },
    enterprise: undefined,
    user: { id: 'U1', token: undefined, scopes: undefined },
    bot: {
      token,
      refreshToken: `xoxe-1-${token}`,
      expiresAt: Math.floor(Date.now() / 1000) + expiresInSeconds,
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

describe('the installation lookup cache (distribution mode)', () => {
  it('serves a cached token until this instance uninstalls, refreshes or reinstalls, each seen by the next lookup', async () => {
    const t = tenancy();
    await t.store.storeInstallation(install('T1', 'xoxb-first'));
    expect(await t.botToken({ teamId: 'T1', enterpriseId: null })).toBe('xoxb-first');

    // Another instance reinstalls: within the minute this instance still answers from its cache.
    await elsewhere().storeInstallation(install('T1', 'xoxb-elsewhere'));
    expect(await t.botToken({ teamId: 'T1', enterpriseId: null })).toBe('xoxb-first');

    // A token refresh on this instance (as InstallProvider.authorize stores it): the new token at once.
    const fetched = await t.store.fetchInstallation({
      teamId: 'T1',
      enterpriseId: undefined,
      isEnterpriseInstall: false,
    });
    await t.store.storeInstallation({ ...fetched, bot: { ...fetched.bot!, token: 'xoxb-refreshed' } });
    expect(await t.botToken({ teamId: 'T1', enterpriseId: null })).toBe('xoxb-refreshed');

    // A reinstall on this instance: the new token at once.
    await t.store.storeInstallation(install('T1', 'xoxb-reinstalled'));
    expect(await t.botToken({ teamId: 'T1', enterpriseId: null })).toBe('xoxb-reinstalled');

    // app_uninstalled: not installed from the next lookup on, not after a minute.
    await t.store.uninstall({ teamId: 'T1' });
    await expect(t.botToken({ teamId: 'T1', enterpriseId: null })).rejects.toBeInstanceOf(NotInstalledError);
  });

  it('tokens_revoked (the bot token) is seen by the next lookup', async () => {
    const t = tenancy();
    await t.store.storeInstallation(install('T1', 'xoxb-first'));
    expect(await t.botToken({ teamId: 'T1', enterpriseId: null })).toBe('xoxb-first');
    await t.store.revokeTokens({ teamId: 'T1' }, { botUserIds: ['UBOTT1'], userIds: [] });
    await expect(t.botToken({ teamId: 'T1', enterpriseId: null })).rejects.toBeInstanceOf(NotInstalledError);
  });

  it('keeps a bounded number of workspaces, dropping the least recently used: a dropped one is read again', async () => {
    const t = tenancy(2);
    for (const team of ['T1', 'T2', 'T3']) await t.store.storeInstallation(install(team, `xoxb-${team}-old`));
    await t.botToken({ teamId: 'T1', enterpriseId: null });
    await t.botToken({ teamId: 'T2', enterpriseId: null });
    await t.botToken({ teamId: 'T1', enterpriseId: null }); // T1 used again: T2 is now the coldest
    await t.botToken({ teamId: 'T3', enterpriseId: null }); // over the bound of 2: T2 goes

    // Another instance reinstalls all three; only a workspace dropped from the cache is read again.
    for (const team of ['T1', 'T2', 'T3']) await elsewhere().storeInstallation(install(team, `xoxb-${team}-new`));
    expect(await t.botToken({ teamId: 'T2', enterpriseId: null })).toBe('xoxb-T2-new');
    expect(await t.botToken({ teamId: 'T3', enterpriseId: null })).toBe('xoxb-T3-old');
  });

  it('a token inside its refresh window is refreshed (oauth.v2.access) and stored before it is served; a fresh one is served as stored', async () => {
    // Slack's oauth.v2.access for the refresh, counting the calls.
    const refreshes: string[] = [];
    const slack = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        refreshes.push(new URLSearchParams(body).get('refresh_token') ?? '');
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            ok: true,
            token_type: 'bot',
            access_token: 'xoxb-rotated',
            refresh_token: 'xoxe-1-rotated',
            expires_in: 43_200,
          }),
        );
      });
    });
    await new Promise<void>((resolve) => slack.listen(0, '127.0.0.1', resolve));
    try {
      const slackApiUrl = `http://127.0.0.1:${(slack.address() as AddressInfo).port}/api/`;
      const t = createDistributionTenancy({
        config: { ...config, slackApiUrl },
        db: testDb.db,
        logger: silent,
        slackLogger: silentBolt,
      });
      await t.store.storeInstallation(install('T1', 'xoxb-fresh'));
      await t.store.storeInstallation(install('T2', 'xoxb-expiring', 3600));

      expect(await t.botToken({ teamId: 'T1', enterpriseId: null })).toBe('xoxb-fresh');
      expect(refreshes).toEqual([]);

      // An hour left (the window is two): refreshed once, even for two lookups at once.
      const [a, b] = await Promise.all([
        t.botToken({ teamId: 'T2', enterpriseId: null }),
        t.botToken({ teamId: 'T2', enterpriseId: null }),
      ]);
      expect([a, b]).toEqual(['xoxb-rotated', 'xoxb-rotated']);
      expect(refreshes).toEqual(['xoxe-1-xoxb-expiring']);
      // Stored for every instance: another one reads the new tokens.
      const [row] = await testDb.db.select().from(installations).where(eq(installations.teamId, 'T2'));
      expect(row!.botTokenExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 11 * 3600_000);
      const stored = await elsewhere().fetchInstallation({
        teamId: 'T2',
        enterpriseId: undefined,
        isEnterpriseInstall: false,
      });
      expect(stored.bot).toMatchObject({ token: 'xoxb-rotated', refreshToken: 'xoxe-1-rotated' });
    } finally {
      await new Promise<void>((resolve) => slack.close(() => resolve()));
    }
  });

  it('an org-wide install serves each workspace of the org with its token', async () => {
    const t = tenancy();
    await t.store.storeInstallation({
      ...install('T_UNUSED', 'xoxb-org'),
      team: undefined,
      enterprise: { id: 'E1', name: 'Org' },
      isEnterpriseInstall: true,
    });
    expect(await t.botToken({ teamId: 'T_IN_ORG', enterpriseId: 'E1' })).toBe('xoxb-org');
    expect(await t.authorize({ teamId: 'T_IN_ORG', enterpriseId: 'E1', isEnterpriseInstall: true })).toMatchObject({
      teamId: 'T_IN_ORG',
      enterpriseId: 'E1',
      botUserId: 'UBOTT_UNUSED',
    });
    await expect(t.botToken({ teamId: 'T_ELSEWHERE', enterpriseId: null })).rejects.toBeInstanceOf(NotInstalledError);
  });

  it("another instance's change reported by installation key (the change feed) evicts a workspace's own answer and an org workspace's answer", async () => {
    const t = tenancy();
    await t.store.storeInstallation(install('T1', 'xoxb-first'));
    await t.store.storeInstallation({
      ...install('T_UNUSED', 'xoxb-org'),
      team: undefined,
      enterprise: { id: 'E1', name: 'Org' },
      isEnterpriseInstall: true,
    });
    expect(await t.botToken({ teamId: 'T1', enterpriseId: null })).toBe('xoxb-first');
    // A workspace of the org without an install of its own: its answer is the org's, cached under both keys.
    expect(await t.botToken({ teamId: 'T_IN_ORG', enterpriseId: 'E1' })).toBe('xoxb-org');

    await elsewhere().storeInstallation(install('T1', 'xoxb-elsewhere'));
    await elsewhere().uninstall({ enterpriseId: 'E1', isEnterpriseInstall: true });
    // Not told yet: both answered from the cache.
    expect(await t.botToken({ teamId: 'T1', enterpriseId: null })).toBe('xoxb-first');
    expect(await t.botToken({ teamId: 'T_IN_ORG', enterpriseId: 'E1' })).toBe('xoxb-org');

    t.evictInstallation('team:T1');
    expect(await t.botToken({ teamId: 'T1', enterpriseId: null })).toBe('xoxb-elsewhere');
    expect(await t.botToken({ teamId: 'T_IN_ORG', enterpriseId: 'E1' })).toBe('xoxb-org');
    t.evictInstallation('enterprise:E1');
    await expect(t.botToken({ teamId: 'T_IN_ORG', enterpriseId: 'E1' })).rejects.toBeInstanceOf(NotInstalledError);
  });
});

// The cache alone, its lookups given by each test: the index from installation key to the answers of
// an org's workspaces must lose each answer the cache lets go, however it goes, and no other.
describe('the authorize cache and its installation index', () => {
  const ofOrg = (team: string) => `team:${team}|enterprise:E1`;
  const answer = (botToken: string, botTokenExpiresAt?: number): AuthorizeResult => ({
    botToken,
    ...(botTokenExpiresAt ? { botTokenExpiresAt } : {}),
  });
  const indexed = (cache: ReturnType<typeof createAuthorizeCache>) =>
    Object.fromEntries([...cache.byInstallation].map(([key, cacheKeys]) => [key, [...cacheKeys]]));
  function slowLookup() {
    let resolve!: (result: AuthorizeResult) => void;
    const promise = new Promise<AuthorizeResult>((r) => (resolve = r));
    return { load: () => promise, resolve };
  }

  it('an answer pushed out by the bound, answered or still being looked up, leaves nothing behind in the index', async () => {
    const cache = createAuthorizeCache(2, undefined);
    await cache.get(ofOrg('T1'), async () => answer('xoxb-1'));
    await cache.get(ofOrg('T2'), async () => answer('xoxb-2'));
    await cache.get(ofOrg('T3'), async () => answer('xoxb-3'));
    expect(indexed(cache)).toEqual({
      'team:T2': [ofOrg('T2')],
      'team:T3': [ofOrg('T3')],
      'enterprise:E1': [ofOrg('T2'), ofOrg('T3')],
    });

    // Pushed out while its lookup runs: its caller still gets the answer, which is neither kept nor indexed.
    const slow = slowLookup();
    const waiting = cache.get(ofOrg('T4'), slow.load);
    await cache.get(ofOrg('T5'), async () => answer('xoxb-5'));
    await cache.get(ofOrg('T6'), async () => answer('xoxb-6'));
    slow.resolve(answer('xoxb-4'));
    expect((await waiting).botToken).toBe('xoxb-4');
    expect(indexed(cache)).toEqual({
      'team:T5': [ofOrg('T5')],
      'team:T6': [ofOrg('T6')],
      'enterprise:E1': [ofOrg('T5'), ofOrg('T6')],
    });
    expect((await cache.get(ofOrg('T4'), async () => answer('xoxb-4-again'))).botToken).toBe('xoxb-4-again');
  });

  it('a failed lookup is neither kept nor indexed: the next one looks up again', async () => {
    const cache = createAuthorizeCache(10, undefined);
    await expect(cache.get(ofOrg('T1'), () => Promise.reject(new Error('database down')))).rejects.toThrow(
      'database down',
    );
    expect(indexed(cache)).toEqual({});
    expect((await cache.get(ofOrg('T1'), async () => answer('xoxb-1'))).botToken).toBe('xoxb-1');
    expect(indexed(cache)).toEqual({ 'team:T1': [ofOrg('T1')], 'enterprise:E1': [ofOrg('T1')] });
  });

  it('a change while a lookup runs: every caller gets its answer, and the next lookup reads again', async () => {
    const cache = createAuthorizeCache(10, undefined);
    const slow = slowLookup();
    const first = cache.get(ofOrg('T1'), slow.load);
    const second = cache.get(ofOrg('T1'), async () => answer('xoxb-not-asked'));
    cache.evictKey('enterprise:E1');
    expect(indexed(cache)).toEqual({});
    slow.resolve(answer('xoxb-before-the-change'));
    expect((await first).botToken).toBe('xoxb-before-the-change');
    expect((await second).botToken).toBe('xoxb-before-the-change');
    expect((await cache.get(ofOrg('T1'), async () => answer('xoxb-after'))).botToken).toBe('xoxb-after');
  });

  it('an answer refreshed in place stays indexed: a change after the refresh still drops it', async () => {
    const cache = createAuthorizeCache(10, undefined);
    // Inside the refresh window from the start: the next lookup reads again.
    const expiring = Math.floor(Date.now() / 1000) + 3600;
    await cache.get(ofOrg('T1'), async () => answer('xoxb-expiring', expiring));
    expect((await cache.get(ofOrg('T1'), async () => answer('xoxb-rotated'))).botToken).toBe('xoxb-rotated');
    expect(indexed(cache)).toEqual({ 'team:T1': [ofOrg('T1')], 'enterprise:E1': [ofOrg('T1')] });
    expect((await cache.get(ofOrg('T1'), async () => answer('xoxb-not-asked'))).botToken).toBe('xoxb-rotated');

    cache.evictKey('enterprise:E1');
    expect(indexed(cache)).toEqual({});
    expect((await cache.get(ofOrg('T1'), async () => answer('xoxb-after'))).botToken).toBe('xoxb-after');
  });
});
