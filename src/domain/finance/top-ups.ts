// ACH top-up requests from Slack: an admin asks, a SECOND admin approves (never the requester),
// exactly once, and only then is the API called, once.
//
// The decision is one conditional UPDATE (`status = 'awaiting_approval' AND requester <> actor`), so
// concurrent clicks on any number of instances make one decision and at most one API call. The
// top-up endpoint has no idempotency key: a call whose answer was lost (timeout, cut connection) is
// never repeated; the request becomes `unknown` and admins are told to look in the ledger. A request
// stays "pending" in Slack until the ledger shows its funding row Processed (or Unapproved).
//
// A request's billing details are what the approved call sends. With a key ring they are stored
// sealed under the request's id (top_up_requests.billing_sealed, re-sealed by `npm run keys:rotate`);
// without one (single-workspace mode without KUDOS_ENCRYPTION_KEY) in plain JSON, as every request
// made before they were sealed. The finance sweep seals such rows once there is a key ring.
import { randomUUID } from 'node:crypto';

import { and, eq, gte, inArray, isNotNull, isNull, lt, ne, sql } from 'drizzle-orm';

import type { Logger } from '../../config/logger.js';
import type { Database } from '../../db/client.js';
import {
  auditEvents,
  type BillingDetails,
  financeState,
  type TopUpRequestRow,
  topUpRequests,
  type TopUpStatus,
} from '../../db/schema/index.js';
import { topUpBillingContext } from '../../db/sealed-columns.js';
import { isRewardsError, RewardsApiError, RewardsConnectionError } from '../../rewards/index.js';
import type { KeyRing } from '../../secrets/key-ring.js';
import type { RewardsAccounts } from '../accounts/rewards-accounts.js';
import { centsToDecimal } from '../common/money.js';
import { decidedByText, type NamingText } from '../common/ports.js';
import { type Refused, refused } from '../common/refusal.js';
import { moveGuard, type StatusTransitions } from '../common/status-transitions.js';
import type { Workspace } from '../common/workspace.js';
import type { FinanceNotifier, TopUpRequest } from './finance-notices.js';
import { type Movement, movementsIn } from './ledger.js';
import { ensureFinanceState } from './low-balance.js';

/**
 * Every status a top-up request may be written with, from each status (common/status-transitions.ts):
 * a second admin decides; the approved request's one API call submits it, or fails, or leaves its
 * outcome unknown (also when the process died during the call); the ledger settles a submitted one.
 */
export const TOP_UP_STATUS_TRANSITIONS = {
  awaiting_approval: ['approved', 'rejected'],
  approved: ['submitted', 'failed', 'unknown'],
  submitted: ['completed', 'unapproved'],
  completed: [],
  unapproved: [],
  rejected: [],
  failed: [],
  unknown: [],
} as const satisfies StatusTransitions<TopUpStatus>;

export const TOP_UP_MIN_CENTS = 10_000; // spec 8: min 100.00 USD
/** Our ceiling against typos (an extra zero or two); larger amounts go through the portal. */
export const TOP_UP_MAX_CENTS = 100_000_000; // $1,000,000

export interface TopUpDeps {
  db: Database;
  rewards: Pick<RewardsAccounts, 'for'>;
  notifier: FinanceNotifier;
  logger: Logger;
  now(): Date;
  /** KUDOS_ENCRYPTION_KEY: seals each request's billing details; without it they are kept in plain JSON. */
  keyRing?: KeyRing | undefined;
}

/** The request with its billing details opened: sealed ones with the ring, else the plain ones. */
export function openTopUp(keyRing: KeyRing | undefined, row: TopUpRequestRow): TopUpRequest {
  const { billing, billingSealed, ...rest } = row;
  if (billingSealed === null) return { ...rest, billing: billing ?? undefined };
  try {
    return {
      ...rest,
      billing: keyRing ? parseBilling(keyRing.open(billingSealed, topUpBillingContext(row.id))) : undefined,
    };
  } catch {
    return { ...rest, billing: undefined };
  }
}

function parseBilling(json: string): BillingDetails | undefined {
  const billing = JSON.parse(json) as BillingDetails;
  return Object.keys(checkBilling(billing)).length === 0 ? billing : undefined;
}

/** The columns a request stores its details in: sealed under its id with a ring, else plain. */
function storedBilling(
  keyRing: KeyRing | undefined,
  id: string,
  billing: BillingDetails,
): Pick<TopUpRequestRow, 'billing' | 'billingSealed'> {
  return keyRing
    ? { billing: null, billingSealed: keyRing.seal(JSON.stringify(billing), topUpBillingContext(id)) }
    : { billing, billingSealed: null };
}

/**
 * Seals the plain billing details of requests (made before they were sealed, or while there was no
 * key ring) and clears the plain copy, in batches; a row is changed only while it is still plain, so
 * instances sealing at once change each row once. Returns how many were sealed. No ring: nothing.
 */
export async function sealPlainBilling(
  db: Database,
  keyRing: KeyRing | undefined,
  opts: { batchSize?: number } = {},
): Promise<number> {
  if (!keyRing) return 0;
  const batchSize = opts.batchSize ?? 200;
  let sealed = 0;
  for (;;) {
    // Across workspaces, like keys:rotate: each row is named by its id and its workspace.
    const batch = await db
      .select({ id: topUpRequests.id, teamId: topUpRequests.teamId, billing: topUpRequests.billing })
      .from(topUpRequests)
      .where(and(isNotNull(topUpRequests.billing), isNull(topUpRequests.billingSealed)))
      .limit(batchSize);
    for (const row of batch) {
      const [done] = await db
        .update(topUpRequests)
        .set(storedBilling(keyRing, row.id, row.billing!))
        .where(
          and(
            eq(topUpRequests.teamId, row.teamId),
            eq(topUpRequests.id, row.id),
            isNotNull(topUpRequests.billing),
            isNull(topUpRequests.billingSealed),
          ),
        )
        .returning({ id: topUpRequests.id });
      if (done) sealed += 1;
    }
    if (batch.length < batchSize) return sealed;
  }
}

export const SANDBOX_TOP_UP_MESSAGE =
  'Top-ups are production only (Rewards API spec): Kudos is connected to the *sandbox*, where the balance never runs out and cannot be topped up. Nothing was requested.';

type TopUpAmountRefused = Refused<
  'missing_amount' | 'negative_amount' | 'too_many_decimals' | 'not_a_number' | 'below_minimum' | 'above_maximum'
>;

/** "2,500", "2500.50", "$2500": USD with at most two decimals, within [min, max]. */
export function parseTopUpAmount(input: string | null | undefined): { ok: true; cents: number } | TopUpAmountRefused {
  const text = (input ?? '').trim().replace(/^\$/, '').replace(/,/g, '');
  if (text === '') return refused('missing_amount', 'Enter an amount in USD, e.g. 2500.');
  if (text.startsWith('-')) return refused('negative_amount', 'A top-up amount must be positive.');
  const match = /^(\d{1,12})(?:\.(\d{1,2}))?$/.exec(text);
  if (!match) {
    return /^\d+\.\d{3,}$/.test(text)
      ? refused('too_many_decimals', 'Use at most two decimals (cents), e.g. 2500.50.')
      : refused('not_a_number', 'Enter the amount as a number in USD, e.g. 2500 or 2500.50.');
  }
  const cents = Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  if (cents < TOP_UP_MIN_CENTS) return refused('below_minimum', 'The Rewards API takes top-ups of at least $100.00.');
  if (cents > TOP_UP_MAX_CENTS)
    return refused(
      'above_maximum',
      'That is more than $1,000,000: check the amount, or top up that much in the Rewards portal.',
    );
  return { ok: true, cents };
}

const BILLING_FIELDS = [
  'companyName',
  'phoneNumber',
  'billingAddress',
  'city',
  'state',
  'country',
  'zipCode',
  'ein',
] as const;

/** Missing or malformed billing fields, by field name (the top-up endpoint requires them all). */
export function checkBilling(billing: Partial<BillingDetails>): Partial<Record<keyof BillingDetails, string>> {
  const errors: Partial<Record<keyof BillingDetails, string>> = {};
  for (const field of BILLING_FIELDS)
    if (!billing[field]?.trim()) errors[field] = 'Required by the Rewards API for a top-up.';
  if (billing.country && !/^[A-Za-z]{2,3}$/.test(billing.country.trim()))
    errors.country = 'A 2- or 3-letter country code, e.g. US or USA.';
  return errors;
}

/** The billing details of the workspace's last request, to prefill the next one. */
export async function lastBilling(
  db: Database,
  keyRing: KeyRing | undefined,
  ws: Workspace,
): Promise<BillingDetails | undefined> {
  const [row] = await db
    .select()
    .from(topUpRequests)
    .where(eq(topUpRequests.teamId, ws.teamId))
    .orderBy(sql`${topUpRequests.createdAt} desc`)
    .limit(1);
  return row ? openTopUp(keyRing, row).billing : undefined;
}

export async function isKnownSandbox(db: Database, ws: Workspace): Promise<boolean> {
  const [row] = await db
    .select({ environment: financeState.environment })
    .from(financeState)
    .where(eq(financeState.teamId, ws.teamId));
  return row?.environment === 'sandbox';
}

/** The workspace's top-up request `id`; another workspace's is as unknown as one that never existed. */
export async function getTopUp(db: Database, ws: Workspace, id: string): Promise<TopUpRequestRow | undefined> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
  const [row] = await db
    .select()
    .from(topUpRequests)
    .where(and(eq(topUpRequests.teamId, ws.teamId), eq(topUpRequests.id, id)));
  return row;
}

/** Records the request and posts it to the admins with Approve / Reject. */
export async function requestTopUp(
  deps: TopUpDeps,
  ws: Workspace,
  input: { requesterUserId: string; amountCents: number; note: string; billing: BillingDetails; sourceViewId?: string },
): Promise<{ ok: true; request: TopUpRequest; duplicate?: boolean } | Refused<'sandbox_account' | 'not_recorded'>> {
  if (await isKnownSandbox(deps.db, ws)) return refused('sandbox_account', SANDBOX_TOP_UP_MESSAGE);
  // The id is chosen here: the sealed details are bound to it.
  const id = randomUUID();
  const request = await deps.db.transaction(async (tx) => {
    const [row] = await tx
      .insert(topUpRequests)
      .values({
        id,
        teamId: ws.teamId,
        enterpriseId: ws.enterpriseId ?? null,
        requesterUserId: input.requesterUserId,
        sourceViewId: input.sourceViewId ?? null,
        amountCents: input.amountCents,
        note: input.note,
        ...storedBilling(deps.keyRing, id, input.billing),
      })
      // The same form submitted twice (a second click while Slack waited for the first): one request.
      .onConflictDoNothing({ target: [topUpRequests.teamId, topUpRequests.sourceViewId] })
      .returning();
    if (!row) return undefined;
    await tx.insert(auditEvents).values({
      teamId: ws.teamId,
      enterpriseId: ws.enterpriseId ?? null,
      actorUserId: input.requesterUserId,
      action: 'topup.requested',
      subjectType: 'top_up',
      subjectId: row.id,
      details: { amountCents: input.amountCents, note: input.note },
    });
    return row;
  });
  if (!request) {
    const [first] = await deps.db
      .select()
      .from(topUpRequests)
      .where(and(eq(topUpRequests.teamId, ws.teamId), eq(topUpRequests.sourceViewId, input.sourceViewId ?? '')));
    if (!first) return refused('not_recorded', 'This top-up request could not be recorded; try again.');
    return { ok: true, request: openTopUp(deps.keyRing, first), duplicate: true };
  }
  const messages = await deps.notifier.toAdmins(ws, `top_up:${request.id}`, {
    kind: 'top_up_request',
    request: openTopUp(deps.keyRing, request),
  });
  const [stored] = await deps.db
    .update(topUpRequests)
    .set({ messages, updatedAt: sql`now()` })
    .where(eq(topUpRequests.id, request.id))
    .returning();
  return { ok: true, request: openTopUp(deps.keyRing, stored ?? request) };
}

export type TopUpDecision = 'approve' | 'reject';

/**
 * Takes the decision exactly once. The caller has checked that `actorUserId` is an admin (the one
 * admin rule). Approval calls the API (once) before returning; the messages and the requester are
 * updated after.
 */
export async function decideTopUp(
  deps: TopUpDeps,
  ws: Workspace,
  id: string,
  actorUserId: string,
  decision: TopUpDecision,
): Promise<{ ok: true; request: TopUpRequest } | Refused<'not_found' | 'own_request' | 'already_decided', NamingText>> {
  // Scoped by the clicker's workspace: an admin of one workspace never decides another's request.
  const existing = await getTopUp(deps.db, ws, id);
  if (!existing) return refused('not_found', 'This top-up request no longer exists.');
  if (existing.requesterUserId === actorUserId && decision === 'approve') {
    return refused('own_request', 'You asked for this top-up: another admin has to approve it.');
  }
  const to = decision === 'approve' ? 'approved' : 'rejected';
  const decided = await deps.db.transaction(async (tx) => {
    const [row] = await tx
      .update(topUpRequests)
      .set({
        status: to,
        deciderUserId: actorUserId,
        decidedAt: sql`now()`,
        updatedAt: sql`now()`,
      })
      .where(
        and(
          eq(topUpRequests.teamId, ws.teamId),
          eq(topUpRequests.id, id),
          moveGuard(topUpRequests.status, TOP_UP_STATUS_TRANSITIONS, to, ['awaiting_approval']),
          decision === 'approve' ? ne(topUpRequests.requesterUserId, actorUserId) : sql`true`,
        ),
      )
      .returning();
    if (!row) return undefined;
    await tx.insert(auditEvents).values({
      teamId: row.teamId,
      enterpriseId: row.enterpriseId,
      actorUserId,
      action: decision === 'approve' ? 'topup.approved' : 'topup.rejected',
      subjectType: 'top_up',
      subjectId: row.id,
      details: { amountCents: row.amountCents },
    });
    return row;
  });
  if (!decided) {
    const now = (await getTopUp(deps.db, ws, id)) ?? existing;
    return refused(
      'already_decided',
      decidedByText(
        `This top-up request was already ${describeStatus(now.status)}`,
        now.deciderUserId,
        '. Nothing more was done.',
      ),
    );
  }
  if (decision === 'reject') return { ok: true, request: openTopUp(deps.keyRing, decided) };
  return { ok: true, request: await submit(deps, openTopUp(deps.keyRing, decided)) };
}

/** The one API call of an approved request. */
async function submit(deps: TopUpDeps, row: TopUpRequest): Promise<TopUpRequest> {
  const log = deps.logger.child({ topUpId: row.id });
  let set: Partial<TopUpRequestRow>;
  try {
    // Details that no longer open (their key left the ring): nothing is sent, the admin asks again.
    if (!row.billing) throw new UnreadableBilling();
    const funding = await (
      await deps.rewards.for(row)
    ).balance.topUp({ amount: centsToDecimal(row.amountCents), ...row.billing }, { timeoutMs: 15_000 });
    set = { status: 'submitted', fundingNo: funding.fundingNo };
    log.info('top-up requested', { fundingNo: funding.fundingNo, amountCents: row.amountCents });
  } catch (error) {
    set = failureOf(error);
    log.warn('top-up request failed', { status: set.status, code: set.errorCode, error });
    if (set.errorCode === 'PRODUCTION_ONLY') {
      await ensureFinanceState(deps.db, row);
      await deps.db
        .update(financeState)
        .set({ environment: 'sandbox', updatedAt: sql`now()` })
        .where(eq(financeState.teamId, row.teamId));
    }
  }
  const [updated] = await deps.db
    .update(topUpRequests)
    .set({ ...set, updatedAt: sql`now()` })
    .where(eq(topUpRequests.id, row.id))
    .returning();
  return openTopUp(deps.keyRing, updated!);
}

class UnreadableBilling extends Error {
  override name = 'UnreadableBilling';
}

function failureOf(error: unknown): Partial<TopUpRequestRow> {
  if (error instanceof UnreadableBilling)
    return {
      status: 'failed',
      errorCode: 'BILLING_UNREADABLE',
      errorMessage:
        'Not requested: its billing details can no longer be read (their key was removed from KUDOS_ENCRYPTION_KEY). Ask for the top-up again.',
    };
  if (error instanceof RewardsApiError) {
    if (error.code === 'PRODUCTION_ONLY' || (error.status === 403 && /production/i.test(error.message))) {
      return { status: 'failed', errorCode: 'PRODUCTION_ONLY', errorMessage: SANDBOX_TOP_UP_MESSAGE };
    }
    if (error.status >= 500 || error.status === 408) {
      return {
        status: 'unknown',
        errorCode: error.code,
        errorMessage:
          'The Rewards API failed while taking the request; it may or may not have been recorded. Kudos will not send it again: look for it in `/kudos ledger` before asking again.',
      };
    }
    const why =
      error.status === 429
        ? 'the Rewards API is busy; ask again in a minute'
        : `the Rewards API refused it (${error.code})`;
    return { status: 'failed', errorCode: error.code, errorMessage: `Not requested: ${why}.` };
  }
  if (error instanceof RewardsConnectionError && error.notSent) {
    return {
      status: 'failed',
      errorCode: error.code,
      errorMessage: 'Not requested: the Rewards API could not be reached. Ask again later.',
    };
  }
  const code = isRewardsError(error) ? error.code : 'UNEXPECTED';
  return {
    status: 'unknown',
    errorCode: code,
    errorMessage:
      'The Rewards API did not answer in time; the top-up may or may not have been recorded. Kudos will not send it again: look for it in `/kudos ledger` before asking again.',
  };
}

export function describeStatus(status: TopUpRequestRow['status']): string {
  switch (status) {
    case 'awaiting_approval':
      return 'waiting for a second admin';
    case 'approved':
      return 'approved (being requested)';
    case 'submitted':
      return 'requested, waiting for the bank transfer to be confirmed';
    case 'completed':
      return 'completed';
    case 'unapproved':
      return 'not accepted by the Rewards provider';
    case 'rejected':
      return 'rejected';
    case 'failed':
      return 'refused';
    case 'unknown':
      return 'requested, but Kudos does not know yet whether it was received';
    default:
      return status;
  }
}

/** Requests not settled yet: shown to admins until the ledger shows them completed. */
export async function openTopUps(db: Database, ws: Workspace): Promise<TopUpRequestRow[]> {
  return db
    .select()
    .from(topUpRequests)
    .where(
      and(
        eq(topUpRequests.teamId, ws.teamId),
        inArray(topUpRequests.status, ['awaiting_approval', 'approved', 'submitted', 'unknown']),
      ),
    )
    .orderBy(sql`${topUpRequests.createdAt} desc`)
    .limit(20);
}

/** How long a settled request stays in the overview, so that admins see how it ended. */
export const RECENT_TOP_UP_DAYS = 7;

/** Requests that ended (completed, not approved, rejected, refused) in the last week, newest first. */
export async function recentlySettledTopUps(db: Database, ws: Workspace, now: Date): Promise<TopUpRequestRow[]> {
  return db
    .select()
    .from(topUpRequests)
    .where(
      and(
        eq(topUpRequests.teamId, ws.teamId),
        inArray(topUpRequests.status, ['completed', 'unapproved', 'rejected', 'failed']),
        gte(topUpRequests.updatedAt, new Date(now.getTime() - RECENT_TOP_UP_DAYS * 86_400_000)),
      ),
    )
    .orderBy(sql`${topUpRequests.updatedAt} desc`)
    .limit(5);
}

/**
 * Moves submitted requests to completed / unapproved as the ledger shows their funding rows, and
 * approvals whose API call never finished (the process died) to unknown. Tells each requester once.
 */
export async function settleTopUps(deps: TopUpDeps, ws: Workspace): Promise<TopUpRequest[]> {
  const stuckBefore = new Date(deps.now().getTime() - 5 * 60_000);
  const stuck = await deps.db
    .update(topUpRequests)
    .set({
      status: 'unknown',
      errorCode: 'INTERRUPTED',
      errorMessage:
        'Kudos stopped while requesting this top-up; it may or may not have been recorded. Look for it in `/kudos ledger` before asking again.',
      updatedAt: sql`now()`,
    })
    .where(
      and(
        eq(topUpRequests.teamId, ws.teamId),
        moveGuard(topUpRequests.status, TOP_UP_STATUS_TRANSITIONS, 'unknown', ['approved']),
        lt(topUpRequests.decidedAt, stuckBefore),
      ),
    )
    .returning();
  const submitted = await deps.db
    .select()
    .from(topUpRequests)
    .where(and(eq(topUpRequests.teamId, ws.teamId), eq(topUpRequests.status, 'submitted')));
  const settled: TopUpRequestRow[] = [...stuck];
  if (submitted.length > 0) {
    const since = new Date(Math.min(...submitted.map((r) => r.createdAt.getTime())) - 86_400_000);
    // Paged until every waiting request's funding row is read (or the range ends), however many
    // movements came after them: newest first, the oldest request's row comes last.
    const waiting = new Set(submitted.flatMap((r) => (r.fundingNo ? [r.fundingNo] : [])));
    const fundingRows = new Map<string, Movement>();
    if (waiting.size > 0) {
      for await (const m of movementsIn(await deps.rewards.for(ws), {
        start: since,
        end: new Date(deps.now().getTime() + 86_400_000),
      })) {
        if (!waiting.has(m.referenceNumber) || !m.kind.startsWith('top_up_')) continue;
        fundingRows.set(m.referenceNumber, m);
        if (fundingRows.size === waiting.size) break;
      }
    }
    for (const row of submitted) {
      const funding = row.fundingNo ? fundingRows.get(row.fundingNo) : undefined;
      if (!funding || (funding.kind !== 'top_up_completed' && funding.kind !== 'top_up_unapproved')) continue;
      const [updated] = await deps.db
        .update(topUpRequests)
        .set({ status: funding.kind === 'top_up_completed' ? 'completed' : 'unapproved', updatedAt: sql`now()` })
        .where(
          and(
            eq(topUpRequests.id, row.id),
            moveGuard(topUpRequests.status, TOP_UP_STATUS_TRANSITIONS, ['completed', 'unapproved'], ['submitted']),
          ),
        )
        .returning();
      if (updated) settled.push(updated);
    }
  }
  const opened = settled.map((r) => openTopUp(deps.keyRing, r));
  for (const row of opened) {
    await deps.notifier
      .updateTopUpMessages(row)
      .catch((error: unknown) =>
        deps.logger.warn('updating a top-up request message failed', { topUpId: row.id, error }),
      );
    await deps.notifier
      .toUser(row, row.requesterUserId, `top_up_outcome:${row.id}:${row.status}`, {
        kind: 'top_up_outcome',
        request: row,
      })
      .catch((error: unknown) =>
        deps.logger.warn('telling the requester of a top-up failed', { topUpId: row.id, error }),
      );
  }
  return opened;
}
