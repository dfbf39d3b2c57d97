import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { auditEvents, kudos } from '../../../src/db/schema/index.js';
import { cancelScheduledSend } from '../../../src/domain/sending/cancel-scheduled.js';
import { eventually, revealInSendForm, sendModalValues, useAppPerTest, wallTimeIn } from '../../support/app.js';

const e2e = useAppPerTest({ env: { KUDOS_NOTIFY_CHANNEL: 'C_KUDOS' } });

async function scheduleSend(userId: string, date: string, time: string, amount = '20') {
  await e2e.stack.sim.slashCommand(userId, '', 'C_GENERAL');
  const opened = await e2e.stack.sim.waitFor(() => e2e.stack.sim.openViews(userId).at(-1));
  const view = await revealInSendForm(e2e.stack.sim, opened.id, userId, 'schedule');
  const answer = await e2e.stack.sim.submitView(
    view.id,
    sendModalValues({ users: ['U_EMP1'], design: 'CC-THANK-YOU', amount, message: 'later', schedule: { date, time } }),
    userId,
  );
  return { view, answer };
}

async function scheduledRow() {
  return eventually(async () =>
    (await e2e.db.select().from(kudos)).find((k) => k.status === 'scheduled' && k.notifiedAt),
  );
}

/** A wall time `minutes` from now in a zone, as the pickers would give it. */
function scheduledListMessage(userId: string) {
  return e2e.stack.sim
    .messages('C_GENERAL')
    .filter((m) => m.ephemeral && m.visible_to === userId)
    .at(-1);
}

describe('scheduled sends', () => {
  it('reads the date and time in the sender’s Slack time zone, across a DST change (New York)', async () => {
    // 2027-03-14 is the spring-forward day in New York: 03:30 is EDT (UTC-4), so 07:30 UTC.
    const { answer } = await scheduleSend('U_MANAGER', '2027-03-14', '03:30');
    expect(answer.body).toBe('');
    const row = await scheduledRow();
    expect(row.scheduledAt!.toISOString()).toBe('2027-03-14T07:30:00.000Z');
    expect(row.scheduleLocal).toBe('2027-03-14T03:30:00-04:00');
    expect(row.scheduleTimezone).toBe('America/New_York');
    const order = (await e2e.stack.app.rewards.orders.get(row.orderId!)) as {
      sendTiming?: { sendAt?: string; timezone?: string };
    };
    expect(order.sendTiming?.timezone).toBe('America/New_York');
    expect(new Date(order.sendTiming!.sendAt!).toISOString()).toBe('2027-03-14T07:30:00.000Z');
    // Booked, not sent: the sender is told, the channel hears about it when it goes out.
    const confirmation = await e2e.stack.sim.waitFor(() => e2e.stack.sim.messages('U_MANAGER').at(-1));
    expect(confirmation.text).toContain('scheduled');
    expect(e2e.stack.sim.messages('C_KUDOS')).toHaveLength(0);
  });

  it('tells a sender whose Slack profile has no time zone that the time is UTC, and schedules it in UTC', async () => {
    e2e.stack.sim.workspace.users.find((u) => u.id === 'U_EMP2')!.tz = '';
    await e2e.stack.sim.slashCommand('U_EMP2', '', 'C_GENERAL');
    const opened = await e2e.stack.sim.waitFor(() => e2e.stack.sim.openViews('U_EMP2').at(-1));
    // The date and time appear once "Schedule for later" is picked.
    expect(JSON.stringify(opened.blocks)).not.toContain('send_time');
    const view = await revealInSendForm(e2e.stack.sim, opened.id, 'U_EMP2', 'schedule');
    const timeBlock = (view.blocks as Array<{ block_id?: string; hint?: { text: string } }>).find(
      (b) => b.block_id === 'send_time',
    );
    expect(timeBlock?.hint?.text).toContain('no time zone');
    expect(timeBlock?.hint?.text).toContain('UTC');
    // A sender with a zone is told which one.
    await e2e.stack.sim.slashCommand('U_MANAGER', '', 'C_GENERAL');
    const theirsOpened = await e2e.stack.sim.waitFor(() => e2e.stack.sim.openViews('U_MANAGER').at(-1));
    const theirs = await revealInSendForm(e2e.stack.sim, theirsOpened.id, 'U_MANAGER', 'schedule');
    expect(JSON.stringify(theirs.blocks)).toContain('In your Slack time zone, America/New_York');

    const answer = await e2e.stack.sim.submitView(
      view.id,
      sendModalValues({
        users: ['U_EMP1'],
        design: 'CC-THANK-YOU',
        amount: '20',
        message: 'later',
        schedule: { date: '2027-03-14', time: '09:00' },
      }),
      'U_EMP2',
    );
    expect(answer.body).toBe('');
    const row = await scheduledRow();
    expect(row.scheduledAt!.toISOString()).toBe('2027-03-14T09:00:00.000Z');
    expect(row.scheduleTimezone).toBe('UTC');
  });

  it('places a Tokyo sender’s 09:00 at 00:00 UTC', async () => {
    await scheduleSend('U_TOKYO', '2027-03-14', '09:00');
    const row = await scheduledRow();
    expect(row.scheduledAt!.toISOString()).toBe('2027-03-14T00:00:00.000Z');
    const order = (await e2e.stack.app.rewards.orders.get(row.orderId!)) as { sendTiming?: { sendAt?: string } };
    expect(new Date(order.sendTiming!.sendAt!).toISOString()).toBe('2027-03-14T00:00:00.000Z');
  });

  it('refuses a wall time skipped by the clock change, and one less than 10 minutes ahead, inline', async () => {
    const skipped = await scheduleSend('U_MANAGER', '2027-03-14', '02:30');
    expect(e2e.stack.sim.viewErrors(skipped.view.id).send_time).toContain('does not exist');
    await e2e.stack.sim.closeView(skipped.view.id, 'U_MANAGER');
    const soon = wallTimeIn('America/New_York', 3);
    const tooSoon = await scheduleSend('U_MANAGER', soon.date, soon.time);
    expect(e2e.stack.sim.viewErrors(tooSoon.view.id).send_time).toContain('at least 10 minutes');
    expect(await e2e.db.select().from(kudos)).toHaveLength(0);
  });

  it('lists the caller’s scheduled sends and cancels one: API order cancelled, message updated, canceller recorded', async () => {
    await scheduleSend('U_MANAGER', '2027-03-14', '09:00');
    const row = await scheduledRow();
    await e2e.stack.sim.slashCommand('U_MANAGER', 'scheduled', 'C_GENERAL');
    const list = scheduledListMessage('U_MANAGER')!;
    expect(JSON.stringify(list.blocks)).toContain('scheduled_cancel');
    const balanceBefore = (await e2e.stack.app.rewards.balance.get()).availableBalance.amount;

    const click = await e2e.stack.sim.clickButton(
      { channel: list.channel, ts: list.ts },
      'scheduled_cancel',
      'U_MANAGER',
      row.id,
    );
    expect(click.status).toBe(200);
    const updated = await e2e.stack.sim.waitFor(() => {
      const m = e2e.stack.sim.messages('C_GENERAL').find((x) => x.ts === list.ts);
      return m?.edited ? m : undefined;
    });
    expect(JSON.stringify(updated.blocks)).toContain('Cancelled');
    expect(JSON.stringify(updated.blocks)).not.toContain('scheduled_cancel');
    // The sender's one DM about the send says so, in place.
    const senderDm = await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.messages('U_MANAGER').find((m) => JSON.stringify(m.blocks ?? []).includes('was cancelled')),
    );
    expect(senderDm.edited).toBeTruthy();
    expect(e2e.stack.sim.messages('U_MANAGER').filter((m) => m.text.startsWith('Your kudos'))).toHaveLength(1);

    const [after] = await e2e.db.select().from(kudos).where(eq(kudos.id, row.id));
    expect(after!.status).toBe('canceled');
    expect(after!.canceledBy).toBe('U_MANAGER');
    const audit = await e2e.db.select().from(auditEvents);
    expect(audit).toMatchObject([{ action: 'kudos.canceled', actorUserId: 'U_MANAGER', subjectId: row.id }]);
    const order = await e2e.stack.app.rewards.orders.get(row.orderId!);
    expect(order.status).toBe('CANCELED');
    const balanceAfter = (await e2e.stack.app.rewards.balance.get()).availableBalance.amount;
    expect(Number(balanceAfter) - Number(balanceBefore)).toBe(20);
  });

  it('a cancel the API accepted whose database write failed is recorded by the sweep within seconds, with who cancelled', async () => {
    // Completion checks far away: what records the cancel here is the sweep, not the next check.
    await e2e.start({
      app: {
        tuning: {
          webhooks: { checkDelaysMs: [600_000], pollIntervalMs: 100, sweepIntervalMs: 300, cancelIntentGraceMs: 500 },
        },
      },
    });
    await scheduleSend('U_MANAGER', '2027-03-14', '09:00');
    const row = await scheduledRow();
    await e2e.stack.sim.slashCommand('U_MANAGER', 'scheduled', 'C_GENERAL');
    const list = scheduledListMessage('U_MANAGER')!;
    // The database refuses to record the cancel (as if it went away right after the API call).
    await e2e.db.execute(
      sql.raw(
        `create or replace function kudos_refuse_cancel() returns trigger language plpgsql as $$ begin if new.status = 'canceled' then raise exception 'database went away (test)'; end if; return new; end $$`,
      ),
    );
    await e2e.db.execute(
      sql.raw(
        'create trigger kudos_refuse_cancel before update on kudos for each row execute function kudos_refuse_cancel()',
      ),
    );
    try {
      await e2e.stack.sim.clickButton({ channel: list.channel, ts: list.ts }, 'scheduled_cancel', 'U_MANAGER', row.id);
      // The person is told the truth: the API cancelled it.
      const updated = await e2e.stack.sim.waitFor(() => {
        const m = e2e.stack.sim.messages('C_GENERAL').find((x) => x.ts === list.ts);
        return m?.edited ? m : undefined;
      });
      expect(JSON.stringify(updated.blocks)).toContain('Cancelled');
      expect((await e2e.stack.app.rewards.orders.get(row.orderId!)).status).toBe('CANCELED');
      const [meanwhile] = await e2e.db.select().from(kudos).where(eq(kudos.id, row.id));
      expect(meanwhile!.status).toBe('scheduled');
      expect(meanwhile!.cancelRequestedBy).toBe('U_MANAGER');
    } finally {
      await e2e.db.execute(sql.raw('drop trigger if exists kudos_refuse_cancel on kudos'));
    }
    // The database is back: the sweep records it within seconds, by whom, with the audit row.
    const after = await eventually(
      async () => (await e2e.db.select().from(kudos).where(eq(kudos.id, row.id))).find((k) => k.status === 'canceled'),
      10_000,
    );
    expect(after.canceledBy).toBe('U_MANAGER');
    expect(after.orderStatus).toBe('CANCELED');
    expect(await e2e.db.select().from(auditEvents)).toMatchObject([
      { action: 'kudos.canceled', actorUserId: 'U_MANAGER', subjectId: row.id },
    ]);
  });

  it('a cancel whose answer was lost is recorded once the order says CANCELED', async () => {
    await e2e.start({
      app: {
        tuning: {
          webhooks: { checkDelaysMs: [600_000], pollIntervalMs: 100, sweepIntervalMs: 300, cancelIntentGraceMs: 500 },
        },
      },
    });
    await scheduleSend('U_MANAGER', '2027-03-14', '09:00');
    const row = await scheduledRow();
    // Every answer to the cancel is lost (applied, then the connection dropped).
    await e2e.emulator.faults({ method: 'DELETE', path: `/api/v1/orders/${row.orderId}`, drop: true, count: 20 });
    await e2e.emulator.faults({ method: 'POST', path: `/api/v1/orders/${row.orderId}/cancel`, drop: true, count: 20 });
    const outcome = await cancelScheduledSend(
      { db: e2e.db, rewards: e2e.stack.app.rewardsAccounts, logger: e2e.stack.app.logger },
      { kudosId: row.id, teamId: row.teamId, actorUserId: 'U_MANAGER', actorIsAdmin: false, now: new Date() },
    );
    expect(outcome.ok).toBe(false);
    const after = await eventually(
      async () => (await e2e.db.select().from(kudos).where(eq(kudos.id, row.id))).find((k) => k.status === 'canceled'),
      15_000,
    );
    expect(after.canceledBy).toBe('U_MANAGER');
  });

  it('refuses to cancel inside the 10-minute window (emulator clock advanced) and keeps the send', async () => {
    const in30 = wallTimeIn('America/New_York', 30);
    await scheduleSend('U_MANAGER', in30.date, in30.time);
    const row = await scheduledRow();
    await e2e.stack.sim.slashCommand('U_MANAGER', 'scheduled', 'C_GENERAL');
    const list = scheduledListMessage('U_MANAGER')!;
    await e2e.emulator.advance(25 * 60);
    await e2e.stack.sim.clickButton({ channel: list.channel, ts: list.ts }, 'scheduled_cancel', 'U_MANAGER', row.id);
    const updated = await e2e.stack.sim.waitFor(() => {
      const m = e2e.stack.sim.messages('C_GENERAL').find((x) => x.ts === list.ts);
      return m?.edited ? m : undefined;
    });
    expect(JSON.stringify(updated.blocks)).toContain('can no longer be cancelled');
    const [after] = await e2e.db.select().from(kudos).where(eq(kudos.id, row.id));
    expect(after!.status).toBe('scheduled');
    expect(after!.canceledBy).toBeNull();
  });

  it('shows a send inside the window without a Cancel button', async () => {
    const in30 = wallTimeIn('America/New_York', 30);
    await scheduleSend('U_MANAGER', in30.date, in30.time);
    const row = await scheduledRow();
    // The app's own clock says it is 25 minutes later.
    await e2e.start({ env: {}, app: { tuning: { now: () => new Date(Date.now() + 25 * 60_000) } } });
    await e2e.stack.sim.slashCommand('U_MANAGER', 'scheduled', 'C_GENERAL');
    const list = scheduledListMessage('U_MANAGER')!;
    expect(JSON.stringify(list.blocks)).toContain('Can no longer be cancelled');
    expect(JSON.stringify(list.blocks)).not.toContain('scheduled_cancel');
    expect(row.status).toBe('scheduled');
  });

  it('admins see everyone’s scheduled sends and may cancel them; others see only their own and may not', async () => {
    await scheduleSend('U_MANAGER', '2027-03-14', '09:00');
    const row = await scheduledRow();
    await e2e.stack.sim.slashCommand('U_EMP2', 'scheduled', 'C_GENERAL');
    expect(scheduledListMessage('U_EMP2')!.text).toContain('No scheduled kudos');

    const refused = await cancelScheduledSend(
      { db: e2e.db, rewards: e2e.stack.app.rewardsAccounts, logger: e2e.stack.app.logger },
      { kudosId: row.id, teamId: 'T0KUDOS', actorUserId: 'U_EMP2', actorIsAdmin: false, now: new Date() },
    );
    expect(refused).toMatchObject({ ok: false, code: 'forbidden' });

    await e2e.stack.sim.slashCommand('U_ADMIN', 'scheduled', 'C_GENERAL');
    const list = scheduledListMessage('U_ADMIN')!;
    expect(JSON.stringify(list.blocks)).toContain('<@U_MANAGER>');
    await e2e.stack.sim.clickButton({ channel: list.channel, ts: list.ts }, 'scheduled_cancel', 'U_ADMIN', row.id);
    const after = await eventually(async () =>
      (await e2e.db.select().from(kudos).where(eq(kudos.id, row.id))).find((k) => k.status === 'canceled'),
    );
    expect(after.canceledBy).toBe('U_ADMIN');
  });
});
