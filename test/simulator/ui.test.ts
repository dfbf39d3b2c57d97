import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { seedWorkspace } from '../../src/simulator/seed.js';
import { type SlackSimulator, startSlackSimulator } from '../../src/simulator/slack.js';
import { encodeMentions } from '../../src/simulator/ui-routes.js';
import { stateFromRaw } from '../../src/simulator/view-state.js';
import { type FakeApp, startFakeApp } from './fake-app.js';

describe('composer mentions', () => {
  it('encodes @users, @groups, @here and #channels as Slack sends them', () => {
    const ws = seedWorkspace();
    expect(encodeMentions('@eli @Erin 25 thanks @team! #kudos @here @nobody mail@x.com', ws)).toBe(
      '<@U_EMP1|eli> <@U_EMP2|erin> 25 thanks <!subteam^S_TEAM|@team>! <#C_KUDOS|kudos> <!here> @nobody mail@x.com',
    );
    expect(encodeMentions('@greg', ws)).toBe('@greg');
  });
});

describe('form input to view state', () => {
  const plain = (text: string) => ({ type: 'plain_text', text });
  const blocks = [
    { type: 'input', block_id: 'who', element: { type: 'multi_users_select', action_id: 'v' } },
    { type: 'input', block_id: 'amount', element: { type: 'number_input', action_id: 'v', is_decimal_allowed: false } },
    { type: 'input', block_id: 'msg', element: { type: 'plain_text_input', action_id: 'v', initial_value: 'hi' } },
    {
      type: 'input',
      block_id: 'refund',
      element: {
        type: 'static_select',
        action_id: 'v',
        options: [
          { text: plain('None'), value: 'none' },
          { text: plain('30 days'), value: '30' },
        ],
      },
    },
    { type: 'input', block_id: 'design', element: { type: 'external_select', action_id: 'd' } },
    {
      type: 'input',
      block_id: 'timing',
      element: { type: 'radio_buttons', action_id: 'v', options: [{ text: plain('Now'), value: 'now' }] },
    },
    {
      type: 'input',
      block_id: 'extras',
      element: {
        type: 'checkboxes',
        action_id: 'v',
        options: [
          { text: plain('A'), value: 'a' },
          { text: plain('B'), value: 'b' },
        ],
      },
    },
    { type: 'input', block_id: 'date', element: { type: 'datepicker', action_id: 'v' } },
    { type: 'input', block_id: 'time', element: { type: 'timepicker', action_id: 'v', timezone: 'Asia/Tokyo' } },
    { type: 'input', block_id: 'at', element: { type: 'datetimepicker', action_id: 'v' } },
  ];

  it("builds Slack's exact leaf shapes", () => {
    const values = stateFromRaw(
      blocks,
      {
        who: { v: ['U_EMP1', 'U_EMP2'] },
        amount: { v: '25' },
        msg: { v: '' },
        refund: { v: '30' },
        design: { d: 'CC-1' },
        timing: { v: 'now' },
        extras: { v: ['b'] },
        date: { v: '2026-12-01' },
        time: { v: '09:30' },
        at: { v: '2026-12-01T09:30' },
      },
      'Asia/Tokyo',
      (actionId) => (actionId === 'd' ? [{ text: plain('Thank You'), value: 'CC-1' }] : []),
    );
    expect(values).toEqual({
      who: { v: { type: 'multi_users_select', selected_users: ['U_EMP1', 'U_EMP2'] } },
      amount: { v: { type: 'number_input', value: '25' } },
      msg: { v: { type: 'plain_text_input', value: null } },
      refund: { v: { type: 'static_select', selected_option: { text: plain('30 days'), value: '30' } } },
      design: { d: { type: 'external_select', selected_option: { text: plain('Thank You'), value: 'CC-1' } } },
      timing: { v: { type: 'radio_buttons', selected_option: { text: plain('Now'), value: 'now' } } },
      extras: { v: { type: 'checkboxes', selected_options: [{ text: plain('B'), value: 'b' }] } },
      date: { v: { type: 'datepicker', selected_date: '2026-12-01' } },
      time: { v: { type: 'timepicker', selected_time: '09:30', timezone: 'Asia/Tokyo' } },
      // 09:30 in Tokyo is 00:30 UTC.
      at: { v: { type: 'datetimepicker', selected_date_time: Date.UTC(2026, 11, 1, 0, 30) / 1000 } },
    });
  });

  it('keeps initial values for inputs the form did not send', () => {
    expect(stateFromRaw(blocks, {}, 'UTC', () => []).msg).toEqual({ v: { type: 'plain_text_input', value: 'hi' } });
  });
});

describe('the UI API', () => {
  let sim: SlackSimulator;
  let app: FakeApp;
  beforeAll(async () => {
    app = await startFakeApp();
    sim = await startSlackSimulator({ signingSecret: 's', appUrl: app.url });
  });
  afterAll(async () => {
    await sim.close();
    await app.close();
  });

  const post = (path: string, body: unknown) =>
    fetch(`${sim.url}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  const api = async (method: string, args: Record<string, unknown>) =>
    fetch(`${sim.apiUrl}${method}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${sim.botToken}` },
      body: JSON.stringify(args),
    });

  it('serves the page', async () => {
    const res = await fetch(`${sim.url}/`);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(await res.text()).toContain('<script src="/app.js">');
  });

  it('runs a composer slash command with encoded mentions through the signed driver', async () => {
    const r = await post('/_ui/command', { as: 'U_MANAGER', channel: 'C_KUDOS', text: '/kudos @eli 25 thanks' });
    expect(r.status).toBe(200);
    expect(new URLSearchParams(app.requests.at(-1)!.body).get('text')).toBe('<@U_EMP1|eli> 25 thanks');
    expect((await post('/_ui/command', { as: 'U_MANAGER', channel: 'C_KUDOS', text: '/weather' })).status).toBe(400);
    expect((await post('/_ui/command', { as: 'U_NOPE', channel: 'C_KUDOS', text: '/kudos' })).status).toBe(400);
    expect((await post('/_ui/command', { channel: 'C_KUDOS' })).status).toBe(400);
  });

  it('shows each user their own ephemeral messages only, and hides channels they are not in', async () => {
    await api('chat.postEphemeral', { channel: 'C_GENERAL', user: 'U_EMP1', text: 'for eli only' });
    await api('chat.postMessage', { channel: 'C_GENERAL', text: 'for everyone' });
    const asEli = (await (await fetch(`${sim.url}/_ui/state?as=U_EMP1&conv=C_GENERAL`)).json()) as {
      messagesHtml: string;
      conversations: Array<{ id: string }>;
    };
    const asErin = (await (await fetch(`${sim.url}/_ui/state?as=U_EMP2&conv=C_GENERAL`)).json()) as {
      messagesHtml: string;
    };
    expect(asEli.messagesHtml).toContain('for eli only');
    expect(asErin.messagesHtml).not.toContain('for eli only');
    expect(asErin.messagesHtml).toContain('for everyone');
    expect(asEli.conversations.map((c) => c.id)).toEqual(['C_GENERAL', 'C_KUDOS', 'D_U_EMP1']);
  });

  it('answers routes it does not have, bodies it cannot read and views no longer open', async () => {
    const notFound = await fetch(`${sim.url}/_ui/nowhere`);
    expect(notFound.status).toBe(404);
    expect(await notFound.json()).toEqual({ error: 'not found' });
    // A known path with another method is not a route either.
    expect((await fetch(`${sim.url}/_ui/command`)).status).toBe(404);
    const badJson = await fetch(`${sim.url}/_ui/submit`, { method: 'POST', body: '{not json' });
    expect(badJson.status).toBe(400);
    expect(await badJson.json()).toEqual({ error: 'invalid JSON' });
    const gone = await post('/_ui/submit', { as: 'U_MANAGER', viewId: 'V_GONE', values: {} });
    expect(gone.status).toBe(409);
    expect(await gone.json()).toEqual({ error: 'This view is no longer open.' });
    expect((await fetch(`${sim.url}/_ui/state?as=U_NOPE`)).status).toBe(400);
    // Outside /_ui/ and the simulator's other paths: Slack-shaped 404.
    const elsewhere = await fetch(`${sim.url}/elsewhere`);
    expect(elsewhere.status).toBe(404);
    expect(await elsewhere.json()).toEqual({ ok: false, error: 'not_found' });
  });

  it('"Make balance low" needs the emulator and a sane amount', async () => {
    expect((await post('/_ui/balance', { amount: -1 })).status).toBe(400);
    expect((await post('/_ui/balance', { amount: 'low' })).status).toBe(400);
    // This simulator runs without the Rewards emulator (the browser test drives it with one).
    expect((await post('/_ui/balance', { amount: 50 })).status).toBe(503);
  });
});
