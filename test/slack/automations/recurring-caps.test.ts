// Recurring series under load, through the real app with signed requests: a person's and a
// workspace's series are capped (settings an admin edits in /kudos settings; the form says so inline
// at the cap), a form Slack sends again (or a second press) saves one series, a burst of submissions
// is answered 200 every time with the caps holding exactly, a save the database holds past Slack's
// 3 s answers "saving" and then says it is saved, and /kudos recurring pages a long list.
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { automationOccurrences, recurringSeries } from '../../../src/db/schema/index.js';
import { createSeries } from '../../../src/domain/automations/automation-runner.js';
import { postSignedPayload, useAppPerTest, viewSubmissionPayload } from '../../support/app.js';

const e2e = useAppPerTest({ env: { KUDOS_ADMINS: 'U_ADMIN' }, app: { tuning: { automationsMs: 0 } } });

const select = (value: string) => ({
  type: 'static_select',
  selected_option: { text: { type: 'plain_text', text: value }, value },
});
const searched = (value: string) => ({
  type: 'external_select',
  selected_option: { text: { type: 'plain_text', text: value }, value },
});
const formValues = (users = ['U_EMP1']) => ({
  rec_recipients: { recipients: { type: 'multi_users_select', selected_users: users } },
  rec_design: { design: searched('CC-THANK-YOU') },
  rec_amount: { amount: { type: 'number_input', value: '15' } },
  rec_cadence: { cadence: select('weekly') },
  rec_weekday: { weekday: select('5') },
  rec_time: { time: { type: 'timepicker', selected_time: '16:00' } },
});

/** The recurring form submitted by `userId` from view `viewId`, posted as Slack posts it; Slack's answer. */
async function submitForm(userId: string, viewId: string) {
  const answer = await postSignedPayload(
    e2e.stack.app.url,
    viewSubmissionPayload(
      { id: viewId, callback_id: 'recurring_new', private_metadata: '', blocks: [] },
      formValues(),
      userId,
    ),
  );
  return {
    status: answer.status,
    body:
      answer.text === ''
        ? undefined
        : (JSON.parse(answer.text) as { response_action?: string; errors?: Record<string, string> }),
  };
}

const seriesOf = async (userId?: string) =>
  (await e2e.db.select().from(recurringSeries)).filter((s) => !userId || s.senderUserId === userId);

async function lastAnswer(userId: string) {
  return e2e.stack.sim.waitFor(() =>
    e2e.stack.sim
      .messages('C_GENERAL')
      .filter((m) => m.ephemeral && m.visible_to === userId)
      .at(-1),
  );
}

describe('recurring series: caps', () => {
  it('an admin sets the caps in /kudos settings; the form says so inline at each cap and saves nothing', async () => {
    const { sim } = e2e.stack;
    await sim.slashCommand('U_ADMIN', 'settings', 'C_GENERAL');
    const settings = await sim.waitFor(() => sim.openViews('U_ADMIN').find((v) => v.callback_id === 'kudos_settings'));
    const initial = (block: string) =>
      (settings.blocks as Array<{ block_id?: string; element?: { initial_value?: string } }>).find(
        (b) => b.block_id === block,
      )?.element?.initial_value;
    expect([initial('settings_series_per_person'), initial('settings_series_per_workspace')]).toEqual(['20', '500']);
    await sim.submitView(
      settings.id,
      { settings_series_per_person: { series_per_person: { type: 'number_input', value: '0' } } },
      'U_ADMIN',
    );
    expect(sim.viewErrors(settings.id).settings_series_per_person).toMatch(/whole number from 1/);
    await sim.submitView(
      settings.id,
      {
        settings_series_per_person: { series_per_person: { type: 'number_input', value: '2' } },
        settings_series_per_workspace: { series_per_workspace: { type: 'number_input', value: '3' } },
      },
      'U_ADMIN',
    );
    await sim.waitFor(() =>
      sim.messages('U_ADMIN').find((m) => JSON.stringify(m.blocks ?? []).includes('recurring kudos per person')),
    );

    for (const view of ['V_CAP_1', 'V_CAP_2'])
      expect(await submitForm('U_MANAGER', view)).toEqual({ status: 200, body: undefined });
    const third = await submitForm('U_MANAGER', 'V_CAP_3');
    expect(third.body?.errors?.rec_recipients).toMatch(
      /You have 2 recurring kudos already, the most one person may have.*Nothing was saved/,
    );
    expect(await seriesOf('U_MANAGER')).toHaveLength(2);

    expect(await submitForm('U_EMP2', 'V_CAP_4')).toEqual({ status: 200, body: undefined });
    const over = await submitForm('U_EMP3', 'V_CAP_5');
    expect(over.body?.errors?.rec_recipients).toMatch(/This workspace has 3 recurring kudos already/);
    expect(await seriesOf()).toHaveLength(3);
  });

  it('a form sent again (Slack, or a second press) saves one series', async () => {
    const answers = await Promise.all([submitForm('U_MANAGER', 'V_TWICE'), submitForm('U_MANAGER', 'V_TWICE')]);
    expect(answers).toEqual([
      { status: 200, body: undefined },
      { status: 200, body: undefined },
    ]);
    expect(await submitForm('U_MANAGER', 'V_TWICE')).toEqual({ status: 200, body: undefined });
    const series = await seriesOf('U_MANAGER');
    expect(series).toHaveLength(1);
    expect(series[0]!.sourceViewId).toBe('V_TWICE');
    // Its runs are planned after the answer, by the request's own work (closing the app waits for it).
    await e2e.stack.close();
    const runs = await e2e.db.select().from(automationOccurrences);
    expect(runs.length).toBeGreaterThanOrEqual(4);
    expect(runs.every((r) => r.seriesId === series[0]!.id && r.status === 'planned')).toBe(true);
  });

  it('a burst of 300 submissions by one person: every one answered 200, the cap holds exactly', async () => {
    // The first press reads the sender's time zone from Slack; the burst finds it read.
    expect(await submitForm('U_MANAGER', 'V_BURST_FIRST')).toEqual({ status: 200, body: undefined });
    const answers = await Promise.all(Array.from({ length: 299 }, (_, i) => submitForm('U_MANAGER', `V_BURST_${i}`)));
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    for (const a of answers) {
      // Saved (the modal closes), at the cap (inline), or still saving when the database was slow.
      if (a.body === undefined) continue;
      if (a.body.response_action === 'update') continue;
      expect(a.body.errors?.rec_recipients).toMatch(/the most one person may have/);
    }
    // A save still running when Slack's answer was due goes on: closing the app waits for the requests in hand.
    await e2e.stack.close();
    expect(await seriesOf('U_MANAGER')).toHaveLength(20);
  });
});

describe('recurring series: a busy database', () => {
  it.skipIf(!process.env.DATABASE_URL)(
    'answers "saving" within Slack’s 3 s, then says it is saved; nothing is saved twice',
    async () => {
      // PostgreSQL only: the test holds the workspace's series lock on its own connection (PGlite has one connection for all).
      const { sim } = e2e.stack;
      await sim.slashCommand('U_MANAGER', 'recurring new', 'C_GENERAL');
      const modal = await sim.waitFor(() => sim.openViews('U_MANAGER').find((v) => v.callback_id === 'recurring_new'));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let locked!: () => void;
      const holding = new Promise<void>((resolve) => (locked = resolve));
      const held = e2e.db.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${'recurring_series:T0KUDOS'}))`);
        locked();
        await released;
      });
      await holding;
      const answer = await sim.submitView(modal.id, formValues(['U_EMP1', 'U_EMP2']), 'U_MANAGER');
      expect(answer.status).toBe(200);
      expect(JSON.stringify(sim.openViews('U_MANAGER'))).toContain('Saving your recurring kudos');
      release();
      await held;
      await sim.waitFor(
        () => JSON.stringify(sim.openViews('U_MANAGER')).includes('Your recurring kudos is saved') || undefined,
      );
      // Slack sending the same form again finds it saved.
      expect(await submitForm('U_MANAGER', modal.id)).toEqual({ status: 200, body: undefined });
      expect(await seriesOf('U_MANAGER')).toHaveLength(1);
    },
  );
});

describe('/kudos recurring with many series', () => {
  it('answers one page at a time, with the next page a click away', async () => {
    const { sim } = e2e.stack;
    for (let i = 0; i < 300; i += 50) {
      await Promise.all(
        Array.from({ length: 50 }, (_, j) =>
          createSeries(e2e.db, {
            teamId: 'T0KUDOS',
            senderUserId: 'U_MANAGER',
            recipientUserIds: ['U_EMP1'],
            productId: 'CC-THANK-YOU',
            amountCents: 100 + i + j,
            cadence: 'weekly',
            weekday: 5,
            timeOfDay: '16:00',
            timezone: 'UTC',
            startsAt: new Date(),
          }),
        ),
      );
    }
    const answer = await sim.slashCommand('U_MANAGER', 'recurring', 'C_GENERAL');
    expect(answer.status).toBe(200);
    const first = await lastAnswer('U_MANAGER');
    const text = JSON.stringify(first.blocks);
    expect(text).toContain('Series 1–10 of 300');
    expect((text.match(/recurring_delete:/g) ?? []).length).toBe(10);
    await sim.clickButton({ channel: 'C_GENERAL', ts: first.ts }, 'recurring_page:1', 'U_MANAGER', '1');
    await sim.waitFor(
      () => JSON.stringify(sim.messages('C_GENERAL').at(-1)?.blocks ?? []).includes('Series 11–20 of 300') || undefined,
    );
  });
});
