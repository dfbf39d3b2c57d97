// The whole product offline in one process: Rewards emulator + Kudos app (embedded PGlite) + Slack
// workspace simulator with its web UI. Used by `npm run dev` (main.ts) and the browser tests.
import { dirname, join, resolve } from 'node:path';
import { startApp, type RunningApp } from '../app.js';
import { loadConfig } from '../config/index.js';
import { createLogger, type LogLevel } from '../config/logger.js';
import { startEmulator, type RunningEmulator } from '../emulator/server.js';
import { startSlackSimulator, type SlackSimulator } from '../simulator/slack.js';

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
}

export interface DevStack {
  url: string;
  simulator: SlackSimulator;
  app: RunningApp;
  emulator: RunningEmulator;
  /** How the emulator's webhook registration went (the app may not receive webhooks yet). */
  webhook: { registered: boolean; detail: string };
  close(): Promise<void>;
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
    return { registered: false, detail: `emulator answered ${res.status}${body.active === false ? ' (challenge not answered by the app)' : ''}` };
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
    const persistFile = pgliteDir.startsWith('memory:') ? undefined : join(dirname(resolve(pgliteDir)), 'simulator.json');
    const simulator = await startSlackSimulator({ port: opts.port ?? 0, host, signingSecret: DEV_SIGNING_SECRET, socketMode: opts.socketMode ?? false, ...(persistFile ? { persistFile } : {}) });
    started.push(simulator);
    const emulator = await startEmulator({ port: 0, host });
    started.push(emulator);
    simulator.setEmulatorUrl(emulator.url);

    const config = loadConfig({
      PORT: '0',
      PGLITE_DIR: pgliteDir,
      ...(opts.socketMode ? { SLACK_APP_TOKEN: simulator.socketMode.appToken } : { SLACK_SIGNING_SECRET: DEV_SIGNING_SECRET }),
      SLACK_BOT_TOKEN: simulator.botToken,
      SLACK_API_URL: simulator.apiUrl,
      REWARDS_API_URL: emulator.url,
      REWARDS_CLIENT_ID: 'production-client',
      REWARDS_CLIENT_SECRET: 'production-secret',
      ...(opts.webhooks === false ? { REWARDS_WEBHOOKS: 'off' } : { REWARDS_WEBHOOK_SECRET: EMULATOR_WEBHOOK_SECRET }),
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
    const webhook = opts.webhooks === false ? { registered: false, detail: 'REWARDS_WEBHOOKS=off: order outcomes by polling' } : await registerWebhook(emulator.url, app.url);
    return { url: simulator.url, simulator, app, emulator, webhook, close: closeAll };
  } catch (err) {
    await closeAll();
    throw err;
  }
}
