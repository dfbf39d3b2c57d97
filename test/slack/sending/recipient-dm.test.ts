// What the recipient sees, and the sender's one DM per kudos: the recipient's DM (on its way, then
// delivered, in place) with Say thanks reaching the sender and the announcement's thread once per
// form; the sender's DM posted once and edited at each step (delivered, bounced, resent); the
// recipient's DM edited once their bounced card is resent (on its way to the corrected address); bounces
// kept out of the channel, the resend told in the announcement's thread; a recipient whose DMs are
// closed to the app is not told, the kudos still goes.
import { beforeEach, describe, expect, it } from 'vitest';

import { kudos } from '../../../src/db/schema/index.js';
import type { Message } from '../../../src/simulator/slack.js';
import { eventually, sendModalValues, useAppPerTest } from '../../support/app.js';
import { openSendModal, WEBHOOK_APP } from '../../webhooks/support.js';

const e2e = useAppPerTest(WEBHOOK_APP);
const sim = () => e2e.stack.sim;

async function send(users: string[], message = 'Thanks for the launch') {
  const view = await openSendModal(e2e.stack, 'U_MANAGER');
  await sim().submitView(
    view.id,
    sendModalValues({ users, design: 'CC-THANK-YOU', amount: '25', message }),
    'U_MANAGER',
  );
  return eventually(async () => (await e2e.db.select().from(kudos)).find((k) => k.orderId && k.notifiedAt), 10_000);
}

/** Top-level posts and edits in the sender's DM (thread replies are not new DMs). */
function senderDmCalls() {
  const inDm = (c: { args: Record<string, unknown> }) => c.args.channel === 'D_U_MANAGER';
  return {
    posts: sim().calls.filter((c) => c.method === 'chat.postMessage' && c.ok && inDm(c) && !c.args.thread_ts).length,
    updates: sim().calls.filter((c) => c.method === 'chat.update' && c.ok && inDm(c)).length,
  };
}

const blocksOf = (m: Message | undefined) => JSON.stringify(m?.blocks ?? []);
const topLevel = (channel: string) =>
  sim()
    .messages(channel)
    .filter((m) => !m.thread_ts || m.thread_ts === m.ts);

describe('the recipient is told', () => {
  it('DMs the recipient, updates the DM once delivered, and keeps the sender at one DM', async () => {
    const row = await send(['U_EMP2']);
    const dm = await sim().waitFor(() =>
      sim()
        .messages('U_EMP2')
        .find((m) => blocksOf(m).includes('Say thanks')),
    );
    expect(blocksOf(dm)).toContain('<@U_MANAGER> sent you a $25 Thank You card');
    expect(blocksOf(dm)).toContain('Thanks for the launch');
    expect(dm.text).toContain('It is on its way to your e-mail.');
    expect(blocksOf(dm)).not.toContain(row.orderId!);

    await e2e.emulator.advance(5);
    const delivered = await sim().waitFor(() =>
      sim()
        .messages('U_EMP2')
        .find((m) => m.ts === dm.ts && m.text.includes('check your inbox')),
    );
    expect(delivered.text).toContain('erin');
    expect(sim().messages('U_EMP2')).toHaveLength(1);

    // The sender: one DM, changed in place from "on its way" to "delivered", no order id.
    const senderDm = await sim().waitFor(() =>
      topLevel('U_MANAGER').find((m) => blocksOf(m).includes('was delivered')),
    );
    expect(blocksOf(senderDm)).not.toContain(row.orderId!);
    expect(topLevel('U_MANAGER')).toHaveLength(1);
    expect(senderDmCalls()).toMatchObject({ posts: 1 });
    expect(senderDmCalls().updates).toBeGreaterThanOrEqual(1);
  });

  it('Say thanks reaches the sender and the announcement thread, once per form; long words are refused inline', async () => {
    const row = await send(['U_EMP1']);
    const dm = await sim().waitFor(() =>
      sim()
        .messages('U_EMP1')
        .find((m) => blocksOf(m).includes('Say thanks')),
    );
    await sim().clickButton({ channel: dm.channel, ts: dm.ts }, 'say_thanks_open', 'U_EMP1');
    const modal = await sim().waitFor(() =>
      sim()
        .openViews('U_EMP1')
        .find((v) => v.callback_id === 'say_thanks'),
    );

    await sim().submitView(
      modal.id,
      { say_thanks_words: { words: { type: 'plain_text_input', value: 'x'.repeat(501) } } },
      'U_EMP1',
    );
    expect(sim().viewErrors(modal.id).say_thanks_words).toContain('500 characters');

    const values = { say_thanks_words: { words: { type: 'plain_text_input', value: 'That made my week!' } } };
    await sim().submitView(modal.id, values, 'U_EMP1');
    const toSender = await sim().waitFor(() =>
      sim()
        .messages('U_MANAGER')
        .find((m) => m.thread_ts === row.confirmationTs && blocksOf(m).includes('That made my week!')),
    );
    expect(blocksOf(toSender)).toContain('<@U_EMP1> says thanks for your kudos');
    await sim().waitFor(() =>
      sim()
        .messages('C_KUDOS')
        .find((m) => m.thread_ts === row.announcementTs && blocksOf(m).includes('That made my week!')),
    );
    // The same form delivered again (a retry, a double click): nothing posted twice.
    const { postSignedPayload, viewSubmissionPayload } = await import('../../support/app.js');
    await postSignedPayload(
      e2e.stack.app.url,
      viewSubmissionPayload(modal as unknown as { id: string } & Record<string, unknown>, values, 'U_EMP1'),
    );
    await e2e.stack.app.background.sweepOnce();
    const thanks = (channel: string) =>
      sim()
        .messages(channel)
        .filter((m) => blocksOf(m).includes('That made my week!'));
    expect(thanks('U_MANAGER')).toHaveLength(1);
    expect(thanks('C_KUDOS')).toHaveLength(1);
    // Still one DM to the sender: the thank-you is in its thread.
    expect(senderDmCalls().posts).toBe(1);
  });

  it('someone who is not a recipient gets one short line, no form', async () => {
    await send(['U_EMP1']);
    const dm = await sim().waitFor(() =>
      sim()
        .messages('U_EMP1')
        .find((m) => blocksOf(m).includes('Say thanks')),
    );
    await sim().clickButton({ channel: dm.channel, ts: dm.ts }, 'say_thanks_open', 'U_EMP3');
    await sim().waitFor(() =>
      sim()
        .messages()
        .find((m) => m.ephemeral && m.text.includes('Only a recipient')),
    );
    expect(sim().openViews('U_EMP3')).toHaveLength(0);
  });

  it('a thank-you for a kudos of another workspace is refused with one line, and posts nothing', async () => {
    const row = await send(['U_EMP1']);
    const { postSignedPayload, viewSubmissionPayload } = await import('../../support/app.js');
    const form = {
      id: 'V_OTHER',
      type: 'modal',
      callback_id: 'say_thanks',
      private_metadata: JSON.stringify({ kudosId: row.id }),
    };
    const values = { say_thanks_words: { words: { type: 'plain_text_input', value: 'Thanks from elsewhere' } } };
    const answer = await postSignedPayload(e2e.stack.app.url, viewSubmissionPayload(form, values, 'U_EMP1', 'T0BETA'));
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toMatchObject({
      response_action: 'errors',
      errors: { say_thanks_words: 'This kudos is not known here.' },
    });
    expect(JSON.stringify(sim().messages())).not.toContain('Thanks from elsewhere');
  });
});

describe('a recipient Slack will not let the app message', () => {
  beforeEach(() => {
    sim().workspace.users.find((u) => u.id === 'U_EMP2')!.closedDms = true;
  });

  it('the kudos goes through, the sender’s one DM says who could not be told, and nothing is sent twice', async () => {
    const row = await send(['U_EMP1', 'U_EMP2']);
    expect(row.status).toBe('placed');
    const senderDm = await sim().waitFor(() =>
      topLevel('U_MANAGER').find((m) => blocksOf(m).includes('could not tell <@U_EMP2> in Slack')),
    );
    expect(blocksOf(senderDm)).toContain('still goes to their e-mail');
    expect(sim().messages('U_EMP2')).toHaveLength(0);
    expect(sim().messages('U_EMP1')).toHaveLength(1);

    await e2e.emulator.advance(5);
    await sim().waitFor(() => topLevel('U_MANAGER').find((m) => blocksOf(m).includes('was delivered')));
    await e2e.stack.app.background.sweepOnce();
    // Delivered: still not tried again, still said, still one DM to the sender.
    const attempts = sim().calls.filter((c) => c.method === 'chat.postMessage' && c.args.channel === 'D_U_EMP2').length;
    expect(attempts).toBe(1);
    expect(blocksOf(topLevel('U_MANAGER')[0])).toContain('could not tell <@U_EMP2> in Slack');
    expect(senderDmCalls().posts).toBe(1);
  });
});

describe('a bounce, its resend and the announcement thread', () => {
  beforeEach(() => {
    sim().workspace.users.find((u) => u.id === 'U_EMP1')!.email = 'someone@bounce.test';
  });

  it('the bounce is told to the sender only, in their one DM; the resend is told in the same thread', async () => {
    const row = await send(['U_EMP1', 'U_EMP2']);
    await e2e.emulator.advance(5);
    const dm = await sim().waitFor(() => topLevel('U_MANAGER').find((m) => blocksOf(m).includes('bounce_fix_open')));
    expect(blocksOf(dm)).toContain('someone@bounce.test');
    expect(blocksOf(dm)).toContain('delivered to 1 of 2 cards');
    const thread = await sim().waitFor(() =>
      sim()
        .messages('C_KUDOS')
        .find((m) => m.thread_ts === row.announcementTs),
    );
    expect(blocksOf(thread)).toContain('the card is delivered');
    // Nothing of the bounce in the channel.
    expect(JSON.stringify(sim().messages('C_KUDOS'))).not.toMatch(/bounce/i);
    // Eli's card bounced: his DM does not say "delivered".
    expect(
      sim()
        .messages('U_EMP1')
        .some((m) => m.text.includes('check your inbox')),
    ).toBe(false);

    await sim().clickButton({ channel: dm.channel, ts: dm.ts }, 'bounce_fix_open', 'U_MANAGER');
    const modal = await sim().waitFor(() =>
      sim()
        .openViews('U_MANAGER')
        .find((v) => v.callback_id === 'bounce_fix'),
    );
    await sim().submitView(
      modal.id,
      { bounce_fix_email: { email: { type: 'email_text_input', value: 'eli.fixed@example.com' } } },
      'U_MANAGER',
    );
    const resent = await sim().waitFor(() =>
      topLevel('U_MANAGER').find((m) => m.ts === dm.ts && blocksOf(m).includes('eli.fixed@example.com')),
    );
    expect(blocksOf(resent)).not.toContain('bounce_fix_open');
    const notice = await sim().waitFor(() =>
      sim()
        .messages('C_KUDOS')
        .find((m) => m.thread_ts === row.announcementTs && blocksOf(m).includes('card is on its way')),
    );
    expect(blocksOf(notice)).toContain('<@U_EMP1>');
    // One announcement, no bounce in it or its thread; the sender still has one DM about the kudos.
    expect(topLevel('C_KUDOS')).toHaveLength(1);
    expect(JSON.stringify(sim().messages('C_KUDOS'))).not.toMatch(/bounce/i);
    expect(topLevel('U_MANAGER')).toHaveLength(1);
    expect(senderDmCalls().posts).toBe(1);
    expect(senderDmCalls().updates).toBeGreaterThanOrEqual(2);
    // Eli's one DM now says where the card is going: the corrected address.
    const eli = await sim().waitFor(() =>
      sim()
        .messages('U_EMP1')
        .find((m) => m.text.includes('eli.fixed@example.com')),
    );
    expect(sim().messages('U_EMP1')).toHaveLength(1);
    expect(blocksOf(eli)).toContain('It is on its way to *eli.fixed@example.com*');
    expect(blocksOf(eli)).toContain('Say thanks');
    expect(blocksOf(eli)).not.toMatch(/bounce/i);
  });

  it('the resend follows the announcement into its thread even when the send never recorded where it is', async () => {
    const row = await send(['U_EMP1', 'U_EMP2']);
    await e2e.emulator.advance(5);
    const dm = await sim().waitFor(() => topLevel('U_MANAGER').find((m) => blocksOf(m).includes('bounce_fix_open')));
    // The announcement was posted by the outbox after the send was told (Slack had made it wait): the
    // send's row does not know it, the outbox does.
    await e2e.db.update(kudos).set({ announcementChannel: null, announcementTs: null });
    await sim().clickButton({ channel: dm.channel, ts: dm.ts }, 'bounce_fix_open', 'U_MANAGER');
    const modal = await sim().waitFor(() =>
      sim()
        .openViews('U_MANAGER')
        .find((v) => v.callback_id === 'bounce_fix'),
    );
    await sim().submitView(
      modal.id,
      { bounce_fix_email: { email: { type: 'email_text_input', value: 'eli.fixed@example.com' } } },
      'U_MANAGER',
    );
    const notice = await sim().waitFor(() =>
      sim()
        .messages('C_KUDOS')
        .find((m) => m.thread_ts === row.announcementTs && blocksOf(m).includes('card is on its way')),
    );
    expect(blocksOf(notice)).toContain('<@U_EMP1>');
    expect(topLevel('C_KUDOS')).toHaveLength(1);
    expect(JSON.stringify(sim().messages('C_KUDOS'))).not.toMatch(/bounce/i);
    await sim().waitFor(() =>
      sim()
        .messages('U_EMP1')
        .find((m) => m.text.includes('eli.fixed@example.com')),
    );
    expect(sim().messages('U_EMP1')).toHaveLength(1);
  });
});

describe("the design's picture in the announcement", () => {
  const say = async (userId: string, text: string) =>
    ((await sim().slashCommand(userId, text, 'C_GENERAL')).body as { text?: string }).text ?? '';

  it('an admin sets an https picture per design; other URLs and other people are refused; no picture, no image', async () => {
    expect(await say('U_MANAGER', 'picture CC-THANK-YOU https://cdn.example.com/thanks.png')).toContain(
      'Only Kudos admins',
    );
    expect(await say('U_ADMIN', 'picture CC-THANK-YOU http://cdn.example.com/thanks.png')).toContain('Only https://');
    expect(await say('U_ADMIN', 'picture CC-THANK-YOU not-a-url')).toContain('not a URL');
    expect(await say('U_ADMIN', 'picture CC-NOPE https://cdn.example.com/x.png')).toContain('no design');
    expect(await say('U_ADMIN', 'picture CC-THANK-YOU <https://cdn.example.com/thanks.png>')).toContain(
      'announced with that picture',
    );
    expect(await say('U_ADMIN', 'picture')).toContain('CC-THANK-YOU');

    const row = await send(['U_EMP1']);
    const announcement = await sim().waitFor(() =>
      sim()
        .messages('C_KUDOS')
        .find((m) => m.ts === row.announcementTs),
    );
    expect(announcement.blocks).toContainEqual(
      expect.objectContaining({ type: 'image', image_url: 'https://cdn.example.com/thanks.png' }),
    );

    // Removed: the next announcement has no image block at all.
    expect(await say('U_ADMIN', 'picture CC-THANK-YOU none')).toContain('without a picture');
    const view = await openSendModal(e2e.stack, 'U_MANAGER');
    await sim().submitView(
      view.id,
      sendModalValues({ users: ['U_EMP2'], design: 'CC-THANK-YOU', amount: '10' }),
      'U_MANAGER',
    );
    const second = await eventually(
      async () => (await e2e.db.select().from(kudos)).find((k) => k.id !== row.id && k.announcementTs),
      10_000,
    );
    const plain = await sim().waitFor(() =>
      sim()
        .messages('C_KUDOS')
        .find((m) => m.ts === second.announcementTs),
    );
    expect((plain.blocks ?? []).some((b) => (b as { type?: string }).type === 'image')).toBe(false);
  });
});
