// app_uninstalled and tokens_revoked act only on the installation the event is about: its envelope's
// own workspace, or its own org for an org-wide install. Two workspaces and an Enterprise Grid org are
// installed through the real install pages; the events are signed requests into the app, some naming
// another installation in `authorizations` or another bot in `tokens`. The other installs survive
// (their tokens stay, `/kudos settings` still opens its modal with their own token).
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { type RunningApp, startApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/config/logger.js';
import { installations } from '../../src/db/schema/index.js';
import { generateKey } from '../../src/secrets/key-ring.js';
import { signedHeaders } from '../../src/simulator/signing.js';
import { type SlackSimulator, startSlackSimulator } from '../../src/simulator/slack.js';
import { NOT_INSTALLED_TEXT } from '../../src/slack/listening/listener-failure.js';
import { useTestDatabase } from '../support/db.js';
import { startTestEmulator, type TestEmulator } from '../support/emulator.js';
import { within } from '../support/within.js';

const SIGNING_SECRET = 'lifecycle-signing-secret-0123456789';
const CLIENT_ID = '1111.2222';
const CLIENT_SECRET = 'lifecycle-client-secret-abcdef0123';

const testDb = useTestDatabase();
let emulator: TestEmulator;
let sim: SlackSimulator;
let app: RunningApp;

/** The next outcome line of an installation event (every handled one logs exactly one). */
let outcomeWaiters: Array<(msg: string) => void> = [];
const OUTCOME =
  /^(uninstalled: tokens deleted|app_uninstalled names no installation|tokens revoked|tokens_revoked names no token)/;
const warnings: string[] = [];

beforeAll(async () => {
  emulator = await startTestEmulator();
});
afterAll(async () => {
  await emulator?.close();
});

beforeEach(async () => {
  warnings.length = 0;
  sim = await startSlackSimulator({
    signingSecret: SIGNING_SECRET,
    emulatorUrl: emulator.url,
    oauth: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
  });
  const config = loadConfig({
    SLACK_CLIENT_ID: CLIENT_ID,
    SLACK_CLIENT_SECRET: CLIENT_SECRET,
    SLACK_STATE_SECRET: 'lifecycle-state-secret-fedcba9876',
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    KUDOS_ENCRYPTION_KEY: generateKey('k1'),
    SLACK_API_URL: sim.apiUrl,
    REWARDS_API_URL: emulator.url,
  });
  const logger = createLogger({
    level: 'info',
    write: (line) => {
      const { msg, level } = JSON.parse(line) as { msg: string; level: string };
      if (level === 'warn') warnings.push(msg);
      if (!OUTCOME.test(msg)) return;
      const waiters = outcomeWaiters;
      outcomeWaiters = [];
      for (const resolve of waiters) resolve(msg);
    },
  });
  app = await startApp({
    config,
    port: 0,
    metricsPort: 0,
    host: '127.0.0.1',
    db: testDb.db,
    logger,
    tuning: { worker: { enabled: false }, purgeMs: 0 },
  });
  sim.setAppUrl(app.url);
  for (const choice of [{ teamId: 'T0KUDOS' }, { teamId: 'T_SECOND' }, { enterpriseId: 'E_GRID', orgWide: true }]) {
    expect((await sim.distribution!.install(choice)).status).toBe(200);
  }
});
afterEach(async () => {
  await app?.close();
  await sim?.close();
});

type Authorization = { team_id: string | null; enterprise_id: string | null; is_enterprise_install: boolean };
const workspace = (teamId: string): Authorization => ({
  team_id: teamId,
  enterprise_id: null,
  is_enterprise_install: false,
});
const org = (enterpriseId: string): Authorization => ({
  team_id: null,
  enterprise_id: enterpriseId,
  is_enterprise_install: true,
});

/** A signed Events API delivery of `event` as Slack sends it; resolves with the outcome the app logged once it was handled. */
async function deliver(
  envelope: { team_id: string; enterprise_id?: string; authorizations: Authorization[] },
  event: Record<string, unknown>,
): Promise<string> {
  const handled = new Promise<string>((resolve) => outcomeWaiters.push(resolve));
  const body = JSON.stringify({
    token: 'verification-token',
    team_id: envelope.team_id,
    ...(envelope.enterprise_id ? { enterprise_id: envelope.enterprise_id } : {}),
    api_app_id: 'A0KUDOS',
    event: { event_ts: '1700000000.000100', ...event },
    type: 'event_callback',
    event_id: `Ev${Math.random().toString(36).slice(2, 12).toUpperCase()}`,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: envelope.authorizations.map((a) => ({ ...a, user_id: 'U_KUDOS_BOT', is_bot: true })),
    is_ext_shared_channel: false,
  });
  const res = await fetch(`${app.url}/slack/events`, {
    method: 'POST',
    headers: signedHeaders(SIGNING_SECRET, body, 'application/json', Date.now() / 1000),
    body,
  });
  expect(res.status).toBe(200);
  await res.body?.cancel();
  return within(handled, `${String(event.type)} handled`);
}

/** Which installations still hold a bot token. */
async function live(): Promise<string[]> {
  return (await testDb.db.select().from(installations))
    .filter((r) => r.botToken !== null)
    .map((r) => r.installationKey)
    .sort();
}

const botUserOf = async (key: string) =>
  (await testDb.db.select().from(installations)).find((r) => r.installationKey === key)!.botUserId!;

/** `/kudos settings` from `teamId`: the modal opens through installation `key`'s own token, or the app says it is not installed. */
async function settingsFrom(teamId: string, key: string, orgWide = false): Promise<'opened' | 'not installed'> {
  sim.distribution!.actAs(teamId, { orgWide });
  // A cold app on a loaded machine can miss the trigger's 3 s: like a person, the test asks again.
  for (let attempt = 1; ; attempt++) {
    const before = sim.calls.length;
    const seen = new Set(sim.openViews('U_ADMIN').map((v) => v.id));
    const answer = await sim.slashCommand('U_ADMIN', 'settings');
    if ((answer.body as { text?: string } | undefined)?.text === NOT_INSTALLED_TEXT) return 'not installed';
    const view = await sim
      .waitFor(() => sim.openViews('U_ADMIN').find((v) => v.callback_id === 'kudos_settings' && !seen.has(v.id)))
      .catch(() => undefined);
    if (!view && attempt < 3) continue;
    expect(view).toBeDefined();
    const opened = sim.calls.slice(before).find((c) => c.method === 'views.open' && c.ok);
    expect(opened).toMatchObject({ ok: true, token: sim.distribution!.installs.installations.get(key)!.botToken });
    return 'opened';
  }
}

const ALL = ['enterprise:E_GRID', 'team:T0KUDOS', 'team:T_SECOND'];

describe('app_uninstalled acts on its own workspace or org only', () => {
  it("an uninstall from one workspace whose authorizations name another workspace or the org deletes only its own workspace's tokens", async () => {
    expect(await live()).toEqual(ALL);
    // team_id T_SECOND, authorizations naming T0KUDOS and the org's install.
    expect(
      await deliver(
        { team_id: 'T_SECOND', authorizations: [workspace('T0KUDOS'), org('E_GRID')] },
        { type: 'app_uninstalled' },
      ),
    ).toMatch(/^uninstalled: tokens deleted/);
    expect(await live()).toEqual(['enterprise:E_GRID', 'team:T0KUDOS']);
    expect(warnings).toContain(
      'installation event names another workspace in its authorizations: acted on its own only',
    );
    expect(await settingsFrom('T0KUDOS', 'team:T0KUDOS')).toBe('opened');
    expect(await settingsFrom('T_GRID_A', 'enterprise:E_GRID', true)).toBe('opened');
    expect(await settingsFrom('T_SECOND', 'team:T_SECOND')).toBe('not installed');
  });

  it("an uninstall from a workspace of the org that has no install of its own changes nothing: the org's install is not its to delete", async () => {
    expect(
      await deliver(
        { team_id: 'T_GRID_A', enterprise_id: 'E_GRID', authorizations: [workspace('T_SECOND')] },
        { type: 'app_uninstalled' },
      ),
    ).toMatch(/^app_uninstalled names no installation/);
    expect(await live()).toEqual(ALL);
    expect(await settingsFrom('T_GRID_A', 'enterprise:E_GRID', true)).toBe('opened');
    expect(await settingsFrom('T_SECOND', 'team:T_SECOND')).toBe('opened');
  });

  it("an org-wide uninstall (its own org's install in authorizations) deletes the org's tokens; both workspaces keep theirs", async () => {
    expect(
      await deliver(
        { team_id: 'T_GRID_B', enterprise_id: 'E_GRID', authorizations: [org('E_GRID')] },
        { type: 'app_uninstalled' },
      ),
    ).toMatch(/^uninstalled: tokens deleted/);
    expect(await live()).toEqual(['team:T0KUDOS', 'team:T_SECOND']);
    expect(await settingsFrom('T_GRID_B', 'enterprise:E_GRID', true)).toBe('not installed');
    expect(await settingsFrom('T0KUDOS', 'team:T0KUDOS')).toBe('opened');
    expect(await settingsFrom('T_SECOND', 'team:T_SECOND')).toBe('opened');
  });

  it("authorizations claiming another org's org-wide install do not make a workspace's uninstall the org's", async () => {
    expect(await deliver({ team_id: 'T0KUDOS', authorizations: [org('E_GRID')] }, { type: 'app_uninstalled' })).toMatch(
      /^uninstalled: tokens deleted/,
    );
    expect(await live()).toEqual(['enterprise:E_GRID', 'team:T_SECOND']);
  });
});

describe("tokens_revoked takes only the installation's own bot token", () => {
  it("another bot's id changes nothing; the workspace's own bot id ends its install only, whatever its authorizations name", async () => {
    expect(
      await deliver(
        { team_id: 'T0KUDOS', authorizations: [workspace('T0KUDOS')] },
        { type: 'tokens_revoked', tokens: { bot: ['U_SOME_OTHER_BOT'] } },
      ),
    ).toMatch(/^tokens_revoked names no token/);
    // A user token of someone who is not the installer: nothing of the bot goes.
    expect(
      await deliver(
        { team_id: 'T0KUDOS', authorizations: [workspace('T0KUDOS')] },
        { type: 'tokens_revoked', tokens: { oauth: ['U_EMP1'] } },
      ),
    ).toMatch(/^tokens_revoked names no token/);
    expect(await live()).toEqual(ALL);
    expect(await settingsFrom('T0KUDOS', 'team:T0KUDOS')).toBe('opened');

    const ownBot = await botUserOf('team:T_SECOND');
    expect(
      await deliver(
        { team_id: 'T_SECOND', authorizations: [workspace('T0KUDOS'), org('E_GRID')] },
        { type: 'tokens_revoked', tokens: { bot: [ownBot] } },
      ),
    ).toMatch(/^tokens revoked/);
    expect(await live()).toEqual(['enterprise:E_GRID', 'team:T0KUDOS']);
    expect(await settingsFrom('T_SECOND', 'team:T_SECOND')).toBe('not installed');
    expect(await settingsFrom('T0KUDOS', 'team:T0KUDOS')).toBe('opened');
    expect(await settingsFrom('T_GRID_A', 'enterprise:E_GRID', true)).toBe('opened');
  });

  it("an org-wide install's own bot, revoked through the org, ends the org's install; the workspaces keep theirs", async () => {
    const orgBot = await botUserOf('enterprise:E_GRID');
    expect(
      await deliver(
        { team_id: 'T_GRID_A', enterprise_id: 'E_GRID', authorizations: [org('E_GRID')] },
        { type: 'tokens_revoked', tokens: { bot: [orgBot] } },
      ),
    ).toMatch(/^tokens revoked/);
    expect(await live()).toEqual(['team:T0KUDOS', 'team:T_SECOND']);
    expect(await settingsFrom('T_GRID_A', 'enterprise:E_GRID', true)).toBe('not installed');
    expect(await settingsFrom('T_SECOND', 'team:T_SECOND')).toBe('opened');
  });
});
