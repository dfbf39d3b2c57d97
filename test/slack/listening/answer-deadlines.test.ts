// Slack lookups made before an answer Slack waits 3 s for (a command's ack, a submission's answer, a
// click's trigger_id) under Slack's rate limits, enforced by the simulator: when the lookup's method
// is refused (a 429 whose Retry-After is past the answer's deadline), the person is told that Slack is
// busy and when to try again, instead of a wrong answer or none. Signed requests; no timings.
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { auditEvents, kudos, recurringSeries, workspaceSettings } from '../../../src/db/schema/index.js';
import { TEAM_ID } from '../../../src/simulator/seed.js';
import type { Message } from '../../../src/simulator/slack.js';
import { postSignedPayload, sendModalValues, submitSendForm, useAppPerTest } from '../../support/app.js';
import { slackRetryAfterPassed } from '../../support/slack-retry-after.js';

const e2e = useAppPerTest({
  env: { KUDOS_NOTIFY_CHANNEL: 'C_KUDOS', KUDOS_APPROVAL_CHANNEL: 'C_APPROVALS', KUDOS_APPROVAL_THRESHOLD: '100' },
});

/** Slack answers the next call of `method` with a 429 whose Retry-After is past any answer's 3 s. */
function exhaust(method: string): void {
  e2e.stack.sim.rateLimits.storm({ count: 1, retryAfterSeconds: 10, methods: [method] });
}

const ephemeralsTo = (userId: string, channel = 'C_GENERAL') =>
  e2e.stack.sim.messages(channel).filter((m) => m.ephemeral && m.visible_to === userId);
const BUSY = /^(:no_entry: )?Slack is busy right now \(its rate limit\).* again in \d+ s\.$/;

/** What Slack sends as `userId` (U_MANAGER, not an admin: the admin check reads users.info) from the open settings modal `view`. */
function fromSettingsModal(
  userId: string,
  view: { id: string },
  payload: Record<string, unknown>,
): Record<string, unknown> {
  return {
    user: { id: userId, team_id: TEAM_ID },
    team: { id: TEAM_ID, domain: 'kudos-demo' },
    api_app_id: 'A0KUDOS',
    container: { type: 'view', view_id: view.id },
    view,
    ...payload,
  };
}

/** The answer to `/kudos TEXT` from `userId`, in C_GENERAL. */
async function command(userId: string, text: string): Promise<Message> {
  const before = ephemeralsTo(userId).length;
  await e2e.stack.sim.slashCommand(userId, text, 'C_GENERAL');
  return e2e.stack.sim.waitFor(() => ephemeralsTo(userId).at(before));
}

describe('lookups before an answer Slack waits 3 s for, with Slack busy', () => {
  it('/kudos stats @group while usergroups.users.list is refused: "Slack is busy... Try again in N s", not "I couldn’t find that user group", which an unknown group still gets', async () => {
    const unknown = await command('U_EMP4', 'stats <!subteam^S_NOPE|@nope>');
    expect(unknown.text).toContain('I couldn’t find that user group');

    exhaust('usergroups.users.list');
    const busy = await command('U_EMP4', 'stats <!subteam^S_TEAM|@team>');
    expect(busy.text).toMatch(BUSY);
    expect(busy.text).toContain('members of that user group could not be read');
    expect(busy.text).not.toContain('couldn’t find');
    expect(e2e.stack.sim.rateLimits.counts().total).toBe(1);
  });

  it('/kudos scheduled while users.info (the admin check) is refused: Slack is busy, try again in N s', async () => {
    exhaust('users.info');
    const busy = await command('U_EMP3', 'scheduled');
    expect(busy.text).toMatch(BUSY);
  });

  it('the recurring form submitted while users.info (the time zone) is refused: inline "Slack is busy... Press Save again in N s", nothing saved', async () => {
    const { sim } = e2e.stack;
    await sim.slashCommand('U_EMP3', 'recurring new', 'C_GENERAL');
    const modal = await sim.waitFor(() => sim.openViews('U_EMP3').find((v) => v.callback_id === 'recurring_new'));
    exhaust('users.info');
    await sim.submitView(modal.id, {}, 'U_EMP3');
    expect(sim.viewErrors(modal.id).rec_time).toMatch(
      /^Slack is busy right now \(its rate limit\).*Nothing was saved\. Press Save again in \d+ s\.$/,
    );
    expect(await e2e.db.select().from(recurringSeries)).toEqual([]);
  });

  it("Reject (the trigger's 3 s) and the reject modal's submission while usergroups.users.list (the approvers' group) is refused: Slack is busy, nothing decided", async () => {
    const { sim } = e2e.stack;
    // The approvers are the group S_TEAM (U_EMP1, U_EMP2), whose members are read from Slack at each decision.
    await e2e.db
      .insert(workspaceSettings)
      .values({
        teamId: TEAM_ID,
        notifyChannel: 'C_KUDOS',
        approvalChannel: 'C_APPROVALS',
        approvalThresholdCents: 10_000,
        approverUsergroupId: 'S_TEAM',
      })
      .onConflictDoUpdate({
        target: workspaceSettings.teamId,
        set: { approverUsergroupId: 'S_TEAM', approverUserIds: null },
      });
    // Written behind the app's back: it forgets its cached settings, as on another instance's change.
    e2e.stack.app.settings.evict(TEAM_ID);
    const row = await submitSendForm(
      e2e.stack,
      e2e.db,
      'U_MANAGER',
      sendModalValues({ users: ['U_EMP3'], design: 'CC-THANK-YOU', amount: '150', message: 'big one' }),
    );
    expect(row.status).toBe('awaiting_approval');
    const message = await sim.waitFor(() =>
      sim
        .messages('C_APPROVALS')
        .find(
          (m) =>
            JSON.stringify(m.blocks ?? []).includes(row.id) && JSON.stringify(m.blocks).includes('approval_reject'),
        ),
    );
    const refusals = () => ephemeralsTo('U_EMP1', 'C_APPROVALS');

    exhaust('usergroups.users.list');
    await sim.clickButton({ channel: message.channel, ts: message.ts }, 'approval_reject', 'U_EMP1');
    const busy = await sim.waitFor(() => refusals().at(-1));
    expect(busy.text).toMatch(BUSY);
    expect(busy.text).toContain('Click Reject again');
    expect(sim.openViews('U_EMP1')).toHaveLength(0);

    // Once Slack has room again (its Retry-After run out) the modal opens; its submission meets a busy Slack again.
    expect(await slackRetryAfterPassed(e2e.db, 'usergroups.users.list')).toBe(1);
    await sim.clickButton({ channel: message.channel, ts: message.ts }, 'approval_reject', 'U_EMP1');
    const modal = await sim.waitFor(() =>
      sim.openViews('U_EMP1').find((v) => v.callback_id === 'approval_reject_modal'),
    );
    exhaust('usergroups.users.list');
    await sim.submitView(
      modal.id,
      { approval_reject_reason: { reason: { type: 'plain_text_input', value: 'no' } } },
      'U_EMP1',
    );
    expect(sim.viewErrors(modal.id).approval_reject_reason).toMatch(
      /^Slack is busy right now \(its rate limit\).*Nothing was rejected\. Press Reject again in \d+ s\.$/,
    );
    const [after] = await e2e.db.select().from(kudos).where(eq(kudos.id, row.id));
    expect(after!.status).toBe('awaiting_approval');
    expect(
      await e2e.db
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.subjectId, row.id), eq(auditEvents.action, 'approval.rejected'))),
    ).toEqual([]);
  });

  describe('forms, options lists and buttons that open a modal, while users.info (the admin check) is refused', () => {
    async function settingsModal() {
      const { sim } = e2e.stack;
      await sim.slashCommand('U_ADMIN', 'settings', 'C_GENERAL');
      return sim.waitFor(() => sim.openViews('U_ADMIN').find((v) => v.callback_id === 'kudos_settings'));
    }

    it("the settings modal's user groups list: no options, answered in time", async () => {
      const view = await settingsModal();
      exhaust('users.info');
      const answer = await postSignedPayload(
        e2e.stack.app.url,
        fromSettingsModal('U_MANAGER', view, {
          type: 'block_suggestion',
          action_id: 'approver_group',
          block_id: 'settings_approver_group',
          value: '',
        }),
      );
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.text)).toEqual({ options: [] });
    });

    it('the settings form submitted: inline "Slack is busy... Nothing was saved. Press Save again in N s", nothing saved', async () => {
      const view = await settingsModal();
      const before = await e2e.db.select().from(workspaceSettings);
      exhaust('users.info');
      const answer = await postSignedPayload(
        e2e.stack.app.url,
        fromSettingsModal('U_MANAGER', view, { type: 'view_submission', view: { ...view, state: { values: {} } } }),
      );
      expect(answer.status).toBe(200);
      const body = JSON.parse(answer.text) as { response_action: string; errors: Record<string, string> };
      expect(body.response_action).toBe('errors');
      expect(Object.values(body.errors)).toEqual([
        expect.stringMatching(
          /^Slack is busy right now \(its rate limit\).*Nothing was saved\. Press Save again in \d+ s\.$/,
        ),
      ]);
      expect(await e2e.db.select().from(workspaceSettings)).toEqual(before);
    });

    it('the top-up button: the clicker is told Slack is busy, click again in N s', async () => {
      exhaust('users.info');
      const answer = await postSignedPayload(e2e.stack.app.url, {
        type: 'block_actions',
        user: { id: 'U_MANAGER', team_id: TEAM_ID },
        team: { id: TEAM_ID, domain: 'kudos-demo' },
        api_app_id: 'A0KUDOS',
        trigger_id: '1.2.trigger',
        container: { type: 'message', channel_id: 'C_GENERAL', message_ts: '1.000001' },
        channel: { id: 'C_GENERAL', name: 'general' },
        actions: [{ type: 'button', action_id: 'finance_topup_open', block_id: 'finance', action_ts: '1.2' }],
      });
      expect(answer.status).toBe(200);
      const busy = await e2e.stack.sim.waitFor(() => ephemeralsTo('U_MANAGER').at(-1));
      expect(busy.text).toMatch(BUSY);
      expect(busy.text).toContain('Click the button again');
      expect(e2e.stack.sim.openViews('U_MANAGER')).toHaveLength(0);
    });
  });
});
