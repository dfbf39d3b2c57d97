// The chaos run's lost first parts, run after the other money faults with the random faults still on
// and the approval threshold lifted (an admin's decision, so that these go straight out):
// - a send in parts whose first order is created and its answer lost (then three 503s), with a
//   balance that covers the rest of the send but not the whole of it again: the retry must find part
//   1 by its key before it judges the balance, place part 2, and tell the sender it went out;
// - a reward-link request in two parts, the same fault on its first part, then its next call held
//   past the request's claim (the API slow): the resumed request finds part 1, creates part 2 once,
//   and delivers every link; no sweep takes the slow call over.
// The balance is lowered by a transfer out and restored by a transfer in (both in the ledger), so the
// run's balance check still sums to what was charged.
import { eq, inArray } from 'drizzle-orm';

import { kudos, recipientMappings, rewardLinkRequests } from '../../src/db/schema/index.js';
import { partKey } from '../../src/domain/reward-links/link-parts.js';
import { kudosPartKey } from '../../src/domain/sending/kudos-parts.js';
import type { WorkspaceUser, WorkspaceUsergroup } from '../../src/simulator/seed.js';
import { sendModalValues } from '../support/app.js';
import {
  cents,
  LINKS_ADMIN,
  listOrders,
  type MoneyFaultsContext,
  openModal,
  submitUntilClosed,
  until,
} from './money-steps.js';

export const PARTS_SENDER = 'U_CHAOS_PARTS';
const PARTS_RECIPIENTS = Array.from({ length: 150 }, (_, i) => `U_CHAOS_MANY${String(i + 1).padStart(3, '0')}`);
const PARTS_GROUP = 'S_CHAOS_MANY';
const PART_SEND_DOLLARS = 10;
/** Covers the send once ($1,500) and its first part's order ($1,000) plus the rest, not the whole send twice. */
const PARTS_BALANCE_CENTS = 200_000;
const LINKS = 600;
const LINK_CENTS = 500;
/** Covers the request ($3,000) once and its second part after the first, not the whole request again. */
const LINKS_BALANCE_CENTS = 350_000;
/** Longer than the run's worker lease (10 s: the reward links' claim too), shorter than an order call's timeout (30 s). */
const SLOW_CALL_MS = 22_000;

export interface FirstPartsResult {
  send: {
    status: string;
    partsPlaced: number;
    orders: number;
    recipients: number;
    chargedCents: number;
    recordedCents: number;
    toldNothingCharged: number;
    toldOnItsWay: number;
  };
  links: {
    status: string;
    partsCreated: number;
    createdQuantity: number;
    orders: number;
    chargedCents: number;
    recordedCents: number;
    linksDelivered: number;
    failedNotices: number;
  };
  /** What the balance check of the whole run must add for these links (sends are counted from their rows). */
  linksRecordedCents: number;
  kudosIds: string[];
  problems: string[];
}

/** The Slack user group of the send in parts (more than the 100 people a sender can pick one by one). */
export function firstPartsGroup(): WorkspaceUsergroup {
  return { id: PARTS_GROUP, handle: 'chaos-many', name: 'Chaos Many', users: PARTS_RECIPIENTS };
}

export function firstPartsUsers(user: (id: string, name: string) => WorkspaceUser): WorkspaceUser[] {
  return [user(PARTS_SENDER, 'parts'), ...PARTS_RECIPIENTS.map((id, i) => user(id, `many${i + 1}`))];
}

async function availableCents(ctx: MoneyFaultsContext): Promise<number> {
  const balance = await ctx.apiGet('/api/v1/balance');
  return cents((balance.availableBalance ?? balance.data?.availableBalance)?.amount);
}

/** Moves money out of the account until `targetCents` is available; returns what was moved, to bring back. */
async function lowerBalanceTo(ctx: MoneyFaultsContext, targetCents: number): Promise<number> {
  const out = (await availableCents(ctx)) - targetCents;
  if (out > 0) await ctx.control('POST', '/ledger', { kind: 'transferSent', amount: out / 100 });
  return Math.max(0, out);
}

async function restoreBalance(ctx: MoneyFaultsContext, movedCents: number): Promise<void> {
  if (movedCents > 0) await ctx.control('POST', '/ledger', { kind: 'transferReceived', amount: movedCents / 100 });
}

/** The next call to `path` is applied and its answer lost, and the client's three retries are refused: the attempt ends not knowing. */
async function loseFirstAnswer(ctx: MoneyFaultsContext, path: string): Promise<void> {
  await ctx.control('POST', '/faults', { method: 'POST', path, drop: true, count: 1 });
  await ctx.control('POST', '/faults', { method: 'POST', path, status: 503, count: 3 });
}

export async function runFirstParts(ctx: MoneyFaultsContext): Promise<FirstPartsResult> {
  const { sim, db } = ctx;
  const problems: string[] = [];

  // 1. A send in parts: 150 people, $10 each, two orders (100 + 50).
  let moved = await lowerBalanceTo(ctx, PARTS_BALANCE_CENTS);
  await loseFirstAnswer(ctx, '^/api/v1/orders/choice-cards$');
  const view = await openModal(sim, PARTS_SENDER);
  await submitUntilClosed(
    sim,
    PARTS_SENDER,
    view,
    sendModalValues({
      group: { value: `slack:${PARTS_GROUP}`, text: '@chaos-many' },
      design: 'CC-THANK-YOU',
      amount: String(PART_SEND_DOLLARS),
      message: 'lost first part',
    }),
  );
  const settled = await until('the send in parts settled', ctx.settleTimeoutMs, async () => {
    const [row] = await db.db.select().from(kudos).where(eq(kudos.senderUserId, PARTS_SENDER));
    return row && row.status !== 'pending' && row.status !== 'unknown' && row.notifiedAt ? row : undefined;
  });
  const [row] = await db.db.select().from(kudos).where(eq(kudos.senderUserId, PARTS_SENDER));
  await restoreBalance(ctx, moved);
  const keys = row ? new Set([0, 1].map((i) => kudosPartKey(row, i))) : new Set<string>();
  const sendOrders = (await listOrders(ctx)).filter((o) => keys.has(o.clientOrderId ?? o.idempotencyKey));
  const dms = sim.messages(PARTS_SENDER).filter((m) => !m.ephemeral && m.bot_id);
  const send = {
    status: row?.status ?? 'none',
    partsPlaced: row?.partsPlaced ?? 0,
    orders: sendOrders.length,
    recipients: sendOrders.reduce((n, o) => n + Number(o.recipientCount ?? o.recipients?.length ?? 0), 0),
    chargedCents: sendOrders.reduce((n, o) => n + cents(o.totalCost?.amount), 0),
    recordedCents: row?.costCents ?? 0,
    toldNothingCharged: dms.filter((m) => m.text.includes('Nothing was charged')).length,
    toldOnItsWay: dms.filter((m) => /^Your kudos (is on its way|was delivered)/.test(m.text)).length,
  };
  if (!settled && row) {
    const mapped = await db.db
      .select({ id: recipientMappings.slackUserId })
      .from(recipientMappings)
      .where(inArray(recipientMappings.slackUserId, PARTS_RECIPIENTS));
    problems.push(
      `send in parts: not settled: ${JSON.stringify({ status: row.status, attempts: row.attempts, failedCalls: row.failedCalls, errorCode: row.errorCode, error: row.errorMessage, nextAttemptAt: row.nextAttemptAt, claimedUntil: row.claimedUntil, recipientsInAddressBook: mapped.length })}`,
    );
  }
  if (send.status !== 'placed' || send.partsPlaced !== 2)
    problems.push(`send in parts: ${send.status} with ${send.partsPlaced} of 2 parts placed, expected placed`);
  if (send.orders !== 2 || send.recipients !== PARTS_RECIPIENTS.length)
    problems.push(
      `send in parts: ${send.orders} orders for ${send.recipients} people, expected 2 for ${PARTS_RECIPIENTS.length}`,
    );
  if (send.chargedCents !== send.recordedCents)
    problems.push(`send in parts: ${send.chargedCents} cents charged, ${send.recordedCents} recorded`);
  if (send.toldNothingCharged !== 0 || send.toldOnItsWay !== 1)
    problems.push(
      `send in parts: told "nothing was charged" ${send.toldNothingCharged} times, "on its way" ${send.toldOnItsWay} times`,
    );
  ctx.log(
    `chaos: send in parts with its first answer lost: ${send.status}, ${send.orders} orders, ${send.chargedCents} cents charged, ${send.recordedCents} recorded`,
  );

  // 2. Reward links in two parts (500 + 100): the first answer lost, then the next call slower than the claim.
  const redeem = /rewards\.emulator\.test\/redeem\/[A-Z0-9]+/g;
  const adminDms = () => sim.messages(LINKS_ADMIN).filter((m) => !m.ephemeral);
  const linksBefore = new Set(adminDms().flatMap((m) => m.text.match(redeem) ?? []));
  const requestsBefore = new Set(
    (await db.db.select({ id: rewardLinkRequests.id }).from(rewardLinkRequests)).map((r) => r.id),
  );
  const dmsBefore = adminDms().length;
  moved = await lowerBalanceTo(ctx, LINKS_BALANCE_CENTS);
  await loseFirstAnswer(ctx, '^/api/v1/orders/reward-links$');
  await ctx.control('POST', '/faults', {
    method: 'POST',
    path: '^/api/v1/orders/reward-links$',
    delayMs: SLOW_CALL_MS,
    count: 1,
  });
  const ours = async () => (await db.db.select().from(rewardLinkRequests)).find((r) => !requestsBefore.has(r.id));
  for (let attempt = 0; attempt < 20 && !(await ours()); attempt++) {
    const answer = await sim
      .slashCommand(LINKS_ADMIN, `links ${LINKS} ${LINK_CENTS / 100}`, 'C_GENERAL')
      .catch(() => ({ status: 0 }));
    if (answer.status === 200) await until('the reward links recorded', 20_000, ours);
  }
  const request = await until('the reward links settled', ctx.settleTimeoutMs, async () => {
    const r = await ours();
    return r && r.status !== 'pending' ? r : undefined;
  });
  await restoreBalance(ctx, moved);
  const created = request?.createdQuantity ?? 0;
  const newLinks = () =>
    new Set(
      adminDms()
        .flatMap((m) => m.text.match(redeem) ?? [])
        .filter((l) => !linksBefore.has(l)),
    ).size;
  if (request) await until('the reward links delivered', ctx.settleTimeoutMs, async () => newLinks() >= created);
  const linkKeys = request ? new Set([0, 1].map((i) => partKey(request, i))) : new Set<string>();
  const linkOrders = (await listOrders(ctx, '&orderType=LINK')).filter((o) =>
    linkKeys.has(o.clientOrderId ?? o.idempotencyKey),
  );
  const links = {
    status: request?.status ?? 'none',
    partsCreated: request?.partsCreated ?? 0,
    createdQuantity: created,
    orders: linkOrders.length,
    chargedCents: linkOrders.reduce((n, o) => n + cents(o.totalCost?.amount), 0),
    recordedCents: created * LINK_CENTS,
    linksDelivered: newLinks(),
    failedNotices: adminDms()
      .slice(dmsBefore)
      .filter((m) => m.text.includes('could not be created')).length,
  };
  if (links.status !== 'placed' || links.partsCreated !== 2 || links.createdQuantity !== LINKS)
    problems.push(
      `lost first link part: request ${links.status}, ${links.partsCreated} parts, ${links.createdQuantity} of ${LINKS} links; expected placed`,
    );
  if (links.orders !== links.partsCreated)
    problems.push(`lost first link part: ${links.orders} orders, ${links.partsCreated} parts recorded`);
  if (links.chargedCents !== links.recordedCents)
    problems.push(`lost first link part: ${links.chargedCents} cents charged, ${links.recordedCents} recorded`);
  if (links.linksDelivered !== links.createdQuantity)
    problems.push(`lost first link part: ${links.linksDelivered} links delivered of ${links.createdQuantity}`);
  if (links.failedNotices !== 0)
    problems.push(`lost first link part: told "could not be created" ${links.failedNotices} times`);
  ctx.log(
    `chaos: reward links with their first answer lost and a slow part: ${links.status}, ${links.createdQuantity} links, ${links.chargedCents} cents charged`,
  );

  const faults = await ctx.control('GET', '/faults');
  if ((faults.faults ?? []).length > 0)
    problems.push(
      `lost first parts: ${faults.faults.length} injected faults never reached (the calls did not happen as planned)`,
    );
  return { send, links, linksRecordedCents: links.recordedCents, kudosIds: row ? [row.id] : [], problems };
}
