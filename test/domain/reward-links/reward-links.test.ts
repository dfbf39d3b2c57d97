// Reward links placed in parts: each part's order recorded as created, a request refused part-way
// reported exactly (never as failed) and its paid links delivered, the balance checked before the
// first part, and the approval threshold, budget and audit trail applied as to any send.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { auditEvents, rewardLinkRequests } from '../../../src/db/schema/index.js';
import { rememberLimits } from '../../../src/domain/finance/spending-limits.js';
import { eventually, postSignedPayload, useAppPerTest } from '../../support/app.js';
import { FAST_CHECKS } from '../../webhooks/support.js';

// Slack's limits out of the way, the simulator's and the app's pacing: a request's links arrive in 20
// DMs to one person, which at Slack's one post a second per conversation would take the wait's bound.
const env = useAppPerTest({
  env: { KUDOS_NOTIFY_CHANNEL: 'C_KUDOS', KUDOS_ADMINS: 'U_ADMIN', KUDOS_APPROVAL_THRESHOLD: '100000' },
  slackRateLimits: false,
  app: { tuning: { webhooks: FAST_CHECKS, approvalsSweepMs: 0, slackPacing: { scale: 100 } } },
});

const REDEEM = /rewards\.emulator\.test\/redeem\/[A-Z0-9]+/g;

async function settledRequest() {
  return eventually(
    async () => (await env.db.select().from(rewardLinkRequests)).find((r) => r.status !== 'pending'),
    20_000,
  );
}

async function linkOrders() {
  return env.stack.app.rewards.orders.list({ orderType: 'LINK', pageSize: 100 }).all();
}

function adminTexts(): string[] {
  return env.stack.sim.messages('U_ADMIN').map((m) => m.text);
}

describe('reward links in parts', () => {
  it('refused part-way by the daily limit: the two created parts are recorded, reported exactly and delivered; never "failed"', async () => {
    // 2000 links of $5 = four parts of $2,500; the daily limit ($5,000) refuses the third.
    await env.stack.sim.slashCommand('U_ADMIN', 'links 2000 5', 'C_GENERAL');
    const request = await settledRequest();
    const orders = await linkOrders();
    expect(orders).toHaveLength(2);
    expect(request.status).toBe('partial');
    expect(request.errorCode).toBe('DAILY_LIMIT_EXCEEDED');
    expect(request.partsCreated).toBe(2);
    expect(request.createdQuantity).toBe(1000);
    expect([...request.orderIds].sort()).toEqual(orders.map((o) => o.orderId).sort());

    const notice = await env.stack.sim.waitFor(() =>
      env.stack.sim.messages('U_ADMIN').find((m) => m.text.startsWith('Only 1000 of your 2000')),
    );
    expect(notice.text).toContain('$5,000 charged');
    expect(adminTexts().filter((t) => t.includes('links of $5 could not be created'))).toHaveLength(0);

    // The paid links arrive (their completion checks were scheduled as each part was created).
    await env.emulator.advance(5);
    const links = await eventually(async () => {
      const all = new Set(adminTexts().flatMap((t) => t.match(REDEEM) ?? []));
      return all.size === 1000 ? all : undefined;
    }, 30_000);
    expect(links.size).toBe(1000);
    // The DMs of the two orders are one series over the request: "part 1 of 20" .. "part 20 of 20",
    // each number once (not each order its own "part 1 of 10" .. "part 10 of 10").
    const numbers = adminTexts().flatMap((t) => [...(/part (\d+) of (\d+)/.exec(t) ?? [])].slice(1, 3).join('/') || []);
    expect(numbers).toHaveLength(20);
    expect(new Set(numbers).size).toBe(20);
    expect([...numbers].sort()).toEqual(Array.from({ length: 20 }, (_, i) => `${i + 1}/20`).sort());
    const actions = (await env.db.select().from(auditEvents).where(eq(auditEvents.subjectId, request.id)))
      .map((a) => a.action)
      .sort();
    expect(actions).toEqual(['reward_links.partial', 'reward_links.requested']);
  });

  it('checks the balance before the first part: a request it cannot cover creates nothing', async () => {
    await env.emulator.setBalance(3000);
    // 1000 links of $5 = two parts of $2,500: without the check the first part is charged, then the second refused.
    await env.stack.sim.slashCommand('U_ADMIN', 'links 1000 5', 'C_GENERAL');
    const request = await settledRequest();
    expect(request.status).toBe('failed');
    expect(request.errorCode).toBe('INSUFFICIENT_BALANCE');
    expect(await linkOrders()).toHaveLength(0);
    await env.stack.sim.waitFor(() =>
      env.stack.sim
        .messages('U_ADMIN')
        .find((m) => m.text.includes('could not be created') && m.text.includes('balance')),
    );
  });

  it("above the approval threshold, or past the requester's monthly budget, links wait for an approver; nothing is ordered before", async () => {
    await env.stack.app.settings.update({ teamId: 'T0KUDOS' }, 'U_ADMIN', {
      approvalThresholdCents: 10_000,
      monthlyBudgetCents: 15_000,
      approverUserIds: ['U_APPROVER'],
    });
    const above = await env.stack.sim.slashCommand('U_ADMIN', 'links 30 5', 'C_GENERAL');
    expect(JSON.stringify(above.body)).toContain('need approval');
    expect(JSON.stringify(above.body)).toContain('$100 approval threshold');
    const waiting = await eventually(async () =>
      (await env.db.select().from(rewardLinkRequests)).find((r) => r.status === 'awaiting_approval'),
    );
    expect(waiting.approvalReason).toContain('$100 approval threshold');
    await env.stack.sim.waitFor(() => env.stack.sim.messages('U_ADMIN').find((m) => m.text.includes('need approval')));
    // The approver is asked (by DM: no approval channel), with the buttons.
    const request = await env.stack.sim.waitFor(() =>
      env.stack.sim.messages('U_APPROVER').find((m) => JSON.stringify(m.blocks ?? []).includes('links_approve')),
    );
    expect(await linkOrders()).toHaveLength(0);

    const first = await env.stack.sim.slashCommand('U_ADMIN', 'links 18 5', 'C_GENERAL'); // $90: straight out
    expect(JSON.stringify(first.body)).toContain('Creating 18 reward links');
    await eventually(async () => (await env.db.select().from(rewardLinkRequests)).find((r) => r.status === 'placed'));
    const overBudget = await env.stack.sim.slashCommand('U_ADMIN', 'links 18 5', 'C_GENERAL'); // $180 > $150
    expect(JSON.stringify(overBudget.body)).toContain('monthly allowance');
    expect(JSON.stringify(overBudget.body)).toContain('need approval');
    expect(await linkOrders()).toHaveLength(1);

    // The requester cannot approve their own request.
    await env.stack.sim.clickButton(
      { channel: request.channel, ts: request.ts },
      'links_approve',
      'U_ADMIN',
      waiting.id,
    );
    await eventually(() =>
      env.stack.sim.calls.find((c) => c.ok && JSON.stringify(c.args).includes('cannot approve or reject your own')),
    );
    expect(
      (await env.db.select().from(rewardLinkRequests).where(eq(rewardLinkRequests.id, waiting.id)))[0]!.status,
    ).toBe('awaiting_approval');

    // The approver approves: the 30 links are ordered once, the requester told, the message decided.
    await env.stack.sim.clickButton(
      { channel: request.channel, ts: request.ts },
      'links_approve',
      'U_APPROVER',
      waiting.id,
    );
    await env.stack.sim.clickButton(
      { channel: request.channel, ts: request.ts },
      'links_approve',
      'U_APPROVER',
      waiting.id,
    );
    const placed = await eventually(async () =>
      (await env.db.select().from(rewardLinkRequests).where(eq(rewardLinkRequests.id, waiting.id))).find(
        (r) => r.status === 'placed',
      ),
    );
    expect(placed.decidedBy).toBe('U_APPROVER');
    expect((await linkOrders()).filter((o) => placed.orderIds.includes(o.orderId))).toHaveLength(1);
    await env.stack.sim.waitFor(() => env.stack.sim.messages('U_ADMIN').find((m) => m.text.includes('was approved')));
    await env.stack.sim.waitFor(() =>
      env.stack.sim
        .messages('U_APPROVER')
        .find((m) => m.ts === request.ts && m.edited && !JSON.stringify(m.blocks ?? []).includes('links_approve')),
    );
    const actions = (await env.db.select().from(auditEvents).where(eq(auditEvents.subjectId, waiting.id)))
      .map((a) => a.action)
      .sort();
    expect(actions).toEqual(['reward_links.approved', 'reward_links.placed', 'reward_links.requested']);

    // The over-budget one is rejected: nothing ordered, the requester told.
    const second = (await env.db.select().from(rewardLinkRequests)).find((r) => r.status === 'awaiting_approval')!;
    const secondMessage = await env.stack.sim.waitFor(() =>
      env.stack.sim
        .messages('U_APPROVER')
        .find(
          (m) =>
            JSON.stringify(m.blocks ?? []).includes(second.id) &&
            JSON.stringify(m.blocks ?? []).includes('links_reject'),
        ),
    );
    await env.stack.sim.clickButton(
      { channel: secondMessage.channel, ts: secondMessage.ts },
      'links_reject',
      'U_APPROVER',
      second.id,
    );
    await eventually(
      async () =>
        (await env.db.select().from(rewardLinkRequests).where(eq(rewardLinkRequests.id, second.id)))[0]!.status ===
        'rejected',
    );
    await env.stack.sim.waitFor(() => env.stack.sim.messages('U_ADMIN').find((m) => m.text.includes('was rejected')));
    expect(await linkOrders()).toHaveLength(2);
  });

  it.skipIf(!process.env.DATABASE_URL)(
    'two approvers on two instances approving at once make one decision and one set of orders',
    async () => {
      await env.stack.app.settings.update({ teamId: 'T0KUDOS' }, 'U_ADMIN', {
        approvalThresholdCents: 10_000,
        approverUserIds: ['U_APPROVER', 'U_EMP1'],
      });
      const other = await env.stack.startAnotherApp();
      await env.stack.sim.slashCommand('U_ADMIN', 'links 600 5', 'C_GENERAL'); // $3,000, two parts
      const waiting = await eventually(async () =>
        (await env.db.select().from(rewardLinkRequests)).find(
          (r) => r.status === 'awaiting_approval' && r.approvalMessages.length === 2,
        ),
      );
      const payload = (user: string) => ({
        type: 'block_actions',
        team: { id: 'T0KUDOS', domain: 'kudos-demo' },
        user: { id: user, username: user.toLowerCase(), name: user.toLowerCase(), team_id: 'T0KUDOS' },
        api_app_id: 'A0KUDOS',
        token: 'x',
        trigger_id: '1.2.abc',
        actions: [
          {
            type: 'button',
            action_id: 'links_approve',
            block_id: `links_approval_${waiting.id}`,
            value: waiting.id,
            action_ts: '1',
          },
        ],
      });
      const answers = await Promise.all([
        postSignedPayload(env.stack.app.url, payload('U_APPROVER')),
        postSignedPayload(other.url, payload('U_EMP1')),
      ]);
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      const placed = await eventually(
        async () =>
          (await env.db.select().from(rewardLinkRequests).where(eq(rewardLinkRequests.id, waiting.id))).find(
            (r) => r.status === 'placed',
          ),
        20_000,
      );
      expect(placed.partsCreated).toBe(2);
      expect(await linkOrders()).toHaveLength(2);
      const decisions = (await env.db.select().from(auditEvents).where(eq(auditEvents.subjectId, waiting.id))).filter(
        (a) => a.action === 'reward_links.approved',
      );
      expect(decisions).toHaveLength(1);
    },
  );

  it("finance's known limits are checked before the first part: a request that would break one is refused whole, with what is used and left", async () => {
    // The limits as an admin entered them: $3,000 a day. One $1,000 send went out today already.
    await rememberLimits(env.db, { teamId: 'T0KUDOS' }, { dailyCents: 300_000, monthlyCents: 10_000_000 }, 'admin');
    const first = await env.stack.sim.slashCommand('U_ADMIN', 'links 200 5', 'C_GENERAL'); // $1,000
    expect(JSON.stringify(first.body)).toContain('Creating 200 reward links');
    await eventually(async () => (await env.db.select().from(rewardLinkRequests)).find((r) => r.status === 'placed'));
    // $2,500 more would make $3,500 today: refused before anything is recorded or charged.
    const refused = await env.stack.sim.slashCommand('U_ADMIN', 'links 500 5', 'C_GENERAL');
    expect(JSON.stringify(refused.body)).toContain(
      'These links ($2,500) would go over the daily spending limit of $3,000',
    );
    expect(JSON.stringify(refused.body)).toContain('$1,000 is used today');
    expect(await env.db.select().from(rewardLinkRequests)).toHaveLength(1);
    expect(await linkOrders()).toHaveLength(1);
  });
});
