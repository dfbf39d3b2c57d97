// The sender of a kudos that needs approval has one DM about it, changed in place: "waiting" when the
// request is posted, then the decision (approved, or rejected with the reason, or expired), then, for
// an approved send, on its way and delivered. Through signed requests into the real app, the Slack
// simulator and the Rewards emulator (deliveries driven by the test's clock).
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { kudos } from '../../../src/db/schema/index.js';
import { SENDER_NOTICE } from '../../../src/domain/approvals/approval-store.js';
import { APPROVAL_WAITING_KIND } from '../../../src/domain/sending/sender-dm.js';
import type { Message } from '../../../src/simulator/slack.js';
import { eventually, sendModalValues, submitSendForm, useAppPerTest } from '../../support/app.js';
import { noticesSettled } from '../../support/notices-settled.js';
import { dmStates, dmStories } from '../../support/sender-dm.js';
import { WEBHOOK_APP } from '../../webhooks/support.js';

const e2e = useAppPerTest({
  env: {
    ...WEBHOOK_APP.env,
    KUDOS_APPROVAL_CHANNEL: 'C_APPROVALS',
    KUDOS_APPROVERS: 'U_APPROVER',
    KUDOS_APPROVAL_THRESHOLD: '100',
  },
  app: { tuning: { ...WEBHOOK_APP.app.tuning, approvalsSweepMs: 0, worker: { noticeSweepMs: 200 } } },
  emulatorEnv: WEBHOOK_APP.emulatorEnv,
});
const sim = () => e2e.stack.sim;

const blocksOf = (m: Message | undefined) => JSON.stringify(m?.blocks ?? []);
/** Top-level messages in the sender's DM (a thread reply is not a DM of its own). */
const senderDms = () =>
  sim()
    .messages('U_MANAGER')
    .filter((m) => !m.ephemeral && (!m.thread_ts || m.thread_ts === m.ts));
/** Top-level posts into the sender's DM, as Slack took them. */
const senderDmPosts = () =>
  sim().calls.filter(
    (c) => c.method === 'chat.postMessage' && c.ok && c.args.channel === 'D_U_MANAGER' && !c.args.thread_ts,
  ).length;

/** A $150 kudos from U_MANAGER (above the $100 threshold) and its request in #approvals. */
async function requestApproval() {
  const row = await submitSendForm(
    e2e.stack,
    e2e.db,
    'U_MANAGER',
    sendModalValues({ users: ['U_EMP1'], design: 'CC-THANK-YOU', amount: '150', message: 'Thanks for the launch' }),
  );
  expect(row.status).toBe('awaiting_approval');
  const request = await sim().waitFor(() =>
    sim()
      .messages('C_APPROVALS')
      .find((m) => blocksOf(m).includes('approval_approve') && blocksOf(m).includes(row.id)),
  );
  await eventually(() => dmStates(sim(), 'U_MANAGER')[0]?.includes('waiting'));
  return { row, request };
}

const kudosRow = async (id: string) => (await e2e.db.select().from(kudos).where(eq(kudos.id, id)))[0]!;

describe("the sender's one DM about a kudos that needs approval", () => {
  it('is the approvals\' "waiting" notice, as the sending side finds it', () => {
    expect(SENDER_NOTICE.waiting).toBe(APPROVAL_WAITING_KIND);
  });

  it('reads waiting, then approved, then on its way, then delivered: one message, edited in place', async () => {
    const { row, request } = await requestApproval();
    expect(senderDms()).toHaveLength(1);

    await sim().clickButton({ channel: request.channel, ts: request.ts }, 'approval_approve', 'U_APPROVER');
    await eventually(async () => (await kudosRow(row.id)).notifiedAt);
    await eventually(() => dmStates(sim(), 'U_MANAGER')[0]?.includes('on its way'));
    await e2e.emulator.advance(5);
    await eventually(() => dmStates(sim(), 'U_MANAGER')[0]?.includes('delivered'));
    await noticesSettled(e2e.db);

    expect(dmStates(sim(), 'U_MANAGER')).toEqual([['waiting', 'approved', 'on its way', 'delivered']]);
    expect(senderDms()).toHaveLength(1);
    expect(senderDmPosts()).toBe(1);
    const [story] = dmStories(sim(), 'U_MANAGER');
    expect(story!.find((t) => t.startsWith('Your kudos was approved'))).toBeDefined();
    // The DM as it is now: delivered, in plain words (no order id); a thank-you would go in its thread.
    const dm = senderDms()[0]!;
    expect(blocksOf(dm)).toContain('was delivered');
    expect(blocksOf(dm)).not.toContain((await kudosRow(row.id)).orderId!);
    expect((await kudosRow(row.id)).confirmationTs).toBe(dm.ts);
    // The recipient is told once it goes out, in a DM of their own.
    expect(sim().messages('U_EMP1')).toHaveLength(1);

    // Their thank-you goes in the thread of that one DM, even when the send did not record where it is
    // (the DM was posted after the send was told).
    await e2e.db.update(kudos).set({ confirmationChannel: null, confirmationTs: null }).where(eq(kudos.id, row.id));
    const recipientDm = sim().messages('U_EMP1')[0]!;
    await sim().clickButton({ channel: recipientDm.channel, ts: recipientDm.ts }, 'say_thanks_open', 'U_EMP1');
    const form = await sim().waitFor(() =>
      sim()
        .openViews('U_EMP1')
        .find((v) => v.callback_id === 'say_thanks'),
    );
    await sim().submitView(
      form.id,
      { say_thanks_words: { words: { type: 'plain_text_input', value: 'Thank you, Maya!' } } },
      'U_EMP1',
    );
    await sim().waitFor(() =>
      sim()
        .messages('U_MANAGER')
        .find((m) => m.thread_ts === dm.ts && blocksOf(m).includes('Thank you, Maya!')),
    );
    expect(senderDms()).toHaveLength(1);
    expect(senderDmPosts()).toBe(1);
  });

  it('reads waiting, then rejected with the reason: one message, nothing sent', async () => {
    const { row, request } = await requestApproval();
    await sim().clickButton({ channel: request.channel, ts: request.ts }, 'approval_reject', 'U_APPROVER');
    const modal = await sim().waitFor(() =>
      sim()
        .openViews('U_APPROVER')
        .find((v) => v.callback_id === 'approval_reject_modal'),
    );
    await sim().submitView(
      modal.id,
      { approval_reject_reason: { reason: { type: 'plain_text_input', value: 'Over budget this quarter' } } },
      'U_APPROVER',
    );
    await eventually(() => dmStates(sim(), 'U_MANAGER')[0]?.includes('rejected'));
    await noticesSettled(e2e.db);

    expect(dmStates(sim(), 'U_MANAGER')).toEqual([['waiting', 'rejected']]);
    expect(senderDmPosts()).toBe(1);
    const dm = senderDms()[0]!;
    expect(blocksOf(dm)).toContain('rejected by <@U_APPROVER>');
    expect(blocksOf(dm)).toContain('Reason: Over budget this quarter');
    expect(blocksOf(dm)).toContain('Nothing was sent');
    expect((await kudosRow(row.id)).status).toBe('rejected');
    expect(sim().messages('U_EMP1')).toHaveLength(0);
  });

  it('reads waiting, then expired, when nobody decides in time: one message', async () => {
    await requestApproval();
    expect((await e2e.stack.app.approvals.sweep(new Date(Date.now() + 73 * 3_600_000))).expired).toBe(1);
    await eventually(() => dmStates(sim(), 'U_MANAGER')[0]?.includes('expired'));
    await noticesSettled(e2e.db);
    expect(dmStates(sim(), 'U_MANAGER')).toEqual([['waiting', 'expired']]);
    expect(senderDmPosts()).toBe(1);
  });
});
