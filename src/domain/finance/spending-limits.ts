// The organization's daily and monthly spending limits (spec 4.3, 8), what Kudos has used of them,
// limit-increase requests, and the check that refuses a send before ordering when it would break one.
//
// The spec has no endpoint that reads the limits. Kudos keeps them as last known in finance_state:
// entered by an admin (as the Rewards portal shows them) or learnt from the API's own answers (the
// details of a 409 STALE_LIMIT_SNAPSHOT or a 422 limit refusal, when they carry the figures). Usage is
// what Kudos placed in the UTC day / month (the emulator and, we assume, the API count per UTC day).
import { and, eq, gte, inArray, sql } from 'drizzle-orm';

import type { Logger } from '../../config/logger.js';
import type { Database } from '../../db/client.js';
import {
  financeState,
  kudos,
  type LimitIncreaseRequestRow,
  limitIncreaseRequests,
  type LimitRequestStatus,
  rewardLinkRequests,
} from '../../db/schema/index.js';
import { RewardsApiError, RewardsConnectionError, toCents } from '../../rewards/index.js';
import type { RewardsAccounts } from '../accounts/rewards-accounts.js';
import { centsToDecimal, formatUsd } from '../common/money.js';
import { type Refused, refused } from '../common/refusal.js';
import type { StatusTransitions } from '../common/status-transitions.js';
import type { Workspace } from '../common/workspace.js';
import type { SendPolicy } from '../sending/send-policy.js';
import { ensureFinanceState } from './low-balance.js';

/**
 * Every status a limit-increase request may be written with, from each status
 * (common/status-transitions.ts): the request that recorded it writes the answer of its one call.
 */
export const LIMIT_REQUEST_STATUS_TRANSITIONS = {
  sending: ['pending_review', 'stale', 'failed', 'unknown'],
  pending_review: [],
  stale: [],
  failed: [],
  unknown: [],
} as const satisfies StatusTransitions<LimitRequestStatus>;

export interface KnownLimits {
  dailyCents: number;
  monthlyCents: number;
  source: string | null;
  updatedAt: Date | null;
}

export interface LimitUsage {
  todayCents: number;
  monthCents: number;
}

const startOfUtcDay = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
const startOfUtcMonth = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));

export async function knownLimits(db: Database, ws: Workspace): Promise<KnownLimits | undefined> {
  const [row] = await db.select().from(financeState).where(eq(financeState.teamId, ws.teamId));
  if (!row || row.dailyLimitCents === null || row.monthlyLimitCents === null) return undefined;
  return {
    dailyCents: row.dailyLimitCents,
    monthlyCents: row.monthlyLimitCents,
    source: row.limitsSource,
    updatedAt: row.limitsUpdatedAt,
  };
}

export async function rememberLimits(
  db: Database,
  ws: Workspace,
  limits: { dailyCents: number; monthlyCents: number },
  source: string,
): Promise<void> {
  await ensureFinanceState(db, ws);
  await db
    .update(financeState)
    .set({
      dailyLimitCents: limits.dailyCents,
      monthlyLimitCents: limits.monthlyCents,
      limitsSource: source,
      limitsUpdatedAt: sql`now()`,
      updatedAt: sql`now()`,
    })
    .where(eq(financeState.teamId, ws.teamId));
}

/**
 * What Kudos' orders take of the limits in the UTC day and month of `now`: sends placed or about to
 * be, sends whose outcome is unknown (the API may have charged them: counted until Kudos knows), and
 * reward links (a request still being placed counts in full, a settled one what it created).
 */
export async function limitUsage(db: Database, ws: Workspace, now: Date): Promise<LimitUsage> {
  const dayStart = startOfUtcDay(now);
  const at = sql`coalesce(${kudos.placedAt}, ${kudos.createdAt})`;
  const spent = sql<string>`coalesce(${kudos.costCents}, ${kudos.totalCents})`;
  const [row] = await db
    .select({
      today: sql<string>`coalesce(sum(${spent}) filter (where ${at} >= ${dayStart.toISOString()}), 0)`,
      month: sql<string>`coalesce(sum(${spent}), 0)`,
    })
    .from(kudos)
    .where(
      and(
        eq(kudos.teamId, ws.teamId),
        inArray(kudos.status, ['pending', 'unknown', 'placed', 'scheduled', 'partial']),
        gte(sql`${at}`, startOfUtcMonth(now).toISOString()),
      ),
    );
  const linksAt = rewardLinkRequests.createdAt;
  // Settled: what the created parts were charged once known (a branded card's actual cost), else the
  // judged cost; pending: the judged cost of all its links, or more when its charged parts cost more.
  const r = rewardLinkRequests;
  const linksSpent = sql<string>`(case when ${r.status} = 'pending' then greatest(${r.quantity}::bigint * ${r.amountCents}, coalesce(${r.costCents}, 0)) else coalesce(${r.costCents}, ${r.createdQuantity}::bigint * ${r.amountCents}) end)`;
  const [links] = await db
    .select({
      today: sql<string>`coalesce(sum(${linksSpent}) filter (where ${linksAt} >= ${dayStart.toISOString()}), 0)`,
      month: sql<string>`coalesce(sum(${linksSpent}), 0)`,
    })
    .from(rewardLinkRequests)
    .where(
      and(
        eq(rewardLinkRequests.teamId, ws.teamId),
        inArray(rewardLinkRequests.status, ['pending', 'placed', 'partial']),
        gte(linksAt, new Date(startOfUtcMonth(now).toISOString())),
      ),
    );
  return {
    todayCents: Number(row?.today ?? 0) + Number(links?.today ?? 0),
    monthCents: Number(row?.month ?? 0) + Number(links?.month ?? 0),
  };
}

/** A send that would go over a known limit; the codes name the limit. */
export type OverLimit = Refused<'daily_limit_exceeded' | 'monthly_limit_exceeded'>;

/**
 * A send of `totalCents` now: refused (with the reason) when it would take today's or this month's
 * use over a known limit. Unknown limits refuse nothing; the API still has the last word (422).
 */
export async function checkSendAgainstLimits(
  db: Database,
  ws: Workspace,
  totalCents: number,
  now: Date,
  what = 'This send',
): Promise<{ ok: true } | OverLimit> {
  const limits = await knownLimits(db, ws);
  if (!limits) return { ok: true };
  const used = await limitUsage(db, ws, now);
  if (used.todayCents + totalCents > limits.dailyCents) {
    const left = Math.max(0, limits.dailyCents - used.todayCents);
    return refused(
      'daily_limit_exceeded',
      `${what} (${formatUsd(totalCents)}) would go over the daily spending limit of ${formatUsd(limits.dailyCents)}: ${formatUsd(used.todayCents)} is used today, ${formatUsd(left)} is left. Send less, or tomorrow (UTC).`,
    );
  }
  if (used.monthCents + totalCents > limits.monthlyCents) {
    const left = Math.max(0, limits.monthlyCents - used.monthCents);
    return refused(
      'monthly_limit_exceeded',
      `${what} (${formatUsd(totalCents)}) would go over the monthly spending limit of ${formatUsd(limits.monthlyCents)}: ${formatUsd(used.monthCents)} is used this month, ${formatUsd(left)} is left. An admin can ask for a higher limit (/kudos limits).`,
    );
  }
  return { ok: true };
}

/** Whole dollars, 1 to 100,000,000, as cents. */
export function parseLimitDollars(
  input: string | null | undefined,
):
  | { ok: true; cents: number }
  | Refused<'negative_amount' | 'not_whole_dollars' | 'not_a_number' | 'below_minimum' | 'above_maximum'> {
  const text = (input ?? '').trim().replace(/^\$/, '').replace(/,/g, '');
  if (text.startsWith('-')) return refused('negative_amount', 'A limit must be positive.');
  if (!/^\d{1,9}$/.test(text))
    return /\./.test(text)
      ? refused('not_whole_dollars', 'Limits are whole dollars, e.g. 5000.')
      : refused('not_a_number', 'Enter whole dollars, e.g. 5000.');
  const dollars = Number(text);
  if (dollars < 1) return refused('below_minimum', 'A limit must be at least $1.');
  if (dollars > 100_000_000) return refused('above_maximum', 'That is more than $100,000,000: check the figure.');
  return { ok: true, cents: dollars * 100 };
}

export interface LimitRequestInput {
  currentDailyCents: number;
  currentMonthlyCents: number;
  requestedDailyCents: number;
  requestedMonthlyCents: number;
}

export type LimitRequestOutcome =
  | { outcome: 'pending_review'; request: LimitIncreaseRequestRow }
  /** The current figures were out of date: the API's figures (when it gave them) to ask again with. */
  | { outcome: 'stale'; current: { dailyCents: number; monthlyCents: number } | undefined }
  | { outcome: 'failed'; message: string }
  /** The same form was submitted before (`sourceViewId`): nothing was sent this time; the first request as it stands. */
  | { outcome: 'duplicate'; request: LimitIncreaseRequestRow };

function limitsFromDetails(error: RewardsApiError): { dailyCents: number; monthlyCents: number } | undefined {
  const body = error.body as
    { error?: { details?: Record<string, unknown> }; details?: Record<string, unknown> } | undefined;
  const details = body?.error?.details ?? body?.details;
  const daily = details?.currentDailyLimitUsd;
  const monthly = details?.currentMonthlyLimitUsd;
  if (
    (typeof daily !== 'number' && typeof daily !== 'string') ||
    (typeof monthly !== 'number' && typeof monthly !== 'string')
  )
    return undefined;
  try {
    return {
      dailyCents: toCents(daily, { rounding: 'half-up' }),
      monthlyCents: toCents(monthly, { rounding: 'half-up' }),
    };
  } catch {
    return undefined;
  }
}

export async function requestLimitIncrease(
  deps: { db: Database; rewards: Pick<RewardsAccounts, 'for'>; logger: Logger },
  ws: Workspace,
  requesterUserId: string,
  input: LimitRequestInput,
  opts: { timeoutMs?: number; sourceViewId?: string } = {},
): Promise<LimitRequestOutcome> {
  const claimed = await claimRequest(deps.db, ws, requesterUserId, input, opts.sourceViewId);
  if (!claimed) return { outcome: 'failed', message: 'This form was being sent at the same moment: send it again.' };
  if ('duplicate' in claimed) return { outcome: 'duplicate', request: claimed.duplicate };
  const row = claimed.row;
  try {
    const result = await (
      await deps.rewards.for(ws)
    ).orders.requestLimitIncrease(
      {
        currentDailyLimitUsd: centsToDecimal(input.currentDailyCents),
        currentMonthlyLimitUsd: centsToDecimal(input.currentMonthlyCents),
        requestedDailyLimitUsd: centsToDecimal(input.requestedDailyCents),
        requestedMonthlyLimitUsd: centsToDecimal(input.requestedMonthlyCents),
      },
      { timeoutMs: opts.timeoutMs ?? 10_000 },
    );
    // The figures the API just accepted as current are the organization's records.
    await rememberLimits(
      deps.db,
      ws,
      { dailyCents: input.currentDailyCents, monthlyCents: input.currentMonthlyCents },
      'confirmed by a limit-increase request',
    );
    const [updated] = await deps.db
      .update(limitIncreaseRequests)
      .set({ status: 'pending_review', message: result.message ?? null, updatedAt: sql`now()` })
      .where(eq(limitIncreaseRequests.id, row.id))
      .returning();
    return { outcome: 'pending_review', request: updated! };
  } catch (error) {
    if (error instanceof RewardsApiError && error.code === 'STALE_LIMIT_SNAPSHOT') {
      const current = limitsFromDetails(error);
      if (current) await rememberLimits(deps.db, ws, current, 'the Rewards API (stale snapshot answer)');
      await deps.db
        .update(limitIncreaseRequests)
        .set({ status: 'stale', sourceViewId: null, updatedAt: sql`now()` })
        .where(eq(limitIncreaseRequests.id, row.id));
      return { outcome: 'stale', current };
    }
    deps.logger.warn('limit-increase request failed', { error });
    const { status, message } = limitFailureOf(error);
    await deps.db
      .update(limitIncreaseRequests)
      // Nothing queued: the same form may ask again. A lost answer keeps its claim: never sent twice.
      .set({ status, message, ...(status === 'failed' ? { sourceViewId: null } : {}), updatedAt: sql`now()` })
      .where(eq(limitIncreaseRequests.id, row.id));
    return { outcome: 'failed', message };
  }
}

/**
 * The request's row, inserted before the call. A form (`sourceViewId`) holds one row while its request
 * is on its way or taken (unique per workspace, so two instances agree): a second submission of it
 * gets that row instead. A row that let go of the form as this one was turned away is tried once more.
 */
async function claimRequest(
  db: Database,
  ws: Workspace,
  requesterUserId: string,
  input: LimitRequestInput,
  sourceViewId: string | undefined,
): Promise<{ row: LimitIncreaseRequestRow } | { duplicate: LimitIncreaseRequestRow } | undefined> {
  for (let attempt = 0; ; attempt++) {
    const [row] = await db
      .insert(limitIncreaseRequests)
      .values({
        teamId: ws.teamId,
        enterpriseId: ws.enterpriseId ?? null,
        requesterUserId,
        sourceViewId: sourceViewId ?? null,
        ...input,
      })
      .onConflictDoNothing({ target: [limitIncreaseRequests.teamId, limitIncreaseRequests.sourceViewId] })
      .returning();
    if (row) return { row };
    const [first] = await db
      .select()
      .from(limitIncreaseRequests)
      .where(
        and(eq(limitIncreaseRequests.teamId, ws.teamId), eq(limitIncreaseRequests.sourceViewId, sourceViewId ?? '')),
      );
    if (first) return { duplicate: first };
    if (attempt >= 1) return undefined;
  }
}

/**
 * What a failed limit-increase call means. A refusal, a 429 or a request that never left: nothing was
 * queued. A lost answer (a timeout, a 5xx, a cut connection) may have been queued: Kudos does not send
 * it again by itself, and says so rather than "nothing was queued".
 */
function limitFailureOf(error: unknown): { status: 'failed' | 'unknown'; message: string } {
  if (error instanceof RewardsApiError && error.status === 429)
    return { status: 'failed', message: 'Not requested: the Rewards API is busy. Try again in a minute.' };
  if (error instanceof RewardsApiError && error.status < 500 && error.status !== 408)
    return { status: 'failed', message: `Not requested: the Rewards API refused it (${error.code}).` };
  if (error instanceof RewardsConnectionError && error.notSent)
    return { status: 'failed', message: 'Not requested: the Rewards API could not be reached. Try again in a moment.' };
  return {
    status: 'unknown',
    message:
      'The Rewards API did not answer in time: the request may have been queued for review anyway. Look in the Rewards portal before asking again.',
  };
}

export async function pendingLimitRequest(db: Database, ws: Workspace): Promise<LimitIncreaseRequestRow | undefined> {
  const [row] = await db
    .select()
    .from(limitIncreaseRequests)
    .where(and(eq(limitIncreaseRequests.teamId, ws.teamId), eq(limitIncreaseRequests.status, 'pending_review')))
    .orderBy(sql`${limitIncreaseRequests.createdAt} desc`)
    .limit(1);
  return row;
}

/**
 * The send policy with the limit check in front: a send that would break a known limit is refused
 * before anything is recorded or ordered, with the reason; anything else goes to `policy`.
 */
export function withSpendingLimits(policy: SendPolicy, deps: { db: Database; now(): Date }): SendPolicy {
  return {
    async route(draft) {
      const check = await checkSendAgainstLimits(deps.db, { teamId: draft.teamId }, draft.totalCents, deps.now());
      if (!check.ok) return { kind: 'refuse', message: check.message };
      return policy.route(draft);
    },
    ...(policy.recheck ? { recheck: policy.recheck.bind(policy) } : {}),
    ...(policy.prepare ? { prepare: policy.prepare.bind(policy) } : {}),
  };
}
