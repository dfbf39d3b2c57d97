// Socket Mode's bad input: tokens Slack refuses, Socket Mode turned off, sockets dropped under an
// envelope (even in the middle of its frame), envelopes delivered twice, of unknown types or
// malformed. Each is one clear line and nothing lost or done twice; the real receiver against the
// simulator's Socket Mode server throughout.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { type RunningApp, startApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/config/logger.js';
import { type SlackSimulator, startSlackSimulator } from '../../src/simulator/slack.js';
import { eventually } from '../support/app.js';
import { useTestDatabase } from '../support/db.js';
import { startTestEmulator, type TestEmulator } from '../support/emulator.js';

const testDb = useTestDatabase();
let emulator: TestEmulator;
let sim: SlackSimulator;
let app: RunningApp | undefined;
let lines: Array<{ level: string; msg: string } & Record<string, unknown>>;

beforeAll(async () => {
  emulator = await startTestEmulator({ EMULATOR_BACKGROUND: 'off' });
});
afterAll(async () => {
  await emulator?.close();
});
beforeEach(async () => {
  await emulator.reset();
  sim = await startSlackSimulator({ signingSecret: 'unused', socketMode: true });
  lines = [];
});
afterEach(async () => {
  await app?.close();
  app = undefined;
  await sim.close();
});

async function start(env: Record<string, string> = {}, level: 'info' | 'debug' = 'info') {
  const config = loadConfig({
    SLACK_APP_TOKEN: sim.socketMode.appToken,
    SLACK_BOT_TOKEN: sim.botToken,
    SLACK_API_URL: sim.apiUrl,
    REWARDS_API_URL: emulator.url,
    REWARDS_CLIENT_ID: 'production-client',
    REWARDS_CLIENT_SECRET: 'production-secret',
    REWARDS_WEBHOOK_SECRET: 'emulator-signing-secret',
    ...env,
  });
  const logger = createLogger({ level, write: (line) => lines.push(JSON.parse(line) as (typeof lines)[number]) });
  app = await startApp({
    config,
    port: 0,
    metricsPort: 0,
    host: '127.0.0.1',
    db: testDb.db,
    logger,
    tuning: {
      worker: { pollIntervalMs: 100 },
      approvalsSweepMs: 0,
      socketMode: { retryDelaysMs: [0, 100, 250], failedRetryMs: 300 },
    },
  });
  return app;
}

async function health() {
  const res = await fetch(`${app!.url}/healthz`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`${app!.metricsUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.split(' ')[1]);
}

const errorLines = () => lines.filter((l) => l.level === 'error');
const opens = () => sim.calls.filter((c) => c.method === 'apps.connections.open').length;
/**
 * Two more connection attempts: the loop asks for the next one only once the one before it has been
 * refused and handled, so whatever that refusal logs is in `lines` by then.
 */
async function twoMoreAttempts(): Promise<void> {
  const asked = opens();
  await eventually(() => opens() >= asked + 2);
}
const publishes = () => sim.calls.filter((c) => c.method === 'views.publish' && c.ok).length;
const fromApp = (envelopeId: string) =>
  sim.socketMode.traffic.filter((t) => t.direction === 'from-app' && t.message.envelope_id === envelopeId);

function eventEnvelope(envelopeId: string, eventId: string, retryAttempt = 0) {
  return {
    envelope_id: envelopeId,
    type: 'events_api',
    accepts_response_payload: false,
    retry_attempt: retryAttempt,
    retry_reason: retryAttempt > 0 ? 'timeout' : '',
    payload: {
      token: 'x',
      team_id: 'T0KUDOS',
      api_app_id: 'A0KUDOS',
      type: 'event_callback',
      event_id: eventId,
      event_time: 1_700_000_000,
      event: { type: 'app_home_opened', user: 'U_EMP1', channel: 'D_U_EMP1', tab: 'home', event_ts: '1.1' },
    },
  };
}

describe('connection state', () => {
  it('/healthz and /metrics say whether the socket is connected', async () => {
    await start();
    await app!.socket!.connected();
    expect(await health()).toEqual({ status: 200, body: { ok: true, db: 'ok', slack: 'connected' } });
    expect(await metric('kudos_slack_socket_connected')).toBe(1);
    expect(await metric('kudos_slack_socket_connections_total')).toBe(1);

    sim.socketMode.disconnect('refresh_requested');
    await eventually(async () => (await metric('kudos_slack_socket_connections_total')) === 2);
    expect(await metric('kudos_slack_socket_connected')).toBe(1);
    expect(errorLines()).toEqual([]);
  });

  it('an app token Slack does not know: one error line, /healthz 503, and the rest of the app still serves', async () => {
    await start({ SLACK_APP_TOKEN: 'xapp-1-A0KUDOS-1-not-the-right-one' });
    await eventually(() => app!.socket!.state === 'failed');
    const h = await health();
    expect(h).toEqual({ status: 503, body: { ok: false, db: 'ok', slack: 'connecting', slackError: 'invalid_auth' } });
    expect(await metric('kudos_slack_socket_refused')).toBe(1);
    // It keeps asking (slowly), without a line per attempt.
    await eventually(() => opens() >= 3);
    expect(errorLines()).toEqual([
      expect.objectContaining({ msg: expect.stringContaining('SLACK_APP_TOKEN'), code: 'invalid_auth' }),
    ]);
  });

  it('a token revoked while connected: one error line once the socket is gone, /healthz 503', async () => {
    await start();
    await app!.socket!.connected();
    sim.socketMode.revokeAppToken();
    await eventually(() => app!.socket!.state === 'failed');
    expect((await health()).body).toMatchObject({ ok: false, slack: 'connecting', slackError: 'token_revoked' });
    await twoMoreAttempts();
    expect(errorLines()).toHaveLength(1);
  });

  it('link_disabled: one error line and 503; Socket Mode turned back on heals it without a restart', async () => {
    await start();
    await app!.socket!.connected();
    sim.socketMode.disableLink();
    await eventually(() => app!.socket!.state === 'failed');
    expect(await health()).toMatchObject({ status: 503, body: { slackError: 'link_disabled' } });
    await twoMoreAttempts();
    expect(errorLines()).toEqual([
      expect.objectContaining({ msg: expect.stringContaining('Socket Mode is disabled') }),
    ]);

    sim.socketMode.enableLink();
    await app!.socket!.connected();
    expect(await health()).toEqual({ status: 200, body: { ok: true, db: 'ok', slack: 'connected' } });
  });
});

describe('envelopes', () => {
  beforeEach(async () => {
    await start();
    await app!.socket!.connected();
  });

  it('a socket dropped in the middle of an event’s frame: Slack retries it on the new connection, handled once', async () => {
    sim.socketMode.dropOnNextEnvelope('mid-frame');
    const answer = await sim.sendEvent({ type: 'app_home_opened', user: 'U_EMP1', channel: 'D_U_EMP1', tab: 'home' });
    expect(answer.status).toBe(200);
    await sim.waitFor(() => sim.homeView('U_EMP1'));
    const retried = sim.socketMode.traffic.filter((t) => t.direction === 'to-app' && t.message.type === 'events_api');
    expect(retried.map((t) => t.message.retry_attempt)).toEqual([0, 1]);
    expect(publishes()).toBe(1);
  });

  it('a socket dropped after an event was written: handled once, whether or not the first copy arrived', async () => {
    sim.socketMode.dropOnNextEnvelope('after-write');
    const answer = await sim.sendEvent({ type: 'app_home_opened', user: 'U_EMP1', channel: 'D_U_EMP1', tab: 'home' });
    expect(answer.status).toBe(200);
    await sim.waitFor(() => sim.homeView('U_EMP1'));
    // The first copy, if it arrived, was acknowledged (into the closed socket) by Bolt before its
    // redelivery check; then one of the two copies is logged as already handled.
    const [first] = sim.socketMode.traffic.filter((t) => t.direction === 'to-app' && t.message.type === 'events_api');
    const eventId = (first!.message.payload as { event_id: string }).event_id;
    await eventually(
      () =>
        !app!.socket!.gate.wasAcknowledged(first!.message.envelope_id as string) ||
        lines.some((l) => l.msg.includes('already handled') && l.eventId === eventId),
    );
    expect(publishes()).toBe(1);
  });

  it('the same event_id in two envelopes (Slack’s retry after a lost ack): both acknowledged, handled once', async () => {
    sim.socketMode.sendRaw(eventEnvelope('env-1', 'Ev0SAME'));
    await eventually(() => fromApp('env-1').length === 1);
    await sim.waitFor(() => sim.homeView('U_EMP1'));
    sim.socketMode.sendRaw(eventEnvelope('env-2', 'Ev0SAME', 1));
    await eventually(() => fromApp('env-2').length === 1);
    // The second copy has been through the redelivery check (the first was handled before it was sent).
    await eventually(() => lines.some((l) => l.msg.includes('already handled') && l.eventId === 'Ev0SAME'));
    expect(publishes()).toBe(1);
  });

  it('one envelope delivered twice: answered twice with the same answer, handled once', async () => {
    const command = {
      envelope_id: 'env-cmd',
      type: 'slash_commands',
      accepts_response_payload: true,
      payload: {
        token: 'x',
        team_id: 'T0KUDOS',
        team_domain: 'kudos',
        channel_id: 'C_GENERAL',
        channel_name: 'general',
        user_id: 'U_MANAGER',
        user_name: 'maya',
        command: '/kudos',
        text: 'help',
        api_app_id: 'A0KUDOS',
        is_enterprise_install: 'false',
        response_url: `${sim.url}/response/0`,
        trigger_id: '1.2.3',
      },
    };
    sim.socketMode.sendRaw(command);
    await eventually(() => fromApp('env-cmd').length === 1);
    sim.socketMode.sendRaw(command);
    await eventually(() => fromApp('env-cmd').length === 2);
    const [first, second] = fromApp('env-cmd');
    expect(JSON.stringify(first!.message.payload)).toContain('/kudos');
    expect(second!.message.payload).toEqual(first!.message.payload);
    expect(lines.filter((l) => l.msg.includes('delivered again: answered as before'))).toHaveLength(1);
  });

  it('an envelope of a type the app does not know: acknowledged, one warning, and the app carries on', async () => {
    sim.socketMode.sendRaw({
      envelope_id: 'env-odd',
      type: 'workflow_magic',
      payload: { anything: true },
      accepts_response_payload: false,
    });
    await eventually(() => fromApp('env-odd').length === 1);
    expect(lines.filter((l) => l.level === 'warn' && l.type === 'workflow_magic')).toHaveLength(1);
    const answer = await sim.slashCommand('U_MANAGER', 'help');
    expect(answer.status).toBe(200);
  });

  it('a legacy interactive_message (and a dialog): acknowledged, one debug line per kind, never handled, no warning', async () => {
    await app!.close();
    await start({}, 'debug');
    await app!.socket!.connected();
    lines = [];
    const callsBefore = sim.calls.length;
    const legacy = (envelopeId: string) => ({
      envelope_id: envelopeId,
      type: 'interactive',
      accepts_response_payload: true,
      payload: interactiveMessagePayload(),
    });
    for (const id of ['env-legacy-1', 'env-legacy-2']) {
      sim.socketMode.sendRaw(legacy(id));
      await eventually(() => fromApp(id).length === 1);
    }
    sim.socketMode.sendRaw({
      envelope_id: 'env-dialog',
      type: 'interactive',
      accepts_response_payload: true,
      payload: { ...interactiveMessagePayload(), type: 'dialog_submission', submission: { a: 'b' } },
    });
    await eventually(() => fromApp('env-dialog').length === 1);
    // Acknowledged with nothing in it: nothing is shown to the person who clicked.
    expect(fromApp('env-legacy-1')[0]!.message.payload ?? {}).toEqual({});
    const ignored = lines.filter(
      (l) => l.msg === 'slack payload of a kind the app does not use: acknowledged and ignored',
    );
    expect(ignored.map((l) => [l.level, l.kind])).toEqual([
      ['debug', 'interactive_message'],
      ['debug', 'dialog_submission'],
    ]);
    expect(lines.filter((l) => l.level === 'warn' || l.level === 'error')).toEqual([]);
    expect(sim.calls.slice(callsBefore)).toEqual([]);
  });

  it('malformed envelopes (an event without its event, a message without envelope_id, not JSON) are acknowledged or ignored, never crash', async () => {
    sim.socketMode.sendRaw({
      envelope_id: 'env-bad',
      type: 'events_api',
      payload: { type: 'event_callback', team_id: 'T0KUDOS' },
      accepts_response_payload: false,
    });
    sim.socketMode.sendRaw({ type: 'interactive', payload: {} });
    await eventually(() => fromApp('env-bad').length === 1);
    expect(lines.filter((l) => l.level === 'warn' && /malformed|without an envelope_id/.test(l.msg))).toHaveLength(2);
    expect((await sim.slashCommand('U_MANAGER', 'help')).status).toBe(200);
    expect(errorLines()).toEqual([]);
  });

  it('a click no listener handles is still acknowledged (as HTTP answers it 200)', async () => {
    sim.socketMode.sendRaw({
      envelope_id: 'env-click',
      type: 'interactive',
      accepts_response_payload: false,
      payload: {
        type: 'block_actions',
        user: { id: 'U_EMP1' },
        team: { id: 'T0KUDOS' },
        api_app_id: 'A0KUDOS',
        trigger_id: '1.2.3',
        actions: [{ type: 'button', action_id: 'nobody_listens', block_id: 'b', action_ts: '1.2' }],
      },
    });
    await eventually(() => fromApp('env-click').length === 1);
  });

  it('a slash command whose frame is cut: its user sees Slack’s error, nothing is recorded, and the next try works', async () => {
    sim.socketMode.dropOnNextEnvelope('mid-frame');
    const lost = await sim.slashCommand('U_MANAGER', '', 'C_GENERAL');
    expect(lost.status).not.toBe(200);
    expect(sim.messages('C_GENERAL').find((m) => m.user === 'USLACKBOT' && m.visible_to === 'U_MANAGER')?.text).toMatch(
      /failed with the error/,
    );
    expect(sim.openViews('U_MANAGER')).toHaveLength(0);
    await sim.socketMode.waitForConnections(1);
    expect((await sim.slashCommand('U_MANAGER', '', 'C_GENERAL')).status).toBe(200);
    await sim.waitFor(() => sim.openViews('U_MANAGER')[0]);
  });
});

// The same decision as the HTTP receiver's (src/slack/listening/listener-failure.ts; test/security/edge.test.ts
// shows it over HTTP): only the way the answer is written differs.
describe('a listener that fails is answered as over HTTP', () => {
  const click = (envelopeId: string, value: unknown) => ({
    envelope_id: envelopeId,
    type: 'interactive',
    accepts_response_payload: false,
    payload: {
      type: 'block_actions',
      user: { id: 'U_MANAGER', team_id: 'T0KUDOS' },
      team: { id: 'T0KUDOS' },
      api_app_id: 'A0KUDOS',
      trigger_id: '1.2.3',
      container: { type: 'message', message_ts: '1.000001', channel_id: 'C_GENERAL' },
      channel: { id: 'C_GENERAL' },
      actions: [{ type: 'button', action_id: 'scheduled_cancel', block_id: 'b', value, action_ts: '1.2' }],
    },
  });

  it('a shape Slack never sends, found by a listener: acknowledged once with nothing in it (HTTP: 400), one warning, not an error', async () => {
    await start();
    await app!.socket!.connected();
    for (const [envelopeId, value] of [
      ['env-not-ours', 'not-a-uuid'],
      ['env-no-value', undefined],
    ] as const) {
      sim.socketMode.sendRaw(click(envelopeId, value));
      await eventually(() => fromApp(envelopeId).length === 1);
      expect(fromApp(envelopeId)[0]!.message.payload ?? {}).toEqual({});
    }
    // Their handling ends with that acknowledgement (the failure handler's). One more envelope on the
    // same socket, acknowledged once its listeners are done, is the pass after both before counting.
    const after = click('env-after', undefined);
    sim.socketMode.sendRaw({
      ...after,
      payload: {
        ...after.payload,
        actions: [{ type: 'button', action_id: 'nobody_listens', block_id: 'b', action_ts: '1.3' }],
      },
    });
    await eventually(() => fromApp('env-after').length === 1);
    expect(fromApp('env-not-ours')).toHaveLength(1);
    expect(fromApp('env-no-value')).toHaveLength(1);
    expect(
      lines.filter((l) => l.level === 'warn' && l.msg.includes('a listener found a shape Slack never sends')),
    ).toHaveLength(2);
    expect(errorLines()).toEqual([]);
  });

  it('a command whose listener fails before its ack: the ack carries the text to act on, as the HTTP answer does', async () => {
    // Slack does not know the bot token: authorizing every request fails before any listener.
    await start({ SLACK_BOT_TOKEN: 'xoxb-not-known' });
    await app!.socket!.connected();
    const answer = await sim.slashCommand('U_MANAGER', 'scheduled', 'C_GENERAL');
    expect(answer.status).toBe(200);
    const reply = await sim.waitFor(() =>
      sim.messages('C_GENERAL').find((m) => m.ephemeral && m.visible_to === 'U_MANAGER'),
    );
    expect(reply.text).toContain('Try again in a minute');
    expect(errorLines()).toEqual([expect.objectContaining({ msg: 'slack listener failed', kind: 'command /kudos' })]);
  });
});

/** A legacy message-attachment button click (`interactive_message`), as Slack's documentation shows it. */
function interactiveMessagePayload() {
  return {
    type: 'interactive_message',
    actions: [{ name: 'channels_list', type: 'select', selected_options: [{ value: 'C_GENERAL' }] }],
    callback_id: 'select_simple_1234',
    team: { id: 'T0KUDOS', domain: 'kudos-demo' },
    channel: { id: 'C_GENERAL', name: 'general' },
    user: { id: 'U_EMP1', name: 'emp1' },
    action_ts: '1481579588.685999',
    message_ts: '1481579582.000003',
    attachment_id: '1',
    token: 'x',
    is_app_unfurl: false,
    original_message: {
      text: 'Pick a channel',
      attachments: [{ callback_id: 'select_simple_1234', actions: [{ name: 'channels_list', type: 'select' }] }],
    },
    response_url: 'http://127.0.0.1:9/actions/T0KUDOS/1/x',
    trigger_id: '13345224609.738474920.8088930838d88f008e0',
  };
}
