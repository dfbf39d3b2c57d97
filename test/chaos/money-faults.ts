// The chaos run's money faults, run after the main kudos have settled, with the random
// faults still on:
// - concurrent sends against one budget: one sender submits four $7 sends at once against a $20
//   monthly budget (from four Slack clients: four distinct modals); what goes out without approval must stay within the budget (the rest waits for
//   approval);
// - sends scheduled weeks ahead with the emulator clock advanced: five senders book sends three weeks
//   ahead; the emulator's clock jumps three weeks (the orders go out and complete) and the app's
//   timeline for them is moved back as much (its own clock is real time); each must be announced,
//   its completion noticed and its sender told it went out, exactly once;
// - a reward-link request refused part-way: 1,500 links of $5 (three orders of 500) under a daily
//   limit that lets only the first through; the created part is recorded, charged cent for cent,
//   reported (never "failed") and its 500 links delivered in one numbered series.
// - lost first parts and a slow part past the request's claim (first-parts.ts);
// - birthdays dispatched while skipped and while their dates are corrected (automation-races.ts).
// (The stalled worker and the lost answers are in the main run: chaos.ts.)
import { formatInTimeZone } from 'date-fns-tz';
import { eq, inArray, sql } from 'drizzle-orm';

import {
  approvalRequests,
  kudos,
  orderChecks,
  rewardLinkRequests,
  workspaceSettings,
} from '../../src/db/schema/index.js';
import { partKey } from '../../src/domain/reward-links/link-parts.js';
import type { WorkspaceUser } from '../../src/simulator/seed.js';
import { LINKS_STILL_WORKING } from '../../src/slack/reward-links/links-command.js';
import { sendModalValues, viewSubmissionPayload } from '../support/app.js';
import { type AutomationRacesResult, automationRaceUsers, runAutomationRaces } from './automation-races.js';
import { type FirstPartsResult, firstPartsUsers, runFirstParts } from './first-parts.js';
import {
  cents,
  LINKS_ADMIN,
  listOrders,
  type MoneyFaultsContext,
  openModal,
  postSigned,
  sleep,
  submitUntilClosed,
  until,
} from './money-steps.js';

export const BUDGET_SENDER = 'U_CHAOS_BUDGET';
export const SCHEDULE_SENDERS = Array.from({ length: 5 }, (_, i) => `U_CHAOS_LATER${i + 1}`);
const BUDGET_CENTS = 2000;
/** Below the run's approval threshold ($10), so that the budget is what decides. */
const BUDGET_SEND_CENTS = 700;
const BUDGET_SENDS = 4;
const AHEAD_DAYS = 21;
const LINKS = 1500;
const LINK_CENTS = 500;

export interface MoneyFaultsResult {
  budget: {
    budgetCents: number;
    sends: number;
    recorded: number;
    /** What went out (or will) without an approval: must be within the budget. */
    withoutApprovalCents: number;
    sentToApproval: number;
    statuses: string[];
    overspent: boolean;
  };
  scheduled: {
    sends: number;
    aheadDays: number;
    booked: number;
    orders: number;
    completed: number;
    announcements: number;
    completionNotices: number;
    wentOutDms: number;
    /** Scheduled kudos whose announcement, completion notice or "went out" DM is missing or doubled. */
    problems: string[];
  };
  links: {
    requested: number;
    status: string;
    partsCreated: number;
    createdQuantity: number;
    linkOrders: number;
    /** Orders of the request's keys the API knows, against the ids the app recorded. */
    ordersNotRecorded: number;
    chargedCents: number;
    recordedCents: number;
    linksDelivered: number;
    partialNotices: number;
    failedNotices: number;
    /** "part N of M" numbers of the link DMs: each once, one series. */
    partNumbers: string[];
    duplicatePartNumbers: number;
  };
  firstParts: FirstPartsResult;
  automations: AutomationRacesResult;
  /** Kudos ids of this phase (kept apart from the main run's counts). */
  kudosIds: string[];
  problems: string[];
}

export function moneyFaultUsers(): WorkspaceUser[] {
  const user = (id: string, name: string, extra: Partial<WorkspaceUser> = {}): WorkspaceUser => ({
    id,
    name,
    realName: `Chaos ${name}`,
    displayName: name,
    email: `${name}@example.com`,
    tz: 'Europe/Paris',
    isAdmin: false,
    isOwner: false,
    isBot: false,
    deleted: false,
    role: 'chaos money faults',
    ...extra,
  });
  return [
    user(BUDGET_SENDER, 'budget'),
    ...SCHEDULE_SENDERS.map((id, i) => user(id, `later${i + 1}`)),
    user(LINKS_ADMIN, 'linkadmin'),
    ...firstPartsUsers(user),
    ...automationRaceUsers(user),
  ];
}

export async function runMoneyFaults(ctx: MoneyFaultsContext): Promise<MoneyFaultsResult> {
  const { sim, db } = ctx;
  const problems: string[] = [];
  const kudosIds: string[] = [];

  // 1. Concurrent sends against one budget.
  await db.db
    .update(workspaceSettings)
    .set({ monthlyBudgetCents: BUDGET_CENTS, updatedAt: sql`clock_timestamp()` })
    .where(eq(workspaceSettings.teamId, ctx.teamId));
  await sleep(6000); // the instances' settings caches (5 s)
  // Four Slack clients of one sender (desktop, phone...), each with its own modal, press Send at once:
  // signed view submissions of four distinct views, straight to the load balancer.
  const view = await openModal(sim, BUDGET_SENDER);
  const values = sendModalValues({
    users: [ctx.recipient],
    design: 'CC-THANK-YOU',
    amount: String(BUDGET_SEND_CENTS / 100),
    message: 'budget race',
  });
  await Promise.all(
    Array.from({ length: BUDGET_SENDS }, async (_, i) => {
      const payload = viewSubmissionPayload({ ...view, id: `${view.id}C${i}` }, values, BUDGET_SENDER, ctx.teamId);
      for (let attempt = 0; attempt < 20; attempt++) {
        const answer = await postSigned(ctx.appUrl, ctx.signingSecret, payload).catch(() => ({ status: 0, text: '' }));
        if (answer.status === 200 && !answer.text.includes('"errors"')) return;
        await sleep(300);
      }
      throw new Error(`budget send ${i} kept failing`);
    }),
  );
  const budgetRows =
    (await until('budget sends recorded', 60_000, async () => {
      const rows = await db.db.select().from(kudos).where(eq(kudos.senderUserId, BUDGET_SENDER));
      return rows.length >= BUDGET_SENDS && rows.every((r) => r.status !== 'pending') ? rows : undefined;
    })) ?? (await db.db.select().from(kudos).where(eq(kudos.senderUserId, BUDGET_SENDER)));
  const gated = new Set(
    budgetRows.length
      ? (
          await db.db
            .select({ kudosId: approvalRequests.kudosId })
            .from(approvalRequests)
            .where(
              inArray(
                approvalRequests.kudosId,
                budgetRows.map((r) => r.id),
              ),
            )
        ).map((r) => r.kudosId)
      : [],
  );
  const withoutApprovalCents = budgetRows
    .filter((r) => !gated.has(r.id) && ['pending', 'placed', 'scheduled', 'unknown'].includes(r.status))
    .reduce((sum, r) => sum + r.totalCents, 0);
  kudosIds.push(...budgetRows.map((r) => r.id));
  await db.db
    .update(workspaceSettings)
    .set({ monthlyBudgetCents: null, updatedAt: sql`clock_timestamp()` })
    .where(eq(workspaceSettings.teamId, ctx.teamId));
  const budget = {
    budgetCents: BUDGET_CENTS,
    sends: BUDGET_SENDS,
    recorded: budgetRows.length,
    withoutApprovalCents,
    sentToApproval: budgetRows.filter((r) => gated.has(r.id) || r.status === 'awaiting_approval').length,
    statuses: budgetRows.map((r) => r.status).sort(),
    overspent: withoutApprovalCents > BUDGET_CENTS,
  };
  if (budget.recorded !== BUDGET_SENDS)
    problems.push(`budget race: ${budget.recorded} of ${BUDGET_SENDS} sends recorded`);
  if (budget.overspent)
    problems.push(
      `budget race: ${withoutApprovalCents} cents went out without approval against a ${BUDGET_CENTS}-cent budget`,
    );
  ctx.log(
    `chaos: budget race: ${budgetRows.length} sends, ${withoutApprovalCents} cents without approval (budget ${BUDGET_CENTS}), ${budget.sentToApproval} sent to approval (${budget.statuses.join(', ')})`,
  );

  // 2. Sends scheduled three weeks ahead, the emulator's clock advanced past them.
  const at = new Date(Date.now() + AHEAD_DAYS * 24 * 3600_000);
  const date = formatInTimeZone(at, 'Europe/Paris', 'yyyy-MM-dd');
  const time = formatInTimeZone(at, 'Europe/Paris', 'HH:mm');
  await Promise.all(
    SCHEDULE_SENDERS.map(async (sender) => {
      const view = await openModal(sim, sender);
      await submitUntilClosed(
        sim,
        sender,
        view,
        sendModalValues({
          users: [ctx.recipient],
          design: 'CC-THANK-YOU',
          amount: '7',
          message: 'later',
          schedule: { date, time },
        }),
      );
    }),
  );
  const booked =
    (await until('scheduled sends booked', 120_000, async () => {
      const rows = await db.db.select().from(kudos).where(inArray(kudos.senderUserId, SCHEDULE_SENDERS));
      return rows.length === SCHEDULE_SENDERS.length &&
        rows.every((r) => r.status === 'scheduled' && r.orderId && r.notifiedAt)
        ? rows
        : undefined;
    })) ?? (await db.db.select().from(kudos).where(inArray(kudos.senderUserId, SCHEDULE_SENDERS)));
  kudosIds.push(...booked.map((r) => r.id));
  const advanceSeconds = AHEAD_DAYS * 24 * 3600 + 15 * 60;
  await ctx.control('POST', '/clock/advance', { seconds: advanceSeconds });
  // The app runs on real time: its timeline for these sends moves back as much (booked three weeks ago, due now).
  const shift = sql.raw(`interval '${advanceSeconds} seconds'`);
  const ids = booked.map((r) => r.id);
  if (ids.length) {
    await db.db
      .update(kudos)
      .set({
        createdAt: sql`${kudos.createdAt} - ${shift}`,
        placedAt: sql`${kudos.placedAt} - ${shift}`,
        scheduledAt: sql`${kudos.scheduledAt} - ${shift}`,
      })
      .where(inArray(kudos.id, ids));
    await db.db
      .update(orderChecks)
      .set({
        createdAt: sql`${orderChecks.createdAt} - ${shift}`,
        watchFrom: sql`${orderChecks.watchFrom} - ${shift}`,
        nextCheckAt: sql`now()`,
      })
      .where(inArray(orderChecks.kudosId, ids));
  }
  // As the main run counts them: what was posted to the channel (threads included).
  const posts = () =>
    sim.calls
      .filter((c) => c.method === 'chat.postMessage' && c.ok && c.args.channel === ctx.channel)
      .map((c) => JSON.stringify(c.args));
  const announcedBy = (sender: string) => posts().filter((p) => p.includes(`<@${sender}> sent kudos`)).length;
  // The completion notice names the sender, never the order id (plain words).
  const noticeFor = (sender: string) =>
    posts().filter((p) => p.includes(`Kudos from <@${sender}>:`) && p.includes('delivered')).length;
  // The sender's one DM, edited in place to "delivered".
  const wentOut = (sender: string) =>
    sim.messages(sender).filter((m) => !m.ephemeral && m.text.startsWith('Your kudos was delivered')).length;
  await until('scheduled sends announced', ctx.settleTimeoutMs, async () =>
    booked.every(
      (r) => announcedBy(r.senderUserId) >= 1 && noticeFor(r.senderUserId) >= 1 && wentOut(r.senderUserId) >= 1,
    ),
  );
  await sleep(3000); // anything doubled shows up
  const after = ids.length ? await db.db.select().from(kudos).where(inArray(kudos.id, ids)) : [];
  const scheduledOrders = ids.length
    ? (await listOrders(ctx)).filter((o) =>
        after.some((r) => r.idempotencyKey === (o.clientOrderId ?? o.idempotencyKey)),
      )
    : [];
  const scheduledProblems: string[] = [];
  for (const r of after) {
    const a = announcedBy(r.senderUserId);
    const n = noticeFor(r.senderUserId);
    const w = wentOut(r.senderUserId);
    const orders = scheduledOrders.filter((o) => (o.clientOrderId ?? o.idempotencyKey) === r.idempotencyKey).length;
    if (a !== 1 || n !== 1 || w !== 1 || orders !== 1 || r.orderStatus !== 'COMPLETE')
      scheduledProblems.push(
        `${r.id}: ${orders} orders, order ${r.orderStatus}, ${a} announcements, ${n} completion notices, ${w} "went out" DMs`,
      );
  }
  const scheduled = {
    sends: SCHEDULE_SENDERS.length,
    aheadDays: AHEAD_DAYS,
    booked: booked.filter((r) => r.orderId).length,
    orders: scheduledOrders.length,
    completed: after.filter((r) => r.orderStatus === 'COMPLETE').length,
    announcements: after.reduce((s, r) => s + announcedBy(r.senderUserId), 0),
    completionNotices: after.reduce((s, r) => s + noticeFor(r.orderId ?? ''), 0),
    wentOutDms: after.reduce((s, r) => s + wentOut(r.senderUserId), 0),
    problems: scheduledProblems,
  };
  if (after.length !== SCHEDULE_SENDERS.length)
    problems.push(`scheduled: ${after.length} of ${SCHEDULE_SENDERS.length} sends recorded`);
  problems.push(...scheduledProblems.map((p) => `scheduled ${AHEAD_DAYS} days ahead: ${p}`));
  ctx.log(
    `chaos: ${after.length} sends scheduled ${AHEAD_DAYS} days ahead, emulator clock advanced; ${scheduled.completed} completed, ${scheduledProblems.length} with problems`,
  );

  // 3. A reward-link request refused part-way by the daily limit (the emulator's new day: nothing spent yet).
  const { now: emulatorNow } = await ctx.control('GET', '/clock');
  const day = String(emulatorNow).slice(0, 10);
  const spentToday = (await listOrders(ctx))
    .filter((o) => String(o.createdAt ?? '').slice(0, 10) === day && o.status !== 'CANCELED')
    .reduce((s, o) => s + cents(o.totalCost?.amount), 0);
  // The links are far above the approval threshold: it is lifted for this part of the run (an
  // admin's decision), so that they go straight out; the instances' settings caches expire.
  const [before] = await db.db
    .select({ threshold: workspaceSettings.approvalThresholdCents })
    .from(workspaceSettings)
    .where(eq(workspaceSettings.teamId, ctx.teamId));
  await db.db
    .update(workspaceSettings)
    .set({ approvalThresholdCents: 100_000_000, updatedAt: sql`clock_timestamp()` })
    .where(eq(workspaceSettings.teamId, ctx.teamId));
  await sleep(6000);
  // One part fits the day, the second does not.
  await ctx.control('POST', '/limits', {
    dailyLimitUsd: (spentToday + 750 * LINK_CENTS) / 100,
    monthlyLimitUsd: 100_000_000,
    environment: 'production',
  });
  let linksAnswer = '';
  for (let attempt = 0; attempt < 20; attempt++) {
    const answer = await sim
      .slashCommand(LINKS_ADMIN, `links ${LINKS} ${LINK_CENTS / 100}`, 'C_GENERAL')
      .catch(() => ({ status: 0, body: '' }));
    linksAnswer = `${answer.status} ${JSON.stringify(answer.body ?? '')}`;
    // Acked with a holding line (the card design's lookup outlasted Slack's 3 s, as under the faults):
    // the outcome follows by response_url, and asking again would be a second request. Wait for it.
    if (linksAnswer.includes(LINKS_STILL_WORKING))
      await until(
        'reward links recorded after the holding line',
        60_000,
        async () => (await db.db.select().from(rewardLinkRequests)).length > 0,
      );
    if ((await db.db.select().from(rewardLinkRequests)).length > 0) break;
    if (answer.status === 200 && !linksAnswer.includes('Creating')) break; // refused: said why
    await sleep(500);
  }
  if ((await db.db.select().from(rewardLinkRequests)).length === 0)
    problems.push(`reward links: not requested; /kudos links answered ${linksAnswer.slice(0, 300)}`);
  const requested = (await db.db.select().from(rewardLinkRequests)).length > 0;
  const request = await until('reward links settled', requested ? ctx.settleTimeoutMs : 1000, async () =>
    (await db.db.select().from(rewardLinkRequests)).find((r) => r.status !== 'pending'),
  );
  const redeem = /rewards\.emulator\.test\/redeem\/[A-Z0-9]+/g;
  const adminDms = () => sim.messages(LINKS_ADMIN).filter((m) => !m.ephemeral);
  const delivered = () => new Set(adminDms().flatMap((m) => m.text.match(redeem) ?? [])).size;
  if (request)
    await until('reward links delivered', ctx.settleTimeoutMs, async () => delivered() >= request.createdQuantity);
  await sleep(2000);
  await ctx.control('POST', '/limits', {
    dailyLimitUsd: 10_000_000,
    monthlyLimitUsd: 100_000_000,
    environment: 'production',
  });
  const linkOrders = await listOrders(ctx, '&orderType=LINK');
  const keys = request
    ? new Set(Array.from({ length: Math.ceil(LINKS / 500) }, (_, i) => partKey(request, i)))
    : new Set<string>();
  const ofRequest = linkOrders.filter((o) => keys.has(o.clientOrderId ?? o.idempotencyKey));
  const partNumbers = adminDms().flatMap((m) => {
    const match = /part (\d+) of (\d+)/.exec(m.text);
    return match ? [`${match[1]}/${match[2]}`] : [];
  });
  const links = {
    requested: LINKS,
    status: request?.status ?? 'none',
    partsCreated: request?.partsCreated ?? 0,
    createdQuantity: request?.createdQuantity ?? 0,
    linkOrders: ofRequest.length,
    ordersNotRecorded: ofRequest.filter((o) => !request?.orderIds.includes(o.orderId)).length,
    chargedCents: ofRequest.reduce((s, o) => s + cents(o.totalCost?.amount), 0),
    recordedCents: (request?.createdQuantity ?? 0) * LINK_CENTS,
    linksDelivered: delivered(),
    partialNotices: adminDms().filter((m) =>
      m.text.startsWith(`Only ${request?.createdQuantity ?? 0} of your ${LINKS}`),
    ).length,
    failedNotices: adminDms().filter(
      (m) => m.text.startsWith(`Your ${LINKS} reward links`) && m.text.includes('could not be created'),
    ).length,
    partNumbers,
    duplicatePartNumbers: partNumbers.length - new Set(partNumbers).size,
  };
  if (links.status !== 'partial')
    problems.push(
      `reward links: request ${links.status}, expected partial (one of three parts within the daily limit)`,
    );
  if (links.ordersNotRecorded !== 0 || links.linkOrders !== links.partsCreated)
    problems.push(
      `reward links: ${links.linkOrders} orders, ${links.partsCreated} parts recorded, ${links.ordersNotRecorded} not recorded`,
    );
  if (links.chargedCents !== links.recordedCents)
    problems.push(`reward links: ${links.chargedCents} cents charged, ${links.recordedCents} recorded`);
  if (links.linksDelivered !== links.createdQuantity)
    problems.push(`reward links: ${links.linksDelivered} links delivered of ${links.createdQuantity} created`);
  if (links.status === 'partial' && (links.partialNotices !== 1 || links.failedNotices !== 0))
    problems.push(`reward links: ${links.partialNotices} partial notices, ${links.failedNotices} "failed" notices`);
  if (links.duplicatePartNumbers !== 0) problems.push(`reward links: DM numbers overlap: ${partNumbers.join(', ')}`);
  ctx.log(
    `chaos: reward links ${links.status}: ${links.createdQuantity} of ${LINKS} created, ${links.linksDelivered} delivered, ${links.chargedCents} cents charged`,
  );

  // 4. Lost first parts of a send in parts and of reward links, and a slow part (first-parts.ts); the
  // threshold is still lifted.
  const firstParts = await runFirstParts(ctx);
  kudosIds.push(...firstParts.kudosIds);
  problems.push(...firstParts.problems);
  if (before)
    await db.db
      .update(workspaceSettings)
      .set({ approvalThresholdCents: before.threshold, updatedAt: sql`clock_timestamp()` })
      .where(eq(workspaceSettings.teamId, ctx.teamId));

  // 5. Birthdays dispatched while an admin skips some and dates are corrected (automation-races.ts).
  const automations = await runAutomationRaces(ctx, moneyFaultUsers());
  kudosIds.push(...automations.kudosIds);
  problems.push(...automations.problems);

  return { budget, scheduled, links, firstParts, automations, kudosIds, problems };
}
