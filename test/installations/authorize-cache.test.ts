// The installation lookup behind every request in distribution mode (src/slack/tenancy.ts): answers
// are cached (at most a minute, a bounded number of workspaces, least recently used out first), and
// an uninstall, a token refresh or a new install on this instance is seen by the very next lookup.
// "Another instance" is a second installationStore on the same database, which this tenancy's cache
// is not told about.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/config/logger.js';
import { generateKey, parseKeyRing } from '../../src/secrets/key-ring.js';
import { createInstallationStore, NotInstalledError } from '../../src/slack/installation-store.js';
import { createDistributionTenancy } from '../../src/slack/tenancy.js';
import { useTestDatabase } from '../support/db.js';

const testDb = useTestDatabase();
const ENCRYPTION_KEY = generateKey('k1');

const config = loadConfig({
  SLACK_CLIENT_ID: '1111.2222',
  SLACK_CLIENT_SECRET: 'client-secret-0123456789',
  SLACK_STATE_SECRET: 'state-secret-0123456789',
  SLACK_SIGNING_SECRET: 'signing-secret-0123456789',
  KUDOS_ENCRYPTION_KEY: ENCRYPTION_KEY,
  // Never called: no token here is near its expiry.
  SLACK_API_URL: 'http://127.0.0.1:9/api/',
  REWARDS_API_URL: 'http://127.0.0.1:9',
});

const silent = createLogger({ level: 'silent' });
const silentBolt = { debug() {}, info() {}, warn() {}, error() {}, setLevel() {}, getLevel: () => 'error' as never, setName() {} };

function tenancy(maxCached?: number) {
  return createDistributionTenancy({ config, db: testDb.db, logger: silent, slackLogger: silentBolt, ...(maxCached ? { maxCached } : {}) });
}

/** Another instance's installationStore on the same database: its changes reach no cache here. */
const elsewhere = () => createInstallationStore({ db: testDb.db, keyRing: parseKeyRing(ENCRYPTION_KEY), retentionDays: 30 });

function install(teamId: string, token: string) {
  return {
    team: { id: teamId, name: teamId },
    enterprise: undefined,
    user: { id: 'U1', token: undefined, scopes: undefined },
    bot: { token, refreshToken: `xoxe-1-${token}`, expiresAt: Math.floor(Date.now() / 1000) + 12 * 3600, scopes: ['commands'], id: `B${teamId}`, userId: `UBOT${teamId}` },
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
    const fetched = await t.store.fetchInstallation({ teamId: 'T1', enterpriseId: undefined, isEnterpriseInstall: false });
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
    await t.store.revokeTokens({ teamId: 'T1' }, { bot: true, userIds: [] });
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
});
