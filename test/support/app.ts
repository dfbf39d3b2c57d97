// End-to-end harness: the real app over HTTP, driven by the Slack simulator (signed requests, fake
// Web API on 127.0.0.1) and talking to the Rewards emulator with PRODUCTION credentials.
// Share one database and one emulator per test file; start a fresh simulator + app per test.
import { formatInTimeZone } from 'date-fns-tz';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';

import { type RunningApp, startApp, type StartAppOptions } from '../../src/app.js';
import type { AppConfig } from '../../src/config/index.js';
import { loadConfig } from '../../src/config/index.js';
import { createLogger, type LogLevel } from '../../src/config/logger.js';
import type { Database } from '../../src/db/client.js';
import { kudos, type KudosRow } from '../../src/db/schema/index.js';
import { type RateLimitSettings, type SlackSimulator, startSlackSimulator } from '../../src/simulator/slack.js';
import type { TestDatabase } from './db.js';
import type { TestEmulator } from './emulator.js';

export const TEST_SIGNING_SECRET = 'test-signing-secret';

export interface TestStack {
  app: RunningApp;
  sim: SlackSimulator;
  config: AppConfig;
  /** Starts one more app instance on the same database, simulator and emulator; `overrides` go over the stack's `app`. */
  startAnotherApp(overrides?: Partial<StartAppOptions>): Promise<RunningApp>;
  close(): Promise<void>;
}

export interface TestStackOptions {
  db: Database;
  emulator: TestEmulator;
  /** Environment on top of the defaults (e.g. KUDOS_NOTIFY_CHANNEL, KUDOS_ADMINS). */
  env?: Record<string, string>;
  /** Start options over the stack's (mergeStartOptions: an option replaces the stack's, `tuning` knob by knob). */
  app?: Partial<StartAppOptions>;
  /**
   * Socket Mode: the app connects to the simulator's Socket Mode server with SLACK_APP_TOKEN and no
   * signing secret (no POST /slack/events at all); every request travels as an envelope.
   */
  socketMode?: boolean;
  /** The simulator's Slack rate limits: on at Slack's floors, as production (default); a multiplier, or `false` for a test about something else. */
  slackRateLimits?: RateLimitSettings | false;
}

export function testLogger() {
  return createLogger({
    level: (process.env.TEST_LOG_LEVEL as LogLevel | undefined) ?? 'silent',
    write: (line) => process.stderr.write(`${line}\n`),
  });
}

/**
 * The app's timed passes have no timer in a test stack, so none of them fires in the middle of a test
 * that is about something else (the approvals expiry, automations, finance and digest passes, the
 * purge, the background sweep, the retention cleanup and, with webhooks on, the safety-net order
 * poll). A test about one turns it on (`tuning: { approvalsSweepMs: 200 }`) or runs it once
 * (`app.approvals.sweep()`, `app.background.sweepOnce()`, `app.background.poller.pollNow()`). What
 * answers the test's own requests runs as in production: the worker, webhook event processing,
 * completion checks, notices, App Home and the change feed.
 */
const PASSES_RUN_BY_THE_TEST = {
  app: { approvalsSweepMs: 0, automationsMs: 0, financeSweepMs: 0, digestMs: 0, purgeMs: 0 },
  webhooks: { sweepIntervalMs: 0, cleanupIntervalMs: 0, safetyNetPolling: false },
} as const;

export async function startTestStack(opts: TestStackOptions): Promise<TestStack> {
  const sim = await startSlackSimulator({
    signingSecret: TEST_SIGNING_SECRET,
    emulatorUrl: opts.emulator.url,
    socketMode: opts.socketMode ?? false,
    rateLimits: opts.slackRateLimits ?? {},
  });
  const config = loadConfig({
    ...(opts.socketMode ? { SLACK_APP_TOKEN: sim.socketMode.appToken } : { SLACK_SIGNING_SECRET: TEST_SIGNING_SECRET }),
    SLACK_BOT_TOKEN: sim.botToken,
    SLACK_API_URL: sim.apiUrl,
    REWARDS_API_URL: opts.emulator.url,
    REWARDS_CLIENT_ID: 'production-client',
    REWARDS_CLIENT_SECRET: 'production-secret',
    REWARDS_WEBHOOK_SECRET: 'emulator-signing-secret',
    ...opts.env,
  });
  const apps: RunningApp[] = [];
  const start = async (overrides: Partial<StartAppOptions> = {}) => {
    const options = mergeStartOptions(
      {
        config,
        port: 0,
        metricsPort: 0,
        host: '127.0.0.1',
        db: opts.db,
        logger: testLogger(),
        tuning: {
          socketMode: { retryDelaysMs: [0, 100, 250, 500], failedRetryMs: 500 },
          ...PASSES_RUN_BY_THE_TEST.app,
        },
      },
      opts.app,
      overrides,
    );
    // Rows a test writes behind the worker's back are found within half a second (production: 3 s).
    // A test's worker and webhooks knobs add to these rather than replace them (another app's own
    // knobs replace the stack's, as its other knobs do).
    const worker = { pollIntervalMs: 100, idlePollMaxMs: 500, ...options.tuning?.worker };
    const webhooks = { ...PASSES_RUN_BY_THE_TEST.webhooks, ...options.tuning?.webhooks };
    const app = await startApp({ ...options, tuning: { ...options.tuning, worker, webhooks } });
    apps.push(app);
    return app;
  };
  const app = await start();
  sim.setAppUrl(app.url);
  // Work after an ack (worker, DMs) competes with every other test file for two cores: wait longer
  // than the simulator's default before calling something missing.
  const simWaitFor = sim.waitFor.bind(sim);
  sim.waitFor = (probe, timeoutMs = 10_000) => simWaitFor(probe, timeoutMs);
  // One signed request first (not through the simulator, so nothing is recorded): the first request
  // of a process pays for module loading and JIT, which on a loaded machine can eat a test's 3-second
  // trigger_id; real Slack traffic hits a warm server. In Socket Mode: the socket is open. It is a
  // word `/kudos` does not know: answered with one line and no Slack Web API call (`help` asks who is
  // an admin), so tests that count calls see none of it.
  if (opts.socketMode) await warmUpSocket(sim, app);
  else await warmUp(app.url);
  return {
    app,
    sim,
    config,
    startAnotherApp: start,
    async close() {
      await Promise.all(apps.map((a) => a.close()));
      await sim.close();
    },
  };
}

/**
 * Start options layered: each later layer replaces the options it names, and inside `tuning` the
 * knobs it names, so a test that changes one knob keeps the stack's other knobs.
 */
function mergeStartOptions(
  base: StartAppOptions,
  ...layers: Array<Partial<StartAppOptions> | undefined>
): StartAppOptions {
  let merged = base;
  for (const layer of layers)
    if (layer) merged = { ...merged, ...layer, tuning: { ...merged.tuning, ...layer.tuning } };
  return merged;
}

/**
 * The short send form shows the date and time once "Schedule for later" is picked, and campaign,
 * e-mail template and refund once "More options" is pressed (each a views.update): does that, and
 * answers the form as Slack shows it then.
 */
export async function revealInSendForm(
  sim: SlackSimulator,
  viewId: string,
  userId: string,
  what: 'schedule' | 'more',
): Promise<ReturnType<SlackSimulator['openViews']>[number]> {
  const view = () => sim.openViews(userId).find((v) => v.id === viewId)!;
  const before = view().hash;
  if (what === 'schedule') await sim.clickButton({ viewId }, 'timing', userId, 'schedule');
  else await sim.clickButton({ viewId }, 'send_more_options', userId);
  return sim.waitFor(() => view().hash !== before && view());
}

/** Slack state values for the send modal, by block id (see src/slack/ids.ts). */
export function sendModalValues(input: {
  users?: string[];
  group?: { value: string; text?: string };
  design: string;
  amount: string;
  message?: string;
  refund?: string;
  schedule?: { date: string; time: string };
}): Record<string, Record<string, unknown>> {
  const values: Record<string, Record<string, unknown>> = {
    send_recipients: { recipients: { type: 'multi_users_select', selected_users: input.users ?? [] } },
    send_design: {
      design: {
        type: 'external_select',
        selected_option: { text: { type: 'plain_text', text: input.design }, value: input.design },
      },
    },
    send_amount: { amount: { type: 'number_input', value: input.amount } },
    send_message: { message: { type: 'plain_text_input', value: input.message ?? null } },
    send_timing: {
      timing: {
        type: 'radio_buttons',
        selected_option: { text: { type: 'plain_text', text: 'x' }, value: input.schedule ? 'schedule' : 'now' },
      },
    },
  };
  if (input.group) {
    values.send_group = {
      group: {
        type: 'external_select',
        selected_option: {
          text: { type: 'plain_text', text: input.group.text ?? input.group.value },
          value: input.group.value,
        },
      },
    };
  }
  if (input.refund) {
    values.send_refund = {
      refund: {
        type: 'static_select',
        selected_option: { text: { type: 'plain_text', text: input.refund }, value: input.refund },
      },
    };
  }
  if (input.schedule) {
    values.send_date = { date: { type: 'datepicker', selected_date: input.schedule.date } };
    values.send_time = { time: { type: 'timepicker', selected_time: input.schedule.time } };
  }
  return values;
}

/** Polls `probe` until it returns a truthy value (work after an ack is asynchronous); fails after `timeoutMs`. */
export async function eventually<T>(
  probe: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline)
      throw new Error(
        `eventually: condition not met within ${timeoutMs} ms${lastError ? ` (${String(lastError)})` : ''}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Opens the send modal as `userId`, submits `values`, and returns the kudos row it recorded. On a
 * loaded machine a cold app can miss Slack's 3-second windows; like a user, this tries again (a
 * repeated submission of one modal records one send), and only after Slack's "try again" answers.
 */
export async function submitSendForm(
  stack: TestStack,
  db: Database,
  userId: string,
  values: Record<string, Record<string, unknown>>,
): Promise<KudosRow> {
  for (let attempt = 1; ; attempt++) {
    await stack.sim.slashCommand(userId, '', 'C_GENERAL');
    const view = await stack.sim
      .waitFor(() => stack.sim.openViews(userId).find((v) => v.callback_id === 'kudos_send'))
      .catch(() => undefined);
    if (!view && attempt < 3) continue;
    expect(view).toBeDefined();
    for (let submit = 1; submit <= 3; submit++) {
      const answer = await stack.sim.submitView(view!.id, values, userId);
      if (answer.body === '' && stack.sim.openViews(userId).every((v) => v.id !== view!.id)) break;
      // Accepted with something to say (a group's guests left out), or checks handed off past the answer (a slow machine).
      if (
        typeof answer.body === 'object' &&
        answer.body !== null &&
        (answer.body as { response_action?: string }).response_action === 'update'
      )
        break;
      expect(JSON.stringify(answer.body) + JSON.stringify(stack.sim.viewErrors(view!.id))).toMatch(/again|trouble/);
    }
    return eventually(async () => (await db.select().from(kudos)).find((k) => k.sourceViewId === view!.id));
  }
}

/**
 * Re-sends a view_submission for a view the simulator already closed, signed as Slack would, to
 * reproduce a double submission (Slack retrying, a double click across two clients).
 */
export async function postSignedPayload(
  appUrl: string,
  payload: Record<string, unknown>,
): Promise<{ status: number; text: string }> {
  const { formEncode, signedHeaders } = await import('../../src/simulator/signing.js');
  const body = formEncode({ payload: JSON.stringify(payload) });
  const res = await fetch(`${appUrl}/slack/events`, {
    method: 'POST',
    headers: signedHeaders(TEST_SIGNING_SECRET, body, 'application/x-www-form-urlencoded', Date.now() / 1000),
    body,
  });
  return { status: res.status, text: await res.text() };
}

/** An Events API delivery (JSON) signed as Slack would send it. */
export async function postSignedEvent(
  appUrl: string,
  envelope: Record<string, unknown>,
): Promise<{ status: number; text: string }> {
  const { signedHeaders } = await import('../../src/simulator/signing.js');
  const body = JSON.stringify(envelope);
  const res = await fetch(`${appUrl}/slack/events`, {
    method: 'POST',
    headers: signedHeaders(TEST_SIGNING_SECRET, body, 'application/json', Date.now() / 1000),
    body,
  });
  return { status: res.status, text: await res.text() };
}

/** A send-modal submission of `values` by `userId`, posted straight to the app; returns Slack's answer. */
export async function submitSendValues(
  appUrl: string,
  userId: string,
  values: Record<string, Record<string, unknown>>,
  viewId = `V_${Math.random().toString(36).slice(2, 10).toUpperCase()}`,
) {
  const answer = await postSignedPayload(
    appUrl,
    viewSubmissionPayload(
      { id: viewId, callback_id: 'kudos_send', private_metadata: '{}', blocks: [] },
      values,
      userId,
    ),
  );
  return {
    ...answer,
    errors: answer.text ? ((JSON.parse(answer.text) as { errors?: Record<string, string> }).errors ?? {}) : {},
  };
}

/** A slash command signed as Slack would send it, with any fields (another team, missing fields). */
export async function postSignedCommand(
  appUrl: string,
  fields: Record<string, string>,
): Promise<{ status: number; text: string }> {
  const { formEncode, signedHeaders } = await import('../../src/simulator/signing.js');
  const body = formEncode(fields);
  const res = await fetch(`${appUrl}/slack/events`, {
    method: 'POST',
    headers: signedHeaders(TEST_SIGNING_SECRET, body, 'application/x-www-form-urlencoded', Date.now() / 1000),
    body,
  });
  return { status: res.status, text: await res.text() };
}

/** The fields of a `/kudos` command from `userId` of `teamId` (its response_url leads nowhere: read answers from the ack). */
export function commandFields(userId: string, text: string, teamId = 'T0KUDOS'): Record<string, string> {
  return {
    command: '/kudos',
    text,
    user_id: userId,
    user_name: userId.toLowerCase(),
    team_id: teamId,
    channel_id: 'C_GENERAL',
    api_app_id: 'A0KUDOS',
    trigger_id: '0.0.0',
    response_url: 'http://127.0.0.1:9/commands/none',
  };
}

/** A block_actions payload for one button click, as Slack sends it from a channel message. */
/**
 * A button click as Slack posts it, built like the simulator's (a stale client, Slack retrying, or a
 * shape Slack never sends): on the message `messageTs` in `channel`, in block `blockId`.
 */
export function blockActionPayload(input: {
  teamId?: string;
  userId: string;
  actionId: string;
  value: unknown;
  channel?: string;
  messageTs?: string;
  blockId?: string;
  responseUrl?: string;
}) {
  const teamId = input.teamId ?? 'T0KUDOS';
  return {
    type: 'block_actions',
    team: { id: teamId, domain: 'x' },
    user: { id: input.userId, username: input.userId.toLowerCase(), name: input.userId.toLowerCase(), team_id: teamId },
    api_app_id: 'A0KUDOS',
    token: 'x',
    trigger_id: '1.2.abc',
    container: {
      type: 'message',
      message_ts: input.messageTs ?? '1.000001',
      channel_id: input.channel ?? 'C_GENERAL',
      is_ephemeral: false,
    },
    channel: { id: input.channel ?? 'C_GENERAL', name: 'x' },
    ...(input.responseUrl ? { response_url: input.responseUrl } : {}),
    actions: [
      {
        type: 'button',
        action_id: input.actionId,
        block_id: input.blockId ?? 'b',
        value: input.value,
        action_ts: '1.2',
      },
    ],
    is_enterprise_install: false,
    enterprise: null,
  };
}

export function viewSubmissionPayload(
  view: { id: string } & Record<string, unknown>,
  values: Record<string, Record<string, unknown>>,
  userId: string,
  teamId = 'T0KUDOS',
) {
  return {
    type: 'view_submission',
    team: { id: teamId, domain: 'kudos-demo' },
    user: { id: userId, username: userId.toLowerCase(), name: userId.toLowerCase(), team_id: teamId },
    api_app_id: 'A0KUDOS',
    token: 'x',
    trigger_id: '1.2.abc',
    view: { ...view, state: { values } },
    response_urls: [],
    is_enterprise_install: false,
    enterprise: null,
  };
}

/** The warm-up's `/kudos` text: an unknown word, answered with one line and no Web API call. */
const WARM_UP_WORD = 'warm-up';

async function warmUp(appUrl: string): Promise<void> {
  const { formEncode, signedHeaders } = await import('../../src/simulator/signing.js');
  const body = formEncode({
    command: '/kudos',
    text: WARM_UP_WORD,
    user_id: 'U_WARMUP',
    team_id: 'T0KUDOS',
    channel_id: 'C_NONE',
    trigger_id: '0.0.0',
    response_url: 'http://127.0.0.1:9/none',
  });
  const res = await fetch(`${appUrl}/slack/events`, {
    method: 'POST',
    headers: signedHeaders(TEST_SIGNING_SECRET, body, 'application/x-www-form-urlencoded', Date.now() / 1000),
    body,
  });
  await res.text();
}

/** Date and time (`yyyy-MM-dd`, `HH:mm`) on the wall clocks of `zone`, `minutes` from now: what a person there types into the send form. */
export function wallTimeIn(zone: string, minutes: number): { date: string; time: string } {
  const at = new Date(Date.now() + minutes * 60_000);
  return { date: formatInTimeZone(at, zone, 'yyyy-MM-dd'), time: formatInTimeZone(at, zone, 'HH:mm') };
}

/** What a test may change of useAppPerTest's app when it starts one itself (handle.start). */
export type AppPerTestOverrides = Pick<TestStackOptions, 'env' | 'app'>;

/**
 * The usual set-up of an end-to-end test file: one database and one emulator for the file, both
 * emptied before each test, and a fresh app + simulator per test with `opts`. Use the returned
 * handle inside hooks and tests. `startEach: false` leaves starting the app to each test
 * (`await e2e.start({ env })`: the test's env or app options, where given, instead of the defaults');
 * `start` also replaces an app already started (a restart with another clock or configuration). The app is closed after each test either way.
 */
export function useAppPerTest(
  opts: Omit<TestStackOptions, 'db' | 'emulator'> & { emulatorEnv?: Record<string, string>; startEach?: boolean } = {},
): {
  readonly stack: TestStack;
  readonly db: Database;
  readonly testDb: TestDatabase;
  readonly emulator: TestEmulator;
  start(overrides?: AppPerTestOverrides): Promise<TestStack>;
} {
  let testDb: TestDatabase | undefined;
  let emulator: TestEmulator | undefined;
  let stack: TestStack | undefined;
  const { emulatorEnv, startEach = true, ...defaults } = opts;
  const start = async (overrides: AppPerTestOverrides = {}): Promise<TestStack> => {
    await stack?.close();
    stack = undefined;
    const started = await startTestStack({
      ...defaults,
      db: ready(testDb).db,
      emulator: ready(emulator),
      ...((overrides.env ?? defaults.env) ? { env: overrides.env ?? defaults.env } : {}),
      ...((overrides.app ?? defaults.app) ? { app: overrides.app ?? defaults.app } : {}),
    });
    // A test may close the app itself (a crash, a restart): closing it again after is a no-op.
    const close = started.close.bind(started);
    let closed: Promise<void> | undefined;
    started.close = () => (closed ??= close());
    stack = started;
    return stack;
  };
  beforeAll(async () => {
    const [{ createTestDatabase }, { startTestEmulator }] = await Promise.all([
      import('./db.js'),
      import('./emulator.js'),
    ]);
    [testDb, emulator] = await Promise.all([createTestDatabase(), startTestEmulator(emulatorEnv)]);
  });
  afterAll(async () => {
    await emulator?.close();
    await testDb?.close();
  });
  beforeEach(async () => {
    await Promise.all([testDb!.truncateAll(), emulator!.reset()]);
    if (startEach) await start();
  });
  afterEach(async () => {
    await stack?.close();
    stack = undefined;
  });
  function ready<T>(value: T | undefined): T {
    if (value === undefined)
      throw new Error(
        'useAppPerTest: use the handle inside hooks and tests (and start the app first when startEach is false)',
      );
    return value;
  }
  return {
    get stack() {
      return ready(stack);
    },
    get db() {
      return ready(testDb).db;
    },
    get testDb() {
      return ready(testDb);
    },
    get emulator() {
      return ready(emulator);
    },
    start,
  };
}

/** Socket Mode's warm-up: the socket open, then one `/kudos warm-up` envelope answered (not recorded by the simulator's workspace). */
async function warmUpSocket(sim: SlackSimulator, app: RunningApp): Promise<void> {
  await app.socket!.connected(30_000);
  const envelopeId = `warm-up-${Date.now()}`;
  sim.socketMode.sendRaw({
    envelope_id: envelopeId,
    type: 'slash_commands',
    accepts_response_payload: true,
    payload: {
      command: '/kudos',
      text: WARM_UP_WORD,
      user_id: 'U_WARMUP',
      team_id: 'T0KUDOS',
      channel_id: 'C_NONE',
      trigger_id: '0.0.0',
      response_url: 'http://127.0.0.1:9/none',
    },
  });
  await eventually(
    () => sim.socketMode.traffic.some((t) => t.direction === 'from-app' && t.message.envelope_id === envelopeId),
    30_000,
  );
}
