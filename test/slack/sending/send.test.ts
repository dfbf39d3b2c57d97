import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { kudos, recipientMappings } from '../../../src/db/schema/index.js';
import {
  eventually,
  postSignedPayload,
  sendModalValues,
  useAppPerTest,
  viewSubmissionPayload,
} from '../../support/app.js';

const e2e = useAppPerTest({ env: { KUDOS_NOTIFY_CHANNEL: 'C_KUDOS' } });

async function openModal(userId: string, text = '') {
  const answer = await e2e.stack.sim.slashCommand(userId, text, 'C_GENERAL');
  expect(answer.status).toBe(200);
  const view = await e2e.stack.sim.waitFor(() => e2e.stack.sim.openViews(userId).at(-1));
  return view;
}

/** `/kudos @people AMOUNT message`, then Edit on its confirmation: the send form, filled in. */
async function editOneLine(userId: string, text: string) {
  await e2e.stack.sim.slashCommand(userId, text, 'C_GENERAL');
  const confirmation = await e2e.stack.sim.waitFor(() =>
    e2e.stack.sim
      .messages('C_GENERAL')
      .find((m) => m.visible_to === userId && JSON.stringify(m.blocks ?? []).includes('one_line_edit')),
  );
  await e2e.stack.sim.clickButton({ channel: 'C_GENERAL', ts: confirmation.ts }, 'one_line_edit', userId);
  return e2e.stack.sim.waitFor(() => e2e.stack.sim.openViews(userId).at(-1));
}

async function ordersInEmulator() {
  return (await e2e.stack.app.rewards.orders.list({ pageSize: 100 })).data;
}

describe('sending kudos from Slack', () => {
  it('/kudos opens the send modal, and the design picker lists the API catalog', async () => {
    const view = await openModal('U_MANAGER');
    expect(view.callback_id).toBe('kudos_send');
    const options = await e2e.stack.sim.loadOptions(view.id, 'design', 'send_design', 'birth', 'U_MANAGER');
    expect(options.status).toBe(200);
    const texts = (options.body as { options: Array<{ text: { text: string }; value: string }> }).options;
    expect(texts.map((o) => o.value)).toEqual(['CC-BIRTHDAY']);
    expect(texts[0]!.text.text).toContain('Happy Birthday');
  });

  it('sends a card to two people: one order in the emulator, a confirmation DM and an announcement', async () => {
    const view = await openModal('U_MANAGER');
    const answer = await e2e.stack.sim.submitView(
      view.id,
      sendModalValues({ users: ['U_EMP1', 'U_EMP2'], design: 'CC-THANK-YOU', amount: '25', message: 'Great launch!' }),
      'U_MANAGER',
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toBe('');
    expect(e2e.stack.sim.openViews('U_MANAGER')).toHaveLength(0);

    const confirmation = await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.messages('U_MANAGER').find((m) => m.text.startsWith('Your kudos')),
    );
    const [row] = await e2e.db.select().from(kudos);
    expect(row!.status).toBe('placed');
    // Plain words: no order id in what the sender reads.
    expect(JSON.stringify(confirmation.blocks)).not.toContain(row!.orderId!);
    expect(confirmation.text).toContain('$50');

    const orders = await ordersInEmulator();
    expect(orders).toHaveLength(1);
    expect(orders[0]!.orderId).toBe(row!.orderId);
    expect(orders[0]!.recipientCount).toBe(2);
    expect(orders[0]!.totalCost?.amount).toBe('50.00');

    const announcement = await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.messages('C_KUDOS').find((m) => m.text.startsWith('Kudos from')),
    );
    const announced = JSON.stringify(announcement.blocks);
    expect(announced).toContain('<@U_MANAGER>');
    expect(announced).toContain('<@U_EMP1>');
    expect(announced).toContain('<@U_EMP2>');
    expect(announced).toContain('Great launch!');
    const after = await eventually(async () => (await e2e.db.select().from(kudos)).find((k) => k.announcementTs));
    expect(after.announcementTs).toBe(announcement.ts);
    expect(after.announcementChannel).toBe('C_KUDOS');

    // Each Slack user was mapped to an address-book recipient once.
    const mappings = await e2e.db.select().from(recipientMappings);
    expect(mappings.map((m) => m.slackUserId).sort()).toEqual(['U_EMP1', 'U_EMP2']);
  });

  it('/kudos @a @b AMOUNT message, then Edit: the modal prefilled', async () => {
    const view = await editOneLine('U_MANAGER', '<@U_EMP1|eli> <@U_EMP2> 30 for the demo');
    const blocks = view.blocks as Array<{ block_id: string; element?: Record<string, unknown> }>;
    const element = (id: string) => blocks.find((b) => b.block_id === id)!.element!;
    expect(element('send_recipients').initial_users).toEqual(['U_EMP1', 'U_EMP2']);
    expect(element('send_amount').initial_value).toBe('30');
    expect(element('send_message').initial_value).toBe('for the demo');
  });

  it('/kudos @group AMOUNT message, then Edit: the modal with the Slack user group picked, and sends to its members', async () => {
    const view = await editOneLine('U_MANAGER', '<!subteam^S_TEAM|@team> 10 Thanks, team');
    const blocks = view.blocks as Array<{ block_id: string; element?: Record<string, unknown> }>;
    const element = (id: string) => blocks.find((b) => b.block_id === id)!.element!;
    expect(element('send_group').initial_option).toMatchObject({
      text: { type: 'plain_text', text: '@team' },
      value: 'slack:S_TEAM',
    });
    expect(element('send_amount').initial_value).toBe('10');
    expect(element('send_message').initial_value).toBe('Thanks, team');

    // Sent as the form was filled in: to the group's members.
    const answer = await e2e.stack.sim.submitView(
      view.id,
      sendModalValues({
        group: { value: 'slack:S_TEAM', text: '@team' },
        design: 'CC-THANK-YOU',
        amount: '10',
        message: 'Thanks, team',
      }),
      'U_MANAGER',
    );
    expect(answer.status).toBe(200);
    const [sent] = await eventually(async () => {
      const rows = await e2e.db.select().from(kudos);
      return rows.length === 1 && rows;
    });
    expect(sent!.recipientCount).toBe(2);
  });

  it('/kudos with two user groups answers one line and opens nothing', async () => {
    const answer = await e2e.stack.sim.slashCommand(
      'U_MANAGER',
      '<!subteam^S_TEAM|@team> <!subteam^S_OTHER> 10',
      'C_GENERAL',
    );
    expect(answer.status).toBe(200);
    const reply = e2e.stack.sim
      .messages('C_GENERAL')
      .filter((m) => m.ephemeral && m.visible_to === 'U_MANAGER')
      .at(-1);
    expect(reply?.text).toMatch(/^The send form takes one user group at a time/);
    expect(e2e.stack.sim.openViews('U_MANAGER')).toEqual([]);
  });

  it('a double-submitted modal places one order', async () => {
    const view = await openModal('U_MANAGER');
    const values = sendModalValues({ users: ['U_EMP3'], design: 'CC-CONGRATS', amount: '20' });
    const payload = viewSubmissionPayload(view as never, values, 'U_MANAGER');
    const answers = await Promise.all([
      postSignedPayload(e2e.stack.app.url, payload),
      postSignedPayload(e2e.stack.app.url, payload),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    await eventually(async () =>
      (await e2e.db.select().from(kudos)).every((k) => k.status === 'placed' && k.notifiedAt),
    );
    expect(await e2e.db.select().from(kudos)).toHaveLength(1);
    expect(await ordersInEmulator()).toHaveLength(1);
  });

  it('refuses users without an e-mail, bots and deactivated users inline, naming them', async () => {
    const view = await openModal('U_MANAGER');
    const answer = await e2e.stack.sim.submitView(
      view.id,
      sendModalValues({ users: ['U_EMP1', 'U_NOEMAIL', 'U_BOT', 'U_GONE'], design: 'CC-THANK-YOU', amount: '10' }),
      'U_MANAGER',
    );
    expect(answer.body).toMatchObject({ response_action: 'errors' });
    const error = e2e.stack.sim.viewErrors(view.id).send_recipients!;
    expect(error).toContain('Nora');
    expect(error).toContain('no e-mail');
    expect(error).toContain('bot');
    expect(error).toContain('deactivated');
    expect(error).not.toContain('Eli');
    expect(e2e.stack.sim.openViews('U_MANAGER')).toHaveLength(1); // the modal stays, with its values
    expect(await e2e.db.select().from(kudos)).toHaveLength(0);
  });

  it('checks the amount against the design range and whole dollars, inline', async () => {
    const view = await openModal('U_MANAGER');
    await e2e.stack.sim.submitView(
      view.id,
      sendModalValues({ users: ['U_EMP1'], design: 'CC-THANK-YOU', amount: '600' }),
      'U_MANAGER',
    );
    expect(e2e.stack.sim.viewErrors(view.id).send_amount).toContain('$5 to $500');
    await e2e.stack.sim.submitView(
      view.id,
      sendModalValues({ users: ['U_EMP1'], design: 'CC-THANK-YOU', amount: '2.50' }),
      'U_MANAGER',
    );
    expect(e2e.stack.sim.viewErrors(view.id).send_amount).toContain('whole dollars');
    expect(await e2e.db.select().from(kudos)).toHaveLength(0);
  });

  it('does not place a send whose total is above the approval threshold (it waits for approval)', async () => {
    const view = await openModal('U_MANAGER');
    await e2e.stack.sim.submitView(
      view.id,
      sendModalValues({ users: ['U_EMP1', 'U_EMP2'], design: 'CC-THANK-YOU', amount: '60' }),
      'U_MANAGER',
    );
    const [row] = await eventually(async () => {
      const rows = await e2e.db.select().from(kudos);
      return rows.length > 0 ? rows : undefined;
    });
    expect(row!.totalCents).toBe(12_000);
    expect(row!.status).toBe('awaiting_approval');
    expect(row!.orderId).toBeNull();
    expect(await ordersInEmulator()).toHaveLength(0);
  });

  it('neutralises <!channel> and forged links in the message', async () => {
    const view = await openModal('U_MANAGER');
    await e2e.stack.sim.submitView(
      view.id,
      sendModalValues({
        users: ['U_EMP1'],
        design: 'CC-THANK-YOU',
        amount: '10',
        message: '<!channel> you rock <https://evil.example|our intranet> & more',
      }),
      'U_MANAGER',
    );
    const announcement = await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.messages('C_KUDOS').find((m) => m.text.startsWith('Kudos from')),
    );
    const rendered = JSON.stringify(announcement.blocks) + announcement.text;
    expect(rendered).not.toContain('<!channel>');
    expect(rendered).not.toContain('<https://evil.example');
    expect(rendered).toContain('&lt;!channel&gt; you rock &lt;https://evil.example|our intranet&gt; &amp; more');
  });

  it('expands a Slack user group to its members', async () => {
    const view = await openModal('U_MANAGER');
    const options = await e2e.stack.sim.loadOptions(view.id, 'group', 'send_group', '', 'U_MANAGER');
    expect(JSON.stringify(options.body)).toContain('slack:S_TEAM');
    await e2e.stack.sim.submitView(
      view.id,
      sendModalValues({ group: { value: 'slack:S_TEAM', text: '@team' }, design: 'CC-THANK-YOU', amount: '15' }),
      'U_MANAGER',
    );
    const row = await eventually(async () => (await e2e.db.select().from(kudos)).find((k) => k.status === 'placed'));
    expect(row.recipients.map((r) => r.slackUserId).sort()).toEqual(['U_EMP1', 'U_EMP2']);
    expect(row.slackUsergroupId).toBe('S_TEAM');
    expect(row.totalCents).toBe(3000);
  });

  it('tells the sender a short, specific reason when the API refuses the order', async () => {
    await e2e.emulator.setBalance(12);
    const view = await openModal('U_MANAGER');
    await e2e.stack.sim.submitView(
      view.id,
      sendModalValues({ users: ['U_EMP1'], design: 'CC-THANK-YOU', amount: '20' }),
      'U_MANAGER',
    );
    const dm = await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.messages('U_MANAGER').find((m) => m.text.includes('could not be sent')),
    );
    expect(dm.text).toContain('enough money');
    expect(dm.text).not.toMatch(/at .*\.ts:\d+/); // no stack trace
    const [row] = await e2e.db.select().from(kudos);
    expect(row!.status).toBe('failed');
    expect(row!.errorCode).toBe('INSUFFICIENT_BALANCE');
  });

  it('keeps the recipient in step when a Slack e-mail changes (user_change)', async () => {
    const view = await openModal('U_MANAGER');
    await e2e.stack.sim.submitView(
      view.id,
      sendModalValues({ users: ['U_EMP4'], design: 'CC-THANK-YOU', amount: '10' }),
      'U_MANAGER',
    );
    const mapping = await eventually(
      async () => (await e2e.db.select().from(recipientMappings).where(eq(recipientMappings.slackUserId, 'U_EMP4')))[0],
    );
    expect(mapping.email).toBe('sofia@example.com');
    const answer = await e2e.stack.sim.sendEvent({
      type: 'user_change',
      user: {
        id: 'U_EMP4',
        team_id: 'T0KUDOS',
        name: 'sofia',
        real_name: 'Sofia Sales',
        deleted: false,
        is_bot: false,
        tz: 'America/Denver',
        profile: {
          email: 'sofia.sales@example.com',
          real_name: 'Sofia Sales',
          first_name: 'Sofia',
          last_name: 'Sales',
        },
      },
    });
    expect(answer.status).toBe(200);
    const updated = await eventually(async () => {
      const [m] = await e2e.db.select().from(recipientMappings).where(eq(recipientMappings.slackUserId, 'U_EMP4'));
      return m?.email === 'sofia.sales@example.com' ? m : undefined;
    });
    expect(updated.recipientId).toBe(mapping.recipientId);
    const recipient = await e2e.stack.app.rewards.recipients.get(mapping.recipientId);
    expect(recipient.email).toBe('sofia.sales@example.com');
  });

  it('expands a saved address-book group through the API and keeps which group was chosen', async () => {
    const rewards = e2e.stack.app.rewards;
    const group = await rewards.groups.create('Night shift');
    for (const email of ['nina@example.com', 'olaf@example.com']) {
      const recipient = await rewards.recipients.create({ email, firstName: email.split('@')[0] });
      await rewards.groups.addMember(group.groupId, recipient.recipientId);
    }
    const view = await openModal('U_MANAGER');
    const options = await e2e.stack.sim.loadOptions(view.id, 'group', 'send_group', 'night', 'U_MANAGER');
    expect(JSON.stringify(options.body)).toContain(`book:${group.groupId}`);
    expect(JSON.stringify(options.body)).not.toContain('slack:S_TEAM');
    await e2e.stack.sim.submitView(
      view.id,
      sendModalValues({
        group: { value: `book:${group.groupId}`, text: 'Night shift (2)' },
        design: 'CC-THANK-YOU',
        amount: '10',
      }),
      'U_MANAGER',
    );
    const row = await eventually(async () => (await e2e.db.select().from(kudos)).find((k) => k.status === 'placed'));
    expect(row.recipientGroupId).toBe(group.groupId);
    expect(row.recipients.map((r) => r.email).sort()).toEqual(['nina@example.com', 'olaf@example.com']);
    const order = await rewards.orders.get(row.orderId!);
    expect(order.recipients.map((r) => r.email).sort()).toEqual(['nina@example.com', 'olaf@example.com']);
  });

  it('retries transient API failures with the same key, then places the order once', async () => {
    await e2e.start({ app: { tuning: { worker: { backoffMs: () => 50 } } } });
    // More 503s than the client retries on its own: the worker has to come back.
    await e2e.emulator.faults({ method: 'POST', path: '/api/v1/orders/choice-cards', status: 503, count: 5 });
    const view = await openModal('U_MANAGER');
    await e2e.stack.sim.submitView(
      view.id,
      sendModalValues({ users: ['U_EMP1'], design: 'CC-THANK-YOU', amount: '10' }),
      'U_MANAGER',
    );
    const row = await eventually(
      async () => (await e2e.db.select().from(kudos)).find((k) => k.status === 'placed'),
      15_000,
    );
    expect(row.attempts).toBeGreaterThan(1);
    expect(await ordersInEmulator()).toHaveLength(1);
  });

  it('updates the address-book recipient (PUT) when the Slack e-mail changed since the stored mapping', async () => {
    const old = await e2e.stack.app.rewards.recipients.create({ email: 'omar.old@example.com', firstName: 'Omar' });
    await e2e.db.insert(recipientMappings).values({
      teamId: 'T0KUDOS',
      slackUserId: 'U_EMP3',
      recipientId: old.recipientId,
      email: 'omar.old@example.com',
    });
    const view = await openModal('U_MANAGER');
    await e2e.stack.sim.submitView(
      view.id,
      sendModalValues({ users: ['U_EMP3'], design: 'CC-THANK-YOU', amount: '10' }),
      'U_MANAGER',
    );
    const row = await eventually(async () => (await e2e.db.select().from(kudos)).find((k) => k.status === 'placed'));
    expect(row.recipients[0]).toMatchObject({
      slackUserId: 'U_EMP3',
      recipientId: old.recipientId,
      email: 'omar@example.com',
    });
    expect((await e2e.stack.app.rewards.recipients.get(old.recipientId)).email).toBe('omar@example.com');
    const [mapping] = await e2e.db.select().from(recipientMappings).where(eq(recipientMappings.slackUserId, 'U_EMP3'));
    expect(mapping).toMatchObject({ recipientId: old.recipientId, email: 'omar@example.com' });
  });
});
