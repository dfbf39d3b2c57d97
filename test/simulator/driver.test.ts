// The driver against a real Bolt app (HTTPReceiver): Bolt must accept every request the simulator signs,
// and the simulator must apply the app's answers as Slack does.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { App, LogLevel } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { slackSignature } from '../../src/simulator/signing.js';
import { type SlackSimulator, startSlackSimulator } from '../../src/simulator/slack.js';
import { type FakeApp, payloadOf, startFakeApp } from './fake-app.js';

const SECRET = 'driver-test-secret';
let sim: SlackSimulator;
let server: Server;
const seen: { events: unknown[]; closed: unknown[] } = { events: [], closed: [] };

const sendModal = (extra: Record<string, unknown> = {}) => ({
  type: 'modal' as const,
  callback_id: 'send',
  notify_on_close: true,
  title: { type: 'plain_text' as const, text: 'Send kudos' },
  submit: { type: 'plain_text' as const, text: 'Send' },
  blocks: [
    {
      type: 'input',
      block_id: 'who',
      label: { type: 'plain_text', text: 'To' },
      element: { type: 'multi_users_select', action_id: 'v' },
    },
    {
      type: 'input',
      block_id: 'amount',
      label: { type: 'plain_text', text: 'Amount' },
      element: { type: 'number_input', action_id: 'v', is_decimal_allowed: false, initial_value: '25' },
    },
    {
      type: 'input',
      block_id: 'design',
      label: { type: 'plain_text', text: 'Design' },
      element: { type: 'external_select', action_id: 'v', min_query_length: 0 },
    },
    {
      type: 'actions',
      block_id: 'more',
      elements: [{ type: 'button', action_id: 'more', text: { type: 'plain_text', text: 'More' }, value: 'm' }],
    },
  ],
  ...extra,
});

beforeAll(async () => {
  sim = await startSlackSimulator({ signingSecret: SECRET });
  const app = new App({
    token: sim.botToken,
    signingSecret: SECRET,
    logLevel: LogLevel.ERROR,
    clientOptions: { slackApiUrl: sim.apiUrl },
  });
  app.command('/kudos', async ({ ack, command, client, respond }) => {
    if (command.text === 'help') {
      await ack('Use /kudos to thank someone.');
      return;
    }
    if (command.text === 'public') {
      await ack();
      await respond({ response_type: 'in_channel', text: `Kudos from <@${command.user_id}>` });
      return;
    }
    if (command.text === 'button') {
      await ack();
      await client.chat.postMessage({
        channel: command.channel_id,
        text: 'Approve?',
        blocks: [
          { type: 'section', text: { type: 'mrkdwn', text: 'Approve?' } },
          {
            type: 'actions',
            block_id: 'decide',
            elements: [
              { type: 'button', action_id: 'approve', text: { type: 'plain_text', text: 'Approve' }, value: 'req-1' },
            ],
          },
        ],
      });
      return;
    }
    await ack();
    await client.views.open({ trigger_id: command.trigger_id, view: sendModal() as never });
  });
  app.action('approve', async ({ ack, respond, body }) => {
    await ack();
    const value = (body as { actions: Array<{ value: string }> }).actions[0]!.value;
    await respond({ replace_original: true, text: `Approved ${value}` });
  });
  app.action('more', async ({ ack, client, body }) => {
    await ack();
    const b = body as { trigger_id: string };
    await client.views.push({
      trigger_id: b.trigger_id,
      view: {
        type: 'modal',
        callback_id: 'more',
        title: { type: 'plain_text', text: 'More' },
        blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'more' } }],
      },
    });
  });
  app.options({ action_id: 'v', type: 'block_suggestion' }, async ({ ack, options }) => {
    const q = options.value;
    // Bolt's ack type for options is a union that TypeScript cannot pick from here; the shape is Slack's.
    await (ack as (body: unknown) => Promise<void>)({
      options: ['Classic', 'Confetti']
        .filter((d) => d.toLowerCase().includes(q.toLowerCase()))
        .map((d) => ({ text: { type: 'plain_text' as const, text: d }, value: d.toLowerCase() })),
    });
  });
  app.view('send', async ({ ack, view }) => {
    const v = view.state.values;
    const amount = Number(v.amount!.v!.value);
    if (!(amount >= 5)) {
      await ack({ response_action: 'errors', errors: { amount: 'At least $5' } });
      return;
    }
    if (v.design!.v!.selected_option?.value === 'confetti') {
      await ack({
        response_action: 'update',
        view: { ...sendModal(), callback_id: 'confirm', title: { type: 'plain_text', text: 'Confirm' } } as never,
      });
      return;
    }
    await ack();
  });
  app.view({ callback_id: 'send', type: 'view_closed' }, async ({ ack, body }) => {
    seen.closed.push(body);
    await ack();
  });
  app.event('app_home_opened', async ({ event, client }) => {
    seen.events.push(event);
    await client.views.publish({
      user_id: event.user,
      view: { type: 'home', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'Welcome home' } }] },
    });
  });
  server = await app.start({ port: 0, host: '127.0.0.1' });
  sim.setAppUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});

afterAll(async () => {
  if (server) {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
  await sim.close();
});

describe('driving a Bolt app', () => {
  it('opens a modal from a slash command, through auth.test and views.open', async () => {
    const r = await sim.slashCommand('U_MANAGER', '');
    expect(r.status).toBe(200);
    const view = await sim.waitFor(() => sim.openViews('U_MANAGER')[0]);
    expect(sim.calls.map((c) => c.method)).toEqual(expect.arrayContaining(['auth.test', 'views.open']));
    expect(view).toMatchObject({ callback_id: 'send', title: { text: 'Send kudos' } });
  });

  it('shows inline errors from response_action errors and keeps the modal open', async () => {
    const view = sim.openViews('U_MANAGER')[0]!;
    const r = await sim.submitView(view.id, { amount: { v: { type: 'number_input', value: '2' } } }, 'U_MANAGER');
    expect(r.body).toEqual({ response_action: 'errors', errors: { amount: 'At least $5' } });
    expect(sim.viewErrors(view.id)).toEqual({ amount: 'At least $5' });
    expect(sim.openViews('U_MANAGER')).toHaveLength(1);
  });

  it('loads external options and applies response_action update', async () => {
    const view = sim.openViews('U_MANAGER')[0]!;
    const opts = await sim.loadOptions(view.id, 'v', 'design', 'conf', 'U_MANAGER');
    expect(opts.body).toEqual({ options: [{ text: { type: 'plain_text', text: 'Confetti' }, value: 'confetti' }] });
    await sim.submitView(
      view.id,
      {
        design: {
          v: {
            type: 'external_select',
            selected_option: { text: { type: 'plain_text', text: 'Confetti' }, value: 'confetti' },
          },
        },
      },
      'U_MANAGER',
    );
    const [after] = sim.openViews('U_MANAGER');
    expect(after).toMatchObject({ id: view.id, callback_id: 'confirm' });
    expect(after!.hash).not.toBe(view.hash);
  });

  it('pushes a view from a button in the modal, and closes the modal on an empty ack', async () => {
    const view = sim.openViews('U_MANAGER')[0]!;
    await sim.clickButton({ viewId: view.id }, 'more', 'U_MANAGER');
    await sim.waitFor(() => sim.openViews('U_MANAGER').length === 2);
    expect(sim.openViews('U_MANAGER').map((v) => v.callback_id)).toEqual(['confirm', 'more']);
    await sim.closeView(sim.openViews('U_MANAGER')[1]!.id, 'U_MANAGER');
    await sim.slashCommand('U_EMP1', '');
    const fresh = await sim.waitFor(() => sim.openViews('U_EMP1')[0]);
    const r = await sim.submitView(fresh.id, {}, 'U_EMP1');
    expect(r).toEqual({ status: 200, body: '' });
    expect(sim.openViews('U_EMP1')).toEqual([]);
  });

  it('sends view_closed when a notify_on_close modal is cancelled', async () => {
    await sim.slashCommand('U_EMP2', '');
    const view = await sim.waitFor(() => sim.openViews('U_EMP2')[0]);
    await sim.closeView(view.id, 'U_EMP2');
    expect(seen.closed).toHaveLength(1);
    expect(seen.closed[0]).toMatchObject({ type: 'view_closed', is_cleared: false, view: { id: view.id } });

    // The X on a pushed view closes the whole stack and reports the root view as cleared.
    await sim.slashCommand('U_EMP2', '');
    const root = await sim.waitFor(() => sim.openViews('U_EMP2')[0]);
    await sim.clickButton({ viewId: root.id }, 'more', 'U_EMP2');
    const pushed = await sim.waitFor(() => sim.openViews('U_EMP2')[1]);
    await sim.closeView(pushed.id, 'U_EMP2', true);
    expect(sim.openViews('U_EMP2')).toEqual([]);
    expect(seen.closed[1]).toMatchObject({ type: 'view_closed', is_cleared: true, view: { id: root.id } });
  });

  it('shows a text ack as an ephemeral message, and respond in_channel as a channel message', async () => {
    await sim.slashCommand('U_EMP3', 'help', 'C_KUDOS');
    const help = sim.messages('C_KUDOS').find((m) => m.text === 'Use /kudos to thank someone.');
    expect(help).toMatchObject({ ephemeral: true, visible_to: 'U_EMP3' });
    await sim.slashCommand('U_EMP3', 'public', 'C_KUDOS');
    await expect
      .poll(() => sim.messages('C_KUDOS').find((m) => m.text === 'Kudos from <@U_EMP3>')?.ephemeral, {
        timeout: 10_000,
      })
      .toBe(false);
  });

  it('clicks a message button; replace_original through the response_url updates it in place', async () => {
    await sim.slashCommand('U_APPROVER', 'button', 'C_APPROVALS');
    await expect.poll(() => sim.messages('C_APPROVALS').length, { timeout: 10_000 }).toBe(1);
    const msg = sim.messages('C_APPROVALS')[0]!;
    await sim.clickButton({ channel: 'C_APPROVALS', ts: msg.ts }, 'approve', 'U_APPROVER');
    await expect.poll(() => sim.messages('C_APPROVALS')[0]?.text, { timeout: 10_000 }).toBe('Approved req-1');
    expect(sim.messages('C_APPROVALS')).toHaveLength(1);
    expect(sim.messages('C_APPROVALS')[0]!.edited).toBeDefined();
  });

  it('delivers Events API callbacks signed as JSON', async () => {
    const r = await sim.sendEvent({ type: 'app_home_opened', user: 'U_EMP4', channel: 'D_U_EMP4', tab: 'home' });
    expect(r.status).toBe(200);
    await expect.poll(() => sim.homeView('U_EMP4')?.blocks.length, { timeout: 10_000 }).toBe(1);
  });
});

describe('the exact bytes sent', () => {
  let fake: FakeApp;
  let sim2: SlackSimulator;
  beforeAll(async () => {
    fake = await startFakeApp();
    sim2 = await startSlackSimulator({ signingSecret: SECRET, appUrl: fake.url });
  });
  afterAll(async () => {
    await sim2.close();
    await fake.close();
  });

  it('sends slash commands as an exact form content type with a valid v0 signature', async () => {
    await sim2.slashCommand('U_TOKYO', 'hello <@U_EMP1|eli> 25', 'C_KUDOS');
    const req = fake.requests[0]!;
    expect(req.path).toBe('/slack/events');
    expect(req.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const ts = req.headers['x-slack-request-timestamp'] as string;
    expect(Math.abs(Number(ts) - Date.now() / 1000)).toBeLessThan(60);
    expect(req.headers['x-slack-signature']).toBe(slackSignature(SECRET, ts, req.body));
    const f = new URLSearchParams(req.body);
    expect(Object.fromEntries(f)).toMatchObject({
      command: '/kudos',
      text: 'hello <@U_EMP1|eli> 25',
      user_id: 'U_TOKYO',
      user_name: 'taro',
      team_id: 'T0KUDOS',
      channel_id: 'C_KUDOS',
      channel_name: 'kudos',
      api_app_id: 'A0KUDOS',
    });
    expect(f.get('trigger_id')).toMatch(/^\d+\.\d+\.[0-9a-f]+$/);
    expect(f.get('response_url')).toMatch(new RegExp(`^${sim2.url}/response/`));
  });

  it('fills view_submission state with initial values in Slack shape', async () => {
    fake.answers.push({});
    await sim2.slashCommand('U_MANAGER', '');
    const trigger = new URLSearchParams(fake.requests.at(-1)!.body).get('trigger_id');
    const res = await fetch(`${sim2.apiUrl}views.open`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${sim2.botToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ trigger_id: trigger, view: sendModal() }),
    });
    const view = ((await res.json()) as { view: { id: string } }).view;
    await sim2.submitView(
      view.id,
      { who: { v: { type: 'multi_users_select', selected_users: ['U_EMP1', 'U_EMP2'] } } },
      'U_MANAGER',
    );
    const p = payloadOf(fake.requests.at(-1)!);
    expect(fake.requests.at(-1)!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(p).toMatchObject({ type: 'view_submission', user: { id: 'U_MANAGER' }, team: { id: 'T0KUDOS' } });
    expect((p.view as { state: unknown }).state).toEqual({
      values: {
        who: { v: { type: 'multi_users_select', selected_users: ['U_EMP1', 'U_EMP2'] } },
        amount: { v: { type: 'number_input', value: '25' } },
        design: { v: { type: 'external_select', selected_option: null } },
      },
    });
  });

  it('serves a response_url five times, then refuses it', async () => {
    await sim2.slashCommand('U_EMP1', '', 'C_GENERAL');
    const url = new URLSearchParams(fake.requests.at(-1)!.body).get('response_url')!;
    for (let i = 0; i < 5; i++) {
      const r = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ text: `n${i}` }),
      });
      expect(r.status).toBe(200);
    }
    const sixth = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ text: 'n5' }),
    });
    expect(sixth.status).toBe(404);
    expect(
      sim2
        .messages('C_GENERAL')
        .filter((m) => m.visible_to === 'U_EMP1')
        .map((m) => m.text),
    ).toEqual(['n0', 'n1', 'n2', 'n3', 'n4']);
  });
});

describe('response_url after a slash command', () => {
  let fake: FakeApp;
  let sim3: SlackSimulator;
  beforeAll(async () => {
    fake = await startFakeApp();
    sim3 = await startSlackSimulator({ signingSecret: SECRET, appUrl: fake.url });
  });
  afterAll(async () => {
    await sim3.close();
    await fake.close();
  });

  const postTo = (url: string, body: unknown) =>
    fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

  it('replaces, then deletes, the answer the command got earlier', async () => {
    fake.answers.push({ text: 'Working on it…' });
    await sim3.slashCommand('U_EMP2', 'balance', 'C_KUDOS');
    const url = new URLSearchParams(fake.requests.at(-1)!.body).get('response_url')!;
    const mine = () => sim3.messages('C_KUDOS').filter((m) => m.visible_to === 'U_EMP2');
    expect(mine().map((m) => m.text)).toEqual(['Working on it…']);
    await postTo(url, { replace_original: true, text: 'Balance: $9,950.00' });
    expect(mine().map((m) => m.text)).toEqual(['Balance: $9,950.00']);
    expect(mine()[0]!.edited).toBeDefined();
    await postTo(url, { delete_original: true });
    expect(mine()).toEqual([]);
  });

  it('refuses an empty response and an unknown response_url', async () => {
    await sim3.slashCommand('U_EMP2', '', 'C_KUDOS');
    const url = new URLSearchParams(fake.requests.at(-1)!.body).get('response_url')!;
    expect((await postTo(url, {})).status).toBe(400);
    expect((await postTo(`${sim3.url}/response/abcdef`, { text: 'x' })).status).toBe(404);
  });
});

describe('a double-submitted modal', () => {
  let fake: FakeApp;
  let sim4: SlackSimulator;
  beforeAll(async () => {
    fake = await startFakeApp();
    sim4 = await startSlackSimulator({ signingSecret: SECRET, appUrl: fake.url });
  });
  afterAll(async () => {
    await sim4.close();
    await fake.close();
  });

  it('delivers both submissions, as Slack may, and closes only the submitted view', async () => {
    await sim4.slashCommand('U_EMP3', '');
    const trigger = new URLSearchParams(fake.requests.at(-1)!.body).get('trigger_id');
    const res = await fetch(`${sim4.apiUrl}views.open`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${sim4.botToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ trigger_id: trigger, view: sendModal() }),
    });
    const view = ((await res.json()) as { view: { id: string } }).view;
    const before = fake.requests.length;
    const [a, b] = await Promise.all([sim4.submitView(view.id, {}, 'U_EMP3'), sim4.submitView(view.id, {}, 'U_EMP3')]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(fake.requests.slice(before).map((r) => payloadOf(r).type)).toEqual(['view_submission', 'view_submission']);
    expect(sim4.openViews('U_EMP3')).toEqual([]);
  });
});
