// App Home by role, through the real routing: app_home_opened and every Home button are signed
// requests from the Slack simulator into the app; the Rewards emulator holds the orders.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import {
  bouncedRecipients,
  healthWarnings,
  kudos,
  limitIncreaseRequests,
  type NewKudosRow,
  statsOptOuts,
  topUpRequests,
} from '../../../src/db/schema/index.js';
import type { View } from '../../../src/simulator/slack.js';
import {
  eventually,
  postSignedPayload,
  sendModalValues,
  submitSendForm,
  useAppPerTest,
  wallTimeIn,
} from '../../support/app.js';
import { CHECKS_RUN_BY_THE_TEST, runOrderChecksNow } from '../../support/order-checks.js';
import { topUpValues } from '../../support/top-up-form.js';

const ROLES = {
  KUDOS_NOTIFY_CHANNEL: 'C_KUDOS',
  KUDOS_APPROVERS: 'U_APPROVER',
  KUDOS_ADMINS: 'U_ADMIN',
  KUDOS_APPROVAL_THRESHOLD: '100',
};

const e2e = useAppPerTest({
  emulatorEnv: { EMULATOR_BACKGROUND: 'off' },
  app: { tuning: { home: { pollIntervalMs: 100 } } },
  startEach: false,
});

async function start(env: Record<string, string> = {}) {
  await e2e.start({ env: { ...ROLES, ...env } });
}

const textOf = (view: View | undefined) => JSON.stringify(view?.blocks ?? []);

/** The user opens App Home; resolves with the Home once it shows `expected`. */
async function openHome(userId: string, expected: string | RegExp = /Give kudos/): Promise<View> {
  const before = e2e.stack.sim.homeView(userId);
  await e2e.stack.sim.sendEvent({
    type: 'app_home_opened',
    user: userId,
    channel: `D_${userId}`,
    tab: 'home',
    ...(before ? { view: before } : {}),
  });
  return homeShowing(userId, expected);
}

function homeShowing(userId: string, expected: string | RegExp): Promise<View> {
  return e2e.stack.sim.waitFor(() => {
    const view = e2e.stack.sim.homeView(userId);
    const text = textOf(view);
    return view && (typeof expected === 'string' ? text.includes(expected) : expected.test(text)) ? view : undefined;
  });
}

async function send(userId: string, users: string[], amount: string, schedule?: { date: string; time: string }) {
  return submitSendForm(
    e2e.stack,
    e2e.db,
    userId,
    sendModalValues({
      users,
      design: 'CC-THANK-YOU',
      amount,
      message: 'Thanks for the launch',
      ...(schedule ? { schedule } : {}),
    }),
  );
}

/** A click on an old copy of a Home view (Slack sends the view as the client last rendered it). */
async function clickOnOldView(userId: string, view: View, actionId: string, value: string) {
  const old = structuredClone(view);
  await postSignedPayload(e2e.stack.app.url, {
    type: 'block_actions',
    team: { id: 'T0KUDOS', domain: 'kudos-demo' },
    user: { id: userId, username: userId.toLowerCase(), name: userId.toLowerCase(), team_id: 'T0KUDOS' },
    api_app_id: 'A0KUDOS',
    token: 'x',
    trigger_id: '1.2.abc',
    container: { type: 'view', view_id: old.id },
    view: old,
    actions: [{ type: 'button', action_id: actionId, block_id: 'old', value, action_ts: '1' }],
  });
}

const row = async (id: string) => (await e2e.db.select().from(kudos).where(eq(kudos.id, id)))[0]!;

describe('App Home by role', () => {
  it('everyone: a Give kudos button, what they received and sent, and empty states; no approvals, balance or admin tools', async () => {
    await start();
    const sent = await send('U_MANAGER', ['U_EMP1'], '25');
    await eventually(async () => (await row(sent.id)).status === 'placed');

    const home = await openHome('U_EMP1', '<@U_MANAGER> sent you');
    const text = textOf(home);
    expect(text).toContain('Give kudos');
    expect(text).toContain('Kudos you received');
    expect(text).toContain('$25 Thank You card');
    expect(text).toContain('Thanks for the launch');
    // Nothing sent yet: the empty state says what to do.
    expect(text).toContain('None yet. Press *Give kudos* to thank someone.');
    expect(text).toContain('Nothing scheduled. To have kudos go out later, pick *Schedule for later*');
    for (const hidden of ['approval_approve', 'Balance', 'Admin', 'home_open_settings', 'Waiting for your approval'])
      expect(text).not.toContain(hidden);

    const sender = await openHome('U_MANAGER', 'Kudos you sent');
    expect(textOf(sender)).toMatch(/A \$25 Thank You card to <@U_EMP1> · .*(On its way|Delivered)/);
    expect(textOf(sender)).not.toContain('Balance');
  });

  it('reads as sentences: each card and its people, amounts "each" only for several, times in the reader’s zone, no order ids', async () => {
    await start({ KUDOS_NOTIFY_CHANNEL: '' });
    // $45 in all: under the approval threshold, whatever went to the same people.
    const many = await send('U_MANAGER', ['U_EMP1', 'U_EMP2', 'U_EMP3'], '10');
    const one = await send('U_MANAGER', ['U_EMP1'], '5');
    const later = await send('U_MANAGER', ['U_EMP2', 'U_EMP3'], '5', wallTimeIn('America/New_York', 120));
    const placed = await eventually(async () => {
      const rows = await Promise.all([many, one, later].map((k) => row(k.id)));
      return rows.every((r) => r.orderId) ? rows : undefined;
    });

    const sender = textOf(await openHome('U_MANAGER', 'each to <@U_EMP1>, <@U_EMP2> and <@U_EMP3>'));
    expect(sender).toContain('A $10 Thank You card each to <@U_EMP1>, <@U_EMP2> and <@U_EMP3> · <!date^');
    expect(sender).toContain('A $5 Thank You card to <@U_EMP1> · <!date^');
    expect(sender).not.toContain('$5 Thank You card each to <@U_EMP1>');
    // The scheduled send, in the reader's own zone (Slack's date token), in its list and in the sent list.
    expect(sender).toMatch(
      /A \$5 Thank You card each to <@U_EMP2> and <@U_EMP3> · \*<!date\^\d+\^\{date_short_pretty\} at \{time\}\|/,
    );
    expect(sender).toMatch(/:calendar: Scheduled for <!date\^\d+\^/);
    for (const r of placed) expect(sender).not.toContain(r.orderId!);
    for (const word of ['Placed', 'COMPLETE', 'CC-THANK-YOU', ' UTC ', '(total']) expect(sender).not.toContain(word);

    const received = textOf(await openHome('U_EMP1', '<@U_MANAGER> sent you a $10 Thank You card'));
    expect(received).toContain('<@U_MANAGER> sent you a $5 Thank You card · <!date^');
    expect(received).not.toContain(' each');
    for (const r of placed) expect(received).not.toContain(r.orderId!);
  });

  it('Give kudos on Home opens the send modal', async () => {
    await start();
    const home = await openHome('U_EMP2');
    await e2e.stack.sim.clickButton({ viewId: home.id }, 'home_open_send', 'U_EMP2');
    await e2e.stack.sim.waitFor(() => e2e.stack.sim.openViews('U_EMP2').find((v) => v.callback_id === 'kudos_send'));
  });

  it('senders: Cancel on a scheduled send cancels the order at the API; a stale Cancel gets a clear answer', async () => {
    await start({ KUDOS_NOTIFY_CHANNEL: '' });
    const scheduled = await send('U_MANAGER', ['U_EMP1'], '20', wallTimeIn('America/New_York', 120));
    const placed = await eventually(async () => {
      const r = await row(scheduled.id);
      return r.status === 'scheduled' && r.orderId ? r : undefined;
    });
    const home = structuredClone(await openHome('U_MANAGER', 'home_cancel'));
    expect(textOf(home)).toContain('Your scheduled kudos');

    await e2e.stack.sim.clickButton({ viewId: home.id }, 'home_cancel', 'U_MANAGER', placed.id);
    const after = await homeShowing('U_MANAGER', 'Cancelled your kudos');
    expect((await row(placed.id)).status).toBe('canceled');
    const order = (await e2e.stack.app.rewards.orders.get(placed.orderId!)) as { status?: string };
    expect(order.status).toBe('CANCELED');
    expect(textOf(after)).not.toContain('home_cancel');

    // The same button on an older copy of Home: nothing happens twice, and Home says why.
    await clickOnOldView('U_MANAGER', home, 'home_cancel', placed.id);
    await homeShowing('U_MANAGER', 'Already cancelled');
  });

  it('approvers: Approve on Home places the order once; a non-approver pressing Approve on an old Home changes nothing', async () => {
    await start();
    const request = await send('U_MANAGER', ['U_EMP1'], '150');
    await eventually(async () => (await row(request.id)).status === 'awaiting_approval');

    // Erin is not an approver: her Home never shows the request.
    expect(textOf(await openHome('U_EMP2'))).not.toContain('approval_approve');

    const home = structuredClone(await openHome('U_APPROVER', 'approval_approve'));
    expect(textOf(home)).toContain('Waiting for your approval');
    expect(textOf(home)).toContain('<@U_MANAGER> wants to send a $150 Thank You card to <@U_EMP1> · ');

    // Erin presses Approve on an old Home view that showed it (say, from before she stopped approving).
    await clickOnOldView('U_EMP2', home, 'approval_approve', request.id);
    await homeShowing('U_EMP2', 'Only approvers can approve');
    expect((await row(request.id)).status).toBe('awaiting_approval');

    await e2e.stack.sim.clickButton({ viewId: home.id }, 'approval_approve', 'U_APPROVER', request.id);
    const after = await homeShowing('U_APPROVER', 'Approved');
    expect(textOf(after)).not.toContain('approval_approve');
    const placed = await eventually(async () => {
      const r = await row(request.id);
      return r.status === 'placed' && r.orderId ? r : undefined;
    });
    const orders = await e2e.stack.app.rewards.orders.list({ clientOrderId: placed.idempotencyKey });
    expect(orders.data).toHaveLength(1);

    // Pressing Approve again on the old view: already decided, and no second order.
    await clickOnOldView('U_APPROVER', home, 'approval_approve', request.id);
    await homeShowing('U_APPROVER', 'already approved');
    expect((await e2e.stack.app.rewards.orders.list({ clientOrderId: placed.idempotencyKey })).data).toHaveLength(1);
  });

  it('approvers: Reject on Home asks for a reason, decides once, updates the request’s other copy and the sender’s Home', async () => {
    await start();
    const request = await send('U_MANAGER', ['U_EMP1'], '150');
    await eventually(async () => (await row(request.id)).status === 'awaiting_approval');
    // The approver's DM copy of the request (approvers get DMs when there is no approval channel).
    const dm = await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.messages('U_APPROVER').find((m) => JSON.stringify(m.blocks ?? []).includes('approval_reject')),
    );
    const sender = await openHome('U_MANAGER', 'Waiting for approval');
    const home = structuredClone(await openHome('U_APPROVER', 'approval_reject'));

    await e2e.stack.sim.clickButton({ viewId: home.id }, 'approval_reject', 'U_APPROVER', request.id);
    const modal = await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.openViews('U_APPROVER').find((v) => v.callback_id === 'approval_reject_modal'),
    );
    await e2e.stack.sim.submitView(
      modal.id,
      { approval_reject_reason: { reason: { type: 'plain_text_input', value: 'Over budget this quarter' } } },
      'U_APPROVER',
    );
    await eventually(async () => (await row(request.id)).status === 'rejected');
    // The other copy says so, the request leaves the approver's Home, the sender's Home shows the reason.
    await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim
        .messages('U_APPROVER')
        .find((m) => m.ts === dm.ts && JSON.stringify(m.blocks ?? []).includes('Rejected')),
    );
    // Re-published without being opened again (a decided request concerns the approvers' Homes).
    await homeShowing('U_APPROVER', 'Nothing to decide');
    const after = await homeShowing('U_MANAGER', 'Over budget this quarter');
    expect(after.id).toBe(sender.id);
    expect(textOf(after)).toContain(':x: Rejected');

    // Reject again on the old Home view: already decided, said on Home, no modal.
    await clickOnOldView('U_APPROVER', home, 'approval_reject', request.id);
    await homeShowing('U_APPROVER', 'already rejected');
    expect(e2e.stack.sim.openViews('U_APPROVER')).toHaveLength(0);
  });

  it('senders: a scheduled send inside the 10-minute window shows why it can’t be cancelled, and an old Cancel for it is refused on Home', async () => {
    await start({ KUDOS_NOTIFY_CHANNEL: '' });
    const [soon] = await e2e.db
      .insert(kudos)
      .values({
        teamId: 'T0KUDOS',
        senderUserId: 'U_MANAGER',
        senderName: 'Mo',
        recipients: [{ slackUserId: 'U_EMP1', recipientId: null, email: 'eli@example.com', name: 'Eli' }],
        recipientCount: 1,
        productId: 'CC-THANK-YOU',
        designName: 'Thank You',
        amountCents: 2000,
        totalCents: 2000,
        status: 'scheduled',
        orderId: 'ord-soon',
        scheduledAt: new Date(Date.now() + 5 * 60_000),
        scheduleTimezone: 'UTC',
        notifiedAt: new Date(),
      })
      .returning();
    const home = await openHome('U_MANAGER', 'Your scheduled kudos');
    expect(textOf(home)).toContain('Can’t be cancelled any more: it goes out in less than 10 minutes.');
    expect(textOf(home)).not.toContain('home_cancel');
    await clickOnOldView('U_MANAGER', home, 'home_cancel', soon!.id);
    await homeShowing('U_MANAGER', ':warning:');
    expect((await row(soon!.id)).status).toBe('scheduled');
  });

  it('admins: balance, this month’s spend, Settings and the audit export; others never see them', async () => {
    await start();
    const sent = await send('U_MANAGER', ['U_EMP1'], '40');
    await eventually(async () => (await row(sent.id)).status === 'placed');
    const home = await openHome('U_ADMIN', 'Balance');
    const text = textOf(home);
    expect(text).toMatch(/\*Balance:\* \$[\d,.]+ available/);
    expect(text).toContain('*This month:* $40 in 1 send');
    expect(text).toContain('approval above $100');
    expect(text).toContain('home_open_settings');
    expect(text).toContain('/kudos audit csv');
    expect(text).toContain('All good: no warnings');

    await e2e.stack.sim.clickButton({ viewId: home.id }, 'home_open_settings', 'U_ADMIN');
    await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.openViews('U_ADMIN').find((v) => v.callback_id === 'kudos_settings'),
    );
  });
});

describe('App Home: the money section for admins', () => {
  it('shows the balance, the threshold and the limits with their use after the admin section; its buttons open the forms; others never see it', async () => {
    await start({ KUDOS_LOW_BALANCE_THRESHOLD: '1000' });
    const { rememberLimits } = await import('../../../src/domain/finance/spending-limits.js');
    await rememberLimits(
      e2e.db,
      { teamId: 'T0KUDOS', enterpriseId: null },
      { dailyCents: 500_000, monthlyCents: 5_000_000 },
      'test',
    );
    const sent = await send('U_MANAGER', ['U_EMP1'], '40');
    await eventually(async () => (await row(sent.id)).status === 'placed');
    const home = await openHome('U_ADMIN', 'Money');
    const text = textOf(home);
    expect(text).toMatch(/Rewards balance:\* \$[\d,.]+ available/);
    expect(text).toContain('alert under $1,000');
    expect(text).toMatch(/Daily limit\* \$5,000: \$40 used today/);
    expect(text).toMatch(/Monthly limit\* \$50,000: \$40 used this month/);
    expect(text).toContain('finance_topup_open');
    expect(text).toContain('finance_limits_open');
    // The money section comes after the admin section, as its own section.
    expect(text.indexOf('"Money"')).toBeGreaterThan(text.indexOf('"Admin"'));

    await e2e.stack.sim.clickButton({ viewId: home.id }, 'finance_topup_open', 'U_ADMIN');
    await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.openViews('U_ADMIN').find((v) => v.callback_id === 'finance_topup'),
    );
    await e2e.stack.sim.clickButton({ viewId: home.id }, 'finance_limits_open', 'U_ADMIN');
    const limits = await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.openViews('U_ADMIN').find((v) => v.callback_id === 'finance_limits'),
    );
    expect(JSON.stringify(limits.blocks)).toContain('5000');

    const other = textOf(await openHome('U_MANAGER'));
    expect(other).not.toContain('Money');
    expect(other).not.toContain('finance_topup_open');
  });
});

describe('App Home: the money section stays current', () => {
  const MONEY = { KUDOS_ADMINS: 'U_ADMIN,U_APPROVER', KUDOS_ADMIN_CHANNEL: 'C_ADMIN' };
  const text = (value: string) => ({ value: { type: 'plain_text_input', value } });
  const publishes = () => e2e.stack.sim.calls.filter((c) => c.method === 'views.publish').length;

  it('a top-up shows on every admin’s Home as it moves: waiting, pending at the API, then completed once the ledger shows it, without anyone opening Home again', async () => {
    await start(MONEY);
    const ada = await openHome('U_ADMIN', 'Money');
    const arjun = await openHome('U_APPROVER', 'Money');

    await e2e.stack.sim.clickButton({ viewId: ada.id }, 'finance_topup_open', 'U_ADMIN');
    const form = await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.openViews('U_ADMIN').find((v) => v.callback_id === 'finance_topup'),
    );
    await e2e.stack.sim.submitView(form.id, topUpValues('2500'), 'U_ADMIN');
    // Both admins' Homes show the request waiting for a second admin.
    await homeShowing('U_APPROVER', /\$2,500 by <@U_ADMIN>: waiting for a second admin/);
    await homeShowing('U_ADMIN', /\$2,500 by <@U_ADMIN>: waiting for a second admin/);

    const request = await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim
        .messages('C_ADMIN')
        .find((m) => !m.ephemeral && JSON.stringify(m.blocks ?? []).includes('finance_topup_approve')),
    );
    await e2e.stack.sim.clickButton(
      { channel: request.channel, ts: request.ts },
      'finance_topup_approve',
      'U_APPROVER',
    );
    const pending = await homeShowing(
      'U_ADMIN',
      /\$2,500 by <@U_ADMIN>: requested, waiting for the bank transfer to be confirmed/,
    );
    expect(pending.id).toBe(ada.id);
    const [row] = await e2e.db.select().from(topUpRequests);
    expect(row?.fundingNo).toBeTruthy();
    // The provider's reference is for admins who look it up: one details line, not in the list.
    expect(textOf(pending)).toContain(`Details: funding references $2,500: \`${row!.fundingNo}\``);
    expect(textOf(pending)).not.toMatch(new RegExp(`confirmed[^\\n"]*${row!.fundingNo}`));

    // The operator confirms the wire; the finance sweep reads it in the ledger.
    await e2e.emulator.processTopUp(row!.fundingNo!, 'approve');
    await e2e.stack.app.finance.sweep();
    for (const [user, view] of [
      ['U_ADMIN', ada],
      ['U_APPROVER', arjun],
    ] as const) {
      const completed = await homeShowing(
        user,
        /Top-ups settled in the last 7 days\*\\n• \$2,500 by <@U_ADMIN>: completed/,
      );
      expect(completed.id).toBe(view.id);
      expect(textOf(completed)).not.toContain('Top-ups not completed yet');
    }
    expect(e2e.stack.sim.homeView('U_MANAGER')).toBeUndefined();
  });

  it('a limit-increase request shows as pending review on the admins’ Homes', async () => {
    await start(MONEY);
    await e2e.emulator.setLimits({ dailyLimitUsd: 5000, monthlyLimitUsd: 50000 });
    const ada = await openHome('U_ADMIN', 'Money');
    await openHome('U_APPROVER', 'Money');
    await e2e.stack.sim.clickButton({ viewId: ada.id }, 'finance_limits_open', 'U_ADMIN');
    const form = await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.openViews('U_ADMIN').find((v) => v.callback_id === 'finance_limits'),
    );
    await e2e.stack.sim.submitView(
      form.id,
      {
        limits_current_daily: text('5000'),
        limits_current_monthly: text('50000'),
        limits_requested_daily: text('8000'),
        limits_requested_monthly: text('80000'),
      },
      'U_ADMIN',
    );
    await eventually(async () =>
      (await e2e.db.select().from(limitIncreaseRequests)).find((r) => r.status === 'pending_review'),
    );
    const arjun = await homeShowing(
      'U_APPROVER',
      /Limit increase pending review since .*\$8,000 a day, \$80,000 a month/,
    );
    // The limits the API just accepted as current are shown too.
    expect(textOf(arjun)).toMatch(/Daily limit\* \$5,000/);
  });

  it('many money changes at once make one re-publish per admin, not one per change', async () => {
    await e2e.start({ env: { ...ROLES, ...MONEY }, app: { tuning: { home: { enabled: false } } } });
    await openHome('U_ADMIN', 'Money');
    await openHome('U_APPROVER', 'Money');
    await openHome('U_MANAGER');
    await e2e.stack.app.home.pollOnce();
    const before = publishes();
    const billing = {
      companyName: 'Acme',
      phoneNumber: '1',
      billingAddress: '1 Main St',
      city: 'X',
      state: 'IL',
      country: 'US',
      zipCode: '1',
      ein: '1',
    };
    await e2e.db.insert(topUpRequests).values(
      Array.from({ length: 30 }, (_, i) => ({
        teamId: 'T0KUDOS',
        requesterUserId: 'U_ADMIN',
        amountCents: 10_000 + i * 100,
        billing,
      })),
    );
    await e2e.stack.app.home.pollOnce();
    // Two admins, two publishes (the manager's Home shows no money and is left alone).
    expect(publishes() - before).toBe(2);
    expect(textOf(e2e.stack.sim.homeView('U_APPROVER'))).toContain('$100 by <@U_ADMIN>: waiting for a second admin');
    await e2e.stack.app.home.pollOnce();
    expect(publishes() - before).toBe(2);
  });
});

describe('App Home: stats and bounces', () => {
  it('shows the month’s stats, the person’s own numbers, and a switch to leave or rejoin the leaderboard', async () => {
    await start();
    const sent = await send('U_MANAGER', ['U_EMP1'], '25');
    await eventually(async () => (await row(sent.id)).status === 'placed');
    const home = await openHome('U_EMP1', 'home_stats_optout');
    const text = textOf(home);
    expect(text).toMatch(/Kudos in \w+ \d{4}/);
    expect(text).toContain('*You:* 0 given · 1 received · 0 +1s on them');
    expect(text).toContain('<@U_EMP1> · 1');
    expect(text).not.toContain('($25)'); // counts, not amounts

    // A +1 on the announcement re-publishes the Homes of that kudos' people, without opening them again.
    const announced = await eventually(async () => {
      const r = await row(sent.id);
      return r.announcementTs ? r : undefined;
    });
    await e2e.stack.sim.sendEvent({
      type: 'reaction_added',
      user: 'U_EMP3',
      reaction: 'gift',
      item: { type: 'message', channel: announced.announcementChannel, ts: announced.announcementTs },
      item_user: 'U_KUDOSBOT',
    });
    const plusOne = await homeShowing('U_EMP1', '1 received · 1 +1s on them');
    expect(plusOne.id).toBe(home.id);

    await e2e.stack.sim.clickButton({ viewId: home.id }, 'home_stats_optout', 'U_EMP1');
    // The click's own publish carries the line; a re-publish already under way (the +1's, the
    // order's completion) may show the new button a moment before it.
    const after = await homeShowing('U_EMP1', 'you won’t appear on the leaderboard');
    expect(textOf(after)).toContain('home_stats_optin');
    expect(textOf(after)).not.toContain('<@U_EMP1> · 1');
    expect(await e2e.db.select().from(statsOptOuts)).toHaveLength(1);
    // Others no longer see them either; amounts appear once an admin turns them on.
    await e2e.stack.app.settings.update({ teamId: 'T0KUDOS' }, 'U_ADMIN', { leaderboardAmounts: true });
    const manager = textOf(await openHome('U_MANAGER', 'home_stats_optout'));
    expect(manager).toContain('<@U_MANAGER> · 1 ($25)');
    expect(manager).not.toContain('<@U_EMP1> · 1');

    // And back on the leaderboard with the other button.
    await e2e.stack.sim.clickButton({ viewId: after.id }, 'home_stats_optin', 'U_EMP1');
    const back = await homeShowing('U_EMP1', 'Welcome back');
    expect(textOf(back)).toContain('home_stats_optout');
    expect(await e2e.db.select().from(statsOptOuts)).toHaveLength(0);
  });

  it('Fix address and resend on Home: opens the form for the sender; a stale or someone else’s click gets a clear answer on Home', async () => {
    await start();
    const [sent] = await e2e.db
      .insert(kudos)
      .values({
        teamId: 'T0KUDOS',
        senderUserId: 'U_MANAGER',
        senderName: 'Mo',
        recipients: [{ slackUserId: 'U_EMP1', recipientId: null, email: 'eli@exmaple.com', name: 'Eli' }],
        recipientCount: 1,
        productId: 'CC-THANK-YOU',
        designName: 'Thank You',
        amountCents: 2500,
        totalCents: 2500,
        status: 'placed',
        orderId: 'ord-bounce',
        notifiedAt: new Date(),
      })
      .returning();
    const [bounce] = await e2e.db
      .insert(bouncedRecipients)
      .values({
        teamId: 'T0KUDOS',
        kudosId: sent!.id,
        orderId: 'ord-bounce',
        senderUserId: 'U_MANAGER',
        email: 'eli@exmaple.com',
        name: 'Eli',
        slackUserId: 'U_EMP1',
      })
      .returning();
    const home = structuredClone(await openHome('U_MANAGER', 'bounce_fix_open'));
    expect(textOf(home)).toContain('1 card bounced');

    await e2e.stack.sim.clickButton({ viewId: home.id }, 'bounce_fix_open', 'U_MANAGER', bounce!.id);
    await e2e.stack.sim.waitFor(() => e2e.stack.sim.openViews('U_MANAGER').find((v) => v.callback_id === 'bounce_fix'));

    // Someone else presses it on a copy of that Home: refused, on their own Home.
    await clickOnOldView('U_EMP2', home, 'bounce_fix_open', bounce!.id);
    await homeShowing('U_EMP2', 'Only the sender of these kudos');

    // Already resent meanwhile (from the DM, or another device): the old button says so.
    await e2e.db
      .update(bouncedRecipients)
      .set({ status: 'resent', correctedEmail: 'eli@example.com' })
      .where(eq(bouncedRecipients.id, bounce!.id));
    await clickOnOldView('U_MANAGER', home, 'bounce_fix_open', bounce!.id);
    await homeShowing('U_MANAGER', 'Already resent to eli@example.com');
  });
});

describe('App Home with large data', () => {
  it('stays under 100 blocks with thousands of kudos, and pages through them', async () => {
    await start({ KUDOS_APPROVERS: 'U_APPROVER,U_ADMIN' });
    const base = (i: number): NewKudosRow => ({
      teamId: 'T0KUDOS',
      senderUserId: 'U_ADMIN',
      senderName: 'Ada',
      recipients: [{ slackUserId: 'U_EMP1', recipientId: null, email: 'eli@example.com', name: 'Eli' }],
      recipientCount: 1,
      productId: 'CC-THANK-YOU',
      designName: 'Thank You',
      amountCents: 500,
      totalCents: 500,
      message: `note ${i} `.repeat(30),
      status: 'placed',
      orderStatus: 'COMPLETE',
      notifiedAt: new Date(),
      createdAt: new Date(Date.now() - i * 60_000),
    });
    const rows: NewKudosRow[] = [];
    for (let i = 0; i < 1200; i++) rows.push(base(i));
    for (let i = 0; i < 1200; i++)
      rows.push({
        ...base(i),
        senderUserId: 'U_MANAGER',
        recipients: [{ slackUserId: 'U_ADMIN', recipientId: null, email: 'ada@example.com', name: 'Ada' }],
      });
    for (let i = 0; i < 300; i++)
      rows.push({
        ...base(i),
        status: 'scheduled',
        orderId: `ord-${i}`,
        scheduledAt: new Date(Date.now() + (60 + i) * 60_000),
        scheduleTimezone: 'UTC',
      });
    for (let i = 0; i < 300; i++)
      rows.push({
        ...base(i),
        senderUserId: 'U_EMP2',
        status: 'awaiting_approval',
        orderStatus: null,
        totalCents: 50_000,
      });
    for (let i = 0; i < rows.length; i += 500) await e2e.db.insert(kudos).values(rows.slice(i, i + 500));
    // …and many health warnings (the admin section shows at most 8 of them).
    await e2e.db.insert(healthWarnings).values(
      Array.from({ length: 40 }, (_, i) => ({
        teamId: 'T0KUDOS',
        kind: 'channel.unreachable',
        subject: `C_GONE${i}`,
        error: 'not_in_channel',
      })),
    );

    const home = await openHome('U_ADMIN', 'Older');
    expect(home.blocks.length).toBeLessThanOrEqual(100);
    const text = textOf(home);
    expect(text).toContain('Showing 1–5 of 1500'); // sent: 1200 placed + 300 scheduled
    expect(text).toContain('Showing 1–5 of 1200'); // received
    expect(text).toContain('Showing 1–5 of 300'); // scheduled, and approvals
    expect(text).toContain('home_page_received_older');

    await e2e.stack.sim.clickButton({ viewId: home.id }, 'home_page_received_older', 'U_ADMIN');
    const second = await homeShowing('U_ADMIN', 'Showing 6–10 of 1200');
    expect(second.blocks.length).toBeLessThanOrEqual(100);
    expect(textOf(second)).toContain('home_page_received_newer');
  });
});

describe('App Home stays current', () => {
  it('is re-published when its order completes, without being opened again', async () => {
    // The test runs the two loops it is about: the completion check that learns the order is
    // complete (the Rewards API sends no webhook for that), and the Home re-publishing pass.
    await e2e.start({ env: ROLES, app: { tuning: { home: { enabled: false }, webhooks: CHECKS_RUN_BY_THE_TEST } } });
    const sent = await send('U_MANAGER', ['U_EMP1'], '25');
    await eventually(async () => (await row(sent.id)).status === 'placed');
    const home = await openHome('U_EMP1', 'Card on its way');
    const published = e2e.stack.sim.calls.filter((c) => c.method === 'views.publish').length;

    await e2e.emulator.advance(5); // the order goes out and completes at the API
    expect(await runOrderChecksNow(e2e.stack.app, 'C_KUDOS')).toEqual(['complete']);
    await e2e.stack.app.home.pollOnce();
    const updated = e2e.stack.sim.homeView('U_EMP1');
    expect(textOf(updated)).toContain('Card delivered');
    expect(updated!.id).toBe(home.id);
    expect(e2e.stack.sim.calls.filter((c) => c.method === 'views.publish').length).toBeGreaterThan(published);
    // Nobody who never opened Home is published to.
    expect(e2e.stack.sim.homeView('U_EMP2')).toBeUndefined();
  });
});
