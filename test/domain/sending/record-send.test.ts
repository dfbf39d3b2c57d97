// Recording a send: budgets are decided atomically per sender (two sends at once cannot both fit a
// budget only one fits), a send split in parts to the same people is judged as one against the
// threshold, and a form edited after a lost acknowledgement never sends the old amount silently.
import { describe, expect, it } from 'vitest';

import { kudos } from '../../../src/db/schema/index.js';
import {
  eventually,
  postSignedPayload,
  sendModalValues,
  submitSendForm,
  useAppPerTest,
  viewSubmissionPayload,
} from '../../support/app.js';

const env = useAppPerTest({
  env: {
    KUDOS_NOTIFY_CHANNEL: 'C_KUDOS',
    KUDOS_APPROVAL_CHANNEL: 'C_APPROVALS',
    KUDOS_APPROVERS: 'U_APPROVER',
    KUDOS_ADMINS: 'U_ADMIN',
    KUDOS_APPROVAL_THRESHOLD: '100',
  },
  app: { tuning: { approvalsSweepMs: 0 } },
});

/** Opens a new send modal (not one opened before) as `userId`. */
async function openModal(userId: string) {
  const before = new Set(env.stack.sim.openViews(userId).map((v) => v.id));
  await env.stack.sim.slashCommand(userId, '', 'C_GENERAL');
  return env.stack.sim.waitFor(() => env.stack.sim.openViews(userId).find((v) => !before.has(v.id)));
}

describe('the monthly budget', () => {
  it.skipIf(!process.env.DATABASE_URL)(
    'two $40 sends at once against a $50 budget: one goes out, the other waits for approval',
    async () => {
      const { stack, db } = env;
      await stack.app.settings.update({ teamId: 'T0KUDOS' }, 'U_ADMIN', { monthlyBudgetCents: 5000 });
      const views = [await openModal('U_MANAGER'), await openModal('U_MANAGER')];
      const payloads = views.map((view, i) =>
        viewSubmissionPayload(
          view as never,
          sendModalValues({ users: [i === 0 ? 'U_EMP1' : 'U_EMP2'], design: 'CC-THANK-YOU', amount: '40' }),
          'U_MANAGER',
        ),
      );
      const answers = await Promise.all(payloads.map((p) => postSignedPayload(stack.app.url, p)));
      expect(answers.map((a) => a.status)).toEqual([200, 200]);

      const rows = await eventually(async () => {
        const all = await db.select().from(kudos);
        return all.length === 2 && all.every((k) => k.status !== 'pending') ? all : undefined;
      }, 15_000).catch(async (error: unknown) => {
        throw new Error(
          `${String(error)}: ${JSON.stringify((await db.select().from(kudos)).map((k) => [k.status, k.totalCents, k.errorCode]))}`,
        );
      });
      expect(rows.map((r) => r.status).sort()).toEqual(['awaiting_approval', 'placed']);
      expect((await stack.app.rewards.orders.list({ pageSize: 100 })).data).toHaveLength(1);
    },
  );
});

describe('the approval threshold', () => {
  it('a send split in two to the same person within 24 hours is judged as one; to someone else it is not', async () => {
    const { stack, db } = env;
    const first = await submitSendForm(
      stack,
      db,
      'U_MANAGER',
      sendModalValues({ users: ['U_EMP1'], design: 'CC-THANK-YOU', amount: '60' }),
    );
    expect(['pending', 'placed']).toContain(first.status); // straight out (the worker may have placed it already)
    const toOther = await submitSendForm(
      stack,
      db,
      'U_MANAGER',
      sendModalValues({ users: ['U_EMP2'], design: 'CC-THANK-YOU', amount: '60' }),
    );
    expect(['pending', 'placed']).toContain(toOther.status); // straight out (the worker may have placed it already)
    const second = await submitSendForm(
      stack,
      db,
      'U_MANAGER',
      sendModalValues({ users: ['U_EMP1'], design: 'CC-THANK-YOU', amount: '60' }),
    );
    expect(second.status).toBe('awaiting_approval');
    const request = await stack.sim.waitFor(() =>
      stack.sim.messages('C_APPROVALS').find((m) => JSON.stringify(m.blocks ?? []).includes(second.id)),
    );
    expect(JSON.stringify(request.blocks)).toContain('the same people in the last 24 hours');
  });
});

describe('a send form submitted again', () => {
  it('edited after a lost acknowledgement: the first send stands and the form says so, never sending the old amount silently', async () => {
    const { stack, db } = env;
    const view = await openModal('U_MANAGER');
    // Our first answer reached the app but "not Slack": the same view is submitted again, edited.
    const first = await postSignedPayload(
      stack.app.url,
      viewSubmissionPayload(
        view as never,
        sendModalValues({ users: ['U_EMP1'], design: 'CC-THANK-YOU', amount: '20' }),
        'U_MANAGER',
      ),
    );
    expect(first.status).toBe(200);
    const edited = await postSignedPayload(
      stack.app.url,
      viewSubmissionPayload(
        view as never,
        sendModalValues({ users: ['U_EMP1'], design: 'CC-THANK-YOU', amount: '50' }),
        'U_MANAGER',
      ),
    );
    expect(edited.status).toBe(200);
    const answer = JSON.parse(edited.text) as { response_action?: string; errors?: Record<string, string> };
    expect(answer.response_action).toBe('errors');
    expect(answer.errors?.send_amount).toContain('already sent before your changes: $20');

    const rows = await eventually(async () => {
      const all = await db.select().from(kudos);
      return all.length === 1 && all[0]!.status === 'placed' ? all : undefined;
    });
    expect(rows[0]!.amountCents).toBe(2000);
    // The same form submitted again unchanged (Slack retrying) is simply acknowledged.
    const repeat = await postSignedPayload(
      stack.app.url,
      viewSubmissionPayload(
        view as never,
        sendModalValues({ users: ['U_EMP1'], design: 'CC-THANK-YOU', amount: '20' }),
        'U_MANAGER',
      ),
    );
    expect(repeat.text).toBe('');
    expect((await stack.app.rewards.orders.list({ pageSize: 100 })).data).toHaveLength(1);
  });
});
