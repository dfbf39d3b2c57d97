// The celebrations and recurring kudos surface through real signed requests: `/kudos celebrations`,
// its buttons and modals (rule, CSV upload with a report), opt-outs, `/kudos recurring` and its form.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import {
  automationOccurrences,
  celebrationDates,
  celebrationPreferences,
  celebrationRules,
  recurringSeries,
} from '../../../src/db/schema/index.js';
import { eventually, useAppPerTest } from '../../support/app.js';

const env = useAppPerTest({ env: { KUDOS_ADMINS: 'U_ADMIN' }, app: { tuning: { automationsMs: 0 } } });

const select = (value: string) => ({
  type: 'static_select',
  selected_option: { text: { type: 'plain_text', text: value }, value },
});
const searched = (value: string) => ({
  type: 'external_select',
  selected_option: { text: { type: 'plain_text', text: value }, value },
});

async function lastAnswer(userId: string, channel = 'C_GENERAL') {
  return env.stack.sim.waitFor(() =>
    env.stack.sim
      .messages(channel)
      .filter((m) => m.ephemeral && m.visible_to === userId)
      .at(-1),
  );
}

describe('/kudos celebrations (admin)', () => {
  it('uploads dates with a row-by-row report, sets the birthday rule (checked inline) and skips an upcoming one', async () => {
    const { sim } = env.stack;
    await sim.slashCommand('U_ADMIN', 'celebrations', 'C_GENERAL');
    const overview = await lastAnswer('U_ADMIN');
    expect(JSON.stringify(overview.blocks)).toContain('Birthdays*: not set up');

    await sim.clickButton({ channel: 'C_GENERAL', ts: overview.ts }, 'celebration_upload_csv', 'U_ADMIN');
    const csvModal = await sim.waitFor(() => sim.openViews('U_ADMIN').find((v) => v.callback_id === 'celebration_csv'));
    // A file without the header is refused whole, inline.
    await sim.submitView(
      csvModal.id,
      { csv_text: { csv: { type: 'plain_text_input', value: 'eli@example.com,03-15,' } } },
      'U_ADMIN',
    );
    expect(sim.viewErrors(csvModal.id).csv_text).toMatch(/header/);
    const csv =
      'email,birthday,start_date\neli@example.com,12-10,\nnobody@example.com,12-11,\neli@example.com,12-12,\n';
    await sim.submitView(csvModal.id, { csv_text: { csv: { type: 'plain_text_input', value: csv } } }, 'U_ADMIN');
    const report = await sim.waitFor(() =>
      sim.openViews('U_ADMIN').find((v) => v.callback_id === 'celebration_csv_report'),
    );
    const reportText = JSON.stringify(report.blocks);
    expect(reportText).toContain('*1* person imported');
    expect(reportText).toContain('line 3 (nobody@example.com): no Slack user in this workspace has this e-mail');
    expect(reportText).toContain('line 4 (eli@example.com): duplicate of line 2');
    expect(await env.db.select().from(celebrationDates)).toHaveLength(1);

    await sim.clickButton({ channel: 'C_GENERAL', ts: overview.ts }, 'celebration_rule_birthday', 'U_ADMIN');
    const ruleModal = await sim.waitFor(() =>
      sim.openViews('U_ADMIN').find((v) => v.callback_id === 'celebration_rule'),
    );
    // The design is searched as the admin types: any design of a long catalog, not the first 100.
    expect(JSON.stringify(ruleModal.blocks)).toContain('"type":"external_select","action_id":"design"');
    // The workspace's custom profile fields (team.profile.get), to map the one holding birthdays.
    const profileSelect = JSON.stringify(
      ruleModal.blocks.find((b) => (b as { block_id?: string }).block_id === 'rule_profile_field'),
    );
    expect(profileSelect).toContain('"value":"Xf0BIRTHDAY"');
    expect(profileSelect).toContain('Team (text)');
    const found = await sim.loadOptions(ruleModal.id, 'design', 'rule_design', 'birth', 'U_ADMIN');
    expect(((found.body as { options: Array<{ value: string }> }).options ?? []).map((o) => o.value)).toEqual([
      'CC-BIRTHDAY',
    ]);
    const values = (amount: string) => ({
      rule_enabled: { enabled: select('on') },
      rule_amount: { amount: { type: 'number_input', value: amount } },
      rule_design: { design: searched('CC-BIRTHDAY') },
      rule_sender: { sender: { type: 'users_select', selected_user: 'U_MANAGER' } },
      rule_channel: { channel: { type: 'conversations_select', selected_conversation: 'C_KUDOS' } },
      rule_profile_field: { profile_field: select('Xf0BIRTHDAY') },
    });
    await sim.submitView(ruleModal.id, values('100000'), 'U_ADMIN');
    expect(sim.viewErrors(ruleModal.id).rule_amount).toBeTruthy();
    expect(await env.db.select().from(celebrationRules)).toHaveLength(0);
    await sim.submitView(ruleModal.id, values('30'), 'U_ADMIN');
    expect(sim.openViews('U_ADMIN').some((v) => v.id === ruleModal.id)).toBe(false);
    const rules = await env.db.select().from(celebrationRules);
    expect(rules).toMatchObject([
      {
        kind: 'birthday',
        enabled: true,
        amountCents: 3000,
        productId: 'CC-BIRTHDAY',
        senderUserId: 'U_MANAGER',
        channelId: 'C_KUDOS',
        profileFieldId: 'Xf0BIRTHDAY',
      },
    ]);

    // Plan (the app's own clock: today) and show the next 30 days when the birthday is near.
    const soon = new Date(Date.now() + 5 * 86_400_000);
    const md = soon.toISOString().slice(5, 10);
    await env.db.update(celebrationDates).set({ birthday: md });
    await env.db.update(celebrationRules).set({ updatedAt: new Date(Date.now() - 86_400_000) });
    await env.stack.app.automations.tick();
    await sim.slashCommand('U_ADMIN', 'celebrations', 'C_GENERAL');
    const withUpcoming = await sim.waitFor(() =>
      sim
        .messages('C_GENERAL')
        .filter((m) => m.ephemeral && JSON.stringify(m.blocks).includes('celebration_skip'))
        .at(-1),
    );
    const [occ] = await env.db.select().from(automationOccurrences);
    await sim.clickButton({ channel: 'C_GENERAL', ts: withUpcoming.ts }, `celebration_skip:${occ!.id}`, 'U_ADMIN');
    await sim.waitFor(() =>
      sim
        .messages('C_GENERAL')
        .find((m) => m.text.includes('Skipped') || JSON.stringify(m.blocks ?? []).includes('Skipped')),
    );
    const [after] = await env.db.select().from(automationOccurrences).where(eq(automationOccurrences.id, occ!.id));
    expect(after).toMatchObject({ status: 'skipped', skippedBy: 'U_ADMIN' });
  });

  it('imports an uploaded CSV file (file_input, read with files.info); an empty form, a file too large or a bad file is refused inline', async () => {
    const { sim } = env.stack;
    await sim.slashCommand('U_ADMIN', 'celebrations', 'C_GENERAL');
    const overview = await lastAnswer('U_ADMIN');
    await sim.clickButton({ channel: 'C_GENERAL', ts: overview.ts }, 'celebration_upload_csv', 'U_ADMIN');
    const modal = await sim.waitFor(() => sim.openViews('U_ADMIN').find((v) => v.callback_id === 'celebration_csv'));
    expect(JSON.stringify(modal.blocks)).toContain('"type":"file_input"');
    const withFile = (id: string) => ({
      csv_file: { file: { type: 'file_input', files: [{ id, name: 'dates.csv' }] } },
    });

    await sim.submitView(modal.id, {}, 'U_ADMIN');
    expect(sim.viewErrors(modal.id).csv_text).toMatch(/Upload a CSV file or paste/);
    // Over 512 KB: refused whole from files.info's size, nothing imported.
    const big = sim.uploadFile('U_ADMIN', 'big.csv', 'email,birthday,start_date\n' + 'x'.repeat(600 * 1024));
    await sim.submitView(modal.id, withFile(big), 'U_ADMIN');
    expect(sim.viewErrors(modal.id).csv_file).toMatch(/larger than 512 KB/);
    const headerless = sim.uploadFile('U_ADMIN', 'dates.csv', 'eli@example.com,03-15,\n');
    await sim.submitView(modal.id, withFile(headerless), 'U_ADMIN');
    expect(sim.viewErrors(modal.id).csv_file).toMatch(/header/);
    expect(await env.db.select().from(celebrationDates)).toHaveLength(0);

    // 1,000 rows of which the known people are imported and every other row reported.
    const rows = [
      'email,birthday,start_date',
      'eli@example.com,12-10,2020-01-06',
      'erin@example.com,1990-02-30,',
      ...Array.from({ length: 998 }, (_, i) => `person${i}@example.com,01-01,`),
    ];
    const good = sim.uploadFile('U_ADMIN', 'dates.csv', rows.join('\n') + '\n');
    await sim.submitView(modal.id, withFile(good), 'U_ADMIN');
    const report = await sim.waitFor(() =>
      sim.openViews('U_ADMIN').find((v) => v.callback_id === 'celebration_csv_report'),
    );
    const text = JSON.stringify(report.blocks);
    expect(text).toContain('*1* person imported');
    expect(text).toContain('*999* rows not imported');
    expect(text).toContain('line 3 (erin@example.com)');
    expect(await env.db.select().from(celebrationDates)).toMatchObject([
      { slackUserId: 'U_EMP1', birthday: '12-10', startDate: '2020-01-06', source: 'csv' },
    ]);
    expect(sim.calls.filter((c) => c.method === 'files.info')).toHaveLength(3);
  });

  it(
    "Slack's rate limit on reading the workspace's people: the admin is told to press Import again in N s, nothing is imported, and a later press imports once",
    { timeout: 90_000 },
    async () => {
      const { sim } = env.stack;
      await sim.slashCommand('U_ADMIN', 'celebrations', 'C_GENERAL');
      const overview = await lastAnswer('U_ADMIN');
      await sim.clickButton({ channel: 'C_GENERAL', ts: overview.ts }, 'celebration_upload_csv', 'U_ADMIN');
      const modal = await sim.waitFor(() => sim.openViews('U_ADMIN').find((v) => v.callback_id === 'celebration_csv'));
      const pasted = {
        csv_text: { csv: { type: 'plain_text_input', value: 'email,birthday,start_date\neli@example.com,12-10,\n' } },
      };
      // Slack answers users.list with a 429 and a 10 s Retry-After (the app's share of Tier 2 used up elsewhere).
      sim.rateLimits.storm({ count: 1, retryAfterSeconds: 10, methods: ['users.list'] });

      await sim.submitView(modal.id, pasted, 'U_ADMIN');
      expect(sim.viewErrors(modal.id).csv_text).toMatch(
        /Slack is busy right now .*Nothing was imported\. Press Import again in \d+ s\./,
      );
      expect(await env.db.select().from(celebrationDates)).toEqual([]);

      // The read goes on after the 429, at Slack's Retry-After, whoever waits; pressed again once it has
      // reached Slack, as an admin told to come back would: imported. Only Slack giving up on a press
      // (the app's answer later than 3 s on a loaded machine) is pressed again.
      await eventually(() => sim.calls.some((c) => c.method === 'users.list' && c.ok), 60_000);
      for (let press = 1; ; press++) {
        await sim.submitView(modal.id, pasted, 'U_ADMIN');
        if (sim.openViews('U_ADMIN').some((v) => v.callback_id === 'celebration_csv_report')) break;
        expect(sim.viewErrors(modal.id).csv_text).toMatch(/trouble connecting/);
        expect(press).toBeLessThan(5);
      }
      expect(
        JSON.stringify(sim.openViews('U_ADMIN').find((v) => v.callback_id === 'celebration_csv_report')?.blocks),
      ).toContain('*1* person imported');
      expect(await env.db.select().from(celebrationDates)).toMatchObject([
        { slackUserId: 'U_EMP1', birthday: '12-10', source: 'csv' },
      ]);
      // The people were read once after the 429, at Slack's pace: no 429 but the storm's own.
      expect(sim.calls.filter((c) => c.method === 'users.list' && c.ok)).toHaveLength(1);
      expect(sim.rateLimits.counts().total).toBe(1);
    },
  );

  it('someone who is not an admin sees only their own choices, and opts out from the command', async () => {
    const { sim } = env.stack;
    await sim.slashCommand('U_EMP1', 'celebrations optout', 'C_GENERAL');
    const answer = await lastAnswer('U_EMP1');
    expect(JSON.stringify(answer.blocks)).toContain('You are opted out');
    expect(JSON.stringify(answer.blocks)).not.toContain('celebration_rule_birthday');
    expect(await env.db.select().from(celebrationPreferences)).toMatchObject([{ slackUserId: 'U_EMP1', optOut: true }]);
    // The button opts back in.
    await sim.clickButton({ channel: 'C_GENERAL', ts: answer.ts }, 'celebration_opt_out:in', 'U_EMP1');
    await sim.waitFor(() =>
      sim.messages('C_GENERAL').find((m) => JSON.stringify(m.blocks ?? []).includes('opted back in')),
    );
    expect((await env.db.select().from(celebrationPreferences))[0]!.optOut).toBe(false);
  });
});

describe('celebrations on App Home', () => {
  const homeText = (userId: string) => JSON.stringify(env.stack.sim.homeView(userId)?.blocks ?? []);
  async function openHome(userId: string, expected: string) {
    await env.stack.sim.sendEvent({ type: 'app_home_opened', user: userId, channel: `D_${userId}`, tab: 'home' });
    return env.stack.sim.waitFor(() =>
      homeText(userId).includes(expected) ? env.stack.sim.homeView(userId) : undefined,
    );
  }

  it('anyone opts out (and of public posts only) from Home; the admin sees the next 30 days there and skips one', async () => {
    const { sim } = env.stack;
    // A person: their own choices only, no rules and no upcoming list.
    const home = await openHome('U_EMP1', 'Your celebrations');
    expect(homeText('U_EMP1')).not.toContain('celebration_rule_birthday');
    await sim.clickButton({ viewId: home.id }, 'celebration_no_public_post:private', 'U_EMP1');
    await sim.waitFor(() => homeText('U_EMP1').includes('without a public post') || undefined);
    expect(await env.db.select().from(celebrationPreferences)).toMatchObject([
      { slackUserId: 'U_EMP1', optOut: false, noPublicPost: true },
    ]);
    await sim.clickButton({ viewId: home.id }, 'celebration_opt_out:out', 'U_EMP1');
    await sim.waitFor(() => homeText('U_EMP1').includes('You are opted out of celebrations') || undefined);
    expect(homeText('U_EMP1')).toContain('Opt back in');
    expect((await env.db.select().from(celebrationPreferences))[0]!.optOut).toBe(true);

    // The admin: the rules and one upcoming birthday with Skip.
    const soon = new Date(Date.now() + 3 * 86_400_000);
    await env.db.insert(celebrationDates).values({
      teamId: 'T0KUDOS',
      slackUserId: 'U_EMP2',
      email: 'erin@example.com',
      birthday: soon.toISOString().slice(5, 10),
      source: 'csv',
    });
    await env.db.insert(celebrationRules).values({
      teamId: 'T0KUDOS',
      kind: 'birthday',
      enabled: true,
      amountCents: 2500,
      productId: 'CC-BIRTHDAY',
      messageTemplate: 'Happy birthday, {name}!',
      senderUserId: 'U_MANAGER',
      updatedAt: new Date(Date.now() - 86_400_000),
    });
    await env.stack.app.automations.tick();
    const [occ] = await env.db.select().from(automationOccurrences);
    const adminHome = await openHome('U_ADMIN', `celebration_skip:${occ!.id}`);
    expect(homeText('U_ADMIN')).toContain('Celebrations (admin)');
    expect(homeText('U_ADMIN')).toContain('<@U_EMP2> · birthday');
    await sim.clickButton({ viewId: adminHome.id }, `celebration_skip:${occ!.id}`, 'U_ADMIN', occ!.id);
    await sim.waitFor(() => homeText('U_ADMIN').includes('Skipped: that celebration will not be sent') || undefined);
    expect(homeText('U_ADMIN')).toContain('skipped by <@U_ADMIN>');
    const [after] = await env.db.select().from(automationOccurrences).where(eq(automationOccurrences.id, occ!.id));
    expect(after).toMatchObject({ status: 'skipped', skippedBy: 'U_ADMIN' });
  });
});

describe('/kudos recurring', () => {
  it('starts a weekly series from the form (checked inline), lists it and pauses it', async () => {
    const { sim } = env.stack;
    await sim.slashCommand('U_MANAGER', 'recurring new', 'C_GENERAL');
    const modal = await sim.waitFor(() => sim.openViews('U_MANAGER').find((v) => v.callback_id === 'recurring_new'));
    const values = (users: string[]) => ({
      rec_recipients: { recipients: { type: 'multi_users_select', selected_users: users } },
      rec_design: { design: searched('CC-THANK-YOU') },
      rec_amount: { amount: { type: 'number_input', value: '15' } },
      rec_cadence: { cadence: select('weekly') },
      rec_weekday: { weekday: select('5') },
      rec_time: { time: { type: 'timepicker', selected_time: '16:00' } },
    });
    await sim.submitView(modal.id, values(['U_MANAGER']), 'U_MANAGER');
    expect(sim.viewErrors(modal.id).rec_recipients).toMatch(/yourself/);
    await sim.submitView(modal.id, values(['U_EMP1', 'U_EMP2']), 'U_MANAGER');
    const rows = await env.db.select().from(recurringSeries);
    expect(rows).toMatchObject([
      {
        senderUserId: 'U_MANAGER',
        recipientUserIds: ['U_EMP1', 'U_EMP2'],
        amountCents: 1500,
        cadence: 'weekly',
        weekday: 5,
        timeOfDay: '16:00',
        timezone: 'America/New_York',
        status: 'active',
      },
    ]);

    await sim.slashCommand('U_MANAGER', 'recurring', 'C_GENERAL');
    const list = await lastAnswer('U_MANAGER');
    expect(JSON.stringify(list.blocks)).toContain('every Friday at 16:00 America/New_York');
    await sim.clickButton({ channel: 'C_GENERAL', ts: list.ts }, `recurring_pause:${rows[0]!.id}`, 'U_MANAGER');
    await sim.waitFor(() =>
      sim.messages('C_GENERAL').find((m) => JSON.stringify(m.blocks ?? []).includes('Series paused')),
    );
    expect((await env.db.select().from(recurringSeries))[0]!.status).toBe('paused');
  });
});
