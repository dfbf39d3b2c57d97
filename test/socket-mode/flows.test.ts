// The acceptance flows over Socket Mode: the app has no SLACK_SIGNING_SECRET and no POST
// /slack/events; every command, click, submission and options load reaches it as an envelope over
// the WebSocket it opened to the simulator's Socket Mode server, through Bolt's SocketModeReceiver.
// Each flow also survives the connection going away in its middle.
import { eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';

import { approvalRequests, bouncedRecipients, kudos } from '../../src/db/schema/index.js';
import type { Message } from '../../src/simulator/slack.js';
import { eventually, sendModalValues, type TestStack, useAppPerTest } from '../support/app.js';
import type { TestEmulator } from '../support/emulator.js';
import { dmStates } from '../support/sender-dm.js';
import { FAST_CHECKS } from '../webhooks/support.js';

const ENV = {
  KUDOS_NOTIFY_CHANNEL: 'C_KUDOS',
  KUDOS_APPROVAL_CHANNEL: 'C_APPROVALS',
  KUDOS_APPROVERS: 'U_APPROVER',
  KUDOS_ADMINS: 'U_ADMIN',
  KUDOS_APPROVAL_THRESHOLD: '100',
};

const t = useAppPerTest({
  env: ENV,
  socketMode: true,
  app: { tuning: { webhooks: FAST_CHECKS, approvalsSweepMs: 0 } },
  emulatorEnv: { EMULATOR_BACKGROUND: 'off' },
});
let stack: TestStack;
let testDb: { db: TestStack['app']['db'] };
let emulator: TestEmulator;
beforeEach(() => {
  stack = t.stack;
  testDb = { db: t.db };
  emulator = t.emulator;
});

async function openSendModal(userId = 'U_MANAGER') {
  const answer = await stack.sim.slashCommand(userId, '', 'C_GENERAL');
  expect(answer.status).toBe(200);
  return stack.sim.waitFor(() => stack.sim.openViews(userId).find((v) => v.callback_id === 'kudos_send'));
}

async function rowFor(viewId: string) {
  return eventually(async () => (await testDb.db.select().from(kudos)).find((k) => k.sourceViewId === viewId));
}

function hasButton(m: Message, actionId: string): boolean {
  return JSON.stringify(m.blocks ?? []).includes(`"action_id":"${actionId}"`);
}

/** Slack asks for a new connection; resolves once the app has made it (a fresh apps.connections.open). */
async function refreshConnection(how: 'disconnect' | 'drop') {
  const opened = stack.sim.socketMode.opened;
  if (how === 'disconnect') stack.sim.socketMode.disconnect('refresh_requested');
  else stack.sim.socketMode.dropConnections();
  await stack.sim.waitFor(() => stack.sim.socketMode.opened > opened && stack.sim.socketMode.openConnections > 0);
}

describe('Socket Mode: the flows of HTTP, over the socket', () => {
  it('send: the modal opens, options load, an inline error, then one order, a DM and an announcement; no HTTP route for Slack', async () => {
    const health = await fetch(`${stack.app.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true, db: 'ok', slack: 'connected' });
    expect((await fetch(`${stack.app.url}/slack/events`, { method: 'POST', body: 'x' })).status).toBe(404);

    const view = await openSendModal();
    const options = await stack.sim.loadOptions(view.id, 'design', 'send_design', 'birth', 'U_MANAGER');
    expect((options.body as { options: Array<{ value: string }> }).options.map((o) => o.value)).toEqual([
      'CC-BIRTHDAY',
    ]);

    const refused = await stack.sim.submitView(
      view.id,
      sendModalValues({ users: ['U_EMP1'], design: 'CC-THANK-YOU', amount: '2' }),
      'U_MANAGER',
    );
    expect(refused.body).toMatchObject({ response_action: 'errors' });
    expect(stack.sim.viewErrors(view.id).send_amount).toBeTruthy();

    const answer = await stack.sim.submitView(
      view.id,
      sendModalValues({
        users: ['U_EMP1', 'U_EMP2'],
        design: 'CC-THANK-YOU',
        amount: '25',
        message: 'Over the socket',
      }),
      'U_MANAGER',
    );
    expect(answer).toEqual({ status: 200, body: '' });
    expect(stack.sim.openViews('U_MANAGER')).toHaveLength(0);
    const row = await eventually(async () => (await testDb.db.select().from(kudos)).find((k) => k.orderId));
    expect((await stack.app.rewards.orders.list({ pageSize: 100 })).data).toHaveLength(1);
    const dm = await stack.sim.waitFor(() =>
      stack.sim.messages('U_MANAGER').find((m) => m.text.startsWith('Your kudos')),
    );
    expect(JSON.stringify(dm.blocks)).not.toContain(row.orderId!);
    const announcement = await stack.sim.waitFor(() => stack.sim.messages('C_KUDOS').at(-1));
    expect(JSON.stringify(announcement.blocks)).toContain('Over the socket');
  });

  it('approve, with Slack refreshing the connection between the request and the click: one decision, one order', async () => {
    const view = await openSendModal();
    await stack.sim.submitView(
      view.id,
      sendModalValues({ users: ['U_EMP1', 'U_EMP2'], design: 'CC-THANK-YOU', amount: '75' }),
      'U_MANAGER',
    );
    const row = await rowFor(view.id);
    expect(row.status).toBe('awaiting_approval');
    const request = await stack.sim.waitFor(() =>
      stack.sim.messages('C_APPROVALS').find((m) => hasButton(m, 'approval_approve')),
    );
    await eventually(
      async () =>
        (await testDb.db.select().from(approvalRequests).where(eq(approvalRequests.kudosId, row.id)))[0]?.postedAt,
    );

    await refreshConnection('disconnect');

    const click = await stack.sim.clickButton(
      { channel: request.channel, ts: request.ts },
      'approval_approve',
      'U_APPROVER',
    );
    expect(click.status).toBe(200);
    const placed = await eventually(
      async () => (await testDb.db.select().from(kudos).where(eq(kudos.id, row.id)))[0]?.orderId,
    );
    expect(
      (await stack.app.rewards.orders.list({ clientOrderId: row.idempotencyKey })).data.map((o) => o.orderId),
    ).toEqual([placed]);
    const decided = await stack.sim.waitFor(() =>
      stack.sim.messages('C_APPROVALS').find((m) => m.ts === request.ts && m.edited),
    );
    expect(hasButton(decided, 'approval_approve')).toBe(false);
    // The sender's one DM passes through "approved" (it may already read "on its way" when looked at).
    await stack.sim.waitFor(() => dmStates(stack.sim, 'U_MANAGER').some((states) => states.includes('approved')));
    expect(stack.sim.socketMode.opened).toBe(2);
  });

  it('schedule and cancel, with the socket dropped (no close frame) between listing and cancelling', async () => {
    const view = await openSendModal();
    await stack.sim.submitView(
      view.id,
      sendModalValues({
        users: ['U_EMP1'],
        design: 'CC-THANK-YOU',
        amount: '20',
        schedule: { date: '2027-03-14', time: '09:00' },
      }),
      'U_MANAGER',
    );
    const row = await eventually(async () =>
      (await testDb.db.select().from(kudos)).find((k) => k.status === 'scheduled' && k.notifiedAt),
    );
    await stack.sim.slashCommand('U_MANAGER', 'scheduled', 'C_GENERAL');
    const list = await stack.sim.waitFor(() =>
      stack.sim
        .messages('C_GENERAL')
        .find((m) => m.ephemeral && m.visible_to === 'U_MANAGER' && hasButton(m, 'scheduled_cancel')),
    );

    await refreshConnection('drop');

    const click = await stack.sim.clickButton(
      { channel: list.channel, ts: list.ts },
      'scheduled_cancel',
      'U_MANAGER',
      row.id,
    );
    expect(click.status).toBe(200);
    const updated = await stack.sim.waitFor(() =>
      stack.sim.messages('C_GENERAL').find((m) => m.ts === list.ts && m.edited),
    );
    expect(JSON.stringify(updated.blocks)).toContain('Cancelled');
    const [after] = await testDb.db.select().from(kudos).where(eq(kudos.id, row.id));
    expect(after!.status).toBe('canceled');
    expect((await stack.app.rewards.orders.get(row.orderId!)).status).toBe('CANCELED');
  });

  it('balance answers in the command’s ack', async () => {
    const answer = await stack.sim.slashCommand('U_MANAGER', 'balance', 'C_GENERAL');
    expect(answer.status).toBe(200);
    const reply = await stack.sim.waitFor(() =>
      stack.sim.messages('C_GENERAL').find((m) => m.ephemeral && m.visible_to === 'U_MANAGER'),
    );
    expect(JSON.stringify(reply.blocks)).toContain('$10,000');
  });

  it('bounced and resent: the DM, the fix modal with its inline check, the resend; Slack refreshes the connection while the modal is open', async () => {
    stack.sim.workspace.users.find((u) => u.id === 'U_EMP1')!.email = 'someone@bounce.test';
    const view = await openSendModal();
    await stack.sim.submitView(
      view.id,
      sendModalValues({ users: ['U_EMP1', 'U_EMP2'], design: 'CC-THANK-YOU', amount: '30' }),
      'U_MANAGER',
    );
    const row = await eventually(async () =>
      (await testDb.db.select().from(kudos)).find((k) => k.orderId && k.announcementTs),
    );
    await emulator.advance(5);
    const dm = await stack.sim.waitFor(() =>
      stack.sim.messages('U_MANAGER').find((m) => hasButton(m, 'bounce_fix_open')),
    );
    await stack.sim.clickButton({ channel: dm.channel, ts: dm.ts }, 'bounce_fix_open', 'U_MANAGER');
    const modal = await stack.sim.waitFor(() =>
      stack.sim.openViews('U_MANAGER').find((v) => v.callback_id === 'bounce_fix'),
    );

    await refreshConnection('disconnect');

    await stack.sim.submitView(
      modal.id,
      { bounce_fix_email: { email: { type: 'email_text_input', value: 'not-an-address' } } },
      'U_MANAGER',
    );
    expect(stack.sim.viewErrors(modal.id).bounce_fix_email).toContain('e-mail address');
    const answer = await stack.sim.submitView(
      modal.id,
      { bounce_fix_email: { email: { type: 'email_text_input', value: 'eli.fixed@example.com' } } },
      'U_MANAGER',
    );
    expect(answer.body).toBe('');
    await stack.sim.waitFor(() =>
      stack.sim
        .messages('U_MANAGER')
        .find((m) => m.ts === dm.ts && JSON.stringify(m.blocks ?? []).includes('eli.fixed@example.com')),
    );
    const resent = ((await emulator.emails()) as Array<{ kind: string; to: string; orderId: string }>).filter(
      (e) => e.kind === 'resend',
    );
    expect(resent).toEqual([expect.objectContaining({ to: 'eli.fixed@example.com', orderId: row.orderId })]);
    const [bounce] = await testDb.db.select().from(bouncedRecipients);
    expect(bounce!.status).toBe('resent');
  });
});
