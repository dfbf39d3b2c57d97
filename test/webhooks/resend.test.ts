// A bounced card: the sender gets a DM with "Fix address and resend"; the modal checks the address
// inline, the order is resent with updatedEmail, and the address book and the Slack mapping follow.
import { eq, sql } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';

import { bouncedRecipients, kudos, recipientMappings } from '../../src/db/schema/index.js';
import { recoverStuckResends } from '../../src/domain/orders/bounce-resend.js';
import { presentNotice } from '../../src/slack/notices/present-notice.js';
import {
  eventually,
  postSignedPayload,
  sendModalValues,
  useAppPerTest,
  viewSubmissionPayload,
} from '../support/app.js';
import { FAST_CHECKS, openSendModal, WEBHOOK_APP } from './support.js';

const e2e = useAppPerTest(WEBHOOK_APP);
beforeEach(async () => {
  // Eli's Slack profile carries an address that bounces.
  e2e.stack.sim.workspace.users.find((u) => u.id === 'U_EMP1')!.email = 'someone@bounce.test';
});

interface EmailRecord {
  kind: string;
  to: string;
  bounced: boolean;
  orderId: string;
}

async function sendAndComplete(users: string[]) {
  const view = await openSendModal(e2e.stack, 'U_MANAGER');
  await e2e.stack.sim.submitView(
    view.id,
    sendModalValues({ users, design: 'CC-THANK-YOU', amount: '30' }),
    'U_MANAGER',
  );
  const row = await eventually(
    async () => (await e2e.db.select().from(kudos)).find((k) => k.orderId && k.announcementTs),
    10_000,
  );
  await e2e.emulator.advance(5);
  return row;
}

const bounceDm = () =>
  e2e.stack.sim.messages('U_MANAGER').find((m) => JSON.stringify(m.blocks ?? []).includes('bounce_fix_open'));

describe('bounced recipients', () => {
  it('tells the sender of each bounced card in their one DM, and "Fix address and resend" resends and corrects the address book and mapping', async () => {
    const row = await sendAndComplete(['U_EMP1', 'U_EMP2']);
    const notice = await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.messages('C_KUDOS').find((m) => m.thread_ts === row.announcementTs),
    );
    // Bounces stay out of the channel: it hears of the card delivered only.
    expect(JSON.stringify(notice.blocks)).toContain('the card is delivered');
    expect(JSON.stringify(notice.blocks)).not.toContain('bounce');
    const dm = await e2e.stack.sim.waitFor(bounceDm);
    expect(JSON.stringify(dm.blocks)).toContain('someone@bounce.test');
    expect(JSON.stringify(dm.blocks)).toContain('<@U_EMP1>');
    // Only the bounced recipient gets a DM (the emulator says per recipient which one bounced).
    await eventually(async () => (await e2e.db.select().from(bouncedRecipients)).length === 1);
    expect(
      e2e.stack.sim.messages('U_MANAGER').filter((m) => JSON.stringify(m.blocks ?? []).includes('bounce_fix_open')),
    ).toHaveLength(1);

    // The button opens the modal, prefilled with the facts.
    await e2e.stack.sim.clickButton({ channel: dm.channel, ts: dm.ts }, 'bounce_fix_open', 'U_MANAGER');
    const modal = await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.openViews('U_MANAGER').find((v) => v.callback_id === 'bounce_fix'),
    );

    // The address is checked inline.
    await e2e.stack.sim.submitView(
      modal.id,
      { bounce_fix_email: { email: { type: 'email_text_input', value: 'not-an-address' } } },
      'U_MANAGER',
    );
    expect(e2e.stack.sim.viewErrors(modal.id).bounce_fix_email).toContain('e-mail address');
    await e2e.stack.sim.submitView(
      modal.id,
      { bounce_fix_email: { email: { type: 'email_text_input', value: 'someone@bounce.test' } } },
      'U_MANAGER',
    );
    expect(e2e.stack.sim.viewErrors(modal.id).bounce_fix_email).toContain('bounced');
    expect(e2e.stack.sim.openViews('U_MANAGER')).toHaveLength(1);

    const answer = await e2e.stack.sim.submitView(
      modal.id,
      { bounce_fix_email: { email: { type: 'email_text_input', value: 'eli.fixed@example.com' } } },
      'U_MANAGER',
    );
    expect(answer.body).toBe('');
    expect(e2e.stack.sim.openViews('U_MANAGER')).toHaveLength(0);

    // The DM is updated in place: resent, no button any more.
    const updated = await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim
        .messages('U_MANAGER')
        .find((m) => m.ts === dm.ts && JSON.stringify(m.blocks ?? []).includes('eli.fixed@example.com')),
    );
    expect(JSON.stringify(updated.blocks)).toContain('eli.fixed@example.com');
    expect(JSON.stringify(updated.blocks)).not.toContain('bounce_fix_open');

    // The emulator resent the card to the new address, and it did not bounce.
    const emails = (await e2e.emulator.emails()) as EmailRecord[];
    const resent = emails.filter((e) => e.kind === 'resend');
    expect(resent).toEqual([
      expect.objectContaining({ to: 'eli.fixed@example.com', bounced: false, orderId: row.orderId }),
    ]);

    // For the future: the address book entry and the Slack mapping carry the corrected address.
    const [mapping] = await e2e.db.select().from(recipientMappings).where(eq(recipientMappings.slackUserId, 'U_EMP1'));
    expect(mapping!.email).toBe('eli.fixed@example.com');
    const recipient = await e2e.stack.app.rewards.recipients.get(mapping!.recipientId);
    expect(recipient.email).toBe('eli.fixed@example.com');
    const [bounce] = await e2e.db.select().from(bouncedRecipients);
    expect(bounce!.status).toBe('resent');
    expect(bounce!.resentBy).toBe('U_MANAGER');

    // The correction lasts: Eli's Slack profile still says the bouncing address, yet the next kudos
    // goes to the corrected one and the address book is not switched back.
    const next = await openSendModal(e2e.stack, 'U_MANAGER');
    await e2e.stack.sim.submitView(
      next.id,
      sendModalValues({ users: ['U_EMP1'], design: 'CC-THANK-YOU', amount: '10' }),
      'U_MANAGER',
    );
    const second = await eventually(
      async () => (await e2e.db.select().from(kudos)).find((k) => k.orderId && k.orderId !== row.orderId),
      10_000,
    );
    await e2e.emulator.advance(5);
    const cards = ((await e2e.emulator.emails()) as EmailRecord[]).filter(
      (e) => e.kind === 'card' && e.orderId === second.orderId,
    );
    expect(cards).toEqual([expect.objectContaining({ to: 'eli.fixed@example.com', bounced: false })]);
    expect((await e2e.stack.app.rewards.recipients.get(mapping!.recipientId)).email).toBe('eli.fixed@example.com');
  });

  it('a second submission after the resend does not resend twice, and the button is gone', async () => {
    await sendAndComplete(['U_EMP1']);
    const dm = await e2e.stack.sim.waitFor(bounceDm);
    await e2e.stack.sim.clickButton({ channel: dm.channel, ts: dm.ts }, 'bounce_fix_open', 'U_MANAGER');
    const modal = await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.openViews('U_MANAGER').find((v) => v.callback_id === 'bounce_fix'),
    );
    const values = { bounce_fix_email: { email: { type: 'email_text_input', value: 'eli.new@example.com' } } };
    await e2e.stack.sim.submitView(modal.id, values, 'U_MANAGER');
    await eventually(async () => (await e2e.db.select().from(bouncedRecipients))[0]!.status === 'resent');

    // The same modal submitted again (Slack retrying, a second client): refused inline.
    const again = await postSignedPayload(
      e2e.stack.app.url,
      viewSubmissionPayload(modal as never, values, 'U_MANAGER'),
    );
    expect(again.status).toBe(200);
    expect(JSON.parse(again.text)).toMatchObject({
      response_action: 'errors',
      errors: { bounce_fix_email: expect.stringContaining('Already resent') },
    });

    // And the button is gone from the DM, so it cannot be clicked again.
    await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim
        .messages('U_MANAGER')
        .find((m) => m.ts === dm.ts && m.edited && !JSON.stringify(m.blocks ?? []).includes('bounce_fix_open')),
    );
    expect(e2e.stack.sim.openViews('U_MANAGER')).toHaveLength(0);
    expect(((await e2e.emulator.emails()) as EmailRecord[]).filter((e) => e.kind === 'resend')).toHaveLength(1);
  });

  it('someone other than the sender cannot open the fix', async () => {
    await sendAndComplete(['U_EMP1']);
    const dm = await e2e.stack.sim.waitFor(bounceDm);
    await eventually(async () => (await e2e.db.select().from(bouncedRecipients)).length === 1);
    expect(
      await e2e.stack.sim.clickButton({ channel: dm.channel, ts: dm.ts }, 'bounce_fix_open', 'U_EMP2'),
    ).toMatchObject({ status: 200 });
    await eventually(() => e2e.stack.sim.calls.find((c) => c.ok && JSON.stringify(c.args).includes('Only the sender')));
    expect(e2e.stack.sim.openViews('U_EMP2')).toHaveLength(0);
    const [bounce] = await e2e.db.select().from(bouncedRecipients);
    expect(bounce!.status).toBe('open');
    expect(((await e2e.emulator.emails()) as EmailRecord[]).filter((e) => e.kind === 'resend')).toHaveLength(0);
  });

  // A process that died between taking the resend (status `resending`) and recording its outcome used
  // to leave "A resend is already in progress" forever. Only the columns every version has are set
  // here, as the dead process would have left them; the lease (5 min) is long over.
  async function leaveStuck(correctedEmail: string) {
    const [bounce] = await e2e.db.select().from(bouncedRecipients);
    await e2e.db
      .update(bouncedRecipients)
      .set({ status: 'resending', correctedEmail, updatedAt: sql`now() - interval '10 minutes'` })
      .where(eq(bouncedRecipients.id, bounce!.id));
    return bounce!;
  }
  const resends = async () => ((await e2e.emulator.emails()) as EmailRecord[]).filter((e) => e.kind === 'resend');
  /**
   * The app's sweep stopped (a pass in flight finished), then one more full pass of its resend part,
   * run here: it finds nothing left to take over.
   */
  async function sweepOnceMore() {
    const app = e2e.stack.app;
    await app.background.stop();
    expect(
      await recoverStuckResends({
        db: e2e.db,
        rewards: app.rewardsAccounts,
        chat: app.slack,
        present: presentNotice,
        logger: app.logger,
      }),
    ).toBe(0);
  }

  it('a resend left in progress by a process that died is finished by the sweep, once, and the DM updated', async () => {
    await sendAndComplete(['U_EMP1']);
    const dm = await e2e.stack.sim.waitFor(bounceDm);
    await eventually(async () => (await e2e.db.select().from(bouncedRecipients)).some((b) => b.dmTs));
    await leaveStuck('eli.recovered@example.com');

    const [done] = await eventually(async () => {
      const rows = await e2e.db.select().from(bouncedRecipients);
      return rows[0]?.status === 'resent' ? rows : undefined;
    }, 10_000);
    expect(done!.correctedEmail).toBe('eli.recovered@example.com');
    expect(await resends()).toEqual([expect.objectContaining({ to: 'eli.recovered@example.com', bounced: false })]);
    const updated = await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim
        .messages('U_MANAGER')
        .find((m) => m.ts === dm.ts && JSON.stringify(m.blocks ?? []).includes('eli.recovered@example.com')),
    );
    expect(JSON.stringify(updated.blocks)).toContain('eli.recovered@example.com');
    expect(JSON.stringify(updated.blocks)).not.toContain('bounce_fix_open');
    // A later pass of the sweep: still one resend.
    await sweepOnceMore();
    expect(await resends()).toHaveLength(1);
  });

  it('a resend that reached the API before its process died is recorded by the sweep without resending again', async () => {
    const row = await sendAndComplete(['U_EMP1']);
    await e2e.stack.sim.waitFor(bounceDm);
    await eventually(async () => (await e2e.db.select().from(bouncedRecipients)).some((b) => b.dmTs));
    // The dead process's call went through: the order already carries the corrected address.
    await e2e.stack.app.rewards.orders.resend(row.orderId!, {
      recipients: [{ email: 'someone@bounce.test', updatedEmail: 'eli.applied@example.com' }],
    });
    await leaveStuck('eli.applied@example.com');

    await eventually(async () => (await e2e.db.select().from(bouncedRecipients))[0]?.status === 'resent', 10_000);
    await sweepOnceMore();
    expect(await resends()).toEqual([expect.objectContaining({ to: 'eli.applied@example.com' })]);
  });
});

describe('bounced recipients: the sender takes over a stuck resend', () => {
  it('after the lease, "Fix address and resend" works again instead of "already in progress" forever', async () => {
    // The background sweep is slowed down, so that the sender's own try is what takes the resend over.
    await e2e.start({ app: { tuning: { webhooks: { ...FAST_CHECKS, sweepIntervalMs: 600_000 } } } });
    e2e.stack.sim.workspace.users.find((u) => u.id === 'U_EMP1')!.email = 'someone@bounce.test';
    await sendAndComplete(['U_EMP1']);
    const dm = await e2e.stack.sim.waitFor(bounceDm);
    await eventually(async () => (await e2e.db.select().from(bouncedRecipients)).some((b) => b.dmTs));
    const [bounce] = await e2e.db.select().from(bouncedRecipients);
    await e2e.db
      .update(bouncedRecipients)
      .set({
        status: 'resending',
        correctedEmail: 'eli.never@example.com',
        updatedAt: sql`now() - interval '10 minutes'`,
      })
      .where(eq(bouncedRecipients.id, bounce!.id));

    await e2e.stack.sim.clickButton({ channel: dm.channel, ts: dm.ts }, 'bounce_fix_open', 'U_MANAGER');
    const modal = await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.openViews('U_MANAGER').find((v) => v.callback_id === 'bounce_fix'),
    );
    const answer = await e2e.stack.sim.submitView(
      modal.id,
      { bounce_fix_email: { email: { type: 'email_text_input', value: 'eli.now@example.com' } } },
      'U_MANAGER',
    );
    expect(answer.body).toBe('');
    await eventually(async () => (await e2e.db.select().from(bouncedRecipients))[0]?.status === 'resent', 10_000);
    const resent = ((await e2e.emulator.emails()) as EmailRecord[]).filter((e) => e.kind === 'resend');
    expect(resent).toEqual([expect.objectContaining({ to: 'eli.now@example.com', bounced: false })]);
    const updated = await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim
        .messages('U_MANAGER')
        .find((m) => m.ts === dm.ts && JSON.stringify(m.blocks ?? []).includes('eli.now@example.com')),
    );
    expect(JSON.stringify(updated.blocks)).toContain('eli.now@example.com');
  });
});
