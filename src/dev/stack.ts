// The whole product offline in one process: Rewards emulator + Kudos app (embedded PGlite) + Slack
// workspace simulator with its web UI. Used by `npm run dev` (main.ts) and the browser tests.
import { dirname, join, resolve } from 'node:path';

import { type RunningApp, startApp } from '../app.js';
import { loadConfig } from '../config/index.js';
import { createLogger, type LogLevel } from '../config/logger.js';
import { type RunningEmulator, startEmulator } from '../emulator/server.js';
import { type RateLimitSettings, type SlackSimulator, startSlackSimulator } from '../simulator/slack.js';

/** Shared by the simulator (signs) and the app (verifies); a local-only value, not a secret. */
export const DEV_SIGNING_SECRET = 'kudos-dev-signing-secret';
const EMULATOR_WEBHOOK_SECRET = 'emulator-signing-secret';

export interface DevStackOptions {
  /** Port of the simulator's web UI (the one printed URL); 0 picks a free one. */
  port?: number;
  host?: string;
  /** Embedded database folder; `memory://` for a throwaway one. Default ./.data/pglite. */
  pgliteDir?: string;
  /** App log level; default LOG_LEVEL or 'warn' (the UI is the interface here). */
  logLevel?: LogLevel;
  /** Overrides of the app's environment (e.g. KUDOS_APPROVAL_THRESHOLD). */
  env?: Record<string, string>;
  /**
   * Socket Mode: the app connects to the simulator with an app token and has no signing secret;
   * the simulator delivers everything over that socket (`npm run dev -- --socket-mode`).
   */
  socketMode?: boolean;
  /** REWARDS_WEBHOOKS=off: no webhook registration, order outcomes by polling (`--no-webhooks`). */
  webhooks?: boolean;
  /**
   * Distribution mode (`--distribution`): "Add to Slack" through the simulator's OAuth, several
   * workspaces with a switcher, one of them installed through an Enterprise Grid org-wide install.
   */
  distribution?: boolean;
  /** The simulator's Slack rate limits: on at Slack's floors by default; a multiplier, or `false` (SIMULATOR_RATE_LIMITS). */
  slackRateLimits?: RateLimitSettings | false;
}

/** Distribution mode's local OAuth client and key: local-only values, not secrets. */
const DEV_OAUTH = {
  clientId: '1000.2000',
  clientSecret: 'kudos-dev-client-secret',
  stateSecret: 'kudos-dev-state-secret',
};
const DEV_ENCRYPTION_KEY = `dev:${Buffer.alloc(32, 'kudos-dev-key').toString('base64')}`;

export interface DevStack {
  url: string;
  simulator: SlackSimulator;
  app: RunningApp;
  emulator: RunningEmulator;
  /** How the emulator's webhook registration went (the app may not receive webhooks yet). */
  webhook: { registered: boolean; detail: string };
  /**
   * Distribution mode: one Rewards account of the emulator per demo company, for an admin to paste
   * into App Home's "Connect Rewards account", so that the workspaces' money is kept apart as in
   * production. Empty in single-workspace mode (the environment holds its one account).
   */
  rewardsAccounts: DevRewardsAccount[];
  close(): Promise<void>;
}

export interface DevRewardsAccount {
  company: string;
  clientId: string;
  clientSecret: string;
  webhookSecret: string;
}

/** The seeded organization for the first company; an emulator organization of its own for each other. */
const DEV_REWARDS_ACCOUNTS: DevRewardsAccount[] = [
  {
    company: 'Kudos Demo',
    clientId: 'production-client',
    clientSecret: 'production-secret',
    webhookSecret: EMULATOR_WEBHOOK_SECRET,
  },
  {
    company: 'Grid Corp (org-wide)',
    clientId: 'grid-corp-client',
    clientSecret: 'grid-corp-secret',
    webhookSecret: 'grid-corp-signing-secret',
  },
  {
    company: 'Second Co',
    clientId: 'second-co-client',
    clientSecret: 'second-co-secret',
    webhookSecret: 'second-co-signing-secret',
  },
];

async function addEmulatorAccounts(emulatorUrl: string): Promise<DevRewardsAccount[]> {
  for (const account of DEV_REWARDS_ACCOUNTS.slice(1)) {
    const res = await fetch(`${emulatorUrl}/_emulator/orgs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        orgId: account.clientId.replace(/-client$/, ''),
        productionClientId: account.clientId,
        productionClientSecret: account.clientSecret,
        signingSecret: account.webhookSecret,
      }),
    });
    if (res.status !== 201)
      throw new Error(`the emulator refused the demo account of ${account.company} (${res.status})`);
  }
  return DEV_REWARDS_ACCOUNTS;
}

async function registerWebhook(emulatorUrl: string, appUrl: string): Promise<DevStack['webhook']> {
  try {
    const res = await fetch(`${emulatorUrl}/_emulator/webhook`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: `${appUrl}/webhooks/rewards` }),
    });
    const body = (await res.json().catch(() => ({}))) as { active?: boolean };
    if (res.ok && body.active) return { registered: true, detail: 'active' };
    return {
      registered: false,
      detail: `emulator answered ${res.status}${body.active === false ? ' (challenge not answered by the app)' : ''}`,
    };
  } catch (err) {
    return { registered: false, detail: (err as Error).message };
  }
}

export async function startDevStack(opts: DevStackOptions = {}): Promise<DevStack> {
  const host = opts.host ?? '127.0.0.1';
  const started: Array<{ close(): Promise<void> }> = [];
  const closeAll = async () => {
    // Reverse order: the app stops its worker before the emulator and simulator it talks to go away.
    for (const part of started.reverse()) await part.close().catch(() => {});
  };
  try {
    const pgliteDir = opts.pgliteDir ?? './.data/pglite';
    // The Slack side is kept beside the database, so a restart shows the history the app remembers.
    const persistFile = pgliteDir.startsWith('memory:')
      ? undefined
      : join(dirname(resolve(pgliteDir)), opts.distribution ? 'simulator-distribution.json' : 'simulator.json');
    const distribution = opts.distribution ?? false;
    const simulator = await startSlackSimulator({
      port: opts.port ?? 0,
      host,
      signingSecret: DEV_SIGNING_SECRET,
      socketMode: opts.socketMode ?? false,
      rateLimits: opts.slackRateLimits ?? {},
      ...(persistFile ? { persistFile } : {}),
      ...(distribution
        ? { oauth: { clientId: DEV_OAUTH.clientId, clientSecret: DEV_OAUTH.clientSecret, tokenRotation: true } }
        : {}),
    });
    started.push(simulator);
    const emulator = await startEmulator({ port: 0, host });
    started.push(emulator);
    simulator.setEmulatorUrl(emulator.url);
    const rewardsAccounts = distribution ? await addEmulatorAccounts(emulator.url) : [];

    // Single workspace: the bot token and one Rewards account. Distribution: the OAuth client and the
    // key ring; each workspace connects its own Rewards account from App Home.
    const mode = distribution
      ? {
          SLACK_CLIENT_ID: DEV_OAUTH.clientId,
          SLACK_CLIENT_SECRET: DEV_OAUTH.clientSecret,
          SLACK_STATE_SECRET: DEV_OAUTH.stateSecret,
          KUDOS_ENCRYPTION_KEY: DEV_ENCRYPTION_KEY,
        }
      : {
          SLACK_BOT_TOKEN: simulator.botToken,
          REWARDS_CLIENT_ID: 'production-client',
          REWARDS_CLIENT_SECRET: 'production-secret',
          ...(opts.webhooks === false
            ? { REWARDS_WEBHOOKS: 'off' }
            : { REWARDS_WEBHOOK_SECRET: EMULATOR_WEBHOOK_SECRET }),
        };
    const config = loadConfig({
      PORT: '0',
      PGLITE_DIR: pgliteDir,
      ...(opts.socketMode
        ? { SLACK_APP_TOKEN: simulator.socketMode.appToken }
        : { SLACK_SIGNING_SECRET: DEV_SIGNING_SECRET }),
      SLACK_API_URL: simulator.apiUrl,
      REWARDS_API_URL: emulator.url,
      ...mode,
      ...(distribution && opts.webhooks === false ? { REWARDS_WEBHOOKS: 'off' } : {}),
      KUDOS_NOTIFY_CHANNEL: 'C_KUDOS',
      KUDOS_APPROVAL_CHANNEL: 'C_APPROVALS',
      KUDOS_APPROVERS: 'U_APPROVER',
      // Two admins: a top-up needs a second admin's approval.
      KUDOS_ADMINS: 'U_ADMIN,U_APPROVER',
      KUDOS_ADMIN_CHANNEL: 'C_ADMIN',
      KUDOS_LOW_BALANCE_THRESHOLD: '1000',
      ...opts.env,
    });
    const level = opts.logLevel ?? (process.env.LOG_LEVEL as LogLevel | undefined) ?? 'warn';
    const logger = createLogger({ level, write: (line) => process.stderr.write(`${line}\n`) });
    const app = await startApp({ config, port: 0, host, logger });
    started.push(app);
    simulator.setAppUrl(app.url);
    if (app.socket) await app.socket.connected();
    if (distribution) await installDemoWorkspaces(simulator, app);
    const webhook =
      opts.webhooks === false
        ? { registered: false, detail: 'REWARDS_WEBHOOKS=off: order outcomes by polling' }
        : distribution
          ? {
              registered: true,
              detail:
                'distribution mode: each workspace registers its own webhook URL when an admin connects its Rewards account (App Home)',
            }
          : await registerWebhook(emulator.url, app.url);
    return { url: simulator.url, simulator, app, emulator, webhook, rewardsAccounts, close: closeAll };
  } catch (err) {
    await closeAll();
    throw err;
  }
}

/**
 * Distribution mode's demo: the seed workspace installed on its own and the Grid org installed org-wide,
 * both through the real "Add to Slack" routes; the second workspace is left for the user to install.
 * Installations persist in the database, so a restart does not install again.
 */
async function installDemoWorkspaces(simulator: SlackSimulator, app: RunningApp): Promise<void> {
  const dist = simulator.distribution;
  if (!dist || !app.tenancy) return;
  for (const choice of [{ teamId: simulator.workspace.team.id }, { enterpriseId: 'E_GRID', orgWide: true }]) {
    const lookup = choice.orgWide
      ? { enterpriseId: choice.enterpriseId, isEnterpriseInstall: true }
      : { teamId: choice.teamId };
    const live = await app.tenancy.store.findLive(lookup);
    // The simulator forgets its tokens on restart: install again when it does not know this one.
    if (
      live &&
      dist.installs.installations.get(choice.orgWide ? `enterprise:${choice.enterpriseId}` : `team:${choice.teamId}`)
    )
      continue;
    const done = await dist.install(choice);
    if (done.status !== 200) throw new Error(`installing the demo workspace failed (${done.status})`);
  }
  // An install switches the page to its workspace; the demo starts in the seed's.
  dist.actAs(simulator.workspace.team.id);
}
