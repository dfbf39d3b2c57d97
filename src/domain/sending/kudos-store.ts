// Database operations on kudos rows. The worker's claim uses FOR UPDATE SKIP LOCKED plus a lease
// (claimed_until) so that several app instances on one PostgreSQL never place the same row twice,
// and a row whose lease expired (its process died) is resumed by anyone, with the same key.
import { and, asc, eq, gt, isNull, lte, or, type SQL, sql } from 'drizzle-orm';

import type { Database } from '../../db/client.js';
import { prepared } from '../../db/prepared.js';
import { auditEvents, kudos, type KUDOS_STATUSES, type KudosRow, type NewKudosRow } from '../../db/schema/index.js';
import { type Order, toCents } from '../../rewards/index.js';
import { moveGuard, type StatusTransitions } from '../common/status-transitions.js';
import { orderIdsOf, PART_FOUND_LATER, partCount, partOfKey, RECIPIENTS_PER_ORDER } from './kudos-parts.js';
import { checksOfPlacedKudos } from './order-check-schedule.js';

/**
 * Every status a send may be written with, from each status (common/status-transitions.ts). Approval
 * (approvals/approval-store.ts): awaiting_approval -> pending | rejected | expired, and a failed
 * approved send back to approvers. The worker's fenced writes: pending or unknown -> a retry (pending,
 * unknown), a part recorded (pending), placed | scheduled, failed | partial. Cancelling: scheduled (or
 * placed, found CANCELED by reconciliation) -> canceled. An order found after the send was settled
 * without it: failed | unknown -> placed | scheduled, failed | partial -> partial | placed | scheduled.
 * A refused automated send goes back to the worker (automations/automation-runner.ts): failed -> pending.
 */
export const KUDOS_STATUS_TRANSITIONS = {
  awaiting_approval: ['rejected', 'expired', 'pending'],
  rejected: [],
  expired: [],
  pending: ['pending', 'unknown', 'placed', 'scheduled', 'failed', 'partial'],
  unknown: ['pending', 'unknown', 'placed', 'scheduled', 'failed', 'partial'],
  placed: ['canceled'],
  scheduled: ['canceled'],
  failed: ['awaiting_approval', 'pending', 'placed', 'scheduled', 'partial'],
  partial: ['placed', 'scheduled', 'partial'],
  canceled: [],
} as const satisfies StatusTransitions<(typeof KUDOS_STATUSES)[number]>;

/**
 * Rows the worker has to do something with: place the order, or tell the sender the outcome. Written
 * with literals, exactly as the partial index kudos_work_idx, so that the planner uses the index.
 */
const needsWork = sql`(${kudos.status} in ('pending', 'unknown') or (${kudos.status} in ('placed', 'scheduled', 'failed', 'partial') and ${kudos.notifiedAt} is null))`;

/**
 * What a worker holds after claiming a row: its id and the attempt it claimed (attempts grows by one
 * per claim of a pending row). Every write after the claim is fenced on both plus the expected status,
 * so a worker whose lease ran out (and whose row someone else re-claimed) changes nothing.
 */
export interface ClaimFence {
  workerId: string;
  attempts: number;
  status: 'pending' | 'unknown';
}

function fenced(id: string, fence: ClaimFence) {
  return and(
    eq(kudos.id, id),
    eq(kudos.claimedBy, fence.workerId),
    eq(kudos.attempts, fence.attempts),
    eq(kudos.status, fence.status),
  );
}

export function fenceOf(row: KudosRow, workerId: string): ClaimFence {
  return { workerId, attempts: row.attempts, status: row.status === 'unknown' ? 'unknown' : 'pending' };
}

/**
 * A workspace's sends in progress are counted up to this many for the claim's order: beyond it (more
 * than three instances' slots) workspaces count as equally busy, and the count stays bounded.
 */
const BUSY_COUNTED = 64;

/**
 * The claim locks the first `limit` of its first CLAIM_CANDIDATES * `limit` rows in order that no
 * one else holds: rows another claim is locking at that instant are skipped (SKIP LOCKED) and the
 * next taken, up to that many. Fewer candidates let PostgreSQL find each by its primary key rather
 * than scan the table; should more be locked, the next poll takes the rest.
 */
const CLAIM_CANDIDATES = 4;

/**
 * Claims up to `limit` rows that need work, for `leaseMs`, in one statement (UPDATE ... WHERE id IN
 * (SELECT ... FOR UPDATE SKIP LOCKED)): rows another worker holds are skipped, never waited for.
 * Workspaces take turns (round robin): each workspace's due rows are numbered oldest first, and the
 * claim takes every workspace's first row, then every workspace's second, and so on (within a turn,
 * the workspace with the fewest sends in progress first, then the oldest due). So one workspace's
 * backlog of thousands never queues another workspace's single kudos behind it. The rows come back in
 * that order.
 *
 * Its cost grows with the workspaces that have work, not with the due rows: the workspaces are found
 * by a skip scan of kudos_team_work_idx (one index probe each), each gives at most `limit` of its
 * oldest due rows (a range of the same index), and its sends in progress are counted on
 * kudos_team_busy_idx (only claimed rows are in it), up to BUSY_COUNTED; the first candidates in
 * order are then locked by primary key.
 */
export async function claimBatch(
  db: Database,
  workerId: string,
  leaseMs: number,
  limit: number,
  opts: { idleWorkspacesOnly?: boolean } = {},
): Promise<KudosRow[]> {
  if (limit < 1) return [];
  // Only workspaces with no send in progress anywhere (the worker's spare slots, see place-sends.ts).
  const idleOnly = opts.idleWorkspacesOnly ? sql`and busy.busy = 0` : sql``;
  const isDue = sql`${needsWork} and ${kudos.nextAttemptAt} <= now() and (${kudos.claimedUntil} is null or ${kudos.claimedUntil} <= now())`;
  // The inner references to "kudos" are each subquery's own scan (each FROM shadows the others).
  // due_teams: the workspaces with rows that need work, in team_id order, one index probe each (a
  // recursive skip scan: PostgreSQL 15 has no skip scan of its own). Per workspace (LATERAL): its
  // sends in progress (claimed, lease running), then at most `limit` of its oldest due rows, numbered
  // (turn). Within a turn, the workspace with the fewest sends in progress first, then the oldest due:
  // a workspace whose backlog holds every slot yields the next free one to a workspace with none in
  // progress, even when slots free up one at a time.
  const due = sql`with recursive due_teams(team_id) as (
      (select kudos.team_id from kudos where ${needsWork} order by kudos.team_id, kudos.next_attempt_at limit 1)
      union all
      select (select kudos.team_id from kudos where ${needsWork} and kudos.team_id > due_teams.team_id order by kudos.team_id, kudos.next_attempt_at limit 1)
        from due_teams where due_teams.team_id is not null
    )
    select kudos.id from kudos
    join (select oldest.id as ranked_id, oldest.due_at, row_number() over (partition by due_teams.team_id order by oldest.due_at, oldest.id) as turn, busy.busy
          from due_teams
          cross join lateral (select count(*) as busy from (select 1 from kudos where kudos.team_id = due_teams.team_id and ${needsWork} and kudos.claimed_until > now() limit ${BUSY_COUNTED}) in_progress) busy
          cross join lateral (select kudos.id, kudos.next_attempt_at as due_at from kudos where kudos.team_id = due_teams.team_id and ${isDue} order by kudos.next_attempt_at, kudos.id limit ${limit}) oldest
          where due_teams.team_id is not null ${idleOnly}
          order by turn, busy.busy, oldest.due_at, oldest.id
          limit ${CLAIM_CANDIDATES * limit}) ranked on ranked.ranked_id = kudos.id
    where ${isDue}
    order by ranked.turn, ranked.busy, ranked.due_at, kudos.id
    limit ${limit}
    for update of kudos skip locked`;
  const claimed = await db
    .update(kudos)
    .set({
      claimedUntil: sql`now() + ${`${Math.ceil(leaseMs / 1000)} seconds`}::interval`,
      claimedBy: workerId,
      attempts: sql`${kudos.attempts} + case when ${kudos.status} = 'pending' then 1 else 0 end`,
      updatedAt: sql`now()`,
    })
    .where(sql`${kudos.id} in (${due})`)
    .returning();
  return inTurns(claimed);
}

/**
 * Milliseconds until the next row that needs work can be claimed (zero or less: one can be now), from
 * the database's clock; null when none can (nothing queued, or only rows in progress). An idle
 * worker's poll (place-sends.ts): the first entry of kudos_work_idx past the rows in progress.
 */
export async function nextClaimableInMs(db: Database): Promise<number | null> {
  const statement = prepared(db, 'kudos.nextClaimableIn', (d) =>
    d
      .select({ inMs: sql<number | null>`(extract(epoch from min(${kudos.nextAttemptAt}) - now()) * 1000)::float8` })
      .from(kudos)
      .where(sql`${needsWork} and (${kudos.claimedUntil} is null or ${kudos.claimedUntil} <= now())`)
      .prepare('kudos_next_claimable_in'),
  );
  const [row] = await statement.execute();
  return row?.inMs == null ? null : Number(row.inMs);
}

/** Rows ordered workspace by workspace in turn, each workspace's oldest due first. */
export function inTurns<T extends { teamId: string; nextAttemptAt: Date; id: string }>(rows: T[]): T[] {
  const byDue = [...rows].sort(
    (a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  const queues = new Map<string, T[]>();
  for (const row of byDue) {
    const queue = queues.get(row.teamId);
    if (queue) queue.push(row);
    else queues.set(row.teamId, [row]);
  }
  const out: T[] = [];
  for (let turn = 0; out.length < rows.length; turn++) {
    for (const queue of queues.values()) if (turn < queue.length) out.push(queue[turn]!);
  }
  return out;
}

/** Claims one pending row by id (just recorded in this process), unless someone holds it. */
export async function claimPending(
  db: Database,
  id: string,
  workerId: string,
  leaseMs: number,
): Promise<KudosRow | undefined> {
  const statement = prepared(db, 'kudos.claimPending', (d) =>
    d
      .update(kudos)
      .set({
        claimedUntil: sql`now() + (${sql.placeholder('leaseSeconds')} || ' seconds')::interval`,
        claimedBy: sql`${sql.placeholder('workerId')}`,
        attempts: sql`${kudos.attempts} + 1`,
        updatedAt: sql`now()`,
      })
      .where(
        and(
          eq(kudos.id, sql.placeholder('id')),
          eq(kudos.status, 'pending'),
          lte(kudos.nextAttemptAt, sql`now()`),
          or(isNull(kudos.claimedUntil), lte(kudos.claimedUntil, sql`now()`)),
        ),
      )
      .returning()
      .prepare('kudos_claim_pending'),
  );
  const [claimed] = await statement.execute({ id, workerId, leaseSeconds: String(Math.ceil(leaseMs / 1000)) });
  return claimed;
}

export interface PlacedOrder {
  status: 'placed' | 'scheduled';
  recipients: KudosRow['recipients'];
  orderId: string;
  orderStatus: string;
  costCents: number;
  costCurrency: string;
  /** Every order of the send, in part order (one-order sends: that order). */
  orderIds: string[];
}

/**
 * The order is placed: recorded with the recipients as mapped (the lease stays until the sender is
 * told). Undefined when the claim was lost meanwhile (someone else holds the row now). With `checks`,
 * each order's completion check is scheduled in the same statement (a CTE inserting from the update's
 * RETURNING: a lost claim updates nothing and schedules nothing), one transaction instead of two.
 */
export async function markPlaced(
  db: Database,
  id: string,
  fence: ClaimFence,
  order: PlacedOrder,
  opts: { checks?: { firstDelayMs: number } } = {},
): Promise<KudosRow | undefined> {
  // Prepared: this runs once per kudos placed (src/db/prepared.ts).
  const placedUpdate = (d: Database) =>
    d
      .update(kudos)
      .set({
        status: sql`${sql.placeholder('status')}`,
        recipients: sql`${sql.placeholder('recipients')}::jsonb`,
        orderId: sql`${sql.placeholder('orderId')}`,
        orderIds: sql`${sql.placeholder('orderIds')}::jsonb`,
        partsPlaced: sql`jsonb_array_length(${sql.placeholder('orderIds')}::jsonb)`,
        orderStatus: sql`${sql.placeholder('orderStatus')}`,
        costCents: sql`${sql.placeholder('costCents')}::integer`,
        costCurrency: sql`${sql.placeholder('costCurrency')}`,
        // A card whose USD cost was unknown before ordering is counted at its cost from now on.
        totalCents: sql`case when ${kudos.usdBasis} = 'unknown' then coalesce(${sql.placeholder('costCents')}::integer, ${kudos.totalCents}) else ${kudos.totalCents} end`,
        placedAt: sql`now()`,
        errorCode: null,
        errorMessage: null,
        nextAttemptAt: sql`now()`,
        updatedAt: sql`now()`,
      })
      .where(
        and(
          eq(kudos.id, sql.placeholder('id')),
          eq(kudos.claimedBy, sql.placeholder('workerId')),
          eq(kudos.attempts, sql`${sql.placeholder('attempts')}::integer`),
          eq(kudos.status, sql.placeholder('fenceStatus')),
        ),
      )
      .returning();
  const values = {
    id,
    ...order,
    recipients: JSON.stringify(order.recipients),
    orderIds: JSON.stringify(order.orderIds),
    workerId: fence.workerId,
    attempts: fence.attempts,
    fenceStatus: fence.status,
  };
  if (opts.checks) {
    const statement = prepared(db, 'kudos.markPlacedAndCheck', (d) => {
      const placed = d.$with('placed').as(placedUpdate(d));
      const checks = d
        .$with('checks', { orderId: sql<string>`order_id` })
        .as(checksOfPlacedKudos(sql`${sql.placeholder('firstDelayMs')}::integer`));
      return d.with(placed, checks).select().from(placed).prepare('kudos_mark_placed_and_check');
    });
    const [row] = await statement.execute({
      ...values,
      firstDelayMs: Math.max(0, Math.ceil(opts.checks.firstDelayMs)),
    });
    return row;
  }
  const statement = prepared(db, 'kudos.markPlaced', (d) => placedUpdate(d).prepare('kudos_mark_placed'));
  const [row] = await statement.execute(values);
  return row;
}

/**
 * One part of a send in several parts was created: its order id appended (in part order, once), its
 * cost added, the lease renewed; the row stays `pending` until the last part. Fenced on the claim and
 * on the parts recorded so far, so a part is never counted twice. Undefined when the claim was lost.
 */
export async function markPartPlaced(
  db: Database,
  id: string,
  fence: ClaimFence,
  part: {
    index: number;
    orderId: string;
    orderStatus: string;
    costCents: number;
    costCurrency: string;
    leaseMs: number;
  },
): Promise<KudosRow | undefined> {
  const [row] = await db
    .update(kudos)
    .set({
      status: 'pending',
      orderId: sql`coalesce(${kudos.orderId}, ${part.orderId})`,
      orderIds: sql`case when ${kudos.orderIds} @> ${JSON.stringify([part.orderId])}::jsonb then ${kudos.orderIds} else ${kudos.orderIds} || ${JSON.stringify([part.orderId])}::jsonb end`,
      partsPlaced: part.index + 1,
      orderStatus: part.orderStatus,
      costCents: sql`coalesce(${kudos.costCents}, 0) + ${part.costCents}`,
      costCurrency: part.costCurrency,
      placedAt: sql`coalesce(${kudos.placedAt}, now())`,
      errorCode: null,
      errorMessage: null,
      claimedUntil: sql`now() + ${`${Math.ceil(part.leaseMs / 1000)} seconds`}::interval`,
      updatedAt: sql`now()`,
    })
    .where(and(fenced(id, fence), eq(kudos.partsPlaced, part.index)))
    .returning();
  return row;
}

/** Keeps a claim alive while its call is in flight; false when it was lost (re-claimed, or the row moved on). */
export async function renewClaim(db: Database, id: string, fence: ClaimFence, leaseMs: number): Promise<boolean> {
  const renewed = await db
    .update(kudos)
    .set({ claimedUntil: sql`now() + ${`${Math.ceil(leaseMs / 1000)} seconds`}::interval` })
    .where(and(fenced(id, fence), gt(kudos.claimedUntil, sql`now()`)))
    .returning({ id: kudos.id });
  return renewed.length === 1;
}

/** A fenced write of the outcome of a claimed row (failed, outcome unknown); undefined when the claim was lost. */
export async function updateClaimed(
  db: Database,
  id: string,
  fence: ClaimFence,
  set: Partial<NewKudosRow>,
): Promise<KudosRow | undefined> {
  const [row] = await db
    .update(kudos)
    .set({ ...set, updatedAt: sql`now()` })
    .where(fenced(id, fence))
    .returning();
  return row;
}

/** Gives a claimed row back (shutdown), so another worker can pick it up at once. */
export async function releaseClaim(db: Database, id: string, workerId: string): Promise<void> {
  await db
    .update(kudos)
    .set({ claimedUntil: null, claimedBy: null })
    .where(and(eq(kudos.id, id), eq(kudos.claimedBy, workerId)));
}

export async function updateKudos(db: Database, id: string, set: Partial<NewKudosRow>): Promise<KudosRow> {
  const [row] = await db
    .update(kudos)
    .set({ ...set, updatedAt: new Date() })
    .where(eq(kudos.id, id))
    .returning();
  if (!row) throw new Error(`kudos ${id} not found`);
  return row;
}

/**
 * A transient failure or an outcome still unknown: try again after `delayMs` (database clock, like the
 * claim), lease released. Undefined when the claim was lost meanwhile.
 */
export async function scheduleRetry(
  db: Database,
  id: string,
  fence: ClaimFence,
  delayMs: number,
  error: { code: string; message: string },
  status: 'pending' | 'unknown' = 'pending',
): Promise<KudosRow | undefined> {
  const [row] = await db
    .update(kudos)
    .set({
      status,
      errorCode: error.code,
      errorMessage: error.message,
      failedCalls: sql`${kudos.failedCalls} + 1`,
      nextAttemptAt: sql`now() + ${`${Math.max(0, Math.round(delayMs))} milliseconds`}::interval`,
      claimedUntil: null,
      claimedBy: null,
      updatedAt: sql`now()`,
    })
    .where(fenced(id, fence))
    .returning();
  return row;
}

/** The sender was told (and the channel): the row leaves the worker's queue, its lease released. */
export async function markNotified(
  db: Database,
  id: string,
  messages: Pick<NewKudosRow, 'confirmationChannel' | 'confirmationTs' | 'announcementChannel' | 'announcementTs'>,
): Promise<void> {
  const statement = prepared(db, 'kudos.markNotified', (d) =>
    d
      .update(kudos)
      .set({
        // Kept when this pass did not post them (e.g. a resumed row whose messages went out before).
        confirmationChannel: sql`coalesce(${sql.placeholder('confirmationChannel')}, ${kudos.confirmationChannel})`,
        confirmationTs: sql`coalesce(${sql.placeholder('confirmationTs')}, ${kudos.confirmationTs})`,
        announcementChannel: sql`coalesce(${sql.placeholder('announcementChannel')}, ${kudos.announcementChannel})`,
        announcementTs: sql`coalesce(${sql.placeholder('announcementTs')}, ${kudos.announcementTs})`,
        notifiedAt: sql`now()`,
        claimedUntil: null,
        claimedBy: null,
        updatedAt: sql`now()`,
      })
      .where(eq(kudos.id, sql.placeholder('id')))
      .prepare('kudos_mark_notified'),
  );
  await statement.execute({
    id,
    confirmationChannel: messages.confirmationChannel ?? null,
    confirmationTs: messages.confirmationTs ?? null,
    announcementChannel: messages.announcementChannel ?? null,
    announcementTs: messages.announcementTs ?? null,
  });
}

/**
 * markNotified as a statement to run inside another (the notice outbox's record of where the notices
 * went, postAllOnce's `andThen`): one transaction for both.
 */
export function markNotifiedStatement(
  id: string,
  messages: Pick<NewKudosRow, 'confirmationChannel' | 'confirmationTs' | 'announcementChannel' | 'announcementTs'>,
): SQL {
  return sql`update kudos set
      confirmation_channel = coalesce(${messages.confirmationChannel ?? null}::text, confirmation_channel),
      confirmation_ts = coalesce(${messages.confirmationTs ?? null}::text, confirmation_ts),
      announcement_channel = coalesce(${messages.announcementChannel ?? null}::text, announcement_channel),
      announcement_ts = coalesce(${messages.announcementTs ?? null}::text, announcement_ts),
      notified_at = now(), claimed_until = null, claimed_by = null, updated_at = now()
    where id = ${id}::uuid`;
}

/**
 * An order of a kudos is COMPLETE: recorded, and the row returned (undefined if there is none). A send
 * of several orders (more recipients than one order takes) records the part with its counts in
 * parts_completed, and is COMPLETE itself once every part is (order-finished.ts decides that).
 */
export async function markOrderComplete(
  db: Database,
  id: string,
  orderId: string,
  counts: { sentCount: number; bouncedCount: number; recipientCount: number },
): Promise<KudosRow | undefined> {
  const several = sql`${kudos.recipientCount} > ${sql.placeholder('perOrder')}::integer`;
  const statement = prepared(db, 'kudos.markOrderComplete', (d) =>
    d
      .update(kudos)
      .set({
        orderStatus: sql`case when ${several} then ${kudos.orderStatus} else 'COMPLETE' end`,
        partsCompleted: sql`case when ${several} then ${kudos.partsCompleted} || jsonb_build_object(${sql.placeholder('orderId')}::text, ${sql.placeholder('counts')}::jsonb) else ${kudos.partsCompleted} end`,
        orderId: sql`case when ${several} then ${kudos.orderId} else coalesce(${kudos.orderId}, ${sql.placeholder('orderId')}) end`,
        updatedAt: sql`now()`,
      })
      .where(eq(kudos.id, sql.placeholder('id')))
      .returning()
      .prepare('kudos_mark_order_complete'),
  );
  const [row] = await statement.execute({
    id,
    orderId,
    counts: JSON.stringify(counts),
    perOrder: RECIPIENTS_PER_ORDER,
  });
  return row;
}

/** Every part of a send in several orders is complete: the send is. */
export async function markAllPartsComplete(db: Database, id: string): Promise<void> {
  await db
    .update(kudos)
    .set({ orderStatus: 'COMPLETE', updatedAt: sql`now()` })
    .where(eq(kudos.id, id));
}

export async function getKudos(db: Database, id: string): Promise<KudosRow | undefined> {
  const statement = prepared(db, 'kudos.get', (d) =>
    d
      .select()
      .from(kudos)
      .where(eq(kudos.id, sql.placeholder('id')))
      .prepare('kudos_get'),
  );
  const [row] = await statement.execute({ id });
  return row;
}

/** The workspace's kudos `id`; another workspace's is as unknown as one that never existed. */
export async function getKudosOf(db: Database, ws: { teamId: string }, id: string): Promise<KudosRow | undefined> {
  const [row] = await db
    .select()
    .from(kudos)
    .where(and(eq(kudos.teamId, ws.teamId), eq(kudos.id, id)));
  return row;
}

/** Scheduled sends still ahead, of one sender or (admins) of the whole workspace. */
export async function listScheduled(
  db: Database,
  opts: { teamId: string; senderUserId?: string; now: Date },
): Promise<KudosRow[]> {
  return db
    .select()
    .from(kudos)
    .where(
      and(
        eq(kudos.teamId, opts.teamId),
        eq(kudos.status, 'scheduled'),
        gt(kudos.scheduledAt, opts.now),
        opts.senderUserId ? eq(kudos.senderUserId, opts.senderUserId) : undefined,
      ),
    )
    .orderBy(asc(kudos.scheduledAt))
    .limit(100);
}

/** Records a cancellation and who did it, once. */
export async function markCanceled(
  db: Database,
  row: KudosRow,
  actorUserId: string,
  details: Record<string, unknown>,
): Promise<KudosRow> {
  return db.transaction(async (tx) => {
    const [updated] = await tx
      .update(kudos)
      .set({
        status: 'canceled',
        canceledBy: actorUserId,
        canceledAt: sql`now()`,
        orderStatus: 'CANCELED',
        updatedAt: sql`now()`,
      })
      .where(and(eq(kudos.id, row.id), moveGuard(kudos.status, KUDOS_STATUS_TRANSITIONS, 'canceled', ['scheduled'])))
      .returning();
    // Recorded by someone else meanwhile (the sweep and a retried write): one audit row, theirs.
    if (!updated) return row;
    await tx.insert(auditEvents).values({
      teamId: row.teamId,
      enterpriseId: row.enterpriseId,
      actorUserId,
      action: 'kudos.canceled',
      subjectType: 'kudos',
      subjectId: row.id,
      details,
    });
    return updated ?? row;
  });
}

/**
 * An order was found for a kudos recorded as failed or unknown (the order.created webhook of an order
 * whose answer was lost): it is placed after all. The row goes back to the worker to tell the sender
 * (notified_at cleared, claim dropped: a worker still looking it up is fenced out). Undefined when the
 * row was in another state.
 */
export async function promoteFoundOrder(db: Database, id: string, orderId: string): Promise<KudosRow | undefined> {
  const [row] = await db
    .update(kudos)
    .set({
      status: sql`case when ${kudos.scheduledAt} is null then 'placed' else 'scheduled' end`,
      orderId,
      placedAt: sql`coalesce(${kudos.placedAt}, now())`,
      errorCode: null,
      errorMessage: null,
      notifiedAt: null,
      claimedBy: null,
      claimedUntil: null,
      nextAttemptAt: sql`now()`,
      updatedAt: sql`now()`,
    })
    .where(
      and(
        eq(kudos.id, id),
        moveGuard(kudos.status, KUDOS_STATUS_TRANSITIONS, ['placed', 'scheduled'], ['failed', 'unknown']),
      ),
    )
    .returning();
  return row;
}

/**
 * An order of a send in parts, found after the send was settled without it (order.created or the
 * order poller: the part's answer was lost, and the send was told failed or partial), or while its
 * outcome is still unknown. Parts are placed in order and a send stops at the first part it cannot
 * place, so only that part (index `partsPlaced`) can turn up, and the parts after it were never sent:
 * failed or partial becomes partial with it (or placed / scheduled when it was the last), and goes
 * back to the worker to tell the sender (notified_at cleared, claim dropped); an unknown one is looked
 * up again at once (the worker finds the part by its key and places the rest, as it said it would).
 * Undefined when there was nothing to change.
 */
async function promoteFoundPart(
  db: Database,
  row: KudosRow,
  key: string,
  order: { orderId: string; status: string; costCents: number | undefined },
): Promise<KudosRow | undefined> {
  const index = partOfKey(row, key);
  if (index < 0 || index !== row.partsPlaced) return undefined;
  if (row.status === 'unknown') {
    const [woken] = await db
      .update(kudos)
      .set({ nextAttemptAt: sql`now()`, updatedAt: sql`now()` })
      .where(and(eq(kudos.id, row.id), eq(kudos.status, 'unknown'), eq(kudos.partsPlaced, index)))
      .returning();
    return woken;
  }
  if (row.status !== 'failed' && row.status !== 'partial') return undefined;
  const parts = partCount(row);
  const last = index + 1 === parts;
  const partCost =
    order.costCents ??
    Math.min(RECIPIENTS_PER_ORDER, row.recipientCount - index * RECIPIENTS_PER_ORDER) * row.amountCents;
  const [promoted] = await db
    .update(kudos)
    .set({
      status: last ? sql`case when ${kudos.scheduledAt} is null then 'placed' else 'scheduled' end` : 'partial',
      orderId: sql`coalesce(${kudos.orderId}, ${order.orderId})`,
      orderIds: sql`${kudos.orderIds} || ${JSON.stringify([order.orderId])}::jsonb`,
      partsPlaced: index + 1,
      orderStatus: order.status,
      costCents: sql`coalesce(${kudos.costCents}, 0) + ${partCost}`,
      placedAt: sql`coalesce(${kudos.placedAt}, now())`,
      errorCode: last ? null : PART_FOUND_LATER,
      errorMessage: last
        ? null
        : `order ${index + 1} of ${parts} was created after all (its answer had been lost); ${index + 2 === parts ? `order ${parts} was` : `orders ${index + 2} to ${parts} were`} never sent. Send it to the others again.`,
      notifiedAt: null,
      claimedBy: null,
      claimedUntil: null,
      nextAttemptAt: sql`now()`,
      updatedAt: sql`now()`,
    })
    .where(
      and(
        eq(kudos.id, row.id),
        moveGuard(kudos.status, KUDOS_STATUS_TRANSITIONS, ['partial', 'placed', 'scheduled'], ['failed', 'partial']),
        eq(kudos.partsPlaced, index),
        sql`not ${kudos.orderIds} @> ${JSON.stringify([order.orderId])}::jsonb`,
      ),
    )
    .returning();
  return promoted;
}

/**
 * An order found for a kudos that was settled without it, made with `key` (its answer was lost; found
 * by order.created or by a lookup before re-opening it): the kudos' one order (promoteFoundOrder), or
 * the part of a send in parts that `key` names (promoteFoundPart). Undefined when nothing changed.
 */
export function promoteFoundKudosOrder(
  db: Database,
  row: KudosRow,
  key: string,
  order: { orderId: string; status: string; totalCost?: { amount: string } | null | undefined },
): Promise<KudosRow | undefined> {
  if (partCount(row) === 1) return promoteFoundOrder(db, row.id, order.orderId);
  const costCents = order.totalCost ? toCents(order.totalCost.amount, { rounding: 'half-up' }) : undefined;
  return promoteFoundPart(db, row, key, { orderId: order.orderId, status: order.status, costCents });
}

/**
 * An order watched for a send that does not count it (its order.created came while the send was
 * still being placed, and the send settled without it): it lands on the send whatever the send says
 * now (failed, unknown, partial), as order.created would. Undefined when nothing changed.
 */
export async function landWatchedOrder(
  db: Database,
  kudosId: string,
  order: Pick<Order, 'orderId' | 'status' | 'clientOrderId' | 'idempotencyKey' | 'totalCost'>,
): Promise<KudosRow | undefined> {
  const key = order.clientOrderId ?? order.idempotencyKey;
  if (!key) return undefined;
  const row = await getKudos(db, kudosId);
  if (!row || (row.status !== 'failed' && row.status !== 'unknown' && row.status !== 'partial')) return undefined;
  if (orderIdsOf(row).includes(order.orderId) || partOfKey(row, key) < 0) return undefined;
  return promoteFoundKudosOrder(db, row, key, order);
}

/** The order was found CANCELED by reconciliation: the kudos is cancelled too (once; who did it is unknown). */
export async function markCanceledOutside(db: Database, id: string): Promise<void> {
  await db
    .update(kudos)
    .set({
      status: 'canceled',
      orderStatus: 'CANCELED',
      canceledAt: sql`coalesce(${kudos.canceledAt}, now())`,
      updatedAt: sql`now()`,
    })
    .where(and(eq(kudos.id, id), moveGuard(kudos.status, KUDOS_STATUS_TRANSITIONS, 'canceled')));
}
