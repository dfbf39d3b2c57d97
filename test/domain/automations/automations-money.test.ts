// Automations and money: a run moves money at most once, only while it is still due (a skip, a pause or
// a corrected date that lands first means nothing is sent), a passing failure is tried again rather
// than dropped, the known spending limits hold, and a send refused for balance or limits goes out once
// the reason is gone. The passes are driven by the test (automationsMs: 0); one pass is held at its
// first Slack call, to let a person act while that pass holds the run.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import type { RunningApp } from '../../../src/app.js';
import { automationOccurrences, kudos } from '../../../src/db/schema/index.js';
import { createDesignCatalogs } from '../../../src/domain/accounts/design-catalog.js';
import {
  type AutomationDeps,
  createSeries,
  RETRY_MS,
  runAutomations,
  saveCelebrationRule,
  setSeriesStatus,
} from '../../../src/domain/automations/automation-runner.js';
import type { UserDirectory } from '../../../src/domain/common/ports.js';
import { rememberLimits, withSpendingLimits } from '../../../src/domain/finance/spending-limits.js';
import { presentNotice } from '../../../src/slack/notices/present-notice.js';
import { eventually, useAppPerTest } from '../../support/app.js';
import { BIRTHDAY_RULE, CELEBRATING_WORKSPACE, importDatesCsv } from '../../support/celebrations.js';

const env = useAppPerTest({
  env: { KUDOS_NOTIFY_CHANNEL: 'C_GENERAL', KUDOS_ADMINS: 'U_ADMIN' },
  app: { tuning: { automationsMs: 0, home: { enabled: false }, approvalsSweepMs: 0, financeSweepMs: 0 } },
});
const WS = CELEBRATING_WORKSPACE;
const importCsv = (text: string) => importDatesCsv(env, text);

const tick = (iso: string | Date) => env.stack.app.automations.tick(new Date(iso));
const sends = () => env.db.select().from(kudos);
const occurrences = () => env.db.select().from(automationOccurrences);
const orders = async () => (await env.stack.app.rewards.orders.list({ pageSize: 100 })).data;
const adminDms = () => env.stack.sim.messages('D_U_ADMIN').map((m) => m.text);

const HELD_PASS = 'held-pass';

/**
 * Another instance's automations pass (worker id HELD_PASS), built from the app's own parts, that
 * stops at its first Slack lookup after it claimed a run, until released: the run is held there
 * while a person acts.
 */
function heldPass(app: RunningApp) {
  let reached!: () => void;
  let release!: () => void;
  const atSlack = new Promise<void>((resolve) => (reached = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  let first = true;
  const users: UserDirectory = {
    async userInfo(ws, id) {
      const claimed = await app.db
        .select({ id: automationOccurrences.id })
        .from(automationOccurrences)
        .where(eq(automationOccurrences.claimedBy, HELD_PASS));
      if (first && claimed.length > 0) {
        first = false;
        reached();
        await released;
      }
      return app.slack.userInfo(ws, id);
    },
    usergroupMembers: (ws, id) => app.slack.usergroupMembers(ws, id),
  };
  const deps: AutomationDeps = {
    db: app.db,
    users,
    rewards: app.rewardsAccounts,
    catalog: createDesignCatalogs(app.rewardsAccounts),
    policy: withSpendingLimits(app.approvals.policy, { db: app.db, now: () => new Date() }),
    settings: app.settings,
    approvals: app.approvals,
    wakeWorker: () => app.worker.wake(),
    now: () => new Date(),
    logger: app.logger,
    notices: { db: app.db, chat: app.slack, present: presentNotice },
  };
  return { deps, atSlack, release };
}

describe('a skip or a pause while a pass holds the run', () => {
  it('the admin’s Skip wins: nothing is recorded or ordered, and the run shows skipped', async () => {
    const { sim } = env.stack;
    // A birthday in five days (the list shows the next 30 days of the app's own clock).
    const md = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(5, 10);
    await importCsv(`email,birthday,start_date\neli@example.com,${md},\n`);
    await saveCelebrationRule(env.db, WS, 'birthday', BIRTHDAY_RULE, 'U_ADMIN');
    await env.stack.app.automations.tick();
    const [occ] = await occurrences();

    // A pass claims the run at its time and stops at its first Slack lookup.
    const pass = heldPass(env.stack.app);
    const running = runAutomations(pass.deps, HELD_PASS, new Date(occ!.dueAt.getTime() + 60_000));
    await pass.atSlack;

    await sim.slashCommand('U_ADMIN', 'celebrations', 'C_GENERAL');
    const list = await sim.waitFor(() =>
      sim
        .messages('C_GENERAL')
        .filter((m) => m.ephemeral && JSON.stringify(m.blocks).includes('celebration_skip'))
        .at(-1),
    );
    await sim.clickButton({ channel: 'C_GENERAL', ts: list.ts }, `celebration_skip:${occ!.id}`, 'U_ADMIN');
    const note = await sim.waitFor(() =>
      sim.messages('C_GENERAL').find((m) => /Skipped|already/.test(m.text + JSON.stringify(m.blocks ?? []))),
    );
    expect(JSON.stringify(note)).toContain('Skipped: that celebration will not be sent.');

    pass.release();
    const report = await running;
    expect(report.sent).toBe(0);
    expect(await sends()).toHaveLength(0);
    expect(await orders()).toHaveLength(0);
    const [after] = await occurrences();
    expect(after).toMatchObject({ status: 'skipped', skippedBy: 'U_ADMIN', kudosId: null });
  });

  it('a series paused while a pass holds its run sends nothing', async () => {
    const series = await createSeries(env.db, {
      ...WS,
      senderUserId: 'U_MANAGER',
      recipientUserIds: ['U_EMP1'],
      productId: 'CC-THANK-YOU',
      amountCents: 1000,
      message: 'Thanks!',
      cadence: 'weekly',
      weekday: 5,
      timeOfDay: '16:00',
      timezone: 'America/New_York',
      startsAt: new Date('2027-01-01T00:00:00Z'),
    });
    await tick('2027-01-05T12:00:00Z');
    const pass = heldPass(env.stack.app);
    const running = runAutomations(pass.deps, HELD_PASS, new Date('2027-01-08T21:00:00Z'));
    await pass.atSlack;
    expect(
      await setSeriesStatus(
        env.db,
        WS,
        series.id,
        'paused',
        { userId: 'U_MANAGER', isAdmin: false },
        new Date('2027-01-08T21:00:30Z'),
      ),
    ).toBeDefined();
    pass.release();
    expect((await running).sent).toBe(0);
    expect(await sends()).toHaveLength(0);
    expect(await orders()).toHaveLength(0);
    const first = (await occurrences()).find((o) => o.localDate === '2027-01-08');
    expect(first).toMatchObject({ status: 'canceled', kudosId: null });
  });
});

describe('dates corrected after planning', () => {
  it('a birthday corrected inside the 30 days is sent once, on the new day; a birthday removed is not sent', async () => {
    await importCsv('email,birthday,start_date\neli@example.com,06-01,\nerin@example.com,06-01,2020-01-06\n');
    await saveCelebrationRule(env.db, WS, 'birthday', BIRTHDAY_RULE, 'U_ADMIN');
    await tick('2027-05-20T12:00:00Z');
    expect((await occurrences()).map((o) => o.key).sort()).toEqual([
      'birthday:U_EMP1:2027-06-01',
      'birthday:U_EMP2:2027-06-01',
    ]);

    // The upload is corrected: Eli's birthday is June 10; Erin's is taken out (her start date stays).
    await importCsv('email,birthday,start_date\neli@example.com,06-10,\nerin@example.com,,2020-01-06\n');
    await tick('2027-05-21T12:00:00Z');
    expect((await tick('2027-06-01T16:00:00Z')).sent).toBe(0);
    expect(await sends()).toHaveLength(0);
    expect((await tick('2027-06-10T16:00:00Z')).sent).toBe(1);

    const rows = await sends();
    expect(rows.map((r) => r.recipients[0]!.slackUserId)).toEqual(['U_EMP1']);
    await eventually(async () => (await orders()).length === 1);
    const byKey = new Map((await occurrences()).map((o) => [o.key, o]));
    expect(byKey.get('birthday:U_EMP1:2027-06-01')).toMatchObject({
      status: 'canceled',
      error: 'Their birthday is now 06-10; that day is celebrated instead.',
    });
    expect(byKey.get('birthday:U_EMP2:2027-06-01')).toMatchObject({
      status: 'canceled',
      error: 'Their birthday was removed.',
    });
    expect(byKey.get('birthday:U_EMP1:2027-06-10')).toMatchObject({ status: 'sent', kudosId: rows[0]!.id });
  });
});

describe('a passing failure at dispatch', () => {
  it('a Rewards 503 on the catalog read at 9:00 is tried again, not refused, and the owner is not told “not retried”', async () => {
    await importCsv('email,birthday,start_date\neli@example.com,06-01,\n');
    await saveCelebrationRule(env.db, WS, 'birthday', BIRTHDAY_RULE, 'U_ADMIN');
    await tick('2027-05-30T12:00:00Z');
    // Every try of the client (the first and its three retries) meets a 503.
    await env.emulator.faults({ method: 'GET', path: 'choice-cards', status: 503, count: 4 });
    const first = await tick('2027-06-01T14:00:00Z');
    expect(first).toMatchObject({ sent: 0, refused: 0, waiting: 1 });
    const [waiting] = await occurrences();
    expect(waiting!.status).toBe('planned');
    expect(await env.emulator.faultsLeft()).toEqual([]);

    // The next pass after the wait sends it.
    expect((await tick('2027-06-01T14:05:00Z')).sent).toBe(0);
    expect((await tick(new Date(new Date('2027-06-01T14:00:00Z').getTime() + RETRY_MS))).sent).toBe(1);
    await eventually(async () => (await sends())[0]?.status === 'placed');
    expect(await orders()).toHaveLength(1);
    expect(adminDms().filter((t) => t.includes('not retried'))).toHaveLength(0);
  });
});

describe('spending limits and balance', () => {
  it('a run over the known daily limit waits (the admin is told which and what next) and goes out once the limit allows it', async () => {
    await importCsv('email,birthday,start_date\neli@example.com,06-01,\nerin@example.com,06-01,\n');
    await saveCelebrationRule(env.db, WS, 'birthday', BIRTHDAY_RULE, 'U_ADMIN');
    await rememberLimits(env.db, WS, { dailyCents: 3000, monthlyCents: 1_000_000 }, 'admin');
    await tick('2027-05-30T12:00:00Z');

    const report = await tick('2027-06-01T16:00:00Z');
    expect(report).toMatchObject({ sent: 1, waiting: 1 });
    await eventually(async () => (await sends())[0]?.status === 'placed');
    expect(await orders()).toHaveLength(1);
    const dm = await env.stack.sim.waitFor(() => adminDms().find((t) => t.includes('has not gone out yet')));
    expect(dm).toMatch(/card for <@U_EMP\d> due on 2027-06-01 has not gone out yet/);
    expect(dm).toContain('daily spending limit');
    expect(dm).toContain('Kudos tries again every 15 minutes until 2027-06-08');

    // An admin enters the higher limit the provider granted: the run goes out at its next try.
    await rememberLimits(env.db, WS, { dailyCents: 10_000, monthlyCents: 1_000_000 }, 'admin');
    expect((await tick(new Date(new Date('2027-06-01T16:00:00Z').getTime() + RETRY_MS))).sent).toBe(1);
    await eventually(async () => (await sends()).every((r) => r.status === 'placed'));
    expect(new Set((await sends()).map((r) => r.recipients[0]!.slackUserId))).toEqual(new Set(['U_EMP1', 'U_EMP2']));
    expect(await orders()).toHaveLength(2);
  });

  it('a card refused when the balance ran out mid-batch follows its kudos, and is sent once after a top-up', async () => {
    await importCsv(
      'email,birthday,start_date\neli@example.com,06-01,\nerin@example.com,06-01,\nomar@example.com,06-01,\n',
    );
    await saveCelebrationRule(env.db, WS, 'birthday', BIRTHDAY_RULE, 'U_ADMIN');
    await tick('2027-05-20T12:00:00Z');
    await env.emulator.setBalance(50);

    // 9:00 in New York, Chicago and Berlin have all passed: three cards of $25 for $50.
    expect((await tick('2027-06-01T16:00:00Z')).sent).toBe(3);
    await eventually(async () => {
      const rows = await sends();
      return (
        rows.every((r) => (r.status === 'placed' || r.status === 'failed') && r.notifiedAt) &&
        rows.filter((r) => r.status === 'failed').length === 1
      );
    });
    const refused = (await sends()).find((r) => r.status === 'failed')!;
    expect(refused.errorCode).toBe('INSUFFICIENT_BALANCE');

    // The next pass: that run is waiting, not "sent"; the admin is told which card and what next.
    await tick('2027-06-01T16:01:00Z');
    const waiting = (await occurrences()).find((o) => o.kudosId === refused.id)!;
    expect(waiting.status).toBe('retrying');
    const dm = await env.stack.sim.waitFor(() => adminDms().find((t) => t.includes('has not gone out yet')));
    expect(dm).toContain(`<@${refused.recipients[0]!.slackUserId}> due on 2027-06-01 has not gone out yet`);
    expect(dm).toContain('Kudos tries again every 15 minutes until 2027-06-08');

    // Not enough money yet: nothing is tried.
    await tick(new Date(new Date('2027-06-01T16:01:00Z').getTime() + RETRY_MS));
    expect(await orders()).toHaveLength(2);

    // A top-up: the next try sends it, once.
    await env.emulator.setBalance(100);
    const after = await tick(new Date(new Date('2027-06-01T16:01:00Z').getTime() + 2 * RETRY_MS));
    expect(after.retried).toBe(1);
    await eventually(async () => (await sends()).every((r) => r.status === 'placed'));
    expect(await orders()).toHaveLength(3);
    expect(await sends()).toHaveLength(3);
    const [followed] = await env.db
      .select()
      .from(automationOccurrences)
      .where(eq(automationOccurrences.kudosId, refused.id));
    expect(followed!.status).toBe('sent');
  });
});
