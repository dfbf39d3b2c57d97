// Celebrations and recurring kudos through the real app (database, worker, Rewards emulator, Slack
// simulator), the clock driven across days, time zones and a leap year. Each pass is run with an
// explicit instant (tick(now)); the emulator's clock moves along with it.
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { auditEvents, automationOccurrences, celebrationDates, kudos } from '../../../src/db/schema/index.js';
import {
  createSeries,
  saveCelebrationRule,
  setCelebrationPreference,
  setSeriesStatus,
  skipOccurrence,
  upcomingCelebrations,
} from '../../../src/domain/automations/automation-runner.js';
import { eventually, useAppPerTest } from '../../support/app.js';
import { BIRTHDAY_RULE, CELEBRATING_WORKSPACE, importDatesCsv } from '../../support/celebrations.js';

const env = useAppPerTest({ env: { KUDOS_NOTIFY_CHANNEL: 'C_GENERAL' }, app: { tuning: { automationsMs: 0 } } });
const WS = CELEBRATING_WORKSPACE;
const importCsv = (text: string) => importDatesCsv(env, text);

const tick = (iso: string) => env.stack.app.automations.tick(new Date(iso));
const sends = () => env.db.select().from(kudos);
const orders = async () => (await env.stack.app.rewards.orders.list({ pageSize: 100 })).data;

describe('birthdays', () => {
  it('go out at 9:00 in each person’s own time zone, with the rule’s sender, amount, message and channel', async () => {
    await importCsv('email,birthday,start_date\ntaro@example.com,03-15,\neli@example.com,1990-03-15,\n');
    await saveCelebrationRule(env.db, WS, 'birthday', BIRTHDAY_RULE, 'U_ADMIN');

    // 08:59 in Tokyo on the day: nothing yet.
    expect((await tick('2027-03-14T23:59:00Z')).sent).toBe(0);
    // 09:00 in Tokyo (00:00 UTC): Taro's card, not yet Eli's (Chicago is still on the 14th).
    expect((await tick('2027-03-15T00:00:00Z')).sent).toBe(1);
    let rows = await sends();
    expect(rows.map((r) => r.recipients[0]!.slackUserId)).toEqual(['U_TOKYO']);
    // 09:00 in Chicago (CDT, UTC-5) is 14:00 UTC.
    expect((await tick('2027-03-15T13:59:00Z')).sent).toBe(0);
    expect((await tick('2027-03-15T14:00:00Z')).sent).toBe(1);
    rows = await sends();
    expect(rows).toHaveLength(2);
    const eli = rows.find((r) => r.recipients[0]!.slackUserId === 'U_EMP1')!;
    expect(eli).toMatchObject({
      senderUserId: 'U_ADMIN',
      amountCents: 2500,
      productId: 'CC-BIRTHDAY',
      message: 'Happy birthday, Eli!',
      announceTo: 'C_KUDOS',
    });
    await eventually(async () => (await sends()).every((r) => r.status === 'placed'));
    expect(await orders()).toHaveLength(2);
    // Announced in the rule's channel; the audit trail says a celebration sent it.
    await env.stack.sim.waitFor(() =>
      env.stack.sim.messages('C_KUDOS').find((m) => JSON.stringify(m.blocks).includes('Happy birthday, Eli!')),
    );
    const audit = await env.db.select().from(auditEvents).where(eq(auditEvents.action, 'kudos.automated'));
    expect(audit.map((a) => a.details)).toContainEqual(
      expect.objectContaining({
        kind: 'celebration',
        celebration: 'birthday',
        occurrenceKey: 'birthday:U_EMP1:2027-03-15',
      }),
    );
    // Further passes the same day send nothing more.
    expect((await tick('2027-03-15T20:00:00Z')).sent).toBe(0);
    expect(await sends()).toHaveLength(2);
  });

  it('February 29 falls on February 28 in other years, and on the 29th in a leap year; anniversaries count years', async () => {
    await importCsv('email,birthday,start_date\nomar@example.com,1992-02-29,\nerin@example.com,,2024-02-29\n');
    await saveCelebrationRule(env.db, WS, 'birthday', { ...BIRTHDAY_RULE, channelId: null }, 'U_ADMIN');
    await saveCelebrationRule(
      env.db,
      WS,
      'anniversary',
      {
        ...BIRTHDAY_RULE,
        productId: 'CC-CONGRATS',
        messageTemplate: '{years} years with us, {name}!',
        channelId: null,
      },
      'U_ADMIN',
    );

    // 2027 is not a leap year: both on Feb 28 at 9:00 local (Berlin 08:00 UTC, New York 14:00 UTC).
    await tick('2027-02-27T12:00:00Z');
    expect((await tick('2027-02-28T08:00:00Z')).sent).toBe(1);
    expect((await tick('2027-02-28T14:00:00Z')).sent).toBe(1);
    expect((await tick('2027-03-01T14:00:00Z')).sent).toBe(0);
    const y2027 = await sends();
    expect(y2027.map((r) => r.message).sort()).toEqual(['3 years with us, Erin!', 'Happy birthday, Omar!']);

    // 2028 is: nothing on Feb 28, both on Feb 29.
    expect((await tick('2028-02-28T20:00:00Z')).sent).toBe(0);
    expect((await tick('2028-02-29T14:00:00Z')).sent).toBe(2);
    const keys = (await env.db.select().from(automationOccurrences)).map((o) => o.key).sort();
    expect(keys).toEqual([
      'anniversary:U_EMP2:2027-02-28',
      'anniversary:U_EMP2:2028-02-29',
      'birthday:U_EMP3:2027-02-28',
      'birthday:U_EMP3:2028-02-29',
    ]);
    expect((await sends()).map((r) => r.message)).toContain('4 years with us, Erin!');
  });

  it('a person who opted out gets nothing; one who opted out of public posts gets the card without an announcement', async () => {
    await importCsv('email,birthday,start_date\neli@example.com,04-02,\nerin@example.com,04-02,\n');
    await saveCelebrationRule(env.db, WS, 'birthday', BIRTHDAY_RULE, 'U_ADMIN');
    await setCelebrationPreference(env.db, WS, 'U_EMP1', { optOut: true });
    await setCelebrationPreference(env.db, WS, 'U_EMP2', { noPublicPost: true });
    const report = await tick('2027-04-02T16:00:00Z');
    expect(report).toMatchObject({ sent: 1, skipped: 1 });
    const [row] = await sends();
    expect(row!.recipients[0]!.slackUserId).toBe('U_EMP2');
    expect(row!.announceTo).toBe('none');
    await eventually(async () => (await sends())[0]!.notifiedAt);
    expect(env.stack.sim.messages('C_KUDOS')).toHaveLength(0);
    expect(env.stack.sim.messages('C_GENERAL').filter((m) => m.user === 'U_KUDOSBOT')).toHaveLength(0);
  });

  it('the admin sees the next 30 days and can skip one; a skipped celebration is not sent', async () => {
    await importCsv(
      'email,birthday,start_date\neli@example.com,05-10,\nerin@example.com,05-20,\nomar@example.com,07-01,\n',
    );
    await saveCelebrationRule(env.db, WS, 'birthday', BIRTHDAY_RULE, 'U_ADMIN');
    await tick('2027-05-01T12:00:00Z');
    const upcoming = await upcomingCelebrations(env.db, WS, new Date('2027-05-01T12:00:00Z'));
    expect(upcoming.map((o) => o.subjectUserId)).toEqual(['U_EMP1', 'U_EMP2']);
    expect(await skipOccurrence(env.db, WS, upcoming[0]!.id, 'U_ADMIN')).toBe(true);
    // Skipping again, or from another workspace, changes nothing.
    expect(await skipOccurrence(env.db, WS, upcoming[0]!.id, 'U_ADMIN')).toBe(false);
    expect(await skipOccurrence(env.db, { teamId: 'T_OTHER', enterpriseId: null }, upcoming[1]!.id, 'U_ADMIN')).toBe(
      false,
    );
    expect((await tick('2027-05-21T12:00:00Z')).sent).toBe(1);
    expect((await sends()).map((r) => r.recipients[0]!.slackUserId)).toEqual(['U_EMP2']);
  });

  it('a missed 9:00 (every instance down) is sent late, once, by the next instance', async () => {
    await importCsv('email,birthday,start_date\neli@example.com,06-01,\n');
    await saveCelebrationRule(env.db, WS, 'birthday', BIRTHDAY_RULE, 'U_ADMIN');
    await tick('2027-05-30T12:00:00Z');
    await env.stack.app.close();
    const restarted = await env.stack.startAnotherApp({ tuning: { automationsMs: 0 } });
    env.stack.sim.setAppUrl(restarted.url);
    // 9:00 in Chicago was 14:00 UTC; the app comes back at 18:30.
    expect((await restarted.automations.tick(new Date('2027-06-01T18:30:00Z'))).sent).toBe(1);
    expect((await restarted.automations.tick(new Date('2027-06-01T18:31:00Z'))).sent).toBe(0);
    expect(await sends()).toHaveLength(1);
    await eventually(async () => (await sends())[0]!.status === 'placed');
    expect((await restarted.rewards.orders.list({ pageSize: 10 })).data).toHaveLength(1);
  });

  it.runIf(Boolean(process.env.DATABASE_URL))(
    'two instances passing at the same moment send each celebration exactly once (PostgreSQL)',
    async () => {
      await importCsv(
        'email,birthday,start_date\neli@example.com,06-01,\nerin@example.com,06-01,\nomar@example.com,06-01,\nsofia@example.com,06-01,\nmaya@example.com,06-01,\n',
      );
      await saveCelebrationRule(env.db, WS, 'birthday', { ...BIRTHDAY_RULE, senderUserId: 'U_APPROVER' }, 'U_ADMIN');
      const other = await env.stack.startAnotherApp({ tuning: { automationsMs: 0 } });
      const at = new Date('2027-06-01T23:00:00Z');
      // Both plan and claim at once, several times over (as their timers would).
      const reports = await Promise.all(
        [0, 1, 2].flatMap(() => [env.stack.app.automations.tick(at), other.automations.tick(at)]),
      );
      expect(reports.reduce((n, r) => n + r.sent, 0)).toBe(5);
      const rows = await sends();
      expect(rows).toHaveLength(5);
      expect(new Set(rows.map((r) => r.recipients[0]!.slackUserId)).size).toBe(5);
      await eventually(async () => (await sends()).every((r) => r.status === 'placed'));
      expect(await orders()).toHaveLength(5);
    },
  );

  it('a run missed by more than a week is recorded as missed, not sent', async () => {
    await importCsv('email,birthday,start_date\neli@example.com,06-01,\n');
    await saveCelebrationRule(env.db, WS, 'birthday', BIRTHDAY_RULE, 'U_ADMIN');
    await tick('2027-05-30T12:00:00Z');
    const report = await tick('2027-06-09T12:00:00Z');
    expect(report).toMatchObject({ sent: 0, missed: 1 });
    expect(await sends()).toHaveLength(0);
  });

  it('an amount outside the design’s range is refused with a reason and nothing is sent', async () => {
    await importCsv('email,birthday,start_date\neli@example.com,06-01,\n');
    await saveCelebrationRule(env.db, WS, 'birthday', { ...BIRTHDAY_RULE, amountCents: 10_000_000 }, 'U_ADMIN');
    await tick('2027-06-01T15:00:00Z');
    const [occ] = await env.db.select().from(automationOccurrences);
    expect(occ).toMatchObject({ status: 'refused' });
    expect(occ!.error).toMatch(/amount/);
    expect(await sends()).toHaveLength(0);
    // The admin who set the rule up is told by DM, once, with the reason.
    const dm = await env.stack.sim.waitFor(() =>
      env.stack.sim.messages('D_U_ADMIN').find((m) => m.text.includes('was not sent')),
    );
    expect(dm.text).toContain('The birthday card for <@U_EMP1> due on 2027-06-01 was not sent');
    expect(dm.text).toMatch(/amount/);
    // A second instance dispatching the same run again (its lease ran out) tells no one twice.
    await env.db.update(automationOccurrences).set({ status: 'planned' });
    await tick('2027-06-01T15:30:00Z');
    expect(env.stack.sim.messages('D_U_ADMIN').filter((m) => m.text.includes('was not sent'))).toHaveLength(1);
  });
});

describe('dates from Slack custom profile fields', () => {
  it('an admin maps a field per rule: its dates are read from profiles and celebrated, over a CSV row; a value that is no date is left out', async () => {
    // Sofia's profile (simulator seed): Birthday 1991-07-04, Start date 2022-09-01. Her CSV row says otherwise: the mapped field wins.
    await importCsv('email,birthday,start_date\nsofia@example.com,01-20,2020-01-01\n');
    const eli = env.stack.sim.workspace.users.find((u) => u.id === 'U_EMP1')!;
    eli.profileFields = { Xf0BIRTHDAY: 'the fourth of July' };
    await saveCelebrationRule(env.db, WS, 'birthday', { ...BIRTHDAY_RULE, profileFieldId: 'Xf0BIRTHDAY' }, 'U_ADMIN');
    await saveCelebrationRule(
      env.db,
      WS,
      'anniversary',
      {
        ...BIRTHDAY_RULE,
        productId: 'CC-CONGRATS',
        messageTemplate: '{years} years, {name}!',
        profileFieldId: 'Xf0STARTDATE',
      },
      'U_ADMIN',
    );

    await tick('2027-07-01T12:00:00Z');
    const dates = await env.db.select().from(celebrationDates);
    expect(
      dates.map((d) => ({ user: d.slackUserId, birthday: d.birthday, startDate: d.startDate, source: d.source })),
    ).toEqual([{ user: 'U_EMP4', birthday: '07-04', startDate: '2022-09-01', source: 'profile' }]);
    // 9:00 in Denver (MDT, UTC-6) on July 4th.
    expect((await tick('2027-07-04T14:59:00Z')).sent).toBe(0);
    expect((await tick('2027-07-04T15:00:00Z')).sent).toBe(1);
    expect((await tick('2027-09-01T15:00:00Z')).sent).toBe(1);
    expect((await sends()).map((r) => [r.recipients[0]!.slackUserId, r.message])).toEqual([
      ['U_EMP4', 'Happy birthday, Sofia!'],
      ['U_EMP4', '5 years, Sofia!'],
    ]);
  });
});

describe('the CSV import', () => {
  it('maps e-mails to Slack users and reports every rejected row with its line and reason', async () => {
    const report = await importCsv(
      [
        'email,birthday,start_date',
        'eli@example.com,1990-03-15,2020-01-06',
        'nobody@example.com,03-15,',
        'greg@example.com,03-15,',
        'ELI@example.com,04-01,',
        'erin@example.com,1990-02-30,',
        'not-an-email,03-15,',
        'omar@example.com,,',
        'sofia@example.com,15/03/1990,',
        'taro@example.com,,2099-01-01',
      ].join('\n'),
    );
    expect(report.imported).toBe(1);
    expect(report.rejected.map((r) => [r.line, r.reason])).toEqual([
      [3, 'no Slack user in this workspace has this e-mail'],
      [4, 'this person is deactivated in Slack'],
      [5, 'duplicate of line 2'],
      [6, 'birthday "1990-02-30" is not a date'],
      [7, '"not-an-email" is not an e-mail address'],
      [8, 'no birthday and no start_date'],
      [9, 'birthday "15/03/1990" is not YYYY-MM-DD or MM-DD'],
      [10, 'start_date "2099-01-01" is in the future'],
    ]);
  });
});

describe('recurring kudos', () => {
  async function weeklySeries(overrides: Partial<Parameters<typeof createSeries>[1]> = {}) {
    return createSeries(env.db, {
      ...WS,
      senderUserId: 'U_MANAGER',
      recipientUserIds: ['U_EMP1', 'U_EMP2'],
      productId: 'CC-THANK-YOU',
      amountCents: 1000,
      message: 'Thanks for the week!',
      cadence: 'weekly',
      weekday: 5,
      timeOfDay: '16:00',
      timezone: 'America/New_York',
      startsAt: new Date('2027-01-01T00:00:00Z'),
      ...overrides,
    });
  }

  it('a run refused (a recipient has left the company) sends nothing and tells the series’ sender by DM', async () => {
    await weeklySeries({ recipientUserIds: ['U_EMP1', 'U_GONE'] });
    expect(await tick('2027-01-08T21:00:00Z')).toMatchObject({ sent: 0, refused: 1 });
    expect(await sends()).toHaveLength(0);
    const dm = await env.stack.sim.waitFor(() =>
      env.stack.sim.messages('D_U_MANAGER').find((m) => m.text.includes('was not sent')),
    );
    expect(dm.text).toContain('Your recurring kudos to <@U_EMP1>, <@U_GONE> due on 2027-01-08 was not sent');
    expect(dm.text).toContain('recurring');
  });

  it('weekly: one ordinary send per Friday 16:00 in the sender’s zone, each with its own idempotency key', async () => {
    const series = await weeklySeries();
    // Fri 2027-01-08 16:00 EST = 21:00 UTC.
    expect((await tick('2027-01-08T20:59:00Z')).sent).toBe(0);
    expect((await tick('2027-01-08T21:00:00Z')).sent).toBe(1);
    expect((await tick('2027-01-15T21:00:00Z')).sent).toBe(1);
    const rows = await sends();
    expect(rows).toHaveLength(2);
    expect(new Set(rows.map((r) => r.idempotencyKey)).size).toBe(2);
    expect(rows.map((r) => r.sourceViewId).sort()).toEqual([
      `auto:series:${series.id}:2027-01-08`,
      `auto:series:${series.id}:2027-01-15`,
    ]);
    expect(rows.every((r) => r.totalCents === 2000 && r.senderUserId === 'U_MANAGER')).toBe(true);
    await eventually(async () => (await orders()).length === 2);
  });

  it('one occurrence can be skipped; a paused series sends nothing until resumed; a deleted one never again', async () => {
    const series = await weeklySeries();
    await tick('2027-01-05T12:00:00Z');
    const planned = await env.db
      .select()
      .from(automationOccurrences)
      .where(eq(automationOccurrences.seriesId, series.id));
    const first = planned.find((o) => o.localDate === '2027-01-08')!;
    expect(await skipOccurrence(env.db, WS, first.id, 'U_MANAGER')).toBe(true);
    expect((await tick('2027-01-08T21:00:00Z')).sent).toBe(0);

    // Only the sender (or an admin) pauses it.
    expect(
      await setSeriesStatus(
        env.db,
        WS,
        series.id,
        'paused',
        { userId: 'U_EMP3', isAdmin: false },
        new Date('2027-01-09T00:00:00Z'),
      ),
    ).toBeUndefined();
    expect(
      await setSeriesStatus(
        env.db,
        WS,
        series.id,
        'paused',
        { userId: 'U_MANAGER', isAdmin: false },
        new Date('2027-01-09T00:00:00Z'),
      ),
    ).toBeDefined();
    expect((await tick('2027-01-15T21:00:00Z')).sent).toBe(0);
    expect((await tick('2027-01-22T21:00:00Z')).sent).toBe(0);

    await setSeriesStatus(
      env.db,
      WS,
      series.id,
      'active',
      { userId: 'U_MANAGER', isAdmin: false },
      new Date('2027-01-23T00:00:00Z'),
    );
    expect((await tick('2027-01-29T21:00:00Z')).sent).toBe(1);
    await setSeriesStatus(
      env.db,
      WS,
      series.id,
      'deleted',
      { userId: 'U_ADMIN', isAdmin: true },
      new Date('2027-01-30T00:00:00Z'),
    );
    expect((await tick('2027-02-05T21:00:00Z')).sent).toBe(0);
    expect((await tick('2027-02-12T21:00:00Z')).sent).toBe(0);
    const rows = await sends();
    expect(rows.map((r) => r.sourceViewId)).toEqual([`auto:series:${series.id}:2027-01-29`]);
  });

  it('monthly on the 31st uses the last day of shorter months; last working day skips weekends', async () => {
    const monthly = await weeklySeries({
      cadence: 'monthly_day',
      weekday: null,
      dayOfMonth: 31,
      recipientUserIds: ['U_EMP1'],
    });
    const lastWorking = await weeklySeries({
      cadence: 'last_working_day',
      weekday: null,
      recipientUserIds: ['U_EMP2'],
      timezone: 'Asia/Tokyo',
      timeOfDay: '10:00',
    });
    await tick('2027-01-20T00:00:00Z');
    await tick('2027-02-20T00:00:00Z');
    const dates = async (id: string) =>
      (
        await env.db
          .select()
          .from(automationOccurrences)
          .where(and(eq(automationOccurrences.seriesId, id)))
      )
        .map((o) => o.localDate)
        .sort();
    // Jan 31 2027 is a Sunday: the last working day is Friday the 29th; Feb 2027 has 28 days (a Sunday).
    expect(await dates(monthly.id)).toEqual(['2027-01-31', '2027-02-28']);
    expect(await dates(lastWorking.id)).toEqual(['2027-01-29', '2027-02-26']);
  });

  it('an automated send above the approval threshold waits for approval like any other', async () => {
    await weeklySeries({ amountCents: 10_000, recipientUserIds: ['U_EMP1', 'U_EMP2', 'U_EMP3'] });
    expect((await tick('2027-01-08T21:00:00Z')).sent).toBe(1);
    const [row] = await sends();
    expect(row!.status).toBe('awaiting_approval');
    expect(await orders()).toHaveLength(0);
  });
});
