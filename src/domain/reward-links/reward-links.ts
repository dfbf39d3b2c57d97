// Reward links made from Slack (`/kudos links N AMOUNT [design]`, admins only). The request is
// recorded with its idempotency key (after finance's known limits, the approval threshold and the
// requester's budget, under the same per-sender lock as sends; one that needs approval waits for it,
// link-approvals.ts) before any API call; its orders are created in the background,
// one part of at most 500 links at a time, each with a key derived from the request's, and each part's
// order id is recorded as soon as it is created. The balance is checked before the first part. A
// request with any part created is never reported as failed: it says exactly what was created, and
// the created links reach the requester by DM once their order is COMPLETE (order-finished.ts).
// A lost answer is never a refusal: the part is tried again with its own key (the API recovers it).
// Branded links (branded-links.ts) are ordered at face value in the brand's currency; each part's
// `totalCost` is recorded (cost_cents) and teaches the workspace's rate of that currency.
import { and, eq, isNull, lte, or, type SQL, sql } from 'drizzle-orm';

import type { Logger } from '../../config/logger.js';
import type { Database } from '../../db/client.js';
import {
  type CardType,
  type RewardLinkRequestRow,
  rewardLinkRequests,
  type RewardLinkRequestStatus,
} from '../../db/schema/index.js';
import { type OrderSummary, splitQuantity, toCents } from '../../rewards/index.js';
import type { RewardsAccounts } from '../accounts/rewards-accounts.js';
import { classifyRewardsFailure } from '../accounts/rewards-failures.js';
import { learnRateFromOrder } from '../branded/exchange-rates.js';
import { centsToDecimal, formatUsd } from '../common/money.js';
import type { Messenger } from '../common/ports.js';
import { type Refused, refused } from '../common/refusal.js';
import type { StatusTransitions } from '../common/status-transitions.js';
import { checkSendAgainstLimits, type OverLimit } from '../finance/spending-limits.js';
import type { NoticePresenter } from '../notices/notices.js';
import { postOnce } from '../notices/outbox.js';
import { scheduleOrderCheck } from '../sending/order-check-schedule.js';
import type { SendPolicy } from '../sending/send-policy.js';
import { recordAudit } from '../workspaces/audit-trail.js';
import { brandedLinksBlocked, brandedRateMoved, chargedCents } from './branded-links.js';
import { partKey } from './link-parts.js';

/**
 * Every status a reward-link request may be written with, from each status
 * (common/status-transitions.ts): an approver decides a waiting request (link-approvals.ts); the
 * holder of a pending one settles it placed, partial (some parts created) or failed.
 */
export const REWARD_LINK_STATUS_TRANSITIONS = {
  awaiting_approval: ['rejected', 'pending'],
  rejected: [],
  pending: ['placed', 'partial', 'failed'],
  placed: [],
  partial: [],
  failed: [],
} as const satisfies StatusTransitions<RewardLinkRequestStatus>;

/** One request makes at most this many links (placed in parts of 500). */
export const MAX_LINKS_PER_COMMAND = 2000;
/** How long a placing attempt holds its request; renewed every third of it while the attempt runs. */
const PLACE_LEASE_MS = 120_000;
/** A part whose call failed without a refusal is tried again after this (with its own key). */
const RETRY_AFTER_S = 20;

export interface RewardLinkDeps {
  db: Database;
  rewards: RewardsAccounts;
  chat: Messenger;
  present: NoticePresenter;
  logger: Logger;
}

/** Refused by a known spending limit (its code passed on) or by the send policy. */
export type RecordedLinkRequest =
  { ok: true; row: RewardLinkRequestRow } | Refused<OverLimit['code'] | 'policy_refused'>;

/**
 * Records a request, with its audit row, under the per-sender lock that sends use: `pending` when the
 * policy lets it go straight out, `awaiting_approval` when it needs approval (threshold, budget, or
 * `waitReason`: a branded card whose USD cost cannot be judged before charging).
 */
export async function recordRewardLinkRequest(
  db: Database,
  policy: SendPolicy,
  values: {
    teamId: string;
    enterpriseId: string | null;
    requesterUserId: string;
    productId: string;
    designName: string;
    quantity: number;
    /** Per link, USD cents: a branded card's judged cost (0 when it cannot be judged). */
    amountCents: number;
    cardType?: CardType;
    /** A branded card's face value per link, in cents of `faceCurrency`. */
    faceCurrency?: string | null;
    faceCents?: number | null;
  },
  now: Date = new Date(),
  opts: { waitReason?: string | undefined } = {},
): Promise<RecordedLinkRequest> {
  const draft = {
    teamId: values.teamId,
    senderUserId: values.requesterUserId,
    amountCents: values.amountCents,
    recipientCount: values.quantity,
    totalCents: values.amountCents * values.quantity,
  };
  await policy.prepare?.(draft);
  return db.transaction(async (tx): Promise<RecordedLinkRequest> => {
    await tx.execute(
      sql`select pg_advisory_xact_lock(hashtext(${`kudos.send:${values.teamId}:${values.requesterUserId}`}))`,
    );
    // Finance's known daily and monthly limits first (what Kudos' sends and links already use of
    // them counted): a request that would break one is refused whole, before any part is charged.
    const limits = await checkSendAgainstLimits(tx, { teamId: values.teamId }, draft.totalCents, now, 'These links');
    if (!limits.ok) return limits;
    const decided = policy.recheck ? await policy.recheck(tx, draft) : await policy.route(draft);
    if (decided.kind === 'refuse') return refused('policy_refused', decided.message);
    const route = opts.waitReason ? { kind: 'needs_approval' as const, reason: opts.waitReason } : decided;
    // Above the threshold or past the budget: recorded waiting for an approver; nothing is ordered
    // until one approves (link-approvals.ts).
    const waiting = route.kind === 'needs_approval';
    const [row] = await tx
      .insert(rewardLinkRequests)
      .values({ ...values, ...(waiting ? { status: 'awaiting_approval' as const, approvalReason: route.reason } : {}) })
      .returning();
    await recordAudit(tx, {
      teamId: values.teamId,
      enterpriseId: values.enterpriseId,
      actorUserId: values.requesterUserId,
      action: 'reward_links.requested',
      subjectType: 'reward_link_request',
      subjectId: row!.id,
      details: {
        quantity: values.quantity,
        amountCents: values.amountCents,
        totalCents: draft.totalCents,
        productId: values.productId,
        ...(values.cardType === 'BRANDED_CARD'
          ? { cardType: values.cardType, faceCurrency: values.faceCurrency, faceCents: values.faceCents }
          : {}),
        ...(waiting ? { needsApproval: route.reason } : {}),
      },
    });
    return { ok: true, row: row! };
  });
}

const leaseUntil = (leaseMs: number) => sql`now() + ${`${leaseMs} milliseconds`}::interval`;

async function claim(db: Database, id: string, leaseMs: number): Promise<RewardLinkRequestRow | undefined> {
  const [row] = await db
    .update(rewardLinkRequests)
    .set({
      claimedUntil: leaseUntil(leaseMs),
      attempts: sql`${rewardLinkRequests.attempts} + 1`,
      updatedAt: sql`now()`,
    })
    .where(
      and(
        eq(rewardLinkRequests.id, id),
        eq(rewardLinkRequests.status, 'pending'),
        or(isNull(rewardLinkRequests.claimedUntil), lte(rewardLinkRequests.claimedUntil, sql`now()`)),
      ),
    )
    .returning();
  return row;
}

/** Writes after a claim are fenced on the claim (attempts) and the pending status: a late holder changes nothing. */
type RequestUpdate = {
  [K in keyof typeof rewardLinkRequests.$inferInsert]?: (typeof rewardLinkRequests.$inferInsert)[K] | SQL;
};

async function updateClaimed(
  db: Database,
  row: RewardLinkRequestRow,
  set: RequestUpdate,
): Promise<RewardLinkRequestRow | undefined> {
  const [updated] = await db
    .update(rewardLinkRequests)
    .set({ ...set, updatedAt: sql`now()` })
    .where(
      and(
        eq(rewardLinkRequests.id, row.id),
        eq(rewardLinkRequests.attempts, row.attempts),
        eq(rewardLinkRequests.status, 'pending'),
      ),
    )
    .returning();
  return updated;
}

export type PlaceOutcome = 'placed' | 'partial' | 'failed' | 'retry' | 'skipped';

export interface PlaceRewardLinksOptions {
  firstCheckDelayMs: number;
  signal?: AbortSignal;
  /** How long the attempt holds the request between renewals (default 2 min). */
  leaseMs?: number;
}

/** Creates the parts of a recorded request, each exactly once; safe to call again after any failure. */
export async function placeRewardLinkRequest(
  deps: RewardLinkDeps,
  id: string,
  opts: PlaceRewardLinksOptions,
): Promise<PlaceOutcome> {
  const leaseMs = opts.leaseMs ?? PLACE_LEASE_MS;
  const claimed = await claim(deps.db, id, leaseMs);
  if (!claimed) return 'skipped';
  const log = deps.logger.child({ rewardLinkRequestId: claimed.id });
  // A part's call may outlast the lease (a slow API retried four times): the lease is renewed while
  // the attempt runs, so no sweep takes the request over; a renewal that finds it taken aborts the call.
  const lost = new AbortController();
  const renewal = setInterval(
    () =>
      void updateClaimed(deps.db, claimed, { claimedUntil: leaseUntil(leaseMs) })
        .then((held) => {
          if (!held) lost.abort();
        })
        .catch((error: unknown) =>
          log.warn('renewing the reward-link request’s lease failed; will try again', { error }),
        ),
    Math.max(50, Math.floor(leaseMs / 3)),
  );
  const signal = opts.signal ? AbortSignal.any([opts.signal, lost.signal]) : lost.signal;
  try {
    return await placeClaimed(deps, claimed, { ...opts, leaseMs, signal }, log);
  } finally {
    clearInterval(renewal);
  }
}

async function placeClaimed(
  deps: RewardLinkDeps,
  claimed: RewardLinkRequestRow,
  opts: Required<Omit<PlaceRewardLinksOptions, 'signal'>> & { signal: AbortSignal },
  log: Logger,
): Promise<PlaceOutcome> {
  let row = claimed;
  const parts = splitQuantity(row.quantity);
  const signalOpt = { signal: opts.signal };
  try {
    const rewards = await deps.rewards.for(row);
    if (row.partsCreated === 0 && row.attempts > 1) {
      // An earlier attempt may have created the first part with its answer lost: the balance read now
      // would count that order against the request. Look it up by its key before judging anything.
      const first = await rewards.orders.findByClientOrderId(partKey(row, 0), signalOpt);
      if (first) {
        const recorded = await recordCreatedPart(deps, row, 0, parts[0]!, first, opts);
        if (!recorded) {
          log.warn('the claim was lost while recording the first part; its new holder continues with the same keys');
          return 'skipped';
        }
        row = recorded;
        log.info('reward-link part found by its key', { part: 1, parts: parts.length, orderId: first.orderId });
      }
    }
    if (row.partsCreated === 0) {
      // A branded request (perhaps one that waited for approval): its brand read again, its rate checked.
      const blocked = await brandedLinksBlocked(deps.db, rewards, row);
      if (blocked) return await settle(deps, row, 'failed', blocked.code, blocked.reason, log);
      // Before the first part: the whole request must fit the balance (the known spending limits were
      // checked when it was recorded; the API does not show them, so a limit refusal part-way can
      // still happen and is reported exactly, see below).
      const balance = await rewards.balance.get(signalOpt);
      const available = toCents(balance.availableBalance.amount, { rounding: 'half-up' });
      const total = row.amountCents * row.quantity;
      if (available < total) {
        const reason = `the Rewards balance (${formatUsd(available)}) does not cover ${formatUsd(total)}. Ask an admin to top it up.`;
        return await settle(deps, row, 'failed', 'INSUFFICIENT_BALANCE', reason, log);
      }
    }
    const firstIndex = row.partsCreated;
    for (let index = row.partsCreated; index < parts.length; index++) {
      const quantity = parts[index]!;
      // A later part of a branded request: the rate its earlier parts taught may have risen beyond the margin.
      const moved = index > 0 ? await brandedRateMoved(deps.db, row, row.quantity - row.createdQuantity) : undefined;
      // An earlier attempt may have created this part with its answer lost: never settled without it.
      const found =
        moved && row.attempts > 1 && index === firstIndex
          ? await rewards.orders.findByClientOrderId(partKey(row, index), signalOpt)
          : undefined;
      if (moved && !found) return await settle(deps, row, 'partial', 'RATE_MOVED', moved, log);
      const created = found
        ? { order: found, recovered: true }
        : await rewards.orders.createRewardLinks(
            { cardType: row.cardType, productId: row.productId, quantity, amountPerLink: amountPerLink(row) },
            { idempotencyKey: partKey(row, index), ...signalOpt },
          );
      const orderId = created.order.orderId;
      await learnFromBrandedPart(deps, row, quantity, created.order, log);
      const recorded = await recordCreatedPart(deps, row, index, quantity, created.order, opts);
      if (!recorded) {
        log.warn('the claim was lost while creating parts; its new holder continues with the same keys');
        return 'skipped';
      }
      row = recorded;
      log.info('reward-link part created', {
        part: index + 1,
        parts: parts.length,
        orderId,
        recovered: created.recovered,
      });
    }
    return await settle(deps, row, 'placed', null, null, log);
  } catch (error) {
    const verdict = classifyRewardsFailure(error);
    if (opts.signal.aborted || !verdict.permanent) {
      // Not a refusal (a lost answer, a timeout, a 5xx): the part may exist. Never failed: tried again
      // with the same key, which finds the order if it was created.
      log.warn('creating reward links failed without a refusal; will try again with the same key', {
        code: verdict.code,
        partsCreated: row.partsCreated,
        error,
      });
      const kept = await updateClaimed(deps.db, row, {
        claimedUntil: sql`now() + ${`${RETRY_AFTER_S} seconds`}::interval`,
        errorCode: verdict.code,
        errorMessage: verdict.userMessage,
      });
      // Taken over meanwhile (the lease was lost): its new holder goes on with the same keys.
      return kept ? 'retry' : 'skipped';
    }
    log.warn('reward links refused', { code: verdict.code, partsCreated: row.partsCreated, error });
    return settle(deps, row, row.partsCreated > 0 ? 'partial' : 'failed', verdict.code, verdict.userMessage, log);
  }
}

/** The amount of one link as the API takes it: a branded card's face value in its currency, else USD. */
function amountPerLink(row: RewardLinkRequestRow): string {
  return centsToDecimal(row.cardType === 'BRANDED_CARD' ? (row.faceCents ?? row.amountCents) : row.amountCents);
}

/** What a branded part was charged teaches the workspace's rate of its currency (a failure only costs the lesson). */
async function learnFromBrandedPart(
  deps: RewardLinkDeps,
  row: RewardLinkRequestRow,
  quantity: number,
  order: OrderSummary,
  log: Logger,
): Promise<void> {
  if (row.cardType !== 'BRANDED_CARD' || !row.faceCurrency || row.faceCents === null) return;
  await learnRateFromOrder(
    deps.db,
    row,
    { currency: row.faceCurrency, faceCents: row.faceCents * quantity },
    order,
  ).catch((error: unknown) => log.warn('learning the exchange rate from reward links failed', { error }));
}

/**
 * A created part, recorded at once (a refusal of a later part, or a crash, can never lose a paid
 * part) with what it was charged and its completion check; undefined when the claim was lost meanwhile.
 */
async function recordCreatedPart(
  deps: RewardLinkDeps,
  row: RewardLinkRequestRow,
  index: number,
  quantity: number,
  order: Pick<OrderSummary, 'orderId' | 'totalCost'>,
  opts: { firstCheckDelayMs: number; leaseMs: number },
): Promise<RewardLinkRequestRow | undefined> {
  const orderId = order.orderId;
  const charged = chargedCents(order);
  const recorded = await updateClaimed(deps.db, row, {
    ...(charged !== undefined
      ? { costCents: sql`coalesce(${rewardLinkRequests.costCents}, 0) + ${charged}::integer` }
      : {}),
    // In creation order (part order), each once.
    orderIds: sql`case when ${rewardLinkRequests.orderIds} @> ${JSON.stringify([orderId])}::jsonb then ${rewardLinkRequests.orderIds} else ${rewardLinkRequests.orderIds} || ${JSON.stringify([orderId])}::jsonb end`,
    partsCreated: index + 1,
    createdQuantity: sql`${rewardLinkRequests.createdQuantity} + ${quantity}`,
    claimedUntil: leaseUntil(opts.leaseMs),
  });
  if (recorded)
    await scheduleOrderCheck(deps.db, {
      orderId,
      source: 'reward_links',
      teamId: recorded.teamId,
      enterpriseId: recorded.enterpriseId,
      rewardLinkRequestId: recorded.id,
      firstDelayMs: opts.firstCheckDelayMs,
    });
  return recorded;
}

/** The request's final state, its audit row, and (unless all went well: the links themselves say it) the requester told once. */
async function settle(
  deps: RewardLinkDeps,
  row: RewardLinkRequestRow,
  status: 'placed' | 'partial' | 'failed',
  code: string | null,
  reason: string | null,
  log: Logger,
): Promise<PlaceOutcome> {
  const settled = await updateClaimed(deps.db, row, {
    status,
    claimedUntil: null,
    errorCode: code,
    errorMessage: reason,
  });
  if (!settled) return 'skipped';
  await recordAudit(deps.db, {
    teamId: settled.teamId,
    enterpriseId: settled.enterpriseId,
    actorUserId: settled.requesterUserId,
    action: `reward_links.${status}`,
    subjectType: 'reward_link_request',
    subjectId: settled.id,
    details: {
      quantity: settled.quantity,
      createdQuantity: settled.createdQuantity,
      amountCents: settled.amountCents,
      chargedCents: settled.costCents ?? settled.createdQuantity * settled.amountCents,
      orderIds: settled.orderIds,
      ...(code ? { errorCode: code } : {}),
    },
  }).catch((error: unknown) => log.error('writing the reward-link audit row failed', { error }));
  if (status === 'placed') {
    log.info('reward links ordered', { orderIds: settled.orderIds });
    return 'placed';
  }
  const key = {
    kind: `reward_links.${status}`,
    subject: settled.id,
    teamId: settled.teamId,
    enterpriseId: settled.enterpriseId,
  };
  const why = reason ?? 'the Rewards API refused it.';
  await postOnce(deps, key, {
    to: { userId: settled.requesterUserId },
    message: deps.present(
      status === 'failed'
        ? { type: 'reward_links.failed', request: settled, reason: why }
        : { type: 'reward_links.partial', request: settled, reason: why },
    ),
  });
  return status;
}

/** Requests left pending (a crash, a transient failure): placed again with their own keys. */
export async function resumePendingRewardLinkRequests(
  deps: RewardLinkDeps,
  opts: PlaceRewardLinksOptions,
): Promise<number> {
  const due = await deps.db
    .select({ id: rewardLinkRequests.id })
    .from(rewardLinkRequests)
    .where(
      and(
        eq(rewardLinkRequests.status, 'pending'),
        lte(rewardLinkRequests.createdAt, sql`now() - interval '10 seconds'`),
        or(isNull(rewardLinkRequests.claimedUntil), lte(rewardLinkRequests.claimedUntil, sql`now()`)),
      ),
    )
    .limit(5);
  let placed = 0;
  for (const { id } of due) {
    if ((await placeRewardLinkRequest(deps, id, opts)) === 'placed') placed++;
  }
  return placed;
}
