// Top-up requests end to end: an admin asks in a modal, a second admin approves with a button (never
// the requester), exactly once even when clicks race on two instances (PostgreSQL), the one API call
// creates one funding request, and the request shows as pending until the ledger shows it processed.
// Top-ups that do not go through: the sandbox (production only), a lost answer, a 5xx, a 4xx, a
// process that died mid-call; never sent twice. Also the ledger command: movements read by source/status and reconciled with Kudos' orders.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { topUpRequests } from '../../../src/db/schema/index.js';
import { kudos, limitIncreaseRequests } from '../../../src/db/schema/index.js';
import {
  blockActionPayload,
  eventually,
  postSignedPayload,
  sendModalValues,
  submitSendForm,
  useAppPerTest,
  viewSubmissionPayload,
} from '../../support/app.js';
import { topUpValues } from '../../support/top-up-form.js';

const ENV = {
  KUDOS_ADMINS: 'U_ADMIN,U_APPROVER',
  KUDOS_ADMIN_CHANNEL: 'C_ADMIN',
  KUDOS_APPROVAL_THRESHOLD: '100000',
};

const t = useAppPerTest({ env: ENV, app: { tuning: { financeSweepMs: 0 } } });

const text = (value: string) => ({ value: { type: 'plain_text_input', value } });

async function openTopUpModal(userId: string) {
  await t.stack.sim.slashCommand(userId, 'topup', 'C_ADMIN');
  return t.stack.sim.waitFor(() => t.stack.sim.openViews(userId).find((v) => v.callback_id === 'finance_topup'));
}

const requestMessage = () =>
  t.stack.sim.messages('C_ADMIN').find((m) => !m.ephemeral && /Top-up request/.test(JSON.stringify(m.blocks ?? [])));

describe('top-up requests', () => {
  it('bad amounts are refused inline; nothing is recorded', async () => {
    const view = await openTopUpModal('U_ADMIN');
    for (const [amount, error] of [
      ['50', /at least \$100/],
      ['-500', /positive/],
      ['250.123', /two decimals/],
      ['9999999999', /more than \$1,000,000/],
    ] as const) {
      await t.stack.sim.submitView(view.id, topUpValues(amount), 'U_ADMIN');
      expect(t.stack.sim.viewErrors(view.id).topup_amount).toMatch(error);
    }
    expect(await t.db.select().from(topUpRequests)).toHaveLength(0);
  });

  it('non-admins cannot ask', async () => {
    const answer = await t.stack.sim.slashCommand('U_MANAGER', 'topup', 'C_GENERAL');
    expect(JSON.stringify(answer.body)).toMatch(/Only Kudos admins/);
  });

  it('a second admin approves once: one funding request, pending until the ledger shows it processed', async () => {
    const other = await t.stack.startAnotherApp();
    const view = await openTopUpModal('U_ADMIN');
    await t.stack.sim.submitView(view.id, topUpValues('2,500.50'), 'U_ADMIN');
    const message = await t.stack.sim.waitFor(() => requestMessage());
    expect(JSON.stringify(message.blocks)).toContain('$2,500.50');
    expect(JSON.stringify(message.blocks)).toContain('finance_topup_approve');
    // Nothing is asked of the API before the approval.
    expect((await t.stack.app.rewards.balance.get()).pendingBalance.amount).toBe('0.00');

    // The requester cannot approve their own request.
    await t.stack.sim.clickButton({ channel: message.channel, ts: message.ts }, 'finance_topup_approve', 'U_ADMIN');
    await t.stack.sim.waitFor(() =>
      t.stack.sim
        .messages('C_ADMIN')
        .find((m) => m.ephemeral && m.visible_to === 'U_ADMIN' && /another admin/.test(m.text)),
    );
    expect((await t.db.select().from(topUpRequests))[0]?.status).toBe('awaiting_approval');

    // Two clicks at once, one through each instance: one decision, one API call.
    const [row] = await t.db.select().from(topUpRequests);
    const click = (appUrl: string) => postSignedPayload(appUrl, approveClick(row!.id, message));
    await Promise.all([
      click(t.stack.app.url),
      click(other.url),
      t.stack.sim.clickButton({ channel: message.channel, ts: message.ts }, 'finance_topup_approve', 'U_APPROVER'),
    ]);
    const submitted = await eventually(async () => {
      const [now] = await t.db.select().from(topUpRequests);
      return now?.status === 'submitted' ? now : undefined;
    });
    expect(submitted.deciderUserId).toBe('U_APPROVER');
    expect(submitted.fundingNo).toBeTruthy();
    expect((await t.stack.app.rewards.balance.get()).pendingBalance.amount).toBe('2500.50');
    const fundings = (await t.stack.app.rewards.balance.ledger({ pageSize: 100 }).all()).filter(
      (r) => r.source === 'funding' && r.referenceNumber !== 'FD-OPENING',
    );
    expect(fundings).toHaveLength(1);

    // Pending in the overview until the ledger shows it processed.
    await t.stack.app.finance.sweep();
    expect((await t.db.select().from(topUpRequests))[0]?.status).toBe('submitted');
    await t.emulator.processTopUp(submitted.fundingNo!, 'approve');
    await t.stack.app.finance.sweep();
    expect((await t.db.select().from(topUpRequests))[0]?.status).toBe('completed');
    await t.stack.sim.waitFor(() => t.stack.sim.messages('U_ADMIN').find((m) => /completed/.test(m.text)));
    const updated = t.stack.sim.messages('C_ADMIN').find((m) => m.ts === message.ts && !m.ephemeral)!;
    expect(JSON.stringify(updated.blocks)).toMatch(/Completed/);
    expect(JSON.stringify(updated.blocks)).not.toContain('finance_topup_approve');
  });
});

describe('top-up requests: twice at once', () => {
  it('the same form submitted twice (a second click while Slack waited) records one request and posts it once', async () => {
    const view = await openTopUpModal('U_ADMIN');
    await t.stack.sim.submitView(view.id, topUpValues('1500'), 'U_ADMIN');
    await t.stack.sim.waitFor(() => requestMessage());
    const again = await postSignedPayload(
      t.stack.app.url,
      viewSubmissionPayload({ ...view }, topUpValues('1500'), 'U_ADMIN'),
    );
    expect(again.status).toBe(200);
    // Both answers are in: the first posted the request and told the requester; the second did neither.
    await t.stack.sim.waitFor(() =>
      t.stack.sim.messages('U_ADMIN').find((m) => /waiting for a second admin/.test(m.text)),
    );
    await t.stack.app.finance.sweep();
    expect(await t.db.select().from(topUpRequests)).toHaveLength(1);
    expect(
      t.stack.sim
        .messages('C_ADMIN')
        .filter((m) => !m.ephemeral && /Top-up request/.test(JSON.stringify(m.blocks ?? []))),
    ).toHaveLength(1);
    expect(t.stack.sim.messages('U_ADMIN').filter((m) => /waiting for a second admin/.test(m.text))).toHaveLength(1);
  });

  it('two other admins approving at once, on two instances: one decision, one API call, the later one is told who decided', async () => {
    // Maya asks; Ada and Arjun, both admins in #kudos-admins, approve at the same moment.
    await t.start({ env: { ...ENV, KUDOS_ADMINS: 'U_ADMIN,U_APPROVER,U_MANAGER' } });
    const other = await t.stack.startAnotherApp();
    const view = await openTopUpModal('U_MANAGER');
    await t.stack.sim.submitView(view.id, topUpValues('1200'), 'U_MANAGER');
    const message = await t.stack.sim.waitFor(() => requestMessage());
    const [row] = await t.db.select().from(topUpRequests);
    const click = (appUrl: string, userId: string) =>
      postSignedPayload(
        appUrl,
        blockActionPayload({
          userId,
          actionId: 'finance_topup_approve',
          value: row!.id,
          channel: message.channel,
          messageTs: message.ts,
          blockId: `finance_topup_${row!.id}`,
        }),
      );
    await Promise.all([click(t.stack.app.url, 'U_APPROVER'), click(other.url, 'U_ADMIN')]);
    const submitted = await eventually(async () => {
      const [now] = await t.db.select().from(topUpRequests);
      return now?.status === 'submitted' ? now : undefined;
    });
    expect(['U_APPROVER', 'U_ADMIN']).toContain(submitted.deciderUserId);
    const loser = submitted.deciderUserId === 'U_APPROVER' ? 'U_ADMIN' : 'U_APPROVER';
    const told = await t.stack.sim.waitFor(() =>
      t.stack.sim.messages('C_ADMIN').find((m) => m.ephemeral && m.visible_to === loser && /already/.test(m.text)),
    );
    expect(told.text).toContain(`<@${submitted.deciderUserId}>`);
    const fundings = (await t.stack.app.rewards.balance.ledger({ pageSize: 100 }).all()).filter(
      (r) => r.source === 'funding' && r.referenceNumber !== 'FD-OPENING',
    );
    expect(fundings).toHaveLength(1);
    expect(await t.db.select().from(topUpRequests)).toHaveLength(1);
  });
});

describe('top-ups that do not go through', () => {
  const fundingsAtApi = async () =>
    (await t.stack.app.rewards.balance.ledger({ pageSize: 100 }).all()).filter(
      (r) => r.source === 'funding' && r.referenceNumber !== 'FD-OPENING',
    );

  /** Ada asks for $1,200, Arjun approves with the button; resolves with the request once decided. */
  async function askAndApprove() {
    const view = await openTopUpModal('U_ADMIN');
    await t.stack.sim.submitView(view.id, topUpValues('1200'), 'U_ADMIN');
    const message = await t.stack.sim.waitFor(() => requestMessage());
    await t.stack.sim.clickButton({ channel: message.channel, ts: message.ts }, 'finance_topup_approve', 'U_APPROVER');
    const decided = await eventually(async () => {
      const [row] = await t.db.select().from(topUpRequests);
      return row && row.status !== 'awaiting_approval' && row.status !== 'approved' ? row : undefined;
    });
    return { message, decided };
  }

  it('in the sandbox: the API refuses it as production only, the admins are told plainly, and the form is refused at once from then on', async () => {
    await t.start({ env: { ...ENV, REWARDS_CLIENT_ID: 'sandbox-client', REWARDS_CLIENT_SECRET: 'sandbox-secret' } });
    const { message, decided } = await askAndApprove();
    expect(decided.status).toBe('failed');
    expect(decided.errorCode).toBe('PRODUCTION_ONLY');
    expect(decided.fundingNo).toBeNull();
    const updated = await t.stack.sim.waitFor(() =>
      t.stack.sim
        .messages('C_ADMIN')
        .find((m) => m.ts === message.ts && !m.ephemeral && /production only/.test(JSON.stringify(m.blocks ?? []))),
    );
    expect(JSON.stringify(updated.blocks)).toContain('Nothing was requested');
    expect(JSON.stringify(updated.blocks)).not.toContain('finance_topup_approve');
    await t.stack.sim.waitFor(() =>
      t.stack.sim.messages('U_ADMIN').find((m) => /production only/.test(m.text + JSON.stringify(m.blocks ?? []))),
    );
    // From now on the form is refused at once, not sent to a second admin.
    const again = await t.stack.sim.slashCommand('U_ADMIN', 'topup', 'C_ADMIN');
    expect(JSON.stringify(again.body)).toMatch(/production only/);
    expect(t.stack.sim.openViews('U_ADMIN').filter((v) => v.callback_id === 'finance_topup')).toHaveLength(0);
    expect(await t.db.select().from(topUpRequests)).toHaveLength(1);
  });

  it('an answer lost after the API took it: outcome unknown, never sent again, the admins are sent to the ledger', async () => {
    await t.emulator.faults({ method: 'POST', path: '/api/v1/balance/charge', drop: true, count: 1 });
    const { message, decided } = await askAndApprove();
    expect(decided.status).toBe('unknown');
    expect(decided.errorMessage).toMatch(/kudos ledger/);
    // The API did take it, once; Kudos made one call and did not repeat it.
    expect(await fundingsAtApi()).toHaveLength(1);
    const updated = await t.stack.sim.waitFor(() =>
      t.stack.sim
        .messages('C_ADMIN')
        .find(
          (m) =>
            m.ts === message.ts &&
            !m.ephemeral &&
            /outcome unknown|may or may not/.test(JSON.stringify(m.blocks ?? [])),
        ),
    );
    expect(JSON.stringify(updated.blocks)).not.toContain('finance_topup_approve');
    // A late click from a client still showing the old buttons changes nothing and calls nothing.
    await postSignedPayload(t.stack.app.url, approveClick(decided.id, message));
    await t.stack.app.finance.sweep();
    expect(await fundingsAtApi()).toHaveLength(1);
    expect((await t.db.select().from(topUpRequests))[0]?.status).toBe('unknown');
  });

  it('a 5xx from the API: outcome unknown too (the API may have recorded it), one call only', async () => {
    await t.emulator.faults({ method: 'POST', path: '/api/v1/balance/charge', status: 503, count: 5 });
    const { decided } = await askAndApprove();
    expect(decided.status).toBe('unknown');
    expect(decided.errorMessage).toMatch(/may or may not have been recorded/);
    // One call consumed one fault: no retry of a request without an idempotency key.
    const left = (await (await fetch(`${t.emulator.url}/_emulator/faults`)).json()) as {
      faults: Array<{ remaining: number }>;
    };
    expect(left.faults[0]?.remaining).toBe(4);
    expect(await fundingsAtApi()).toHaveLength(0);
  });

  it('a 4xx from the API: not requested, with the reason', async () => {
    await t.emulator.faults({ method: 'POST', path: '/api/v1/balance/charge', status: 400, count: 1 });
    const { decided } = await askAndApprove();
    expect(decided.status).toBe('failed');
    expect(decided.errorMessage).toMatch(/^Not requested: the Rewards API refused it \(VALIDATION_ERROR\)/);
    expect(await fundingsAtApi()).toHaveLength(0);
  });

  it('an approval whose call never finished (the process died) becomes unknown after 5 minutes, and the requester is told once', async () => {
    const view = await openTopUpModal('U_ADMIN');
    await t.stack.sim.submitView(view.id, topUpValues('1200'), 'U_ADMIN');
    await t.stack.sim.waitFor(() => requestMessage());
    const { sql } = await import('drizzle-orm');
    await t.db
      .update(topUpRequests)
      .set({ status: 'approved', deciderUserId: 'U_APPROVER', decidedAt: sql`now() - interval '6 minutes'` });
    await t.stack.app.finance.sweep();
    await t.stack.app.finance.sweep();
    const [row] = await t.db.select().from(topUpRequests);
    expect(row?.status).toBe('unknown');
    expect(row?.errorCode).toBe('INTERRUPTED');
    await t.stack.sim.waitFor(() =>
      t.stack.sim
        .messages('U_ADMIN')
        .find((m) => /may or may not have been recorded/.test(m.text + JSON.stringify(m.blocks ?? []))),
    );
    expect(
      t.stack.sim
        .messages('U_ADMIN')
        .filter((m) => /may or may not have been recorded/.test(m.text + JSON.stringify(m.blocks ?? []))),
    ).toHaveLength(1);
    expect(await fundingsAtApi()).toHaveLength(0);
  });
});

describe('/kudos ledger', () => {
  it('shows the month with types read by source and status, and reconciles with the orders Kudos placed', async () => {
    await t.emulator.setBalance(10_000);
    const answer = await t.stack.sim.slashCommand('U_ADMIN', 'ledger', 'C_ADMIN');
    expect(JSON.stringify(answer.body)).toMatch(/Reading the ledger/);
    const list = await t.stack.sim.waitFor(() =>
      t.stack.sim
        .messages('C_ADMIN')
        .find((m) => m.ephemeral && /Ledger for \w+ \d{4}/.test(JSON.stringify(m.blocks ?? []))),
    );
    expect(JSON.stringify(list.blocks)).toMatch(/Reconciled/);
    const refused = await t.stack.sim.slashCommand('U_ADMIN', 'ledger 2026-13', 'C_ADMIN');
    expect(JSON.stringify(refused.body)).toMatch(/don't understand/);
    const notAdmin = await t.stack.sim.slashCommand('U_MANAGER', 'ledger', 'C_GENERAL');
    expect(JSON.stringify(notAdmin.body)).toMatch(/Only Kudos admins/);
  });
});

describe('/kudos ledger: top-ups and reconciliation', () => {
  const ledgerList = async (text = 'ledger') => {
    const before = t.stack.sim.messages('C_ADMIN').length;
    await t.stack.sim.slashCommand('U_ADMIN', text, 'C_ADMIN');
    return t.stack.sim.waitFor(() =>
      t.stack.sim
        .messages('C_ADMIN')
        .slice(before)
        .find((m) => m.ephemeral && /Ledger for \w+ \d{4}/.test(JSON.stringify(m.blocks ?? []))),
    );
  };

  it('a requested top-up is listed as pending and not credited, then as completed once the operator processes it; one not approved is said so', async () => {
    for (const amount of ['1200', '300']) {
      const view = await openTopUpModal('U_ADMIN');
      await t.stack.sim.submitView(view.id, topUpValues(amount), 'U_ADMIN');
      const message = await t.stack.sim.waitFor(() =>
        t.stack.sim
          .messages('C_ADMIN')
          .find(
            (m) => !m.ephemeral && JSON.stringify(m.blocks ?? []).includes(`$${amount === '1200' ? '1,200' : '300'}`),
          ),
      );
      await t.stack.sim.clickButton(
        { channel: message.channel, ts: message.ts },
        'finance_topup_approve',
        'U_APPROVER',
      );
    }
    const rows = await eventually(async () => {
      const all = await t.db.select().from(topUpRequests);
      return all.length === 2 && all.every((r) => r.status === 'submitted') ? all : undefined;
    });
    const pending = JSON.stringify((await ledgerList()).blocks);
    expect(pending).toMatch(/Top-up \(pending\) · \*\$1,200\* _\(not credited yet\)_/);
    expect(pending).toMatch(/Pending top-ups:\* \$1,500/);
    // Money in is what was credited: the opening balance only.
    expect(pending).toMatch(/\*In:\* \$10,000/);

    const byAmount = (cents: number) => rows.find((r) => r.amountCents === cents)!.fundingNo!;
    await t.emulator.processTopUp(byAmount(120_000), 'approve');
    await t.emulator.processTopUp(byAmount(30_000), 'reject');
    const settled = JSON.stringify((await ledgerList()).blocks);
    expect(settled).toMatch(/Top-up \(completed\) · \*\$1,200\*(?! _)/);
    expect(settled).toMatch(/Top-up \(not approved\) · \*\$300\* _\(not credited yet\)_/);
    // The provider's references are in the CSV file, not in the lines people read.
    for (const r of rows) expect(settled).not.toContain(r.fundingNo!);
    expect(settled).toContain("The provider's reference numbers are in the CSV file");
    expect(settled).toMatch(/\*In:\* \$11,200/);
    expect(settled).not.toContain('Pending top-ups');
  });

  it('flags a mismatch with the orders Kudos placed: an order missing from the ledger, and one with another amount', async () => {
    const row = await submitSendForm(
      t.stack,
      t.db,
      'U_MANAGER',
      sendModalValues({ users: ['U_EMP1'], design: 'CC-THANK-YOU', amount: '40' }),
    );
    const placed = await eventually(async () =>
      (await t.db.select().from(kudos).where(eq(kudos.id, row.id))).find((k) => k.status === 'placed' && k.orderId),
    );
    const reconciled = JSON.stringify((await ledgerList()).blocks);
    expect(reconciled).toMatch(/Reconciled: the ledger shows the 1 order Kudos placed this month for \$40/);
    // The order by the send it is, in the reader's own time zone; no order id where people read.
    expect(reconciled).toMatch(
      /<!date\^\d+\^\{date_short_pretty\} at \{time\}\|[^>]+> · Kudos from <@U_MANAGER> to 1 person · \*-\$40\*/,
    );
    expect(reconciled).not.toContain(placed.orderId!);
    // What Kudos recorded disagrees with the ledger: its cost, and an order the ledger never saw.
    await t.db.update(kudos).set({ costCents: 4500 }).where(eq(kudos.id, placed.id));
    await t.db.insert(kudos).values({
      ...placedCopy(placed),
      orderId: 'OR-NOT-IN-LEDGER',
      orderIds: ['OR-NOT-IN-LEDGER'],
      idempotencyKey: crypto.randomUUID(),
      sourceViewId: 'V_OTHER',
    });
    const shown = JSON.stringify((await ledgerList()).blocks);
    expect(shown).toContain('Mismatch with the orders Kudos placed');
    // Each send by its people; the order ids only on the details line.
    expect(shown).toContain('The kudos from <@U_MANAGER> to 1 person is not in the ledger.');
    expect(shown).toContain('The kudos from <@U_MANAGER> to 1 person: Kudos recorded $45, the ledger shows $40.');
    expect(shown).toContain('Kudos recorded $85 for 2 orders');
    expect(shown).toContain(`Details: order ids \`OR-NOT-IN-LEDGER\`, \`${placed.orderId}\``);
  });

  it('the CSV file by direct message has a header and every row, in dollars', async () => {
    await t.emulator.addMovement('promotion', 50);
    await t.stack.sim.slashCommand('U_ADMIN', 'ledger csv', 'C_ADMIN');
    const dm = await t.stack.sim.waitFor(() => t.stack.sim.messages('U_ADMIN').find((m) => m.files?.length));
    expect(dm.text).toMatch(/Rewards ledger of \d{4}-\d{2}, 2 rows/);
    const csv = t.stack.sim.fileText(dm.files![0]!.id)!.text;
    expect(csv).toContain(
      'Date (UTC),What,Sender,Recipients,Campaign,Face value (USD),Amount (USD),Currency,Credited,Rewards reference,Value',
    );
    expect(csv).toMatch(/,Promotion,,,,,50\.00,USD,yes,/);
    expect(csv).toMatch(/,Top-up \(completed\),,,,,10000\.00,USD,yes,/);
  });

  it('API errors: a ledger or balance that cannot be read gets a clear answer', async () => {
    await t.emulator.faults({ method: 'GET', path: '/api/v1/balance/ledger', status: 503, count: 10 });
    const before = t.stack.sim.messages('C_ADMIN').length;
    await t.stack.sim.slashCommand('U_ADMIN', 'ledger', 'C_ADMIN');
    const answer = await t.stack.sim.waitFor(() =>
      t.stack.sim
        .messages('C_ADMIN')
        .slice(before)
        .find((m) => m.ephemeral && /Could not read the ledger/.test(m.text)),
    );
    expect(answer.text).not.toMatch(/undefined|Error:/);
    await t.emulator.faults({ method: 'GET', path: '/api/v1/balance', status: 503, count: 10 });
    await t.stack.sim.slashCommand('U_ADMIN', 'balance', 'C_ADMIN');
    await t.stack.sim.waitFor(() =>
      t.stack.sim
        .messages('C_ADMIN')
        .slice(before)
        .find((m) => m.ephemeral && /Could not get the balance/.test(m.text)),
    );
  });
});

/** A copy of a placed kudos row's columns (without its keys), to record another order beside it. */
function placedCopy(row: typeof kudos.$inferSelect): typeof kudos.$inferInsert {
  const { id: _id, createdAt: _c, updatedAt: _u, ...rest } = row;
  return rest;
}

describe('/kudos ledger with the other movements', () => {
  it('reads promotions, reward refunds and transfers by source and status, counts them in the totals, and they do not upset the reconciliation', async () => {
    await t.emulator.addMovement('promotion', 50);
    await t.emulator.addMovement('rewardRefund', 12.5);
    await t.emulator.addMovement('transferReceived', 200);
    await t.emulator.addMovement('transferSent', 75.25);
    await t.stack.sim.slashCommand('U_ADMIN', 'ledger csv', 'C_ADMIN');
    const list = await t.stack.sim.waitFor(() =>
      t.stack.sim
        .messages('C_ADMIN')
        .find((m) => m.ephemeral && /Ledger for \w+ \d{4}/.test(JSON.stringify(m.blocks ?? []))),
    );
    const shown = JSON.stringify(list.blocks);
    for (const label of ['Promotion', 'Refund (reward)', 'Transfer received', 'Transfer sent'])
      expect(shown).toContain(label);
    expect(shown).toContain('-$75.25');
    // In: the opening $10,000 + 50 + 12.50 + 200; out: the transfer.
    expect(shown).toMatch(/\*In:\* \$10,262.50/);
    expect(shown).toMatch(/\*Out:\* \$75.25/);
    expect(shown).toMatch(/Reconciled/);
    const dm = await t.stack.sim.waitFor(() => t.stack.sim.messages('U_ADMIN').find((m) => m.files?.length));
    expect(t.stack.sim.fileText(dm.files![0]!.id)!.text).toMatch(/,Transfer sent,,,,,-75\.25,USD,yes,/);
  });
});

/** The approve click as a second Slack client sends it. */
function approveClick(topUpId: string, message: { channel: string; ts: string }): Record<string, unknown> {
  return blockActionPayload({
    userId: 'U_APPROVER',
    actionId: 'finance_topup_approve',
    value: topUpId,
    channel: message.channel,
    messageTs: message.ts,
    blockId: `finance_topup_${topUpId}`,
  });
}

describe('limit-increase requests', () => {
  const limitValues = (current: [string, string], requested: [string, string]) => ({
    limits_current_daily: text(current[0]),
    limits_current_monthly: text(current[1]),
    limits_requested_daily: text(requested[0]),
    limits_requested_monthly: text(requested[1]),
  });

  it('stale figures: the form comes back with the API’s current limits, and the request then goes to review', async () => {
    await t.emulator.setLimits({ dailyLimitUsd: 6000, monthlyLimitUsd: 60000 });
    await t.stack.sim.slashCommand('U_ADMIN', 'limits', 'C_ADMIN');
    const view = await t.stack.sim.waitFor(() =>
      t.stack.sim.openViews('U_ADMIN').find((v) => v.callback_id === 'finance_limits'),
    );
    await t.stack.sim.submitView(view.id, limitValues(['5000', '50000'], ['4000', '80000']), 'U_ADMIN');
    expect(t.stack.sim.viewErrors(view.id).limits_requested_daily).toMatch(/at least the current daily/);

    await t.stack.sim.submitView(view.id, limitValues(['5000', '50000'], ['8000', '80000']), 'U_ADMIN');
    const again = await t.stack.sim.waitFor(() =>
      t.stack.sim
        .openViews('U_ADMIN')
        .find((v) => v.callback_id === 'finance_limits' && /limits changed/.test(JSON.stringify(v.blocks))),
    );
    expect(JSON.stringify(again.blocks)).toContain('"initial_value":"6000"');
    expect(JSON.stringify(again.blocks)).toContain('"initial_value":"60000"');

    await t.stack.sim.submitView(again.id, limitValues(['6000', '60000'], ['8000', '80000']), 'U_ADMIN');
    const done = await t.stack.sim.waitFor(() =>
      t.stack.sim.openViews('U_ADMIN').find((v) => /Pending review/.test(JSON.stringify(v.blocks ?? []))),
    );
    expect(JSON.stringify(done.blocks)).toContain('$8,000');
  });
});

describe('limit-increase requests: the same form twice', () => {
  const limitValues = {
    limits_current_daily: text('5000'),
    limits_current_monthly: text('50000'),
    limits_requested_daily: text('8000'),
    limits_requested_monthly: text('80000'),
  };
  /** How many limit-increase calls reached the Rewards API since `budget` slow answers were armed. */
  async function callsMade(budget: number): Promise<number> {
    const { faults } = (await (await fetch(`${t.emulator.url}/_emulator/faults`)).json()) as {
      faults: Array<{ path?: string; remaining: number }>;
    };
    return budget - (faults.find((f) => f.path === '/api/v1/orders/limit-increase-requests')?.remaining ?? 0);
  }

  it('submitted twice (a double click while the API answers, then once more): asked once; each answer is the one request', async () => {
    // Every call answers after 1.5 s: the second submission comes while the first is on its way.
    await t.emulator.faults({
      method: 'POST',
      path: '/api/v1/orders/limit-increase-requests',
      delayMs: 1500,
      count: 10,
    });
    await t.stack.sim.slashCommand('U_ADMIN', 'limits', 'C_ADMIN');
    const view = await t.stack.sim.waitFor(() =>
      t.stack.sim.openViews('U_ADMIN').find((v) => v.callback_id === 'finance_limits'),
    );
    const submit = () => postSignedPayload(t.stack.app.url, viewSubmissionPayload({ ...view }, limitValues, 'U_ADMIN'));
    const first = submit();
    await eventually(async () => (await t.db.select().from(limitIncreaseRequests)).length > 0);
    const second = await submit();
    expect(JSON.parse(second.text)).toMatchObject({
      response_action: 'errors',
      errors: { limits_requested_daily: expect.stringMatching(/already on its way/) },
    });
    expect(JSON.stringify(JSON.parse((await first).text))).toMatch(/Pending review.*\$8,000/);

    // Once more after the answer (Slack retrying): the same pending request, nothing sent.
    const third = await submit();
    expect(JSON.stringify(JSON.parse(third.text))).toMatch(/Pending review.*\$8,000/);
    expect(await callsMade(10)).toBe(1);
    const rows = await t.db.select().from(limitIncreaseRequests);
    expect(rows.map((r) => r.status)).toEqual(['pending_review']);
  });
});

describe('limit-increase requests: bad input and API failures', () => {
  const limitValues = (current: [string, string], requested: [string, string]) => ({
    limits_current_daily: text(current[0]),
    limits_current_monthly: text(current[1]),
    limits_requested_daily: text(requested[0]),
    limits_requested_monthly: text(requested[1]),
  });
  async function openLimits() {
    await t.stack.sim.slashCommand('U_ADMIN', 'limits', 'C_ADMIN');
    return t.stack.sim.waitFor(() => t.stack.sim.openViews('U_ADMIN').find((v) => v.callback_id === 'finance_limits'));
  }

  it('cents, negative, huge or lower figures are refused inline; nothing is sent', async () => {
    const view = await openLimits();
    for (const [values, block, error] of [
      [limitValues(['5000', '50000'], ['8000.50', '80000']), 'limits_requested_daily', /whole dollars/],
      [limitValues(['-5000', '50000'], ['8000', '80000']), 'limits_current_daily', /positive/],
      [
        limitValues(['5000', '50000'], ['8000', '1000000000']),
        'limits_requested_monthly',
        /Enter whole dollars|more than \$100,000,000/,
      ],
      [limitValues(['5000', '50000'], ['8000', '200000000']), 'limits_requested_monthly', /more than \$100,000,000/],
      [limitValues(['5000', '50000'], ['90000', '80000']), 'limits_requested_daily', /cannot be above the monthly/],
    ] as const) {
      await t.stack.sim.submitView(view.id, values, 'U_ADMIN');
      expect(t.stack.sim.viewErrors(view.id)[block]).toMatch(error);
    }
    expect(await t.db.select().from(limitIncreaseRequests)).toHaveLength(0);
  });

  it('a refusal, and an answer that never came: each said plainly inline; a lost answer is not called "nothing queued"', async () => {
    await t.emulator.faults({ method: 'POST', path: '/api/v1/orders/limit-increase-requests', status: 400, count: 1 });
    const view = await openLimits();
    await t.stack.sim.submitView(view.id, limitValues(['5000', '50000'], ['8000', '80000']), 'U_ADMIN');
    expect(t.stack.sim.viewErrors(view.id).limits_requested_daily).toMatch(
      /^Not requested: the Rewards API refused it \(VALIDATION_ERROR\)/,
    );

    await t.emulator.faults({
      method: 'POST',
      path: '/api/v1/orders/limit-increase-requests',
      delayMs: 4000,
      count: 1,
    });
    await t.stack.sim.submitView(view.id, limitValues(['5000', '50000'], ['8000', '80000']), 'U_ADMIN');
    expect(t.stack.sim.viewErrors(view.id).limits_requested_daily).toMatch(
      /did not answer in time: the request may have been queued/,
    );
    const rows = await t.db.select().from(limitIncreaseRequests);
    expect(rows.map((r) => r.status).sort()).toEqual(['failed', 'unknown']);
  });
});

describe('spending limits before ordering', () => {
  it('a send that would break the known daily limit is refused inline with the reason; nothing is ordered', async () => {
    const { rememberLimits } = await import('../../../src/domain/finance/spending-limits.js');
    await rememberLimits(t.db, { teamId: 'T0KUDOS' }, { dailyCents: 10_000, monthlyCents: 100_000 }, 'test');
    await t.stack.sim.slashCommand('U_MANAGER', '', 'C_GENERAL');
    const view = await t.stack.sim.waitFor(() =>
      t.stack.sim.openViews('U_MANAGER').find((v) => v.callback_id === 'kudos_send'),
    );
    const { sendModalValues } = await import('../../support/app.js');
    await t.stack.sim.submitView(
      view.id,
      sendModalValues({ users: ['U_EMP1', 'U_EMP2'], design: 'CC-THANK-YOU', amount: '60' }),
      'U_MANAGER',
    );
    expect(Object.values(t.stack.sim.viewErrors(view.id)).join(' ')).toMatch(
      /daily spending limit of \$100: \$0 is used today, \$100 is left/,
    );
    expect((await t.stack.app.rewards.orders.list({ pageSize: 100 })).data).toHaveLength(0);
  });

  it('one that would break the monthly limit, counting what was sent earlier this month, is refused with the figures; nothing more is ordered', async () => {
    const { rememberLimits } = await import('../../../src/domain/finance/spending-limits.js');
    await rememberLimits(t.db, { teamId: 'T0KUDOS' }, { dailyCents: 100_000, monthlyCents: 10_000 }, 'test');
    const first = await submitSendForm(
      t.stack,
      t.db,
      'U_MANAGER',
      sendModalValues({ users: ['U_EMP1'], design: 'CC-THANK-YOU', amount: '70' }),
    );
    await eventually(async () =>
      (await t.db.select().from(kudos).where(eq(kudos.id, first.id))).find((k) => k.status === 'placed'),
    );
    await t.stack.sim.slashCommand('U_MANAGER', '', 'C_GENERAL');
    const view = await t.stack.sim.waitFor(() =>
      t.stack.sim.openViews('U_MANAGER').find((v) => v.callback_id === 'kudos_send'),
    );
    await t.stack.sim.submitView(
      view.id,
      sendModalValues({ users: ['U_EMP2'], design: 'CC-THANK-YOU', amount: '40' }),
      'U_MANAGER',
    );
    expect(Object.values(t.stack.sim.viewErrors(view.id)).join(' ')).toMatch(
      /monthly spending limit of \$100: \$70 is used this month, \$30 is left/,
    );
    expect((await t.stack.app.rewards.orders.list({ pageSize: 100 })).data).toHaveLength(1);
  });
});
