// Distribution mode end to end (the README's installation modes): "Add to Slack" through the app's
// own routes and the simulator's authorize page, two workspaces and an Enterprise Grid org-wide
// install, `/kudos` from each as signed requests into Bolt, the token every Web API call carried,
// uninstalling, the database and the logs read for tokens in clear, and the bad inputs of the issue.
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { type RunningApp, startApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/config/logger.js';
import { rowsOf } from '../../src/db/client.js';
import { installations } from '../../src/db/schema/index.js';
import { postOnce, resumeStalledNotices } from '../../src/domain/notices/outbox.js';
import { generateKey } from '../../src/secrets/key-ring.js';
import { type SlackSimulator, startSlackSimulator } from '../../src/simulator/slack.js';
import { DISTRIBUTION_BOT_SCOPES } from '../../src/slack/install/scopes.js';
import { NOT_INSTALLED_TEXT } from '../../src/slack/listening/listener-failure.js';
import { eventually } from '../support/app.js';
import { useTestDatabase } from '../support/db.js';
import { startTestEmulator, type TestEmulator } from '../support/emulator.js';

const SIGNING_SECRET = 'dist-signing-secret-0123456789';
const CLIENT_ID = '1111.2222';
const CLIENT_SECRET = 'dist-client-secret-abcdef0123';
const STATE_SECRET = 'dist-state-secret-fedcba9876';
const ENCRYPTION_KEY = generateKey('k1');

const testDb = useTestDatabase();
let emulator: TestEmulator;
let sim: SlackSimulator;
let app: RunningApp;
const logLines: string[] = [];

beforeAll(async () => {
  emulator = await startTestEmulator();
});
afterAll(async () => {
  await emulator?.close();
});

async function start(
  oauth: { tokenRotation?: boolean; expiresInSeconds?: number } = {},
  appClientSecret = CLIENT_SECRET,
  socketMode = false,
) {
  sim = await startSlackSimulator({
    signingSecret: SIGNING_SECRET,
    emulatorUrl: emulator.url,
    socketMode,
    oauth: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, ...oauth },
  });
  const config = loadConfig({
    SLACK_CLIENT_ID: CLIENT_ID,
    SLACK_CLIENT_SECRET: appClientSecret,
    SLACK_STATE_SECRET: STATE_SECRET,
    ...(socketMode ? { SLACK_APP_TOKEN: sim.socketMode.appToken } : { SLACK_SIGNING_SECRET: SIGNING_SECRET }),
    KUDOS_ENCRYPTION_KEY: ENCRYPTION_KEY,
    SLACK_API_URL: sim.apiUrl,
    REWARDS_API_URL: emulator.url,
  });
  // Every log line of the run, at debug level, to be read for secrets afterwards.
  const logger = createLogger({ level: 'debug', write: (line) => void logLines.push(line) });
  // No purge timer: the tests that purge call app.purgeDue() themselves.
  app = await startApp({
    config,
    port: 0,
    metricsPort: 0,
    host: '127.0.0.1',
    db: testDb.db,
    logger,
    tuning: { worker: { pollIntervalMs: 100 }, purgeMs: 0 },
  });
  sim.setAppUrl(app.url);
  if (app.socket) await app.socket.connected();
}

beforeEach(() => {
  logLines.length = 0;
});
afterEach(async () => {
  await app?.close();
  await sim?.close();
});

const dist = () => sim.distribution!;
const tokenOf = (key: string) => dist().installs.installations.get(key)!.botToken;
const callsOf = (method: string) => sim.calls.filter((c) => c.method === method);

/** Every value of every table, as text: what a database dump would show. */
async function dumpDatabase(): Promise<string> {
  const tables = rowsOf<{ tablename: string }>(
    await testDb.db.execute(sql`select tablename from pg_tables where schemaname = 'public'`),
  );
  const parts: string[] = [];
  for (const { tablename } of tables)
    parts.push(JSON.stringify(rowsOf(await testDb.db.execute(sql.raw(`select * from "${tablename}"`)))));
  return parts.join('\n');
}

describe('distribution mode: install anywhere', () => {
  it('installs two workspaces and an org through the routes; /kudos from each carries its own token; uninstall deletes one and it is never used again; no token in the database or the logs', async () => {
    await start();
    // The install page: an "Add to Slack" link with the client id, the manifest's bot scopes and a state, and the state cookie.
    const page = await fetch(`${app.url}/slack/install`);
    expect(page.status).toBe(200);
    expect(page.headers.get('set-cookie')).toMatch(/^slack-app-oauth-state=/);
    const href = /id="add-to-slack" href="([^"]+)"/.exec(await page.text())![1]!.replace(/&amp;/g, '&');
    const authorize = new URL(href);
    expect(authorize.origin + authorize.pathname).toBe(`${new URL(sim.url).origin}/oauth/v2/authorize`);
    expect(authorize.searchParams.get('client_id')).toBe(CLIENT_ID);
    expect(authorize.searchParams.get('scope')!.split(',')).toEqual([...DISTRIBUTION_BOT_SCOPES]);
    expect(authorize.searchParams.get('state')).toBeTruthy();

    for (const choice of [{ teamId: 'T0KUDOS' }, { teamId: 'T_SECOND' }, { enterpriseId: 'E_GRID', orgWide: true }]) {
      const done = await dist().install(choice);
      expect(done.status).toBe(200);
      expect(done.html).toContain('Kudos is installed');
    }
    // oauth.v2.access went to SLACK_API_URL, once per install.
    expect(callsOf('oauth.v2.access').filter((c) => c.ok)).toHaveLength(3);
    const rows = await testDb.db.select().from(installations);
    expect(rows.map((r) => r.installationKey).sort()).toEqual(['enterprise:E_GRID', 'team:T0KUDOS', 'team:T_SECOND']);
    expect(rows.find((r) => r.installationKey === 'enterprise:E_GRID')).toMatchObject({
      isEnterpriseInstall: true,
      teamId: null,
      enterpriseId: 'E_GRID',
    });

    // /kudos from each workspace (two of them through the org-wide install): every call carries that
    // installation's token. `/kudos settings` by an admin (users.info, then views.open) works before a
    // Rewards account is connected; plain `/kudos` explains that one must be connected first.
    const cases = [
      { team: 'T0KUDOS', orgWide: false, key: 'team:T0KUDOS' },
      { team: 'T_SECOND', orgWide: false, key: 'team:T_SECOND' },
      { team: 'T_GRID_A', orgWide: true, key: 'enterprise:E_GRID' },
      { team: 'T_GRID_B', orgWide: true, key: 'enterprise:E_GRID' },
    ];
    for (const c of cases) {
      dist().actAs(c.team, { orgWide: c.orgWide });
      const before = sim.calls.length;
      const answer = await sim.slashCommand('U_ADMIN', 'settings');
      expect(answer.status).toBe(200);
      const opened = await eventually(() => sim.calls.slice(before).find((call) => call.method === 'views.open'));
      expect(opened).toMatchObject({ ok: true, token: tokenOf(c.key), installation: c.key });
      for (const call of sim.calls.slice(before)) expect(call.token).toBe(tokenOf(c.key));
    }
    // No Rewards account is connected yet: the form's empty design list is expected, said at debug level, not warned about.
    expect(logLines.filter((line) => /"level":"warn"/.test(line) && /designs/.test(line))).toEqual([]);
    expect(
      logLines.some(
        (line) => /"level":"debug"/.test(line) && /no designs for settings: no Rewards account connected/.test(line),
      ),
    ).toBe(true);

    // Uninstall one workspace: its tokens are deleted at once, the others keep working.
    const secondToken = tokenOf('team:T_SECOND');
    await dist().uninstall('team:T_SECOND');
    // Slack's event is answered at once and handled right after: the tokens are gone within moments (the issue allows a minute).
    const second = await eventually(async () =>
      (await testDb.db.select().from(installations)).find(
        (r) => r.installationKey === 'team:T_SECOND' && r.botToken === null,
      ),
    );
    expect(second).toMatchObject({ botToken: null, botRefreshToken: null });
    expect(second.uninstalledAt).toBeInstanceOf(Date);
    const afterUninstall = sim.calls.length;
    dist().actAs('T_SECOND');
    const refused = await sim.slashCommand('U_ADMIN', 'settings');
    expect(refused).toMatchObject({ status: 200, body: { text: NOT_INSTALLED_TEXT } });
    dist().actAs('T0KUDOS');
    await sim.slashCommand('U_ADMIN', 'settings');
    await eventually(() => sim.calls.slice(afterUninstall).find((call) => call.method === 'views.open'));
    // Background work of the uninstalled workspace (a DM) is refused before any call is made with its token.
    await expect(
      app.slack.sendDirectMessage({ teamId: 'T_SECOND' }, 'U_EMP1', { text: 'hello' }),
    ).rejects.toMatchObject({ outcome: 'refused', detail: 'not_installed' });
    // The outbox (every notice of scheduled work goes through it) gives such a notice up: no Slack call, no retry.
    await expect(
      postOnce(
        { db: testDb.db, chat: app.slack },
        { kind: 'order.completed', subject: 'OR-GONE', teamId: 'T_SECOND' },
        { to: { userId: 'U_EMP1' }, message: { text: 'done' } },
      ),
    ).rejects.toMatchObject({ outcome: 'refused', detail: 'not_installed' });
    await expect(resumeStalledNotices({ db: testDb.db, chat: app.slack, logger: app.logger })).resolves.toMatchObject({
      posted: 0,
    });
    expect(sim.calls.slice(afterUninstall).filter((c) => c.token === secondToken)).toEqual([]);

    // A dump of the database holds no token in clear; neither do the logs of the whole run.
    const secrets = [...dist().installs.installations.values()].flatMap((i) =>
      [i.botToken, i.refreshToken].filter((t): t is string => Boolean(t)),
    );
    const everyToken = [...secrets, secondToken];
    const dump = await dumpDatabase();
    for (const token of everyToken) expect(dump).not.toContain(token);
    expect(dump).not.toMatch(/xox[bpe]-/);
    const logs = logLines.join('\n');
    expect(logLines.length).toBeGreaterThan(0);
    for (const secret of [...everyToken, CLIENT_SECRET, STATE_SECRET, SIGNING_SECRET, ENCRYPTION_KEY.split(':')[1]!])
      expect(logs).not.toContain(secret);
    expect(logs).not.toMatch(/xox[bpe]-[A-Za-z0-9]/);
  });

  it('token rotation: a token near its expiry is refreshed through oauth.v2.access (refresh_token) before the call, which carries the new one', async () => {
    await start({ tokenRotation: true, expiresInSeconds: 3600 });
    await dist().install({ teamId: 'T0KUDOS' });
    const first = tokenOf('team:T0KUDOS');
    const [row] = await testDb.db.select().from(installations);
    expect(row!.botRefreshToken).toMatch(/^enc:v1:/);
    expect(row!.botTokenExpiresAt).toBeInstanceOf(Date);
    const before = sim.calls.length;
    await sim.slashCommand('U_ADMIN', 'settings');
    const opened = await eventually(() => sim.calls.slice(before).find((c) => c.method === 'views.open'));
    expect(dist().installs.refreshes).toBeGreaterThanOrEqual(1);
    expect(callsOf('oauth.v2.access').some((c) => c.args.grant_type === 'refresh_token')).toBe(true);
    expect(opened.token).not.toBe(first);
    expect(opened.token).toMatch(/^xoxe\.xoxb-/);
    const [refreshed] = await testDb.db.select().from(installations);
    expect(refreshed!.botToken).not.toBe(row!.botToken);
    expect(await dumpDatabase()).not.toContain(opened.token!);
  });

  it('uninstalled: history stays until KUDOS_RETENTION_DAYS, then the periodic purge deletes the workspace data (the other workspace keeps its own)', async () => {
    await start();
    await dist().install({ teamId: 'T0KUDOS' });
    await dist().install({ teamId: 'T_SECOND' });
    await app.settings.get({ teamId: 'T0KUDOS' });
    await app.settings.get({ teamId: 'T_SECOND' });
    const settingsOf = async (teamId: string) =>
      rowsOf(await testDb.db.execute(sql`select team_id from workspace_settings where team_id = ${teamId}`)).length;
    await dist().uninstall('team:T_SECOND');
    await eventually(async () =>
      (await testDb.db.select().from(installations)).find((r) => r.installationKey === 'team:T_SECOND' && r.purgeAfter),
    );
    expect(await app.purgeDue()).toEqual([]);
    expect(await settingsOf('T_SECOND')).toBe(1);
    // Thirty days later (the default retention): purged.
    await testDb.db.execute(
      sql`update installations set purge_after = now() - interval '1 minute' where installation_key = 'team:T_SECOND'`,
    );
    const purged = await app.purgeDue();
    expect(purged.map((p) => p.installationKey)).toEqual(['team:T_SECOND']);
    expect(await settingsOf('T_SECOND')).toBe(0);
    expect(await settingsOf('T0KUDOS')).toBe(1);
    const row = (await testDb.db.select().from(installations)).find((r) => r.installationKey === 'team:T_SECOND')!;
    expect(row.purgedAt).toBeInstanceOf(Date);
    expect(await app.purgeDue()).toEqual([]);
  });

  it('an org-wide uninstall ends the org install for every workspace of the org, and its purge spares a workspace with an install of its own', async () => {
    await start();
    await dist().install({ enterpriseId: 'E_GRID', orgWide: true });
    await dist().install({ teamId: 'T_GRID_B' });
    await app.settings.get({ teamId: 'T_GRID_A', enterpriseId: 'E_GRID' });
    await app.settings.get({ teamId: 'T_GRID_B', enterpriseId: 'E_GRID' });
    await dist().uninstall('enterprise:E_GRID');
    await eventually(async () =>
      (await testDb.db.select().from(installations)).find(
        (r) => r.installationKey === 'enterprise:E_GRID' && r.botToken === null && r.uninstalledAt,
      ),
    );
    dist().actAs('T_GRID_A', { orgWide: true });
    expect(await sim.slashCommand('U_ADMIN', 'settings')).toMatchObject({
      status: 200,
      body: { text: NOT_INSTALLED_TEXT },
    });
    // T_GRID_B has its own install: still served.
    dist().actAs('T_GRID_B');
    const before = sim.calls.length;
    await sim.slashCommand('U_ADMIN', 'settings');
    expect(await eventually(() => sim.calls.slice(before).find((c) => c.method === 'views.open'))).toMatchObject({
      installation: 'team:T_GRID_B',
    });
    await testDb.db.execute(
      sql`update installations set purge_after = now() - interval '1 minute' where installation_key = 'enterprise:E_GRID'`,
    );
    expect((await app.purgeDue()).map((p) => p.installationKey)).toEqual(['enterprise:E_GRID']);
    const teams = rowsOf<{ team_id: string }>(
      await testDb.db.execute(sql`select team_id from workspace_settings order by team_id`),
    ).map((r) => r.team_id);
    expect(teams).toEqual(['T_GRID_B']);
  });

  it('/kudos settings → "Delete our data" (an admin, after confirmation) deletes the workspace data now; the app stays installed', async () => {
    await start();
    await dist().install({ teamId: 'T0KUDOS' });
    await app.settings.get({ teamId: 'T0KUDOS' });
    await sim.slashCommand('U_ADMIN', 'settings');
    const modal = await eventually(() => sim.openViews('U_ADMIN').find((v) => v.callback_id === 'kudos_settings'));
    const button = JSON.stringify(modal.blocks);
    expect(button).toContain('delete_workspace_data');
    expect(button).toContain('"confirm"');
    await sim.clickButton({ viewId: modal.id }, 'delete_workspace_data', 'U_ADMIN');
    await eventually(() =>
      sim.messages('U_ADMIN').find((m) => m.text.includes('everything Kudos kept for this workspace is deleted')),
    );
    expect(
      rowsOf(await testDb.db.execute(sql`select team_id from workspace_settings where team_id = 'T0KUDOS'`)),
    ).toEqual([]);
    expect((await testDb.db.select().from(installations))[0]!.botToken).toMatch(/^enc:v1:/);
  });

  it("Socket Mode as an add-on: the install routes are served on the same port, requests arrive over the socket and carry each installation's token", async () => {
    await start({}, CLIENT_SECRET, true);
    expect(app.socket).toBeDefined();
    expect((await dist().install({ teamId: 'T_SECOND' })).status).toBe(200);
    dist().actAs('T_SECOND');
    const before = sim.calls.length;
    await sim.slashCommand('U_ADMIN', 'settings');
    expect(await eventually(() => sim.calls.slice(before).find((c) => c.method === 'views.open'))).toMatchObject({
      ok: true,
      installation: 'team:T_SECOND',
      token: tokenOf('team:T_SECOND'),
    });
    dist().actAs('T0KUDOS');
    expect(await sim.slashCommand('U_ADMIN', 'settings')).toMatchObject({ body: { text: NOT_INSTALLED_TEXT } });
  });

  describe('bad input: a clear page, and nothing stored', () => {
    beforeEach(() => start());

    it('a denied install (error=access_denied)', async () => {
      const done = await dist().install({ teamId: 'T0KUDOS', deny: true });
      expect(done.status).toBe(403);
      expect(done.html).toContain('Installation cancelled');
      expect(await testDb.db.select().from(installations)).toEqual([]);
    });

    it('a missing cookie (another browser)', async () => {
      const done = await dist().install({ teamId: 'T0KUDOS', withoutCookie: true });
      expect(done.status).toBe(400);
      expect(done.html).toContain('Start the install in this browser');
      expect(callsOf('oauth.v2.access')).toEqual([]);
      expect(await testDb.db.select().from(installations)).toEqual([]);
    });

    it('a replayed redirect (same state and cookie again), and a forged state', async () => {
      const done = await dist().install({ teamId: 'T0KUDOS' });
      expect(done.status).toBe(200);
      const replay = await fetch(done.redirectUrl, { headers: { cookie: done.cookie! } });
      expect(replay.status).toBe(400);
      expect(await replay.text()).toContain('This install link is not valid');
      const forgedUrl = new URL(done.redirectUrl);
      forgedUrl.searchParams.set('state', 'forged.state.value');
      const forged = await fetch(forgedUrl, { headers: { cookie: 'slack-app-oauth-state=forged.state.value' } });
      expect(forged.status).toBe(400);
      expect(await forged.text()).toContain('This install link is not valid');
      expect(callsOf('oauth.v2.access')).toHaveLength(1);
      expect(await testDb.db.select().from(installations)).toHaveLength(1);
    });

    it('a team with no installation gets a clear answer, and nothing is done', async () => {
      dist().actAs('T_GRID_A');
      const before = sim.calls.length;
      const answer = await sim.slashCommand('U_EMP1', '');
      expect(answer).toMatchObject({ status: 200, body: { text: NOT_INSTALLED_TEXT } });
      expect(sim.calls.slice(before)).toEqual([]);
    });
  });

  it('bad input: an oauth.v2.access failure (Slack refuses the exchange) is a clear page and nothing stored', async () => {
    await start({}, 'not-the-secret');
    const done = await dist().install({ teamId: 'T0KUDOS' });
    expect(done.status).toBe(400);
    expect(done.html).toContain('Slack did not complete the install');
    expect(callsOf('oauth.v2.access')).toMatchObject([{ ok: false, error: 'bad_client_secret' }]);
    expect(await testDb.db.select().from(installations)).toEqual([]);
  });
});
