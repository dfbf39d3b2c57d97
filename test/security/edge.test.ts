// Every Slack payload is checked at the edge (security issue, findings 4, 5, 7, 11 and 12): a shape
// Slack never sends is a 400, a failing listener still answers the user, and every deterministic
// input problem in the send form is an inline error on its field, never "press Send again".
// Everything goes through real signed requests into the app.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { startApp } from '../../src/app.js';
import { createLogger } from '../../src/config/logger.js';
import { kudos, kudosReactions } from '../../src/db/schema/index.js';
import {
  blockActionPayload,
  commandFields,
  eventually,
  postSignedCommand,
  postSignedEvent,
  postSignedPayload,
  sendModalValues,
  submitSendValues,
  testLogger,
  useAppPerTest,
  viewSubmissionPayload,
} from '../support/app.js';

const e2e = useAppPerTest({ app: { tuning: { approvalsSweepMs: 0 } } });

const send = (
  userId: string,
  values: Parameters<typeof sendModalValues>[0] | Record<string, Record<string, unknown>>,
) =>
  submitSendValues(
    e2e.stack.app.url,
    userId,
    'design' in values ? sendModalValues(values as Parameters<typeof sendModalValues>[0]) : values,
  );

/** An Events API delivery of `event`, with a fresh event_id. */
const envelope = (event: Record<string, unknown>) => ({
  type: 'event_callback',
  team_id: 'T0KUDOS',
  api_app_id: 'A0KUDOS',
  event_id: `Ev${Math.random().toString(36).slice(2)}`,
  event_time: 1,
  event,
});

describe('shapes Slack never sends are answered 400 (finding 5)', () => {
  it('view submissions without view.state, for every modal', async () => {
    for (const callbackId of ['kudos_send', 'approval_reject_modal', 'bounce_fix', 'kudos_settings']) {
      const payload = viewSubmissionPayload(
        { id: 'V_NOSTATE', callback_id: callbackId, private_metadata: '{}' },
        {},
        'U_MANAGER',
      );
      delete (payload.view as { state?: unknown }).state;
      const answer = await postSignedPayload(e2e.stack.app.url, payload);
      expect({ callbackId, status: answer.status }).toEqual({ callbackId, status: 400 });
      expect(answer.text).toContain('MALFORMED_PAYLOAD');
    }
  });

  it('user_change with user: null, and app_home_opened without a user', async () => {
    expect((await postSignedEvent(e2e.stack.app.url, envelope({ type: 'user_change', user: null }))).status).toBe(400);
    // Bolt acknowledges events before any listener runs: refused there, with nothing published.
    expect((await postSignedEvent(e2e.stack.app.url, envelope({ type: 'app_home_opened', tab: 'home' }))).status).toBe(
      200,
    );
  });

  it('a slash command with neither trigger_id nor response_url', async () => {
    const { trigger_id: _t, response_url: _r, ...fields } = commandFields('U_MANAGER', '');
    const answer = await postSignedCommand(e2e.stack.app.url, fields);
    expect(answer.status).toBe(400);
  });

  it('buttons whose value is not an id this app wrote', async () => {
    for (const actionId of ['scheduled_cancel', 'approval_approve', 'approval_reject', 'bounce_fix_open']) {
      for (const value of ['not-a-uuid', 42, undefined]) {
        const answer = await postSignedPayload(
          e2e.stack.app.url,
          blockActionPayload({ userId: 'U_MANAGER', actionId, value }),
        );
        expect({ actionId, value, status: answer.status }).toEqual({ actionId, value, status: 400 });
      }
    }
  });
});

describe('kinds of payload the app does not use are answered 200 and ignored', () => {
  it('a legacy interactive_message (message attachment buttons) and a dialog submission: 200, nothing called, one debug line per kind', async () => {
    const lines: Array<{ level: string; msg: string; kind?: string }> = [];
    await e2e.start({
      app: {
        tuning: { approvalsSweepMs: 0 },
        logger: createLogger({
          level: 'debug',
          write: (line) => void lines.push(JSON.parse(line) as (typeof lines)[number]),
        }),
      },
    });
    const callsBefore = e2e.stack.sim.calls.length;
    const legacy = {
      type: 'interactive_message',
      actions: [{ name: 'approve', type: 'button', value: 'yes' }],
      callback_id: 'legacy_buttons',
      team: { id: 'T0KUDOS', domain: 'kudos-demo' },
      channel: { id: 'C_GENERAL', name: 'general' },
      user: { id: 'U_MANAGER', name: 'manager' },
      action_ts: '1481579588.685999',
      message_ts: '1481579582.000003',
      attachment_id: '1',
      token: 'x',
      is_app_unfurl: false,
      original_message: {
        text: 'Approve?',
        attachments: [{ callback_id: 'legacy_buttons', actions: [{ name: 'approve', type: 'button', value: 'yes' }] }],
      },
      response_url: 'http://127.0.0.1:9/actions/T0KUDOS/1/x',
      trigger_id: '13345224609.738474920.8088930838d88f008e0',
    };
    for (const payload of [
      legacy,
      legacy,
      { ...legacy, type: 'dialog_submission', submission: { reason: 'x' }, state: '' },
    ]) {
      expect(await postSignedPayload(e2e.stack.app.url, payload)).toEqual({ status: 200, text: '' });
    }
    const ignored = lines.filter(
      (l) => l.msg === 'slack payload of a kind the app does not use: acknowledged and ignored',
    );
    expect(ignored.map((l) => [l.level, l.kind])).toEqual([
      ['debug', 'interactive_message'],
      ['debug', 'dialog_submission'],
    ]);
    expect(lines.filter((l) => l.level === 'warn' || l.level === 'error')).toEqual([]);
    expect(e2e.stack.sim.calls.slice(callsBefore)).toEqual([]);
    // A payload with no kind at all is still a shape Slack never sends.
    expect(
      (await postSignedPayload(e2e.stack.app.url, { team: { id: 'T0KUDOS' }, user: { id: 'U_MANAGER' } })).status,
    ).toBe(400);
  });
});

describe('every listener checks what it reads: App Home, finance, automations, shortcuts, events, the workflow step', () => {
  const refused = async (payload: Record<string, unknown>) => {
    const answer = await postSignedPayload(e2e.stack.app.url, payload);
    return {
      status: answer.status,
      code: answer.status === 400 ? (JSON.parse(answer.text) as { error: { code: string } }).error.code : undefined,
    };
  };
  const MALFORMED = { status: 400, code: 'MALFORMED_PAYLOAD' };
  const withoutTrigger = (payload: Record<string, unknown>) => {
    delete payload.trigger_id;
    return payload;
  };

  it('buttons whose value is not one this app wrote', async () => {
    const cases: Array<[string, unknown]> = [
      ['home_cancel', 'not-a-uuid'],
      ['home_page_sent', 'sent:-1; drop'],
      ['finance_topup_approve', 'not-a-uuid'],
      ['finance_topup_reject', 42],
      ['celebration_skip', 'not-a-uuid'],
      ['celebration_opt_out', 'maybe'],
      ['celebration_no_public_post', undefined],
      ['recurring_pause', '../x'],
      ['recurring_resume', 'x'],
      ['recurring_delete', 'x'],
      ['recurring_skip', 7],
    ];
    for (const [actionId, value] of cases) {
      expect({
        actionId,
        value,
        ...(await refused(blockActionPayload({ userId: 'U_ADMIN', actionId, value }))),
      }).toEqual({ actionId, value, ...MALFORMED });
    }
  });

  it('buttons that open a modal, without the trigger_id Slack always sends with a click', async () => {
    for (const actionId of [
      'home_open_settings',
      'finance_topup_open',
      'finance_limits_open',
      'celebration_rule_birthday',
      'celebration_rule_anniversary',
      'celebration_upload_csv',
    ]) {
      expect({
        actionId,
        ...(await refused(withoutTrigger(blockActionPayload({ userId: 'U_ADMIN', actionId, value: 'open' })))),
      }).toEqual({ actionId, ...MALFORMED });
    }
  });

  it('the finance and automation modals without view.state', async () => {
    for (const callbackId of [
      'finance_topup',
      'finance_limits',
      'celebration_rule',
      'celebration_csv',
      'recurring_new',
    ]) {
      const payload = viewSubmissionPayload(
        { id: 'V_NOSTATE', callback_id: callbackId, private_metadata: '' },
        {},
        'U_ADMIN',
      );
      delete (payload.view as { state?: unknown }).state;
      expect({ callbackId, ...(await refused(payload)) }).toEqual({ callbackId, ...MALFORMED });
    }
  });

  it('shortcuts without a trigger_id, or a message shortcut without its message', async () => {
    const base = {
      team: { id: 'T0KUDOS', domain: 'kudos-demo' },
      user: { id: 'U_MANAGER', team_id: 'T0KUDOS' },
      api_app_id: 'A0KUDOS',
      token: 'x',
      is_enterprise_install: false,
      enterprise: null,
    };
    expect(await refused({ ...base, type: 'shortcut', callback_id: 'give_kudos', action_ts: '1.2' })).toEqual(
      MALFORMED,
    );
    const messageShortcut = {
      ...base,
      type: 'message_action',
      callback_id: 'give_kudos_for_message',
      trigger_id: '1.2.abc',
      message_ts: '1.000001',
      response_url: 'http://127.0.0.1:9/respond',
      channel: { id: 'C_GENERAL', name: 'general' },
    };
    expect(await refused(messageShortcut)).toEqual(MALFORMED);
    expect(
      await refused({ ...messageShortcut, message: { ts: '1.000001', user: 'U_EMP1' }, channel: undefined }),
    ).toEqual(MALFORMED);
    expect(e2e.stack.sim.calls.filter((c) => c.method === 'views.open')).toHaveLength(0);
  });

  it('events Bolt acknowledges first (reactions, the workflow step) are refused before they change anything', async () => {
    // The listeners' refusals come after Bolt's ack: read from the app's warnings.
    const warnings: Array<{ msg: string; kind?: string }> = [];
    await e2e.start({
      app: {
        tuning: { approvalsSweepMs: 0 },
        logger: createLogger({
          level: 'warn',
          write: (line) => void warnings.push(JSON.parse(line) as (typeof warnings)[number]),
        }),
      },
    });
    // A null item would be a TypeError inside Bolt's own middleware: refused before Bolt.
    expect(
      (
        await postSignedEvent(
          e2e.stack.app.url,
          envelope({ type: 'reaction_added', user: 'U_EMP1', reaction: 'gift', item: null }),
        )
      ).status,
    ).toBe(400);
    // Bolt acknowledges the rest first; the listener refuses them.
    expect(
      (
        await postSignedEvent(
          e2e.stack.app.url,
          envelope({
            type: 'reaction_added',
            user: 'U_EMP1',
            item: { type: 'message', channel: 'C_KUDOS', ts: '1.000001' },
          }),
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await postSignedEvent(
          e2e.stack.app.url,
          envelope({ type: 'reaction_removed', user: 'U_EMP1', reaction: 7, item: { type: 'message' } }),
        )
      ).status,
    ).toBe(200);
    // A step run without its execution id (Bolt throws on it before any listener; and the send would
    // have no idempotency key): refused at the edge, nothing recorded.
    const step = envelope({
      type: 'function_executed',
      function: { id: 'FnSENDKUDOS', callback_id: 'send_kudos' },
      inputs: { sender: 'U_MANAGER', recipients: ['U_EMP1'], amount: 25 },
      bot_access_token: 'xwfp-test',
      event_ts: '1.2',
    });
    expect((await postSignedEvent(e2e.stack.app.url, step)).status).toBe(400);
    // Both acknowledged reactions have been through their listener (refused there) before anything is read.
    const refused = (kind: string) =>
      warnings.some((w) => w.msg.includes('a listener found a shape Slack never sends') && w.kind === kind);
    await eventually(() => refused('event reaction_added') && refused('event reaction_removed'), 30_000);
    expect(await e2e.db.select().from(kudos)).toHaveLength(0);
    expect(await e2e.db.select().from(kudosReactions)).toHaveLength(0);
  });
});

describe('a listener that fails before its ack still answers the user (finding 11)', () => {
  it('a command and a modal get 200 with a message to act on when Slack cannot be reached', async () => {
    // The same configuration, but Slack's Web API (auth.test, users.info) is unreachable.
    const broken = await startApp({
      config: { ...e2e.stack.config, slackApiUrl: 'http://127.0.0.1:9/api/' },
      port: 0,
      metricsPort: 0,
      host: '127.0.0.1',
      db: e2e.db,
      logger: testLogger(),
      tuning: { worker: { enabled: false }, webhooks: { enabled: false }, approvalsSweepMs: 0 },
    });
    try {
      const command = await postSignedCommand(broken.url, commandFields('U_MANAGER', 'scheduled'));
      expect(command.status).toBe(200);
      expect(JSON.parse(command.text)).toMatchObject({
        response_type: 'ephemeral',
        text: expect.stringContaining('Try again'),
      });

      const view = {
        id: 'V_BROKEN',
        callback_id: 'kudos_send',
        private_metadata: '{}',
        blocks: [{ type: 'input', block_id: 'send_recipients' }],
      };
      const modal = await postSignedPayload(
        broken.url,
        viewSubmissionPayload(
          view,
          sendModalValues({ users: ['U_EMP1'], design: 'CC-THANK-YOU', amount: '25' }),
          'U_MANAGER',
        ),
      );
      expect(modal.status).toBe(200);
      expect(JSON.parse(modal.text)).toMatchObject({
        response_action: 'errors',
        errors: { send_recipients: expect.stringContaining('Try again') },
      });
    } finally {
      await broken.close();
    }
  });
});

describe('deterministic input problems are inline errors on their field (finding 12)', () => {
  const base = { users: ['U_EMP1'], design: 'CC-THANK-YOU', amount: '25' };

  it('amounts: "2,5" is not $25, a number is not text', async () => {
    expect((await send('U_MANAGER', { ...base, amount: '2,5' })).errors.send_amount).toMatch(
      /comma only between thousands/,
    );
    const numeric = sendModalValues(base);
    numeric.send_amount = { amount: { type: 'number_input', value: 25 } };
    expect((await send('U_MANAGER', numeric)).errors.send_amount).toMatch(/number of whole dollars/);
    expect(await e2e.db.select().from(kudos)).toHaveLength(0);
  });

  it('messages: NUL, lone surrogates, bidi and zero-width characters, and over 1000 characters', async () => {
    const cases: Array<[string, RegExp]> = [
      ['thanks\u0000', /control characters/],
      ['thanks \ud800', /control characters/],
      ['thanks \u202Egnp.exe', /invisible characters/],
      ['tha\u200Bnks', /invisible characters/],
      ['x'.repeat(1001), /at most 1000 characters; this one has 1001/],
    ];
    for (const [message, problem] of cases) {
      expect((await send('U_MANAGER', { ...base, message })).errors.send_message).toMatch(problem);
    }
    // An emoji sequence with joiners is one character and fine; 1000 of them fit.
    const family = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}';
    const fine = await send('U_MANAGER', { ...base, message: family.repeat(1000) });
    expect(fine.errors.send_message).toBeUndefined();
  });

  it('dates and times that do not exist', async () => {
    const later = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 4);
    const answer = await send('U_MANAGER', { ...base, schedule: { date: `${later}-02-31`, time: '10:00' } });
    expect(answer.errors.send_date).toMatch(/not a date on the calendar/);
    const time = await send('U_MANAGER', { ...base, schedule: { date: `${Number(later) + 1}-03-01`, time: '25:61' } });
    expect(time.errors.send_time).toMatch(/not a time of day/);
  });

  it('groups that do not exist, including a path-like id (finding 7)', async () => {
    for (const value of ['slack:S_NOPE', 'slack:../x', 'book:..', 'book:RG-NOPE']) {
      const answer = await send('U_MANAGER', { users: [], group: { value }, design: 'CC-THANK-YOU', amount: '25' });
      expect({ value, error: answer.errors.send_group }).toEqual({
        value,
        error: expect.stringMatching(/no longer exists/),
      });
    }
  });
});

describe('the sender is never a recipient (finding 4)', () => {
  it('picked by name, alone or with others: refused', async () => {
    for (const users of [['U_MANAGER'], ['U_MANAGER', 'U_EMP1']]) {
      const answer = await send('U_MANAGER', { users, design: 'CC-THANK-YOU', amount: '25' });
      expect(answer.errors.send_recipients).toMatch(/cannot send kudos to yourself/);
    }
    expect(await e2e.db.select().from(kudos)).toHaveLength(0);
  });

  it('inside a Slack user group or an address-book group: left out', async () => {
    // U_EMP1 (eli) is in @team with U_EMP2.
    const slackGroup = await send('U_EMP1', {
      users: [],
      group: { value: 'slack:S_TEAM' },
      design: 'CC-THANK-YOU',
      amount: '25',
    });
    expect(slackGroup.text).toBe('');
    const book = e2e.stack.app.rewards;
    const group = await book.groups.create('Launch crew');
    for (const email of ['eli@example.com', 'omar@example.com']) {
      const recipient = await book.recipients.create({ email });
      await book.groups.addMember(group.groupId, recipient.recipientId);
    }
    const bookGroup = await send('U_EMP1', {
      users: [],
      group: { value: `book:${group.groupId}` },
      design: 'CC-THANK-YOU',
      amount: '25',
    });
    expect(bookGroup.text).toBe('');
    const rows = await e2e.db.select().from(kudos).where(eq(kudos.senderUserId, 'U_EMP1'));
    expect(rows.map((r) => r.recipients.map((x) => x.email).sort())).toEqual(
      expect.arrayContaining([['erin@example.com'], ['omar@example.com']]),
    );
    expect(rows).toHaveLength(2);
  });

  it('a group of only the sender is refused', async () => {
    const book = e2e.stack.app.rewards;
    const group = await book.groups.create('Just me');
    const recipient = await book.recipients.create({ email: 'eli@example.com' });
    await book.groups.addMember(group.groupId, recipient.recipientId);
    const answer = await send('U_EMP1', {
      users: [],
      group: { value: `book:${group.groupId}` },
      design: 'CC-THANK-YOU',
      amount: '25',
    });
    expect(answer.errors.send_group).toMatch(/only person in that group/);
  });
});
