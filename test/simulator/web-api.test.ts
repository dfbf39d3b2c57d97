import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { type SlackSimulator, startSlackSimulator } from '../../src/simulator/slack.js';
import { type FakeApp, startFakeApp } from './fake-app.js';

let sim: SlackSimulator;
let app: FakeApp;
let now = Date.now();

beforeAll(async () => {
  app = await startFakeApp();
  // Argument rules, call after call: Slack's rate limits are tested on their own (rate-limits.test.ts).
  sim = await startSlackSimulator({ signingSecret: 'test-secret', appUrl: app.url, now: () => now, rateLimits: false });
});
afterAll(async () => {
  await sim.close();
  await app.close();
});
beforeEach(() => {
  now = Date.now();
});

/** Calls the Web API as @slack/web-api does: form body, JSON-encoded object fields, Bearer token. */
async function call(
  method: string,
  args: Record<string, unknown>,
  token: string | null = sim.botToken,
): Promise<Record<string, any>> {
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(args)) form.set(k, typeof v === 'string' ? v : JSON.stringify(v));
  const res = await fetch(`${sim.apiUrl}${method}`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
    },
    body: form.toString(),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, any>;
}

async function callJson(method: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await fetch(`${sim.apiUrl}${method}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json; charset=utf-8', Authorization: `Bearer ${sim.botToken}` },
    body: JSON.stringify(args),
  });
  return (await res.json()) as Record<string, any>;
}

/** A fresh trigger_id, as the app would get it from a slash command. */
async function triggerFor(userId: string): Promise<string> {
  await sim.slashCommand(userId, '');
  const last = app.requests[app.requests.length - 1]!;
  return new URLSearchParams(last.body).get('trigger_id')!;
}

const modal = (over: Record<string, unknown> = {}) => ({
  type: 'modal',
  callback_id: 'send',
  title: { type: 'plain_text', text: 'Send kudos' },
  submit: { type: 'plain_text', text: 'Send' },
  blocks: [
    {
      type: 'input',
      block_id: 'amount',
      label: { type: 'plain_text', text: 'Amount' },
      element: { type: 'number_input', action_id: 'v', is_decimal_allowed: false },
    },
  ],
  ...over,
});

describe('auth and methods', () => {
  it('answers auth.test with the bot identity', async () => {
    const r = await call('auth.test', {});
    expect(r).toMatchObject({ ok: true, team_id: 'T0KUDOS', user_id: 'U_KUDOSBOT', bot_id: 'B0KUDOS' });
  });

  it('refuses a missing token with not_authed and a wrong one with invalid_auth', async () => {
    expect(await call('auth.test', {}, null)).toEqual({ ok: false, error: 'not_authed' });
    expect(await call('auth.test', {}, 'xoxb-wrong')).toEqual({ ok: false, error: 'invalid_auth' });
  });

  it('answers unknown_method for a method it does not serve', async () => {
    expect(await call('chat.meMessage', { channel: 'C_GENERAL', text: 'x' })).toEqual({
      ok: false,
      error: 'unknown_method',
    });
  });

  it('records every call with its decoded arguments and outcome', async () => {
    const before = sim.calls.length;
    await call('users.info', { user: 'U_NOPE' });
    await call('chat.postMessage', { channel: 'C_KUDOS', blocks: [{ type: 'divider' }], text: 'x' });
    const recent = sim.calls.slice(before);
    expect(recent[0]).toMatchObject({
      method: 'users.info',
      ok: false,
      error: 'user_not_found',
      args: { user: 'U_NOPE' },
    });
    expect(recent[1]).toMatchObject({ method: 'chat.postMessage', ok: true, args: { blocks: [{ type: 'divider' }] } });
    expect(recent[1]!.args).not.toHaveProperty('token');
    // As Slack does, the stored message's blocks get a block_id when the app gave none.
    const stored = sim.messages('C_KUDOS').at(-1)!;
    expect(stored.blocks![0]!.block_id).toMatch(/^[A-Za-z0-9]{4}$/);
  });
});

describe('users and groups', () => {
  it('gives the profile e-mail and time zone, and none for the user without e-mail', async () => {
    const maya = await call('users.info', { user: 'U_MANAGER' });
    expect(maya.user).toMatchObject({
      id: 'U_MANAGER',
      tz: 'America/New_York',
      profile: { email: 'maya@example.com' },
    });
    const tokyo = await call('users.info', { user: 'U_TOKYO' });
    expect(tokyo.user.tz_offset).toBe(9 * 3600);
    const nora = await call('users.info', { user: 'U_NOEMAIL' });
    expect(nora.user.profile).not.toHaveProperty('email');
    expect((await call('users.info', { user: 'U_GONE' })).user.deleted).toBe(true);
    expect((await call('users.info', { user: 'U_BOT' })).user.is_bot).toBe(true);
  });

  it('pages users.list with cursors', async () => {
    const first = await call('users.list', { limit: 5 });
    expect(first.members).toHaveLength(5);
    const second = await call('users.list', { limit: 5, cursor: first.response_metadata.next_cursor });
    expect(second.members[0].id).not.toBe(first.members[0].id);
    expect(await call('users.list', { limit: 0 })).toEqual({ ok: false, error: 'invalid_limit' });
  });

  it('looks users up by e-mail', async () => {
    expect((await call('users.lookupByEmail', { email: 'ERIN@example.com' })).user.id).toBe('U_EMP2');
    expect(await call('users.lookupByEmail', { email: 'nobody@example.com' })).toEqual({
      ok: false,
      error: 'users_not_found',
    });
  });

  it('lists the @team user group and its members', async () => {
    expect(await call('usergroups.users.list', { usergroup: 'S_TEAM' })).toEqual({
      ok: true,
      users: ['U_EMP1', 'U_EMP2'],
    });
    expect(await call('usergroups.users.list', { usergroup: 'S_NONE' })).toEqual({
      ok: false,
      error: 'no_such_subteam',
    });
    const list = await call('usergroups.list', { include_users: true });
    expect(list.usergroups[0]).toMatchObject({ id: 'S_TEAM', handle: 'team', users: ['U_EMP1', 'U_EMP2'] });
  });
});

describe('messages', () => {
  it('posts to a channel, refuses an unknown one', async () => {
    const r = await call('chat.postMessage', { channel: 'C_KUDOS', text: 'Thanks!' });
    expect(r).toMatchObject({ ok: true, channel: 'C_KUDOS' });
    expect(sim.messages('C_KUDOS').some((m) => m.ts === r.ts && m.text === 'Thanks!')).toBe(true);
    expect(await call('chat.postMessage', { channel: 'C_NOPE', text: 'x' })).toEqual({
      ok: false,
      error: 'channel_not_found',
    });
  });

  it('opens the IM when posting to a user id, and accepts the IM id from conversations.open', async () => {
    const toUser = await call('chat.postMessage', { channel: 'U_EMP1', text: 'DM one' });
    const open = await call('conversations.open', { users: 'U_EMP1' });
    expect(toUser.channel).toBe(open.channel.id);
    await call('chat.postMessage', { channel: open.channel.id, text: 'DM two' });
    expect(sim.messages('U_EMP1').map((m) => m.text)).toEqual(expect.arrayContaining(['DM one', 'DM two']));
    expect(await call('conversations.open', { users: 'U_NOPE' })).toEqual({ ok: false, error: 'user_not_found' });
  });

  it('requires text or blocks and enforces the 50-block and 40,000-character limits', async () => {
    expect(await call('chat.postMessage', { channel: 'C_KUDOS' })).toEqual({ ok: false, error: 'no_text' });
    const tooMany = Array.from({ length: 51 }, () => ({ type: 'divider' }));
    const r = await call('chat.postMessage', { channel: 'C_KUDOS', blocks: tooMany });
    expect(r.error).toBe('invalid_blocks');
    expect(r.response_metadata.messages[0]).toContain('must be less than 51 items');
    expect((await call('chat.postMessage', { channel: 'C_KUDOS', blocks: tooMany.slice(0, 50), text: 'ok' })).ok).toBe(
      true,
    );
    expect(await call('chat.postMessage', { channel: 'C_KUDOS', text: 'x'.repeat(40_001) })).toEqual({
      ok: false,
      error: 'msg_too_long',
    });
    expect(await call('chat.postMessage', { channel: 'C_KUDOS', blocks: '[not json' })).toEqual({
      ok: false,
      error: 'invalid_blocks_format',
    });
  });

  it('rejects a section over 3000 characters and a header over 150', async () => {
    const section = await call('chat.postMessage', {
      channel: 'C_KUDOS',
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'a'.repeat(3001) } }],
    });
    expect(section.error).toBe('invalid_blocks');
    const header = await call('chat.postMessage', {
      channel: 'C_KUDOS',
      blocks: [{ type: 'header', text: { type: 'plain_text', text: 'h'.repeat(151) } }],
    });
    expect(header.error).toBe('invalid_blocks');
    const dup = await call('chat.postMessage', {
      channel: 'C_KUDOS',
      blocks: [
        { type: 'divider', block_id: 'a' },
        { type: 'divider', block_id: 'a' },
      ],
    });
    expect(dup.error).toBe('invalid_blocks');
  });

  it('threads replies and updates messages in place', async () => {
    const parent = await call('chat.postMessage', { channel: 'C_KUDOS', text: 'parent' });
    const reply = await callJson('chat.postMessage', { channel: 'C_KUDOS', text: 'reply', thread_ts: parent.ts });
    expect(reply.ok).toBe(true);
    expect(sim.messages('C_KUDOS').find((m) => m.ts === reply.ts)?.thread_ts).toBe(parent.ts);
    expect(await call('chat.postMessage', { channel: 'C_KUDOS', text: 'x', thread_ts: '1.000001' })).toEqual({
      ok: false,
      error: 'thread_not_found',
    });
    const upd = await call('chat.update', { channel: 'C_KUDOS', ts: parent.ts, text: 'parent (edited)' });
    expect(upd.ok).toBe(true);
    const m = sim.messages('C_KUDOS').find((x) => x.ts === parent.ts)!;
    expect(m.text).toBe('parent (edited)');
    expect(m.edited).toBeDefined();
    expect(await call('chat.update', { channel: 'C_KUDOS', ts: '1.2', text: 'x' })).toEqual({
      ok: false,
      error: 'message_not_found',
    });
    expect((await call('chat.delete', { channel: 'C_KUDOS', ts: reply.ts })).ok).toBe(true);
    expect(sim.messages('C_KUDOS').some((x) => x.ts === reply.ts)).toBe(false);
    expect(await call('chat.update', { channel: 'C_KUDOS', ts: reply.ts, text: 'x' })).toEqual({
      ok: false,
      error: 'message_not_found',
    });
    expect(sim.messages('C_KUDOS').map((x) => x.ts)).toContain(parent.ts);
  });

  it('marks ephemeral messages and shows them only to their user', async () => {
    const r = await call('chat.postEphemeral', { channel: 'C_KUDOS', user: 'U_EMP3', text: 'only you' });
    expect(r.ok).toBe(true);
    const m = sim.messages('C_KUDOS').find((x) => x.ts === r.message_ts)!;
    expect(m).toMatchObject({ ephemeral: true, visible_to: 'U_EMP3' });
    expect(await call('chat.postEphemeral', { channel: 'C_APPROVALS', user: 'U_EMP3', text: 'x' })).toEqual({
      ok: false,
      error: 'user_not_in_channel',
    });
    expect(await call('chat.update', { channel: 'C_KUDOS', ts: r.message_ts, text: 'x' })).toEqual({
      ok: false,
      error: 'message_not_found',
    });
  });

  it('pages conversation members', async () => {
    const r = await call('conversations.members', { channel: 'C_APPROVALS' });
    expect(r.members).toEqual(['U_MANAGER', 'U_APPROVER', 'U_ADMIN', 'U_KUDOSBOT']);
    expect(await call('conversations.info', { channel: 'C_NOPE' })).toEqual({ ok: false, error: 'channel_not_found' });
  });
});

describe('views', () => {
  it('opens a modal once per trigger_id and refuses it after 3 seconds', async () => {
    const t = await triggerFor('U_MANAGER');
    const opened = await call('views.open', { trigger_id: t, view: modal() });
    expect(opened.ok).toBe(true);
    expect(opened.view).toMatchObject({ type: 'modal', callback_id: 'send', root_view_id: opened.view.id });
    expect(sim.openViews('U_MANAGER').map((v) => v.id)).toEqual([opened.view.id]);
    expect(await call('views.open', { trigger_id: t, view: modal() })).toEqual({
      ok: false,
      error: 'exchanged_trigger_id',
    });

    const late = await triggerFor('U_MANAGER');
    now += 3001;
    expect(await call('views.open', { trigger_id: late, view: modal() })).toEqual({
      ok: false,
      error: 'expired_trigger_id',
    });
    expect(await call('views.open', { trigger_id: '1.2.abc', view: modal() })).toEqual({
      ok: false,
      error: 'invalid_trigger_id',
    });
  });

  it('enforces title, block count, metadata and block_id rules', async () => {
    const t = await triggerFor('U_EMP1');
    const longTitle = await call('views.open', {
      trigger_id: t,
      view: modal({ title: { type: 'plain_text', text: 'x'.repeat(25) } }),
    });
    expect(longTitle.error).toBe('invalid_arguments');
    expect(longTitle.response_metadata.messages[0]).toContain('/view/title/text');
    const checks: Array<Record<string, unknown>> = [
      { blocks: Array.from({ length: 101 }, () => ({ type: 'divider' })) },
      { private_metadata: 'm'.repeat(3001) },
      { callback_id: 'c'.repeat(256) },
      { blocks: [{ type: 'divider', block_id: 'b'.repeat(256) }] },
      {
        blocks: [
          { type: 'divider', block_id: 'same' },
          { type: 'divider', block_id: 'same' },
        ],
      },
      { submit: undefined },
      { title: undefined },
    ];
    for (const over of checks) {
      const r = await call('views.open', { trigger_id: t, view: modal(over) });
      expect(r.error, JSON.stringify(over).slice(0, 80)).toBe('invalid_arguments');
    }
    // None of the refused calls used up the trigger.
    expect((await call('views.open', { trigger_id: t, view: modal() })).ok).toBe(true);
  });

  it('updates by view_id with hash checks and pushes up to three views', async () => {
    const t = await triggerFor('U_EMP2');
    const opened = (await call('views.open', { trigger_id: t, view: modal() })).view;
    const updated = await call('views.update', {
      view_id: opened.id,
      hash: opened.hash,
      view: modal({ callback_id: 'step2' }),
    });
    expect(updated.view).toMatchObject({ id: opened.id, callback_id: 'step2' });
    expect(updated.view.hash).not.toBe(opened.hash);
    expect(await call('views.update', { view_id: opened.id, hash: opened.hash, view: modal() })).toEqual({
      ok: false,
      error: 'hash_conflict',
    });
    expect(await call('views.update', { view_id: 'VNOPE', view: modal() })).toEqual({ ok: false, error: 'not_found' });

    const p1 = await call('views.push', { trigger_id: await triggerFor('U_EMP2'), view: modal() });
    expect(p1.view.previous_view_id).toBe(opened.id);
    // triggerFor issued a new slash command; the open stack stays (only views.open replaces it).
    expect((await call('views.push', { trigger_id: await triggerFor('U_EMP2'), view: modal() })).ok).toBe(true);
    expect(await call('views.push', { trigger_id: await triggerFor('U_EMP2'), view: modal() })).toEqual({
      ok: false,
      error: 'push_limit_reached',
    });
    expect(sim.openViews('U_EMP2')).toHaveLength(3);
  });

  it('publishes a Home tab per user', async () => {
    const home = { type: 'home', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*Hi*' } }] };
    const r = await call('views.publish', { user_id: 'U_EMP4', view: home });
    expect(r.view.type).toBe('home');
    expect(sim.homeView('U_EMP4')?.blocks[0]).toMatchObject({ type: 'section' });
    expect(await call('views.publish', { user_id: 'U_NOPE', view: home })).toEqual({
      ok: false,
      error: 'user_not_found',
    });
    expect((await call('views.publish', { user_id: 'U_EMP4', view: { ...home, type: 'modal' } })).error).toBe(
      'invalid_arguments',
    );
  });
});

describe('conversations.history and conversations.replies', () => {
  it('return our messages with their metadata (when asked), newest first, within oldest, and a thread in order', async () => {
    const channel = 'C_APPROVALS';
    const first = await call('chat.postMessage', {
      channel,
      text: 'one',
      metadata: { event_type: 'kudos_notice', event_payload: { notice_id: 'n1' } },
    });
    const second = await call('chat.postMessage', { channel, text: 'two' });
    const reply = await call('chat.postMessage', {
      channel,
      text: 'in thread',
      thread_ts: first.ts,
      metadata: { event_type: 'kudos_notice', event_payload: { notice_id: 'n2' } },
    });
    expect(await call('chat.postMessage', { channel, text: 'x', metadata: { event_payload: {} } })).toMatchObject({
      ok: false,
      error: 'invalid_metadata_format',
    });

    const history = await call('conversations.history', {
      channel,
      oldest: String(Number(first.ts) - 0.000001),
      include_all_metadata: 'true',
    });
    expect(history.ok).toBe(true);
    // Thread replies are not top-level messages.
    expect(history.messages.map((m: any) => m.text)).toEqual(['two', 'one']);
    expect(history.messages[1].metadata).toEqual({ event_type: 'kudos_notice', event_payload: { notice_id: 'n1' } });
    const withoutMetadata = await call('conversations.history', { channel, oldest: first.ts, inclusive: 'true' });
    expect(withoutMetadata.messages.every((m: any) => m.metadata === undefined)).toBe(true);
    expect((await call('conversations.history', { channel, oldest: second.ts })).messages).toEqual([]);
    const paged = await call('conversations.history', {
      channel,
      oldest: String(Number(first.ts) - 0.000001),
      limit: '1',
    });
    expect(paged).toMatchObject({ has_more: true, messages: [expect.objectContaining({ text: 'two' })] });
    expect(
      (
        await call('conversations.history', {
          channel,
          oldest: String(Number(first.ts) - 0.000001),
          limit: '1',
          cursor: paged.response_metadata.next_cursor,
        })
      ).messages[0].text,
    ).toBe('one');

    const thread = await call('conversations.replies', { channel, ts: first.ts, include_all_metadata: 'true' });
    expect(thread.messages.map((m: any) => m.ts)).toEqual([first.ts, reply.ts]);
    expect(thread.messages[1].metadata.event_payload).toEqual({ notice_id: 'n2' });
    expect(await call('conversations.replies', { channel, ts: '1.000000' })).toMatchObject({
      ok: false,
      error: 'thread_not_found',
    });
    expect(await call('conversations.history', { channel: 'C_NOPE' })).toMatchObject({
      ok: false,
      error: 'channel_not_found',
    });
  });
});

describe('workflow steps (functions.completeSuccess / completeError)', () => {
  it('only the run’s workflow token completes it, once, with its required outputs; the token then stops working', async () => {
    const { run, answer } = await sim.runWorkflowStep({
      callbackId: 'send_kudos',
      inputs: { amount: 5 },
      requiredOutputs: ['kudos_id'],
    });
    expect(answer.status).toBe(200);
    expect(run.token).toMatch(/^xwfp-/);
    // While the step runs, its token acts as the bot.
    expect((await call('users.info', { user: 'U_EMP1' }, run.token)).ok).toBe(true);
    expect(
      await call(
        'functions.completeSuccess',
        { function_execution_id: run.functionExecutionId, outputs: {} },
        sim.botToken,
      ),
    ).toMatchObject({ ok: false, error: 'invalid_auth' });
    expect(
      await call('functions.completeSuccess', { function_execution_id: 'Fx_NOPE', outputs: {} }, run.token),
    ).toMatchObject({ ok: false, error: 'function_execution_not_found' });
    expect(
      await call(
        'functions.completeSuccess',
        { function_execution_id: run.functionExecutionId, outputs: {} },
        run.token,
      ),
    ).toMatchObject({ ok: false, error: 'invalid_arguments' });
    expect(
      await call(
        'functions.completeSuccess',
        { function_execution_id: run.functionExecutionId, outputs: { kudos_id: 'k1' } },
        run.token,
      ),
    ).toMatchObject({ ok: true });
    expect(sim.workflowStep(run.functionExecutionId)).toMatchObject({
      state: 'completed',
      outputs: { kudos_id: 'k1' },
    });
    expect(
      await call(
        'functions.completeError',
        { function_execution_id: run.functionExecutionId, error: 'late' },
        run.token,
      ),
    ).toMatchObject({ ok: false, error: 'function_execution_not_found' });
    expect((await call('users.info', { user: 'U_EMP1' }, run.token)).error).toBe('invalid_auth');
  });

  it('completeError needs an error message', async () => {
    const { run } = await sim.runWorkflowStep({ callbackId: 'send_kudos', inputs: {} });
    expect(
      await call('functions.completeError', { function_execution_id: run.functionExecutionId }, run.token),
    ).toMatchObject({ ok: false, error: 'invalid_arguments' });
    expect(
      await call(
        'functions.completeError',
        { function_execution_id: run.functionExecutionId, error: 'No amount' },
        run.token,
      ),
    ).toMatchObject({ ok: true });
    expect(sim.workflowStep(run.functionExecutionId)).toMatchObject({ state: 'failed', error: 'No amount' });
  });
});
