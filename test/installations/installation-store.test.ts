import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { installations } from '../../src/db/schema/index.js';
import { generateKey, parseKeyRing } from '../../src/secrets/key-ring.js';
import { createInstallationStore, NotInstalledError } from '../../src/slack/install/installation-store.js';
import { useTestDatabase } from '../support/db.js';

const testDb = useTestDatabase();
const keyRing = parseKeyRing(generateKey('k1'));

function store(changes: string[] = []) {
  return createInstallationStore({ db: testDb.db, keyRing, retentionDays: 30, onChange: (key) => changes.push(key) });
}

const teamInstall = {
  team: { id: 'T1', name: 'Acme' },
  enterprise: undefined,
  user: { id: 'U1', token: undefined, scopes: undefined },
  bot: {
    token: 'xoxb-team-secret-1',
    refreshToken: 'xoxe-1-refresh-secret',
    expiresAt: Math.floor(Date.now() / 1000) + 43_200,
    scopes: ['commands', 'chat:write'],
    id: 'B1',
    userId: 'UBOT1',
  },
  appId: 'A1',
  isEnterpriseInstall: false,
  authVersion: 'v2' as const,
  tokenType: 'bot' as const,
};

const orgInstall = {
  team: undefined,
  enterprise: { id: 'E1', name: 'Grid Co' },
  user: { id: 'W1', token: undefined, scopes: undefined },
  bot: { token: 'xoxb-org-secret-2', scopes: ['commands'], id: 'B2', userId: 'WBOT2' },
  appId: 'A1',
  isEnterpriseInstall: true,
  authVersion: 'v2' as const,
  tokenType: 'bot' as const,
};

describe('installationStore (drizzle, sealed tokens)', () => {
  it('stores a workspace install and an org-wide install sealed, and fetches each back by team or enterprise', async () => {
    const s = store();
    await s.storeInstallation(teamInstall);
    await s.storeInstallation(orgInstall);
    const rows = await testDb.db.select().from(installations);
    expect(rows.map((r) => r.installationKey).sort()).toEqual(['enterprise:E1', 'team:T1']);
    const dump = JSON.stringify(rows);
    for (const secret of ['xoxb-team-secret-1', 'xoxe-1-refresh-secret', 'xoxb-org-secret-2'])
      expect(dump).not.toContain(secret);
    expect(rows.find((r) => r.installationKey === 'team:T1')).toMatchObject({
      teamId: 'T1',
      isEnterpriseInstall: false,
      botScopes: ['commands', 'chat:write'],
    });
    expect(rows.find((r) => r.installationKey === 'enterprise:E1')).toMatchObject({
      teamId: null,
      enterpriseId: 'E1',
      isEnterpriseInstall: true,
    });

    const team = await s.fetchInstallation({ teamId: 'T1', enterpriseId: undefined, isEnterpriseInstall: false });
    expect(team.bot).toMatchObject({
      token: 'xoxb-team-secret-1',
      refreshToken: 'xoxe-1-refresh-secret',
      id: 'B1',
      userId: 'UBOT1',
    });
    expect(team.team?.id).toBe('T1');
    const org = await s.fetchInstallation({ teamId: undefined, enterpriseId: 'E1', isEnterpriseInstall: true });
    expect(org).toMatchObject({
      isEnterpriseInstall: true,
      enterprise: { id: 'E1' },
      bot: { token: 'xoxb-org-secret-2' },
    });
    // A workspace of the org without its own install is served by the org's.
    const viaOrg = await s.fetchInstallation({ teamId: 'T9', enterpriseId: 'E1', isEnterpriseInstall: false });
    expect(viaOrg.bot?.token).toBe('xoxb-org-secret-2');
  });

  it('a token sealed for one row does not open in another', async () => {
    const s = store();
    await s.storeInstallation(teamInstall);
    await s.storeInstallation({
      ...teamInstall,
      team: { id: 'T2', name: 'Other' },
      bot: { ...teamInstall.bot, token: 'xoxb-other' },
    });
    const [one] = await testDb.db.select().from(installations).where(eq(installations.installationKey, 'team:T1'));
    await testDb.db
      .update(installations)
      .set({ botToken: one!.botToken })
      .where(eq(installations.installationKey, 'team:T2'));
    await expect(
      s.fetchInstallation({ teamId: 'T2', enterpriseId: undefined, isEnterpriseInstall: false }),
    ).rejects.toThrow(/failed to open/);
  });

  it('a team with no installation is a NotInstalledError', async () => {
    await expect(
      store().fetchInstallation({ teamId: 'T404', enterpriseId: undefined, isEnterpriseInstall: false }),
    ).rejects.toBeInstanceOf(NotInstalledError);
  });

  it('uninstall clears every token at once, keeps the row with its purge date, and a re-install brings it back', async () => {
    const changes: string[] = [];
    const s = store(changes);
    await s.storeInstallation(teamInstall);
    expect(await s.uninstall({ teamId: 'T1' })).toBe('team:T1');
    const [row] = await testDb.db.select().from(installations);
    expect(row).toMatchObject({ botToken: null, botRefreshToken: null, userToken: null });
    expect(row!.uninstalledAt).toBeInstanceOf(Date);
    expect(row!.purgeAfter!.getTime() - row!.uninstalledAt!.getTime()).toBe(30 * 86_400_000);
    expect(changes).toContain('team:T1');
    await expect(
      s.fetchInstallation({ teamId: 'T1', enterpriseId: undefined, isEnterpriseInstall: false }),
    ).rejects.toBeInstanceOf(NotInstalledError);

    await s.storeInstallation(teamInstall);
    const [again] = await testDb.db.select().from(installations);
    expect(again).toMatchObject({ uninstalledAt: null, purgeAfter: null });
    expect(
      (await s.fetchInstallation({ teamId: 'T1', enterpriseId: undefined, isEnterpriseInstall: false })).bot?.token,
    ).toBe('xoxb-team-secret-1');
  });

  it('a token refresh stores new tokens for the row it read, and never brings back an uninstalled one', async () => {
    const s = store();
    await s.storeInstallation(teamInstall);
    const fetched = await s.fetchInstallation({ teamId: 'T1', enterpriseId: undefined, isEnterpriseInstall: false });
    const refreshed = { ...fetched, bot: { ...fetched.bot!, token: 'xoxb-rotated', refreshToken: 'xoxe-rotated' } };
    await s.storeInstallation(refreshed);
    expect(
      (await s.fetchInstallation({ teamId: 'T1', enterpriseId: undefined, isEnterpriseInstall: false })).bot,
    ).toMatchObject({ token: 'xoxb-rotated', refreshToken: 'xoxe-rotated' });

    await s.uninstall({ teamId: 'T1' });
    await s.storeInstallation({ ...refreshed, bot: { ...refreshed.bot, token: 'xoxb-too-late' } });
    const [row] = await testDb.db.select().from(installations);
    expect(row!.botToken).toBeNull();
  });

  it('tokens_revoked: user tokens alone keep the bot; the bot token ends the installation', async () => {
    const s = store();
    await s.storeInstallation({ ...teamInstall, user: { id: 'U1', token: 'xoxp-user-secret', scopes: ['identify'] } });
    // Ids of another user and of another bot: nothing of this installation goes.
    expect(
      await s.revokeTokens({ teamId: 'T1' }, { botUserIds: ['UBOT_OTHER'], userIds: ['U_OTHER'] }),
    ).toBeUndefined();
    expect((await testDb.db.select().from(installations))[0]).toMatchObject({
      userToken: expect.stringMatching(/^enc:/),
      botToken: expect.stringMatching(/^enc:/),
    });
    expect(await s.revokeTokens({ teamId: 'T1' }, { botUserIds: [], userIds: ['U1'] })).toEqual({
      key: 'team:T1',
      bot: false,
      user: true,
    });
    let [row] = await testDb.db.select().from(installations);
    expect(row).toMatchObject({ userToken: null, uninstalledAt: null });
    expect(row!.botToken).not.toBeNull();
    await s.revokeTokens({ teamId: 'T1' }, { botUserIds: ['UBOT1'], userIds: [] });
    [row] = await testDb.db.select().from(installations);
    expect(row!.botToken).toBeNull();
    expect(row!.uninstalledAt).toBeInstanceOf(Date);
  });
});
