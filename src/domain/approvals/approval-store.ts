// Database side of approvals. A decision is exactly once because it is ONE conditional UPDATE of the
// kudos row (`... WHERE status = 'awaiting_approval' RETURNING`) in a transaction that also records
// the request's outcome and the audit row: concurrent clicks, double clicks and Slack retries all
// race for the same row lock, and every caller but the first finds the status changed and updates
// nothing. Expiry and re-opening after a failed order are conditional updates of the same kind, so any
// number of app instances may sweep at once.
import { and, eq, gt, gte, inArray, isNotNull, isNull, lt, lte, or, sql } from 'drizzle-orm';

import type { Database } from '../../db/client.js';
import {
  type APPROVAL_STATUSES,
  type ApprovalMessageRef,
  type ApprovalRequestRow,
  approvalRequests,
  kudos,
  type KudosRow,
} from '../../db/schema/index.js';
import { moveGuard, type StatusTransitions } from '../common/status-transitions.js';
import { MIN_SCHEDULE_LEAD_MS } from '../common/zoned-time.js';
import { KUDOS_STATUS_TRANSITIONS } from '../sending/kudos-store.js';
import { recordAudit, recordFailedOrders } from '../workspaces/audit-trail.js';

/** An approved send whose schedule is closer than the cancel window plus this goes out at once. */
export const SEND_NOW_MARGIN_MS = 60_000;
/** Order failures that a person can fix (top up, limits); the request goes back to approvers. */
export const REOPENABLE_FAILURES = ['INSUFFICIENT_BALANCE', 'DAILY_LIMIT_EXCEEDED', 'MONTHLY_LIMIT_EXCEEDED'] as const;
export const SYSTEM_ACTOR = 'system';

/**
 * Every status a request may be written with, from each status (common/status-transitions.ts). The
 * request follows its kudos row, whose guarded move decides: awaiting_approval -> approved | rejected |
 * expired; an approved send the API refused for a fixable reason goes back to approvers.
 */
export const APPROVAL_STATUS_TRANSITIONS = {
  awaiting_approval: ['approved', 'rejected', 'expired'],
  approved: ['awaiting_approval'],
  rejected: [],
  expired: [],
} as const satisfies StatusTransitions<(typeof APPROVAL_STATUSES)[number]>;

export interface ApprovalCase {
  kudos: KudosRow;
  request: ApprovalRequestRow;
}

/** The request of kudos `kudosId`; given `ws`, only that workspace's (another's is as unknown as one that never existed). */
export async function getApprovalCase(
  db: Database,
  kudosId: string,
  ws?: { teamId: string },
): Promise<ApprovalCase | undefined> {
  if (!/^[0-9a-f-]{36}$/i.test(kudosId)) return undefined;
  const [found] = await db
    .select()
    .from(kudos)
    .innerJoin(approvalRequests, eq(approvalRequests.kudosId, kudos.id))
    .where(and(eq(kudos.id, kudosId), ws ? eq(kudos.teamId, ws.teamId) : undefined));
  return found ? { kudos: found.kudos, request: found.approval_requests } : undefined;
}

/** Records the request for a kudos row that is awaiting approval (once; a second call returns the first). */
export async function createApprovalRequest(
  db: Database,
  row: KudosRow,
  input: { reason: string; expiresAt: Date },
): Promise<{ request: ApprovalRequestRow; created: boolean }> {
  return db.transaction(async (tx) => {
    const [inserted] = await tx
      .insert(approvalRequests)
      .values({
        teamId: row.teamId,
        enterpriseId: row.enterpriseId,
        kudosId: row.id,
        senderUserId: row.senderUserId,
        reason: input.reason,
        expiresAt: input.expiresAt,
      })
      .onConflictDoNothing({ target: approvalRequests.kudosId })
      .returning();
    if (inserted) {
      await recordAudit(tx, {
        teamId: row.teamId,
        enterpriseId: row.enterpriseId,
        actorUserId: row.senderUserId,
        action: 'approval.requested',
        subjectType: 'kudos',
        subjectId: row.id,
        details: {
          reason: input.reason,
          totalCents: row.totalCents,
          recipients: row.recipientCount,
          scheduledAt: row.scheduledAt?.toISOString() ?? null,
          expiresAt: input.expiresAt.toISOString(),
        },
      });
      return { request: inserted, created: true };
    }
    const [existing] = await tx.select().from(approvalRequests).where(eq(approvalRequests.kudosId, row.id));
    return { request: existing!, created: false };
  });
}

/** Takes the job of posting a request to approvers (a lease, so a crashed poster is retried by the sweep). */
export async function claimPosting(
  db: Database,
  requestId: string,
  now: Date,
  leaseMs = 60_000,
): Promise<ApprovalRequestRow | undefined> {
  const [claimed] = await db
    .update(approvalRequests)
    .set({ postClaimedUntil: new Date(now.getTime() + leaseMs) })
    .where(
      and(
        eq(approvalRequests.id, requestId),
        isNull(approvalRequests.postedAt),
        or(isNull(approvalRequests.postClaimedUntil), lte(approvalRequests.postClaimedUntil, now)),
      ),
    )
    .returning();
  return claimed;
}

export async function markPosted(db: Database, requestId: string, messages: ApprovalMessageRef[]): Promise<void> {
  // Added to those already known: a message of an interrupted posting may have been found by a click.
  await db
    .update(approvalRequests)
    .set({
      messages: sql`(select coalesce(jsonb_agg(distinct m), '[]'::jsonb) from jsonb_array_elements(${approvalRequests.messages} || ${JSON.stringify(messages)}::jsonb) m)`,
      postedAt: sql`now()`,
      postClaimedUntil: null,
      updatedAt: sql`now()`,
    })
    .where(eq(approvalRequests.id, requestId));
}

/**
 * Records a message that shows the request but was not known: its poster died (or lost the
 * database) between posting it and recording where. Found when someone clicks one of its buttons,
 * so that every later change of the request reaches it too. Returns the messages now known, or
 * undefined when it was known already.
 */
export async function rememberRequestMessage(
  db: Database,
  requestId: string,
  ref: ApprovalMessageRef,
): Promise<ApprovalMessageRef[] | undefined> {
  const one = JSON.stringify([{ channel: ref.channel, ts: ref.ts }]);
  const [row] = await db
    .update(approvalRequests)
    .set({ messages: sql`${approvalRequests.messages} || ${one}::jsonb` })
    .where(and(eq(approvalRequests.id, requestId), sql`not (${approvalRequests.messages} @> ${one}::jsonb)`))
    .returning({ messages: approvalRequests.messages });
  return row?.messages;
}

/** Requests whose posting never finished (crash), and awaiting kudos that never got a request row. */
export async function findUnposted(
  db: Database,
  now: Date,
  graceMs = 30_000,
): Promise<{ requests: ApprovalRequestRow[]; orphans: KudosRow[] }> {
  const before = new Date(now.getTime() - graceMs);
  const requests = await db
    .select({ r: approvalRequests })
    .from(approvalRequests)
    .innerJoin(kudos, eq(kudos.id, approvalRequests.kudosId))
    .where(
      and(
        eq(kudos.status, 'awaiting_approval'),
        isNull(approvalRequests.postedAt),
        lt(approvalRequests.createdAt, before),
        or(isNull(approvalRequests.postClaimedUntil), lte(approvalRequests.postClaimedUntil, now)),
      ),
    )
    .limit(50);
  const orphans = await db
    .select({ k: kudos })
    .from(kudos)
    .leftJoin(approvalRequests, eq(approvalRequests.kudosId, kudos.id))
    .where(and(eq(kudos.status, 'awaiting_approval'), isNull(approvalRequests.id), lt(kudos.createdAt, before)))
    .limit(50);
  return { requests: requests.map((x) => x.r), orphans: orphans.map((x) => x.k) };
}

/**
 * The sender's notices about a request, one per decision round (a re-opened request is decided again).
 * "waiting" is the sender's DM about the send (sending/sender-dm.ts finds it by this kind, as
 * APPROVAL_WAITING_KIND; not imported from there: the notice union imports this file's types); the
 * others are edits of it.
 */
export const SENDER_NOTICE = {
  waiting: 'approval.waiting',
  decision: 'approval.decision',
  reopened: 'approval.reopened',
} as const;
export type SenderNoticeKind = (typeof SENDER_NOTICE)[keyof typeof SENDER_NOTICE];

/** The outbox subject of a sender notice: the kudos and the decision round. */
export function senderNoticeSubject(request: Pick<ApprovalRequestRow, 'kudosId' | 'reopenCount'>): string {
  return `${request.kudosId}#${request.reopenCount}`;
}

/** The approver who approved a re-opened round is told too ("could not be placed"). */
export const REOPENED_APPROVER_NOTICE = 'approval.reopened.approver';

/**
 * Requests whose sender was not told (the process died, or the database was cut, between the
 * decision, the posting or the re-opening and the notice): decided, or posted or re-opened and still
 * waiting, between `lookBack` and `grace` ago, with no notice of that round in the outbox (a re-opened
 * round opens with "back with the approvers", to the sender and to the approver of the round before,
 * never with "waiting"). The window keeps an upgrade from re-telling decisions that older versions
 * told without the outbox.
 */
export async function findUntoldSenders(
  db: Database,
  now: Date,
  opts: { graceMs?: number; lookBackMs?: number } = {},
): Promise<Array<ApprovalCase & { notice: SenderNoticeKind }>> {
  const before = new Date(now.getTime() - (opts.graceMs ?? 30_000));
  const since = new Date(now.getTime() - (opts.lookBackMs ?? 15 * 60_000));
  // The outer row's columns are written out qualified: drizzle leaves `${column}` unqualified in some
  // positions (a single-table select list), and inside this subquery that would name another row.
  const untold = (kind: SenderNoticeKind | typeof REOPENED_APPROVER_NOTICE) =>
    sql`not exists (select 1 from notifications n where n.kind = ${kind} and n.subject = "approval_requests"."kudos_id"::text || '#' || "approval_requests"."reopen_count")`;
  const waiting = and(eq(kudos.status, 'awaiting_approval'), eq(approvalRequests.status, 'awaiting_approval'));
  const rows = await db
    .select({
      k: kudos,
      r: approvalRequests,
      notice: sql<SenderNoticeKind>`case when ${approvalRequests.status} <> 'awaiting_approval' then ${SENDER_NOTICE.decision} when ${approvalRequests.reopenCount} > 0 then ${SENDER_NOTICE.reopened} else ${SENDER_NOTICE.waiting} end`,
    })
    .from(approvalRequests)
    .innerJoin(kudos, eq(kudos.id, approvalRequests.kudosId))
    .where(
      or(
        and(
          inArray(approvalRequests.status, ['approved', 'rejected', 'expired']),
          gte(approvalRequests.decidedAt, since),
          lt(approvalRequests.decidedAt, before),
          untold(SENDER_NOTICE.decision),
        ),
        and(
          waiting,
          eq(approvalRequests.reopenCount, 0),
          gte(approvalRequests.postedAt, since),
          lt(approvalRequests.postedAt, before),
          untold(SENDER_NOTICE.waiting),
        ),
        and(
          waiting,
          gt(approvalRequests.reopenCount, 0),
          gte(approvalRequests.reopenedAt, since),
          lt(approvalRequests.reopenedAt, before),
          or(
            untold(SENDER_NOTICE.reopened),
            and(isNotNull(approvalRequests.decidedBy), untold(REOPENED_APPROVER_NOTICE)),
          ),
        ),
      ),
    )
    .limit(50);
  return rows.map((x) => ({ kudos: x.k, request: x.r, notice: x.notice }));
}

export type Decision = { kind: 'approve' } | { kind: 'reject'; reason: string | null };

export type DecideResult =
  | { ok: true; kudos: KudosRow; request: ApprovalRequestRow; sentNowInsteadOf: Date | null }
  /** Someone (or something) decided first; nothing changed. */
  | { ok: false; current: ApprovalCase | undefined };

/**
 * The one decision on a request of the decider's workspace (`teamId`). `now` is the app's clock (for
 * the schedule check and the record).
 */
export async function decideApproval(
  db: Database,
  input: { kudosId: string; teamId: string; actorUserId: string; decision: Decision; now: Date },
): Promise<DecideResult> {
  const ws = { teamId: input.teamId };
  const before = await getApprovalCase(db, input.kudosId, ws);
  if (!before || before.kudos.status !== 'awaiting_approval') return { ok: false, current: before };
  const approve = input.decision.kind === 'approve';
  const scheduledAt = before.kudos.scheduledAt;
  // Too late to keep the schedule: it would be past, or inside the window where it can no longer be cancelled.
  const sendNow =
    approve &&
    scheduledAt !== null &&
    scheduledAt.getTime() - input.now.getTime() < MIN_SCHEDULE_LEAD_MS + SEND_NOW_MARGIN_MS;
  return db
    .transaction(async (tx) => {
      const [updated] = await tx
        .update(kudos)
        .set(
          approve
            ? {
                status: 'pending',
                nextAttemptAt: sql`now()`,
                notifiedAt: null,
                claimedUntil: null,
                claimedBy: null,
                errorCode: null,
                errorMessage: null,
                ...(sendNow ? { scheduledAt: null, scheduleLocal: null, scheduleTimezone: null } : {}),
                updatedAt: sql`now()`,
              }
            : { status: 'rejected', notifiedAt: sql`now()`, updatedAt: sql`now()` },
        )
        .where(
          and(
            eq(kudos.id, input.kudosId),
            eq(kudos.teamId, input.teamId),
            moveGuard(kudos.status, KUDOS_STATUS_TRANSITIONS, approve ? 'pending' : 'rejected', ['awaiting_approval']),
          ),
        )
        .returning();
      if (!updated) return { ok: false as const, current: undefined };
      const rejectReason = input.decision.kind === 'reject' ? input.decision.reason : null;
      const [request] = await tx
        .update(approvalRequests)
        .set({
          status: approve ? 'approved' : 'rejected',
          decidedBy: input.actorUserId,
          decidedAt: input.now,
          rejectReason,
          sentNowInsteadOf: sendNow ? scheduledAt : null,
          updatedAt: sql`now()`,
        })
        .where(eq(approvalRequests.kudosId, input.kudosId))
        .returning();
      await recordAudit(tx, {
        teamId: updated.teamId,
        enterpriseId: updated.enterpriseId,
        actorUserId: input.actorUserId,
        action: approve ? 'approval.approved' : 'approval.rejected',
        subjectType: 'kudos',
        subjectId: updated.id,
        details: {
          totalCents: updated.totalCents,
          ...(rejectReason ? { reason: rejectReason } : {}),
          ...(sendNow ? { sentNowInsteadOf: scheduledAt.toISOString() } : {}),
          ...(before.request.reopenCount > 0 ? { afterFailure: before.request.lastFailureCode } : {}),
        },
      });
      return { ok: true as const, kudos: updated, request: request!, sentNowInsteadOf: sendNow ? scheduledAt : null };
    })
    .then(async (result) =>
      result.ok ? result : { ok: false as const, current: await getApprovalCase(db, input.kudosId, ws) },
    );
}

/** Expires every request past its expiry; each expired case is returned to exactly one sweeper. */
export async function expireDue(db: Database, now: Date): Promise<ApprovalCase[]> {
  return db.transaction(async (tx) => {
    const due = tx
      .select({ id: approvalRequests.kudosId })
      .from(approvalRequests)
      .where(and(eq(approvalRequests.status, 'awaiting_approval'), lte(approvalRequests.expiresAt, now)));
    const expired = await tx
      .update(kudos)
      .set({ status: 'expired', notifiedAt: sql`now()`, updatedAt: sql`now()` })
      .where(
        and(
          moveGuard(kudos.status, KUDOS_STATUS_TRANSITIONS, 'expired', ['awaiting_approval']),
          inArray(kudos.id, due),
        ),
      )
      .returning();
    if (expired.length === 0) return [];
    const requests = await tx
      .update(approvalRequests)
      .set({ status: 'expired', decidedAt: now, decidedBy: null, updatedAt: sql`now()` })
      .where(
        inArray(
          approvalRequests.kudosId,
          expired.map((k) => k.id),
        ),
      )
      .returning();
    for (const k of expired) {
      await recordAudit(tx, {
        teamId: k.teamId,
        enterpriseId: k.enterpriseId,
        actorUserId: SYSTEM_ACTOR,
        action: 'approval.expired',
        subjectType: 'kudos',
        subjectId: k.id,
        details: { totalCents: k.totalCents },
      });
    }
    return expired.map((k) => ({ kudos: k, request: requests.find((r) => r.kudosId === k.id)! }));
  });
}

/** Approved sends whose order the API refused for a fixable reason, after the worker told the sender. */
export async function findReopenable(db: Database): Promise<ApprovalCase[]> {
  const rows = await db
    .select()
    .from(kudos)
    .innerJoin(approvalRequests, eq(approvalRequests.kudosId, kudos.id))
    .where(
      and(
        eq(kudos.status, 'failed'),
        isNotNull(kudos.notifiedAt),
        inArray(kudos.errorCode, [...REOPENABLE_FAILURES]),
        eq(approvalRequests.status, 'approved'),
      ),
    )
    .limit(50);
  return rows.map((r) => ({ kudos: r.kudos, request: r.approval_requests }));
}

/**
 * Puts a failed approved send back to approvers with the reason shown. A fresh idempotency key: the
 * API refused the previous one outright (no order exists for it; the caller checks), and a new
 * approval is a new attempt.
 */
export async function reopenAfterFailure(
  db: Database,
  failed: ApprovalCase,
  expiresAt: Date,
): Promise<ApprovalCase | undefined> {
  return db.transaction(async (tx) => {
    await recordFailedOrders(tx, { teamId: failed.kudos.teamId, kudosId: failed.kudos.id });
    const [k] = await tx
      .update(kudos)
      .set({
        status: 'awaiting_approval',
        idempotencyKey: sql`gen_random_uuid()`,
        attempts: 0,
        claimedUntil: null,
        claimedBy: null,
        orderId: null,
        updatedAt: sql`now()`,
      })
      .where(
        and(
          eq(kudos.id, failed.kudos.id),
          moveGuard(kudos.status, KUDOS_STATUS_TRANSITIONS, 'awaiting_approval', ['failed']),
          eq(kudos.idempotencyKey, failed.kudos.idempotencyKey),
        ),
      )
      .returning();
    if (!k) return undefined;
    const [request] = await tx
      .update(approvalRequests)
      .set({
        status: 'awaiting_approval',
        lastFailureCode: failed.kudos.errorCode,
        lastFailureMessage: failed.kudos.errorMessage,
        reopenCount: sql`${approvalRequests.reopenCount} + 1`,
        reopenedAt: sql`now()`,
        expiresAt,
        updatedAt: sql`now()`,
      })
      .where(eq(approvalRequests.kudosId, k.id))
      .returning();
    await recordAudit(tx, {
      teamId: k.teamId,
      enterpriseId: k.enterpriseId,
      actorUserId: SYSTEM_ACTOR,
      action: 'approval.reopened',
      subjectType: 'kudos',
      subjectId: k.id,
      details: { errorCode: failed.kudos.errorCode, previousIdempotencyKey: failed.kudos.idempotencyKey },
    });
    return { kudos: k, request: request! };
  });
}
