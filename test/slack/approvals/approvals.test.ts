// Approvals end to end: the real app over HTTP, driven by the Slack simulator, ordering from the
// Rewards emulator. Sends above KUDOS_APPROVAL_THRESHOLD ($100 here) go to #approvals.
import { randomUUID } from 'node:crypto';

import { and, eq, sql } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';

import { rowsOf } from '../../../src/db/client.js';
import { approvalRequests, auditEvents, kudos, notifications } from '../../../src/db/schema/index.js';
import { decideApproval } from '../../../src/domain/approvals/approval-store.js';
import type { Message } from '../../../src/simulator/slack.js';
import {
  blockActionPayload,
  eventually,
  postSignedPayload,
  sendModalValues,
  submitSendForm,
  useAppPerTest,
  wallTimeIn,
} from '../../support/app.js';
import { pendingKudosValues } from '../../support/kudos-row.js';
import { noticesSettled } from '../../support/notices-settled.js';
import { dmStates, dmStories } from '../../support/sender-dm.js';

/** The app's clock runs this far ahead of real time (approval after the scheduled time). */
let clockOffsetMs = 0;

const ENV = {
  KUDOS_NOTIFY_CHANNEL: 'C_KUDOS',
  KUDOS_APPROVAL_CHANNEL: 'C_APPROVALS',
  KUDOS_APPROVERS: 'U_APPROVER,U_ADMIN',
  KUDOS_ADMINS: 'U_ADMIN',
  KUDOS_APPROVAL_THRESHOLD: '100',
};

beforeEach(() => {
  clockOffsetMs = 0;
});
// The notice outbox is swept often: a notice Slack made wait is posted within a second of its turn.
const e2e = useAppPerTest({
  env: ENV,
  app: {
    tuning: { approvalsSweepMs: 0, worker: { noticeSweepMs: 500 }, now: () => new Date(Date.now() + clockOffsetMs) },
  },
});

const APPROVE = 'approval_approve';
const REJECT = 'approval_reject';

function hasButton(m: Message, actionId: string): boolean {
  return JSON.stringify(m.blocks ?? []).includes(`"action_id":"${actionId}"`);
}

function rendered(m: Message): string {
  return `${m.text}\n${JSON.stringify(m.blocks ?? [])}`;
}

/**
 * Opens the send modal as `userId`, submits it, and returns the kudos row it recorded. On a loaded
 * machine a cold app can miss Slack's 3-second windows; like a user, try again (a repeated submission
 * of one modal records one send).
 */
async function submitSend(userId: string, values: Parameters<typeof sendModalValues>[0]) {
  return submitSendForm(e2e.stack, e2e.db, userId, sendModalValues(values));
}

/** A request for `values` from `userId`, and its message in #approvals. */
async function requestApproval(userId: string, values: Parameters<typeof sendModalValues>[0], channel = 'C_APPROVALS') {
  const row = await submitSend(userId, values);
  expect(row.status).toBe('awaiting_approval');
  const message = await e2e.stack.sim.waitFor(() =>
    e2e.stack.sim.messages(channel).find((m) => hasButton(m, APPROVE) && JSON.stringify(m.blocks).includes(row.id)),
  );
  // The sender is told last, once the request is fully posted.
  await eventually(
    async () => (await e2e.db.select().from(approvalRequests).where(eq(approvalRequests.kudosId, row.id)))[0]?.postedAt,
  );
  return { row, message };
}

function click(message: Message, actionId: string, userId: string) {
  return e2e.stack.sim.clickButton({ channel: message.channel, ts: message.ts }, actionId, userId);
}

/** A click on a button that is no longer shown (a stale client, or Slack retrying the request). */
function staleClick(message: Message, actionId: string, userId: string, kudosId: string) {
  return postSignedPayload(
    e2e.stack.app.url,
    blockActionPayload({
      userId,
      actionId,
      value: kudosId,
      channel: message.channel,
      messageTs: message.ts,
      blockId: `approval_${kudosId}`,
    }),
  );
}

/** The request message as everyone sees it now (updates applied). */
function current(message: Message): Message {
  return e2e.stack.sim.messages(message.channel).find((m) => m.ts === message.ts && !m.ephemeral)!;
}

async function ordersFor(row: { idempotencyKey: string }) {
  return (await e2e.stack.app.rewards.orders.list({ clientOrderId: row.idempotencyKey })).data;
}

async function allOrders() {
  return (await e2e.stack.app.rewards.orders.list({ pageSize: 100 })).data;
}

async function kudosRow(id: string) {
  const [row] = await e2e.db.select().from(kudos).where(eq(kudos.id, id));
  return row!;
}

async function auditActions(kudosId: string) {
  const rows = await e2e.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.subjectType, 'kudos'), eq(auditEvents.subjectId, kudosId)));
  return rows.sort((a, b) => a.id - b.id).map((r) => r.action);
}

function ephemeralsTo(userId: string, channel: string) {
  return e2e.stack.sim.messages(channel).filter((m) => m.ephemeral && m.visible_to === userId);
}

describe('routing sends to approvers', () => {
  it('a send above the threshold becomes a request in #approvals with Approve / Reject; the sender waits; nothing is ordered', async () => {
    const { row, message } = await requestApproval('U_MANAGER', {
      users: ['U_EMP1', 'U_EMP2'],
      design: 'CC-THANK-YOU',
      amount: '60',
      message: 'Ship it <!channel> <https://evil.example|intranet>',
    });
    const text = rendered(message);
    expect(text).toContain('<@U_MANAGER>');
    expect(text).toContain('<@U_EMP1>');
    expect(text).toContain('<@U_EMP2>');
    expect(text).toContain('$120');
    expect(text).toContain('right away');
    expect(text).toContain('above the $100 approval threshold');
    expect(text).toContain('&lt;!channel&gt;');
    expect(text).not.toContain('<!channel>');
    expect(text).not.toContain('<https://evil.example');
    // Both buttons ask for confirmation.
    const buttons = (message.blocks ?? [])
      .flatMap((b) => (b as { elements?: Array<Record<string, unknown>> }).elements ?? [])
      .filter((e) => e.type === 'button');
    expect(buttons.map((b) => b.action_id)).toEqual([APPROVE, REJECT]);
    expect(buttons.every((b) => b.confirm)).toBe(true);

    const waiting = await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.messages('U_MANAGER').find((m) => m.text.includes('waiting for approval')),
    );
    expect(rendered(waiting)).toContain('<#C_APPROVALS>');
    expect(await allOrders()).toHaveLength(0);
    const [request] = await e2e.db.select().from(approvalRequests).where(eq(approvalRequests.kudosId, row.id));
    expect(request!.messages).toEqual([{ channel: 'C_APPROVALS', ts: message.ts }]);
    expect(await auditActions(row.id)).toEqual(['approval.requested']);
  });

  it('a send within the threshold and the budget goes straight out; one that would exceed the monthly budget waits', async () => {
    await e2e.stack.app.settings.update({ teamId: 'T0KUDOS' }, 'U_ADMIN', { monthlyBudgetCents: 5000 });
    const first = await submitSend('U_MANAGER', { users: ['U_EMP1'], design: 'CC-THANK-YOU', amount: '30' });
    expect(['pending', 'placed']).toContain(first.status); // straight out (the worker may have placed it already)
    await eventually(async () => (await kudosRow(first.id)).status === 'placed');
    // $30 spent; another $30 would make $60 > $50.
    const { row, message } = await requestApproval('U_MANAGER', {
      users: ['U_EMP2'],
      design: 'CC-THANK-YOU',
      amount: '30',
    });
    expect(rendered(message)).toContain('over their $50 monthly allowance');
    expect(row.totalCents).toBe(3000);
    // Another sender has their own budget.
    const other = await submitSend('U_EMP3', { users: ['U_EMP2'], design: 'CC-THANK-YOU', amount: '40' });
    expect(['pending', 'placed']).toContain(other.status); // straight out (the worker may have placed it already)
    await eventually(async () => (await kudosRow(other.id)).status === 'placed');
    // The waiting send ordered nothing; the two that went straight out ordered one each.
    expect(await ordersFor(row)).toHaveLength(0);
    expect(await allOrders()).toHaveLength(2);
  });

  it('without an approval channel or approvers, workspace admins and owners get the request by DM and can approve it', async () => {
    await e2e.start({ env: { KUDOS_NOTIFY_CHANNEL: 'C_KUDOS', KUDOS_APPROVAL_THRESHOLD: '0' } });
    const { row, message } = await requestApproval(
      'U_MANAGER',
      { users: ['U_EMP1'], design: 'CC-THANK-YOU', amount: '10' },
      'U_ADMIN',
    );
    expect(rendered(message)).toContain('every send needs approval');
    // Nobody else was asked: U_ADMIN is the only admin of the seeded workspace.
    expect(e2e.stack.sim.messages('U_APPROVER').filter((m) => hasButton(m, APPROVE))).toHaveLength(0);
    await click(message, APPROVE, 'U_ADMIN');
    await eventually(async () => (await kudosRow(row.id)).status === 'placed');
    expect(await ordersFor(row)).toHaveLength(1);
  });
});

describe('recovery', () => {
  it('a send recorded for approval whose request was never posted (crash) is posted by the sweep, once', async () => {
    const [row] = await e2e.db
      .insert(kudos)
      .values({
        teamId: 'T0KUDOS',
        senderUserId: 'U_MANAGER',
        senderName: 'Maya Manager',
        recipients: [{ slackUserId: 'U_EMP1', recipientId: null, email: 'eli@example.com', name: 'Eli Engineer' }],
        recipientCount: 1,
        productId: 'CC-THANK-YOU',
        designName: 'Thank You',
        amountCents: 2000,
        totalCents: 15_000,
        status: 'awaiting_approval',
        createdAt: new Date(Date.now() - 60_000),
      })
      .returning();
    const other = await e2e.stack.startAnotherApp({ tuning: { approvalsSweepMs: 0 } });
    await Promise.all([e2e.stack.app.approvals.sweep(), other.approvals.sweep()]);
    const posted = e2e.stack.sim
      .messages('C_APPROVALS')
      .filter((m) => JSON.stringify(m.blocks ?? []).includes(row!.id));
    expect(posted).toHaveLength(1);
    expect(hasButton(posted[0]!, APPROVE)).toBe(true);
    await click(posted[0]!, APPROVE, 'U_APPROVER');
    await eventually(async () => (await kudosRow(row!.id)).status === 'placed');
    expect(await ordersFor(await kudosRow(row!.id))).toHaveLength(1);
  });

  it('a decision whose process died before telling anyone: the sweep tells the sender once and updates the request', async () => {
    const { row, message } = await requestApproval('U_MANAGER', {
      users: ['U_EMP1'],
      design: 'CC-THANK-YOU',
      amount: '150',
    });
    // The sender heard "waiting" (a minute ago): the decision may be told at once.
    await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.messages('U_MANAGER').find((m) => m.text.startsWith('Your kudos is waiting')),
    );
    // Decided a minute ago by a process that died right after its transaction: no message updated, nobody told.
    const decided = await decideApproval(e2e.db, {
      kudosId: row.id,
      teamId: row.teamId,
      actorUserId: 'U_APPROVER',
      decision: { kind: 'reject', reason: 'over budget' },
      now: new Date(Date.now() - 60_000),
    });
    expect(decided.ok).toBe(true);
    const told = () =>
      e2e.stack.sim.messages('U_MANAGER').filter((m) => /^Your kudos was rejected/.test(m.text)).length;
    expect(told()).toBe(0);
    expect(hasButton(current(message), APPROVE)).toBe(true);

    const other = await e2e.stack.startAnotherApp({ tuning: { approvalsSweepMs: 0 } });
    const reports = await Promise.all([e2e.stack.app.approvals.sweep(), other.approvals.sweep()]);
    expect(reports.reduce((n, r) => n + r.toldLate, 0)).toBeGreaterThanOrEqual(1);
    expect(told()).toBe(1);
    expect(hasButton(current(message), APPROVE)).toBe(false);
    expect(rendered(current(message))).toContain('U_APPROVER');
    expect((await e2e.stack.app.approvals.sweep()).toldLate).toBe(0);
    expect(told()).toBe(1);
  });
});

describe('a request message nobody recorded (its poster died between posting it and recording where)', () => {
  /** The request's message is in #approvals, but the database does not know it. */
  async function unrecordedRequest() {
    const posted = await requestApproval('U_MANAGER', { users: ['U_EMP1'], design: 'CC-THANK-YOU', amount: '150' });
    await e2e.db.update(approvalRequests).set({ messages: [] }).where(eq(approvalRequests.kudosId, posted.row.id));
    return posted;
  }
  const recorded = async (kudosId: string) =>
    (await e2e.db.select().from(approvalRequests).where(eq(approvalRequests.kudosId, kudosId)))[0]!.messages;

  it('rejected from it: that message shows the decision, as a recorded one would', async () => {
    const { row, message } = await unrecordedRequest();
    await click(message, REJECT, 'U_APPROVER');
    const modal = await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.openViews('U_APPROVER').find((v) => v.callback_id === 'approval_reject_modal'),
    );
    // Found by the click: every later change of the request reaches it.
    expect(await recorded(row.id)).toEqual([{ channel: message.channel, ts: message.ts }]);
    await e2e.stack.sim.submitView(
      modal.id,
      { approval_reject_reason: { reason: { type: 'plain_text_input', value: 'not now' } } },
      'U_APPROVER',
    );
    const updated = await e2e.stack.sim.waitFor(() =>
      hasButton(current(message), APPROVE) ? undefined : current(message),
    );
    expect(rendered(updated)).toContain('Rejected* by <@U_APPROVER>');
    expect((await kudosRow(row.id)).status).toBe('rejected');
  });

  it('clicked after someone decided elsewhere: the clicker is told who decided, and the message stops offering the buttons', async () => {
    const { row, message } = await unrecordedRequest();
    // Approved from another copy (App Home, say): nobody knew of this message to update it.
    const decided = await decideApproval(e2e.db, {
      kudosId: row.id,
      teamId: row.teamId,
      actorUserId: 'U_APPROVER',
      decision: { kind: 'approve' },
      now: new Date(),
    });
    expect(decided.ok).toBe(true);
    expect(hasButton(current(message), APPROVE)).toBe(true);
    await click(message, APPROVE, 'U_ADMIN');
    const refusal = await e2e.stack.sim.waitFor(() => ephemeralsTo('U_ADMIN', 'C_APPROVALS').at(-1));
    expect(refusal.text).toContain('already approved');
    const updated = await e2e.stack.sim.waitFor(() =>
      hasButton(current(message), APPROVE) ? undefined : current(message),
    );
    expect(rendered(updated)).toContain('U_APPROVER');
    expect(
      await e2e.db
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.subjectId, row.id), eq(auditEvents.action, 'approval.approved'))),
    ).toHaveLength(1);
  });

  it('found by a click before the sweep posts the request again: the decision reaches both messages', async () => {
    const { row, message: first } = await unrecordedRequest();
    // The posting never finished: the sweep will post it again.
    await e2e.db
      .update(approvalRequests)
      .set({ postedAt: null, postClaimedUntil: null, createdAt: new Date(Date.now() - 60_000) })
      .where(eq(approvalRequests.kudosId, row.id));
    await click(first, APPROVE, 'U_EMP2'); // not an approver: refused, and the message is found
    await e2e.stack.sim.waitFor(() => ephemeralsTo('U_EMP2', 'C_APPROVALS').at(-1));
    expect((await e2e.stack.app.approvals.sweep()).reposted).toBe(1);
    const second = e2e.stack.sim
      .messages('C_APPROVALS')
      .find((m) => hasButton(m, APPROVE) && m.ts !== first.ts && JSON.stringify(m.blocks).includes(row.id))!;
    expect(await recorded(row.id)).toHaveLength(2);
    await click(second, APPROVE, 'U_APPROVER');
    await e2e.stack.sim.waitFor(() => !hasButton(current(first), APPROVE) && !hasButton(current(second), APPROVE));
    // One DM to the sender, "waiting" once, then the decision in place.
    await eventually(() => dmStates(e2e.stack.sim, 'U_MANAGER')[0]?.includes('approved'));
    expect(dmStates(e2e.stack.sim, 'U_MANAGER')).toHaveLength(1);
    expect(dmStates(e2e.stack.sim, 'U_MANAGER')[0]!.slice(0, 2)).toEqual(['waiting', 'approved']);
  });
});

describe('a lost "waiting for approval" notice', () => {
  /** The database refuses the sender's "waiting" notice (as if it went away right after the request was posted). */
  async function refuseWaitingNotices(): Promise<() => Promise<void>> {
    // A sequence counts the refusals: nextval outlives the rolled-back insert.
    await e2e.db.execute(sql.raw('create sequence if not exists refused_waiting_notices'));
    await e2e.db.execute(
      sql.raw(
        `create or replace function refuse_waiting_notice() returns trigger language plpgsql as $$ begin if new.kind = 'approval.waiting' then perform nextval('refused_waiting_notices'); raise exception 'database went away (test)'; end if; return new; end $$`,
      ),
    );
    await e2e.db.execute(
      sql.raw(
        'create trigger refuse_waiting_notice before insert on notifications for each row execute function refuse_waiting_notice()',
      ),
    );
    return async () => {
      await e2e.db.execute(sql.raw('drop trigger if exists refuse_waiting_notice on notifications'));
      await e2e.db.execute(sql.raw('drop sequence if exists refused_waiting_notices'));
    };
  }
  /** The poster tried to record the "waiting" notice and the database refused it. */
  const waitingRefused = async () => {
    const [row] = rowsOf<{ is_called: boolean }>(
      await e2e.db.execute(sql.raw('select is_called from refused_waiting_notices')),
    );
    return row?.is_called === true;
  };
  /**
   * What the sender's DMs said about the request, oldest first: "waiting" and the decision. One DM,
   * posted "waiting" and edited to the decision (then on its way).
   */
  const senderNotices = () => {
    const dms = dmStates(e2e.stack.sim, 'U_MANAGER');
    expect(dms.length).toBeLessThanOrEqual(1);
    return dms.flatMap((states) => states.filter((s) => s === 'waiting' || s === 'approved'));
  };

  it('a request decided at once, before any sweep: the sender hears "waiting" first, then the decision, each once', async () => {
    const restore = await refuseWaitingNotices();
    let message: Message;
    try {
      ({ message } = await requestApproval('U_MANAGER', { users: ['U_EMP1'], design: 'CC-THANK-YOU', amount: '150' }));
      await eventually(waitingRefused);
      expect(senderNotices()).toEqual([]);
    } finally {
      await restore();
    }
    // Decided normally within seconds: the approvals sweep has not run (and would not see it as waiting any more).
    await click(message, APPROVE, 'U_APPROVER');
    await eventually(() => senderNotices().length === 2);
    expect(senderNotices()).toEqual(['waiting', 'approved']);
    const waitingPost = e2e.stack.sim.calls.find(
      (c) => c.method === 'chat.postMessage' && c.ok && c.args.channel === 'D_U_MANAGER',
    )!;
    expect(JSON.stringify(waitingPost.args)).toContain('the approvers in <#C_APPROVALS>');

    // Later sweeps on two instances tell nothing more.
    const other = await e2e.stack.startAnotherApp({ tuning: { approvalsSweepMs: 0 } });
    const later = new Date(Date.now() + 60_000);
    await Promise.all([e2e.stack.app.approvals.sweep(later), other.approvals.sweep(later)]);
    expect(senderNotices()).toEqual(['waiting', 'approved']);
  });

  it('a decision while "waiting" is still being posted by another instance: the decision comes after it, each once', async () => {
    const restore = await refuseWaitingNotices();
    let row: { id: string };
    let message: Message;
    try {
      ({ row, message } = await requestApproval('U_MANAGER', {
        users: ['U_EMP1'],
        design: 'CC-THANK-YOU',
        amount: '150',
      }));
      await eventually(waitingRefused);
    } finally {
      await restore();
    }
    // Another instance recorded "waiting" and is posting it (its lease held, Slack's answer not back):
    // it dies there, so the notice is resumed after its lease.
    await e2e.db.insert(notifications).values({
      kind: 'approval.waiting',
      subject: `${row.id}#0`,
      teamId: 'T0KUDOS',
      channel: 'D_U_MANAGER',
      dmUserId: 'U_MANAGER',
      message: { text: 'Your kudos is waiting for approval (posted by another instance)' },
      claimedUntil: new Date(Date.now() + 3000),
      attemptedAt: new Date(),
      attempts: 1,
    });
    await click(message, APPROVE, 'U_APPROVER');
    await eventually(async () => (await kudosRow(row.id)).status === 'placed');
    await eventually(() => senderNotices().length === 2, 20_000);
    expect(senderNotices()).toEqual(['waiting', 'approved']);
    // Later sweeps on two instances tell nothing more.
    const other = await e2e.stack.startAnotherApp({ tuning: { approvalsSweepMs: 0 } });
    const later = new Date(Date.now() + 60_000);
    await Promise.all([e2e.stack.app.approvals.sweep(later), other.approvals.sweep(later)]);
    expect(senderNotices()).toEqual(['waiting', 'approved']);
  });

  it('a decision taken while the notice still cannot be recorded: the confirmation is the one DM, and nothing older is told after it', async () => {
    const restore = await refuseWaitingNotices();
    let row: { id: string };
    try {
      let message: Message;
      ({ row, message } = await requestApproval('U_MANAGER', {
        users: ['U_EMP1'],
        design: 'CC-THANK-YOU',
        amount: '150',
      }));
      await eventually(waitingRefused);
      await click(message, APPROVE, 'U_APPROVER');
      await eventually(async () => (await kudosRow(row.id)).notifiedAt);
      // Never the decision alone.
      expect(senderNotices()).toEqual([]);
    } finally {
      await restore();
    }
    const other = await e2e.stack.startAnotherApp({ tuning: { approvalsSweepMs: 0 } });
    const later = new Date(Date.now() + 60_000);
    await Promise.all([e2e.stack.app.approvals.sweep(later), other.approvals.sweep(later)]);
    await Promise.all([e2e.stack.app.approvals.sweep(later), other.approvals.sweep(later)]);
    await noticesSettled(e2e.db);
    // The sender's one DM is the confirmation: "waiting" or "approved" after it would tell less than it does.
    const dms = dmStates(e2e.stack.sim, 'U_MANAGER');
    expect(dms).toHaveLength(1);
    expect(dms[0]![0]).toBe('on its way');
    expect(dms[0]).not.toContain('waiting');
    expect(dms[0]).not.toContain('approved');
  });
});

describe('deciding', () => {
  it('an approver approves: one order through the worker, the message shows who and when without buttons, the sender is told', async () => {
    const { row, message } = await requestApproval('U_MANAGER', {
      users: ['U_EMP1', 'U_EMP2'],
      design: 'CC-THANK-YOU',
      amount: '60',
      message: 'Great launch!',
    });
    const answer = await click(message, APPROVE, 'U_APPROVER');
    expect(answer.status).toBe(200);
    const placed = await eventually(async () => {
      const k = await kudosRow(row.id);
      return k.status === 'placed' && k.notifiedAt ? k : undefined;
    });
    expect(placed.idempotencyKey).toBe(row.idempotencyKey);
    expect(await ordersFor(row)).toHaveLength(1);
    const updated = await e2e.stack.sim.waitFor(() => {
      const m = current(message);
      return m.edited && !hasButton(m, APPROVE) ? m : undefined;
    });
    expect(rendered(updated)).toMatch(
      /Approved\* by <@U_APPROVER> on <!date\^\d+\^\{date_short_pretty\} at \{time\}\|[^>]+ UTC>/,
    );
    expect(hasButton(updated, REJECT)).toBe(false);
    // The sender's one DM: waiting, then approved, then on its way, in place.
    await eventually(() => dmStates(e2e.stack.sim, 'U_MANAGER')[0]?.includes('on its way'));
    expect(dmStates(e2e.stack.sim, 'U_MANAGER')).toHaveLength(1);
    expect(dmStates(e2e.stack.sim, 'U_MANAGER')[0]!.slice(0, 3)).toEqual(['waiting', 'approved', 'on its way']);
    const announcement = await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.messages('C_KUDOS').find((m) => m.text.startsWith('Kudos from')),
    );
    expect(rendered(announcement)).toContain('Great launch!');
    await e2e.stack.app.approvals.sweep(); // copies the order outcome into the audit trail
    expect(await auditActions(row.id)).toEqual(['approval.requested', 'approval.approved', 'kudos.order_placed']);
  });

  it('the sender may not approve their own request, even as an approver', async () => {
    const { row, message } = await requestApproval('U_APPROVER', {
      users: ['U_EMP1'],
      design: 'CC-THANK-YOU',
      amount: '150',
    });
    await click(message, APPROVE, 'U_APPROVER');
    const refusal = await e2e.stack.sim.waitFor(() => ephemeralsTo('U_APPROVER', 'C_APPROVALS').at(-1));
    expect(refusal.text).toContain('your own');
    await click(message, REJECT, 'U_APPROVER');
    await e2e.stack.sim.waitFor(() => ephemeralsTo('U_APPROVER', 'C_APPROVALS').length === 2);
    expect(e2e.stack.sim.openViews('U_APPROVER')).toHaveLength(0);
    expect((await kudosRow(row.id)).status).toBe('awaiting_approval');
    expect(hasButton(current(message), APPROVE)).toBe(true);
    expect(current(message).edited).toBeUndefined();
    expect(await allOrders()).toHaveLength(0);
  });

  it('anyone else clicking gets an ephemeral refusal and nothing changes', async () => {
    const { row, message } = await requestApproval('U_MANAGER', {
      users: ['U_EMP1'],
      design: 'CC-THANK-YOU',
      amount: '150',
    });
    await click(message, APPROVE, 'U_EMP3');
    await click(message, REJECT, 'U_EMP3');
    const refusals = await e2e.stack.sim.waitFor(() => {
      const list = ephemeralsTo('U_EMP3', 'C_APPROVALS');
      return list.length === 2 ? list : undefined;
    });
    for (const r of refusals) expect(r.text).toContain('Only approvers');
    expect(e2e.stack.sim.openViews('U_EMP3')).toHaveLength(0);
    expect((await kudosRow(row.id)).status).toBe('awaiting_approval');
    expect(current(message).edited).toBeUndefined();
    expect(await auditActions(row.id)).toEqual(['approval.requested']);
  });

  it('a double click yields one decision and one order', async () => {
    const { row, message } = await requestApproval('U_MANAGER', {
      users: ['U_EMP1'],
      design: 'CC-THANK-YOU',
      amount: '150',
    });
    const answers = await Promise.all([click(message, APPROVE, 'U_APPROVER'), click(message, APPROVE, 'U_APPROVER')]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    await eventually(async () => (await kudosRow(row.id)).status === 'placed');
    const refusal = await e2e.stack.sim.waitFor(() => ephemeralsTo('U_APPROVER', 'C_APPROVALS').at(-1));
    expect(refusal.text).toContain('already approved by <@U_APPROVER>');
    expect(await ordersFor(row)).toHaveLength(1);
    expect((await auditActions(row.id)).filter((a) => a === 'approval.approved')).toHaveLength(1);
  });

  it.skipIf(!process.env.DATABASE_URL)(
    'two approvers clicking at the same moment give exactly one decision and one order (20 rounds)',
    async () => {
      for (let round = 0; round < 20; round++) {
        const { row, message } = await requestApproval('U_MANAGER', {
          users: ['U_EMP1'],
          design: 'CC-THANK-YOU',
          amount: String(101 + round),
        });
        await Promise.all([
          click(message, APPROVE, 'U_APPROVER'),
          click(message, APPROVE, 'U_ADMIN'),
          click(message, REJECT, 'U_ADMIN'),
        ]);
        const settled = await eventually(async () => {
          const k = await kudosRow(row.id);
          return k.status === 'placed' && k.notifiedAt ? k : undefined;
        });
        expect(await ordersFor(settled)).toHaveLength(1);
        const decisions = (await auditActions(row.id)).filter(
          (a) => a === 'approval.approved' || a === 'approval.rejected',
        );
        expect(decisions).toEqual(['approval.approved']);
        const [request] = await e2e.db.select().from(approvalRequests).where(eq(approvalRequests.kudosId, row.id));
        expect(['U_APPROVER', 'U_ADMIN']).toContain(request!.decidedBy);
      }
      expect(await allOrders()).toHaveLength(20);
    },
  );

  it('reject asks for a reason in a modal; the sender is told the outcome and the reason; nothing is ordered', async () => {
    const { row, message } = await requestApproval('U_MANAGER', {
      users: ['U_EMP1'],
      design: 'CC-THANK-YOU',
      amount: '150',
    });
    await click(message, REJECT, 'U_APPROVER');
    const modal = await e2e.stack.sim.waitFor(() => e2e.stack.sim.openViews('U_APPROVER').at(-1));
    expect(modal.callback_id).toBe('approval_reject_modal');
    expect((await kudosRow(row.id)).status).toBe('awaiting_approval'); // nothing decided before the modal is sent
    const answer = await e2e.stack.sim.submitView(
      modal.id,
      { approval_reject_reason: { reason: { type: 'plain_text_input', value: 'Over budget this quarter <!here>' } } },
      'U_APPROVER',
    );
    expect(answer.body).toBe('');
    expect((await kudosRow(row.id)).status).toBe('rejected');
    const updated = await e2e.stack.sim.waitFor(() => (current(message).edited ? current(message) : undefined));
    expect(rendered(updated)).toContain('Rejected* by <@U_APPROVER>');
    expect(rendered(updated)).toContain('Over budget this quarter &lt;!here&gt;');
    expect(hasButton(updated, APPROVE)).toBe(false);
    const notice = await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.messages('U_MANAGER').find((m) => m.text.includes('rejected')),
    );
    expect(rendered(notice)).toContain('Over budget this quarter &lt;!here&gt;');
    // Approving afterwards (a stale client) changes nothing.
    expect((await staleClick(message, APPROVE, 'U_ADMIN', row.id)).status).toBe(200);
    const late = await e2e.stack.sim.waitFor(() => ephemeralsTo('U_ADMIN', 'C_APPROVALS').at(-1));
    expect(late.text).toContain('already rejected');
    expect(await allOrders()).toHaveLength(0);
    expect(await auditActions(row.id)).toEqual(['approval.requested', 'approval.rejected']);
  });

  it('a reject modal submitted after someone approved shows that inline and rejects nothing', async () => {
    const { row, message } = await requestApproval('U_MANAGER', {
      users: ['U_EMP1'],
      design: 'CC-THANK-YOU',
      amount: '150',
    });
    await click(message, REJECT, 'U_APPROVER');
    const modal = await e2e.stack.sim.waitFor(() => e2e.stack.sim.openViews('U_APPROVER').at(-1));
    await click(message, APPROVE, 'U_ADMIN');
    // The approval is taken after the click's ack: wait until it is, then the late reject arrives.
    await eventually(async () => (await kudosRow(row.id)).status !== 'awaiting_approval');
    await e2e.stack.sim.submitView(
      modal.id,
      { approval_reject_reason: { reason: { type: 'plain_text_input', value: 'no' } } },
      'U_APPROVER',
    );
    expect(e2e.stack.sim.viewErrors(modal.id).approval_reject_reason).toContain('already approved');
    await eventually(async () => (await kudosRow(row.id)).status === 'placed');
    expect(await ordersFor(row)).toHaveLength(1);
  });
});

describe('expiry', () => {
  it('a request expires after 72 h by default: the sender is told, the message shows it, later clicks change nothing', async () => {
    const { row, message } = await requestApproval('U_MANAGER', {
      users: ['U_EMP1'],
      design: 'CC-THANK-YOU',
      amount: '150',
    });
    const hour = 3_600_000;
    expect((await e2e.stack.app.approvals.sweep(new Date(Date.now() + 71 * hour))).expired).toBe(0);
    expect((await kudosRow(row.id)).status).toBe('awaiting_approval');
    // Two instances sweeping at once: one expiry.
    const other = await e2e.stack.startAnotherApp({ tuning: { approvalsSweepMs: 0 } });
    const reports = await Promise.all([
      e2e.stack.app.approvals.sweep(new Date(Date.now() + 73 * hour)),
      other.approvals.sweep(new Date(Date.now() + 73 * hour)),
    ]);
    expect(reports[0].expired + reports[1].expired).toBe(1);
    expect((await kudosRow(row.id)).status).toBe('expired');
    const updated = await e2e.stack.sim.waitFor(() => (current(message).edited ? current(message) : undefined));
    expect(rendered(updated)).toContain('Expired');
    expect(hasButton(updated, APPROVE)).toBe(false);
    await e2e.stack.sim.waitFor(() => e2e.stack.sim.messages('U_MANAGER').find((m) => m.text.includes('expired')));
    expect(e2e.stack.sim.messages('U_MANAGER').filter((m) => m.text.includes('expired'))).toHaveLength(1);
    expect((await staleClick(message, APPROVE, 'U_APPROVER', row.id)).status).toBe(200);
    const late = await e2e.stack.sim.waitFor(() => ephemeralsTo('U_APPROVER', 'C_APPROVALS').at(-1));
    expect(late.text).toContain('already expired');
    expect(await allOrders()).toHaveLength(0);
    expect(await auditActions(row.id)).toEqual(['approval.requested', 'approval.expired']);
  });
});

describe('approval and the schedule', () => {
  /** Date and time in U_MANAGER's zone, `minutes` from now. */
  const inNewYork = (minutes: number) => wallTimeIn('America/New_York', minutes);

  it.each([
    ['has passed', 45],
    ['is inside the 10-minute cancel window', 25],
  ])('approved when the scheduled time %s: sent now, and the sender is told', async (_label, laterMinutes) => {
    const { row, message } = await requestApproval('U_MANAGER', {
      users: ['U_EMP1'],
      design: 'CC-THANK-YOU',
      amount: '150',
      schedule: inNewYork(32),
    });
    expect(row.scheduledAt).not.toBeNull();
    clockOffsetMs = laterMinutes * 60_000;
    await click(message, APPROVE, 'U_APPROVER');
    const placed = await eventually(async () => {
      const k = await kudosRow(row.id);
      return k.status === 'placed' && k.notifiedAt ? k : undefined;
    });
    expect(placed.scheduledAt).toBeNull();
    const [order] = await ordersFor(row);
    expect(order).toBeDefined();
    const story = await eventually(() => {
      const [dm] = dmStories(e2e.stack.sim, 'U_MANAGER');
      return dm?.some((text) => text.startsWith('Your kudos is on its way')) ? dm : undefined;
    });
    expect(story.find((text) => text.startsWith('Your kudos was approved'))).toContain('is sent now');
    expect(dmStories(e2e.stack.sim, 'U_MANAGER')).toHaveLength(1);
    expect(rendered(current(message))).toContain('sent now');
  });

  it('approved well before its scheduled time: stays scheduled', async () => {
    const { row, message } = await requestApproval('U_MANAGER', {
      users: ['U_EMP1'],
      design: 'CC-THANK-YOU',
      amount: '150',
      schedule: inNewYork(120),
    });
    await click(message, APPROVE, 'U_APPROVER');
    const scheduled = await eventually(async () => {
      const k = await kudosRow(row.id);
      return k.status === 'scheduled' ? k : undefined;
    });
    expect(scheduled.scheduledAt?.getTime()).toBe(row.scheduledAt?.getTime());
  });
});

describe('a lost "back with the approvers" notice', () => {
  /** The database refuses the re-opened round's notices, to the sender and to the approver (as if it went away right after re-opening). */
  async function refuseReopenedNotices(): Promise<() => Promise<void>> {
    await e2e.db.execute(sql.raw('create sequence if not exists refused_reopened_notices'));
    await e2e.db.execute(
      sql.raw(
        `create or replace function refuse_reopened_notice() returns trigger language plpgsql as $$ begin if new.kind like 'approval.reopened%' then perform nextval('refused_reopened_notices'); raise exception 'database went away (test)'; end if; return new; end $$`,
      ),
    );
    await e2e.db.execute(
      sql.raw(
        'create trigger refuse_reopened_notice before insert on notifications for each row execute function refuse_reopened_notice()',
      ),
    );
    return async () => {
      await e2e.db.execute(sql.raw('drop trigger if exists refuse_reopened_notice on notifications'));
      await e2e.db.execute(sql.raw('drop sequence if exists refused_reopened_notices'));
    };
  }
  /** Both notices (sender's and approver's) were tried and refused. */
  const bothRefused = async () => {
    const [row] = rowsOf<{ last_value: string; is_called: boolean }>(
      await e2e.db.execute(sql.raw('select last_value, is_called from refused_reopened_notices')),
    );
    return row?.is_called === true && Number(row.last_value) >= 2;
  };
  /** What the sender's one DM about the request said, oldest first ("approved" in between is not counted). */
  const senderNotices = () => {
    const dms = dmStates(e2e.stack.sim, 'U_MANAGER');
    expect(dms.length).toBeLessThanOrEqual(1);
    return dms.flatMap((states) => states.filter((s) => s === 'waiting' || s === 'back with the approvers'));
  };
  const approverNotices = () =>
    e2e.stack.sim.messages('U_APPROVER').filter((m) => m.text.startsWith('An approved kudos could not be placed'));

  it('re-opened while its notices could not be recorded: the sweep tells the sender and the approver once across two instances, never "waiting" again', async () => {
    await e2e.emulator.setLimits({ dailyLimitUsd: 100, monthlyLimitUsd: 50_000 });
    const { row, message } = await requestApproval('U_MANAGER', {
      users: ['U_EMP1'],
      design: 'CC-THANK-YOU',
      amount: '150',
    });
    await eventually(() => senderNotices().length === 1);
    const restore = await refuseReopenedNotices();
    try {
      await click(message, APPROVE, 'U_APPROVER');
      await eventually(async () => {
        const k = await kudosRow(row.id);
        return k.status === 'awaiting_approval' && k.idempotencyKey !== row.idempotencyKey;
      });
      await eventually(bothRefused);
    } finally {
      await restore();
    }
    expect(senderNotices()).toEqual(['waiting']);
    expect(approverNotices()).toHaveLength(0);

    const other = await e2e.stack.startAnotherApp({ tuning: { approvalsSweepMs: 0 } });
    const later = new Date(Date.now() + 60_000);
    const reports = await Promise.all([e2e.stack.app.approvals.sweep(later), other.approvals.sweep(later)]);
    expect(reports.reduce((n, r) => n + r.toldLate, 0)).toBeGreaterThanOrEqual(1);
    await eventually(() => senderNotices().length === 2 && approverNotices().length === 1);
    expect(rendered(e2e.stack.sim.messages('U_MANAGER')[0]!)).toContain('back with the approvers');
    expect(rendered(e2e.stack.sim.messages('U_MANAGER')[0]!)).toContain('daily spending limit');

    await Promise.all([e2e.stack.app.approvals.sweep(later), other.approvals.sweep(later)]);
    expect(senderNotices()).toEqual(['waiting', 'back with the approvers']);
    expect(approverNotices()).toHaveLength(1);
  });
});

describe('a failed send in parts, found to have placed its first part after all', () => {
  it('is counted as partial with that order, never put back to the approvers (whose new key would pay that part twice)', async () => {
    const key = randomUUID();
    const recipients = Array.from({ length: 150 }, (_, i) => ({
      slackUserId: null,
      recipientId: null,
      email: `part-${i}-${key.slice(0, 6)}@example.com`,
      name: `Person ${i}`,
    }));
    // Part 1 went out, but its answer was lost, and the send was settled as refused for a fixable reason.
    const { order } = await e2e.stack.app.rewards.orders.createChoice(
      {
        productId: 'CC-THANK-YOU',
        recipients: recipients.slice(0, 100).map((r) => ({ email: r.email, amount: '20.00' })),
        emailSetting: { senderName: 'Maya', subject: 'Thanks' },
      },
      { idempotencyKey: `${key}-1` },
    );
    const [row] = await e2e.db
      .insert(kudos)
      .values(
        pendingKudosValues({
          idempotencyKey: key,
          recipients,
          recipientCount: 150,
          amountCents: 2000,
          totalCents: 150 * 2000,
          status: 'failed',
          errorCode: 'INSUFFICIENT_BALANCE',
          errorMessage: 'not enough money',
          notifiedAt: new Date(),
        }),
      )
      .returning();
    await e2e.db.insert(approvalRequests).values({
      teamId: row!.teamId,
      kudosId: row!.id,
      senderUserId: row!.senderUserId,
      status: 'approved',
      reason: 'above the $100 threshold',
      decidedBy: 'U_APPROVER',
      postedAt: new Date(),
      expiresAt: new Date(Date.now() + 86_400_000),
    });

    expect((await e2e.stack.app.approvals.sweep()).reopened).toBe(0);
    const after = await kudosRow(row!.id);
    expect(after).toMatchObject({ status: 'partial', partsPlaced: 1, orderIds: [order.orderId], idempotencyKey: key });
    const [request] = await e2e.db.select().from(approvalRequests).where(eq(approvalRequests.kudosId, row!.id));
    expect(request!.status).toBe('approved');
    expect(await allOrders()).toHaveLength(1);
    // The sender is told who got a card, once the worker picks the promoted send up.
    const told = await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.messages('U_MANAGER').find((m) => m.text.includes('100 of 150 people')),
    );
    expect(told.text).toContain('order 2 was never sent');
  });
});

describe('spending limits and balance at approval time', () => {
  it.each([
    [
      'DAILY_LIMIT_EXCEEDED',
      'daily spending limit',
      () => e2e.emulator.setLimits({ dailyLimitUsd: 100, monthlyLimitUsd: 50_000 }),
      () => e2e.emulator.setLimits({ dailyLimitUsd: 5000, monthlyLimitUsd: 50_000 }),
    ],
    ['INSUFFICIENT_BALANCE', 'enough money', () => e2e.emulator.setBalance(100), () => e2e.emulator.setBalance(10_000)],
  ])(
    '%s: the approver and the sender are told, the request is decidable again, and approving after the fix places one order',
    async (code, words, breakIt, fixIt) => {
      await breakIt();
      const { row, message } = await requestApproval('U_MANAGER', {
        users: ['U_EMP1'],
        design: 'CC-THANK-YOU',
        amount: '150',
      });
      await click(message, APPROVE, 'U_APPROVER');
      // Straight back to the approvers, without waiting for the sweep.
      const back = await eventually(async () => {
        const k = await kudosRow(row.id);
        return k.status === 'awaiting_approval' && k.idempotencyKey !== row.idempotencyKey ? k : undefined;
      });
      expect(back.errorCode).toBe(code);
      expect((await e2e.stack.app.approvals.sweep()).reopened).toBe(0);

      const reopened = await e2e.stack.sim.waitFor(() => {
        const m = current(message);
        return hasButton(m, APPROVE) && rendered(m).includes('could not be placed') ? m : undefined;
      });
      expect(rendered(reopened)).toContain(words);
      expect(rendered(reopened)).toContain('Approved by <@U_APPROVER>');
      const toApprover = await e2e.stack.sim.waitFor(() =>
        e2e.stack.sim.messages('U_APPROVER').find((m) => m.text.includes('could not be placed')),
      );
      expect(rendered(toApprover)).toContain(words);
      const toSender = await e2e.stack.sim.waitFor(() =>
        e2e.stack.sim.messages('U_MANAGER').find((m) => rendered(m).includes('back with the approvers')),
      );
      expect(rendered(toSender)).toContain(words);
      // The sender hears it once: no generic "could not be sent" besides the notice.
      expect(e2e.stack.sim.messages('U_MANAGER').filter((m) => m.text.includes('could not be sent'))).toHaveLength(0);
      expect(await allOrders()).toHaveLength(0);

      await fixIt();
      await click(message, APPROVE, 'U_ADMIN');
      const placed = await eventually(async () => {
        const k = await kudosRow(row.id);
        return k.status === 'placed' && k.notifiedAt ? k : undefined;
      });
      expect(placed.idempotencyKey).not.toBe(row.idempotencyKey);
      expect(await allOrders()).toHaveLength(1);
      // Sweeping again does not re-open a placed send.
      expect((await e2e.stack.app.approvals.sweep()).reopened).toBe(0);
      expect(await auditActions(row.id)).toEqual([
        'approval.requested',
        'approval.approved',
        'kudos.order_failed',
        'approval.reopened',
        'approval.approved',
        'kudos.order_placed',
      ]);
    },
  );
});
