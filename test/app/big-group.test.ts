// A kudos to a 1,000-member user group: accepted, placed as ten orders of 100 (each with its own key
// derived from the send's), every member's card e-mailed once, one confirmation to the sender, one
// announcement naming the group, one completion notice; a second instance taking over half-way places
// nothing twice; a refusal part-way leaves the send partial with an exact notice, and a part that
// turns up later (order.created for its key) has the channel's announcement edited to name everyone it
// reached. Signed requests through the simulator, the Rewards emulator over HTTP (and its webhook
// sender), PGlite and PostgreSQL.
import { eq, isNull } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { kudos, type KudosRow, orderChecks, recipientMappings, webhookEvents } from '../../src/db/schema/index.js';
import { workspacePerson } from '../../src/simulator/seed.js';
import type { Message, SlackSimulator } from '../../src/simulator/slack.js';
import { eventually, sendModalValues, submitSendForm, useAppPerTest, wallTimeIn } from '../support/app.js';
import { envelope, postWebhook, signed } from '../webhooks/support.js';

const GROUP_SIZE = 1000;
const e2e = useAppPerTest({
  // Approvals would hold a $5,000 send: this file is about placing it (approvals apply to it as to any send).
  env: { KUDOS_NOTIFY_CHANNEL: 'C_KUDOS', KUDOS_APPROVAL_THRESHOLD: '1000000' },
  // The pacing under the default limit is the bench's (npm run bench -- biggroup); here a roomier limit keeps the file short.
  emulatorEnv: { EMULATOR_RATE_LIMIT: '20000' },
});

/** A user group S_BIG of `size` people, each with an e-mail, in the simulator's workspace. */
function seedBigGroup(sim: SlackSimulator, size = GROUP_SIZE): string[] {
  const ids: string[] = [];
  for (let i = 0; i < size; i++) {
    const id = `U_BIG${String(i).padStart(4, '0')}`;
    ids.push(id);
    sim.workspace.users.push(
      workspacePerson(id, `big${i}`, `Person ${i}`, 'member of a big group', { displayName: `P${i}` }),
    );
  }
  sim.workspace.usergroups.push({ id: 'S_BIG', handle: 'everyone-big', name: 'Everyone Big', users: ids });
  return ids;
}

const bigGroupForm = (amount = '5') =>
  sendModalValues({
    group: { value: 'slack:S_BIG', text: '@everyone-big' },
    design: 'CC-THANK-YOU',
    amount,
    message: 'Thank you all!',
  });

async function row(id: string): Promise<KudosRow> {
  const [found] = await e2e.db.select().from(kudos).where(eq(kudos.id, id));
  return found!;
}

async function emulatorOrders() {
  return (await e2e.stack.app.rewards.orders.list({ pageSize: 100 })).data;
}

/** Card e-mails of the emulator, by address. */
async function cardEmails(): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const mail of (await e2e.emulator.emails()) as Array<{ kind: string; to: string }>)
    if (mail.kind === 'card') counts.set(mail.to, (counts.get(mail.to) ?? 0) + 1);
  return counts;
}

/** Every order reaches COMPLETE (the emulator's clock), and every completion check has run. */
async function completeAll(): Promise<void> {
  await e2e.emulator.advance(120);
  await e2e.db.update(orderChecks).set({ nextCheckAt: new Date(0) });
  await eventually(async () => {
    const checks = await e2e.db.select().from(orderChecks);
    if (checks.some((c) => !c.doneAt)) await e2e.db.update(orderChecks).set({ nextCheckAt: new Date(0) });
    return checks.length > 0 && checks.every((c) => c.doneAt);
  }, 30_000);
}

function expectOrdersOnce(orders: Awaited<ReturnType<typeof emulatorOrders>>, sent: KudosRow, parts: number) {
  expect(orders).toHaveLength(parts);
  const keys = orders.map((o) => o.clientOrderId ?? o.idempotencyKey);
  expect(new Set(keys).size).toBe(parts);
  expect([...keys].sort()).toEqual(Array.from({ length: parts }, (_, i) => `${sent.idempotencyKey}-${i + 1}`).sort());
  expect(orders.every((o) => (o.recipientCount ?? 0) <= 100)).toBe(true);
  expect([...sent.orderIds].sort()).toEqual(orders.map((o) => o.orderId).sort());
}

describe('a kudos to a 1,000-member user group', () => {
  it('places ten orders of 100, every member gets one card e-mail, the sender one confirmation, the channel one announcement naming the group', async () => {
    const members = seedBigGroup(e2e.stack.sim);
    const recorded = await submitSendForm(e2e.stack, e2e.db, 'U_MANAGER', bigGroupForm());
    expect(recorded.recipientCount).toBe(GROUP_SIZE);
    expect(recorded.totalCents).toBe(GROUP_SIZE * 500);

    const placed = await eventually(async () => {
      const current = await row(recorded.id);
      return current.status === 'placed' && current.notifiedAt ? current : undefined;
    }, 100_000);
    expect(placed.partsPlaced).toBe(10);
    expect(placed.costCents).toBe(GROUP_SIZE * 500);
    expectOrdersOnce(await emulatorOrders(), placed, 10);
    // Each member mapped to an address-book recipient once.
    expect(await e2e.db.select().from(recipientMappings)).toHaveLength(GROUP_SIZE);

    await completeAll();
    const emails = await cardEmails();
    expect(emails.size).toBe(GROUP_SIZE);
    for (const id of members) expect(emails.get(`big${Number(id.slice(5))}@example.com`)).toBe(1);

    const sim = e2e.stack.sim;
    const dms = sim.messages('U_MANAGER');
    // The sender's one DM (edited in place once delivered), in plain words: no order ids.
    const confirmations = dms.filter((m) => /^Your kudos (is on its way|was delivered)/.test(m.text));
    expect(confirmations).toHaveLength(1);
    expect(JSON.stringify(confirmations[0]!.blocks)).toContain('@everyone-big (1,000 people)');
    const channel = sim.messages('C_KUDOS');
    const announcements = channel.filter((m) => m.text.startsWith('Kudos from'));
    expect(announcements).toHaveLength(1);
    const announced = JSON.stringify(announcements[0]!.blocks);
    expect(announced).toContain('@everyone-big (1,000 people)');
    expect(announced).not.toContain('<@U_BIG');
    expect(announced).not.toContain('subteam');
    // One completion notice in the announcement's thread and one DM, with the whole send's counts.
    const completions = await eventually(() => {
      const found = sim.messages('C_KUDOS').filter((m) => m.text.startsWith('Kudos:'));
      return found.length > 0 ? found : undefined;
    });
    expect(completions).toHaveLength(1);
    expect(completions[0]!.text).toContain('1,000 cards delivered');
    await sim.waitFor(() => sim.messages('U_MANAGER').find((m) => m.text.startsWith('Your kudos was delivered')));
    expect(sim.messages('U_MANAGER').filter((m) => m.text.startsWith('Your kudos'))).toHaveLength(1);
  }, 180_000);

  it('a second instance taking over half-way (the first lost its lease) places nothing twice', async () => {
    // 300 people, three orders (creating a thousand address-book recipients is the first test's cost).
    seedBigGroup(e2e.stack.sim, 300);
    // Each order call is slow, so that the send is surely between parts when its lease is taken.
    await e2e.emulator.faults({ method: 'POST', path: 'choice-cards', delayMs: 500, count: 3 });
    const recorded = await submitSendForm(e2e.stack, e2e.db, 'U_MANAGER', bigGroupForm());
    await eventually(async () => (await row(recorded.id)).partsPlaced >= 1, 60_000);
    // The first instance's lease is gone (as when its process dies); another instance resumes the send.
    await e2e.db
      .update(kudos)
      .set({ claimedBy: 'worker-dead', claimedUntil: new Date(Date.now() - 1000) })
      .where(eq(kudos.id, recorded.id));
    await e2e.stack.startAnotherApp({ tuning: { worker: { pollIntervalMs: 50 } } });

    const placed = await eventually(async () => {
      const current = await row(recorded.id);
      return current.status === 'placed' && current.notifiedAt ? current : undefined;
    }, 100_000);
    expect(placed.partsPlaced).toBe(3);
    expectOrdersOnce(await emulatorOrders(), placed, 3);
    await completeAll();
    const emails = await cardEmails();
    expect(emails.size).toBe(300);
    expect([...emails.values()].every((n) => n === 1)).toBe(true);
    expect(
      e2e.stack.sim.messages('U_MANAGER').filter((m) => /^Your kudos (is on its way|was delivered)/.test(m.text)),
    ).toHaveLength(1);
    expect(e2e.stack.sim.messages('C_KUDOS').filter((m) => m.text.startsWith('Kudos from'))).toHaveLength(1);
  }, 180_000);

  it('a part refused half-way (the daily limit) leaves the send partial: the sender is told exactly who got a card', async () => {
    seedBigGroup(e2e.stack.sim, 250);
    // $5 x 250 = $1,250 against a $1,000 daily limit: two orders of $500 fit, the third ($250) does not.
    await e2e.emulator.setLimits({ dailyLimitUsd: 1000, monthlyLimitUsd: 50000 });
    const recorded = await submitSendForm(e2e.stack, e2e.db, 'U_MANAGER', bigGroupForm('5'));
    const settled = await eventually(async () => {
      const current = await row(recorded.id);
      return current.notifiedAt && current.status !== 'pending' ? current : undefined;
    }, 100_000);
    expect(settled.status).toBe('partial');
    expect(settled.partsPlaced).toBe(2);
    expect(settled.costCents).toBe(200 * 500);
    expect(await emulatorOrders()).toHaveLength(2);
    const notice = await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.messages('U_MANAGER').find((m) => m.text.includes('went out to')),
    );
    expect(notice.text).toContain('200 of 250 people');
    expect(notice.text).toContain('the other 50 were not sent');
    expect(notice.text).toContain('order 3 of 3 was refused');
    expect(notice.text).toContain('daily spending limit');
    const announcement = e2e.stack.sim.messages('C_KUDOS').filter((m) => m.text.startsWith('Kudos from'));
    expect(announcement).toHaveLength(1);
    expect(JSON.stringify(announcement[0]!.blocks)).toContain('(200 people)');
    await completeAll();
    expect((await cardEmails()).size).toBe(200);
  }, 180_000);

  describe('a part that turns up later (its answer was lost): the channel announcement follows', () => {
    const announcements = () => e2e.stack.sim.messages('C_KUDOS').filter((m) => m.text.startsWith('Kudos from'));
    const names = (m: Message, text: string) => JSON.stringify(m.blocks).includes(text);
    const edits = (m: Message) =>
      e2e.stack.sim.calls.filter(
        (c) => c.method === 'chat.update' && c.ok && c.args.channel === m.channel && c.args.ts === m.ts,
      ).length;
    /** Webhook events stored and not processed yet. */
    const unprocessedEvents = async () =>
      (await e2e.db.select().from(webhookEvents).where(isNull(webhookEvents.processedAt))).length;

    /** A send to the 250-person group that the daily limit cuts short after `partsFit` parts of $500, settled and told. */
    async function cutShortSend(partsFit: number): Promise<KudosRow> {
      seedBigGroup(e2e.stack.sim, 250);
      await e2e.emulator.setLimits({ dailyLimitUsd: Math.max(100, partsFit * 500), monthlyLimitUsd: 50000 });
      expect(await e2e.emulator.registerWebhook(`${e2e.stack.app.url}/webhooks/rewards`)).toEqual({ active: true });
      const recorded = await submitSendForm(e2e.stack, e2e.db, 'U_MANAGER', bigGroupForm('5'));
      return eventually(async () => {
        const current = await row(recorded.id);
        return current.notifiedAt && current.status !== 'pending' ? current : undefined;
      }, 100_000);
    }

    /**
     * Part `part` (1-based) of the send, created in the Rewards API under its own key, as the try
     * whose answer was lost had created it; the emulator's webhook sender tells the app (order.created).
     */
    async function partTurnsUp(sent: KudosRow, part: number) {
      await e2e.emulator.setLimits({ dailyLimitUsd: 50000, monthlyLimitUsd: 50000 });
      const { order } = await e2e.stack.app.rewards.orders.createChoice(
        {
          productId: 'CC-THANK-YOU',
          recipients: sent.recipients
            .slice((part - 1) * 100, part * 100)
            .map((r) => ({ email: r.email, amount: '5.00' })),
          emailSetting: { senderName: sent.senderName, subject: 'Thanks' },
        },
        { idempotencyKey: `${sent.idempotencyKey}-${part}` },
      );
      return order;
    }

    it('a send told partial (200 of 250) whose last part turns up: its announcement is edited once to name all 250, never posted again; a replayed webhook changes nothing', async () => {
      const partial = await cutShortSend(2);
      expect(partial.status).toBe('partial');
      expect(partial.partsPlaced).toBe(2);
      const announcement = await e2e.stack.sim.waitFor(() => announcements()[0]);
      expect(names(announcement, '@everyone-big (200 people)')).toBe(true);

      const last = await partTurnsUp(partial, 3);
      const placed = await eventually(async () => {
        const current = await row(partial.id);
        return current.status === 'placed' && current.notifiedAt ? current : undefined;
      }, 30_000);
      expect(placed.orderIds).toEqual([...partial.orderIds, last.orderId]);
      const edited = await e2e.stack.sim.waitFor(
        () => announcements().find((m) => m.ts === announcement.ts && names(m, '@everyone-big (250 people)')),
        15_000,
      );
      expect(edited.edited).toBeDefined();
      expect(announcements()).toHaveLength(1);
      expect(edits(announcement)).toBe(1);
      // The sender hears it once too.
      expect(
        e2e.stack.sim.messages('U_MANAGER').filter((m) => /^Your kudos (is on its way|was delivered)/.test(m.text)),
      ).toHaveLength(1);

      // The same order.created again, signed: a redelivery of the event (same id) and another event
      // for the same order (as the order poller finds it): the send and its announcement stay as they are.
      const created = () =>
        envelope('order.created', {
          orderId: last.orderId,
          cardType: 'CHOICE_CARD',
          totalAmount: '250.00',
          currency: 'USD',
          recipientCount: 50,
        });
      const event = created();
      for (const body of [event, event, created()]) {
        expect((await postWebhook(e2e.stack.app.url, body, signed(body))).status).toBe(200);
      }
      await eventually(async () => (await unprocessedEvents()) === 0);
      const after = await row(partial.id);
      expect(after).toMatchObject({
        status: 'placed',
        partsPlaced: 3,
        orderIds: placed.orderIds,
        costCents: placed.costCents,
      });
      expect(announcements()).toHaveLength(1);
      expect(edits(announcement)).toBe(1);
      expect(
        e2e.stack.sim.messages('U_MANAGER').filter((m) => /^Your kudos (is on its way|was delivered)/.test(m.text)),
      ).toHaveLength(1);
    }, 180_000);

    it('a send told failed (nothing placed) whose first part turns up: announced then, for the 100 people it reached', async () => {
      const failed = await cutShortSend(0);
      expect(failed.status).toBe('failed');
      expect(announcements()).toHaveLength(0);

      await partTurnsUp(failed, 1);
      await eventually(async () => {
        const current = await row(failed.id);
        return current.status === 'partial' && current.notifiedAt ? current : undefined;
      }, 30_000);
      const announcement = await e2e.stack.sim.waitFor(() => announcements()[0], 15_000);
      expect(names(announcement, '@everyone-big (100 people)')).toBe(true);
      expect(announcements()).toHaveLength(1);
      expect(edits(announcement)).toBe(0);
    }, 180_000);
  });

  it('/kudos scheduled cancels a scheduled big send: every one of its orders is cancelled, the send once', async () => {
    seedBigGroup(e2e.stack.sim, 250);
    const values = sendModalValues({
      group: { value: 'slack:S_BIG', text: '@everyone-big' },
      design: 'CC-THANK-YOU',
      amount: '5',
      schedule: wallTimeIn('America/New_York', 120),
    });
    const recorded = await submitSendForm(e2e.stack, e2e.db, 'U_MANAGER', values);
    const booked = await eventually(async () => {
      const current = await row(recorded.id);
      return current.status === 'scheduled' && current.notifiedAt ? current : undefined;
    }, 100_000);
    expect(booked.orderIds).toHaveLength(3);
    await e2e.stack.sim.slashCommand('U_MANAGER', 'scheduled', 'C_GENERAL');
    const list = e2e.stack.sim
      .messages('C_GENERAL')
      .filter((m) => m.ephemeral && m.visible_to === 'U_MANAGER')
      .at(-1)!;
    expect(JSON.stringify(list.blocks)).toContain('@everyone-big (250 people)');
    await e2e.stack.sim.clickButton({ channel: list.channel, ts: list.ts }, 'scheduled_cancel', 'U_MANAGER', booked.id);
    const canceled = await eventually(async () =>
      (await row(recorded.id)).status === 'canceled' ? row(recorded.id) : undefined,
    );
    expect(canceled.canceledBy).toBe('U_MANAGER');
    for (const orderId of booked.orderIds)
      expect((await e2e.stack.app.rewards.orders.get(orderId)).status).toBe('CANCELED');
  }, 180_000);

  it('a group over the cap is refused in the form, with the cap and the group size', async () => {
    seedBigGroup(e2e.stack.sim);
    const more = e2e.stack.sim.workspace.usergroups.find((g) => g.id === 'S_BIG')!;
    for (let i = 0; i < 1001; i++) more.users.push(`U_EXTRA${i}`);
    await e2e.stack.sim.slashCommand('U_MANAGER', '', 'C_GENERAL');
    const view = await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.openViews('U_MANAGER').find((v) => v.callback_id === 'kudos_send'),
    );
    await e2e.stack.sim.submitView(view.id, bigGroupForm(), 'U_MANAGER');
    expect(JSON.stringify(e2e.stack.sim.viewErrors(view.id))).toContain(
      'At most 2,000 people per send (this one has 2,001)',
    );
    expect(await e2e.db.select().from(kudos)).toHaveLength(0);
  });
});
