// Database operations on kudos rows. The worker's claim uses FOR UPDATE SKIP LOCKED plus a lease
// (claimed_until) so that several app instances on one PostgreSQL never place the same row twice,
// and a row whose lease expired (its process died) is resumed by anyone, with the same key.
import { and, asc, desc, eq, gt, inArray, isNull, lte, or, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { auditEvents, kudos, type KudosRow, type NewKudosRow } from '../db/schema/index.js';

/** Rows the worker has to do something with: place the order, or tell the sender the outcome. */
const needsWork = or(
  eq(kudos.status, 'pending'),
  and(inArray(kudos.status, ['placed', 'scheduled', 'failed']), isNull(kudos.notifiedAt)),
);

/** Inserts a send; a second submission of the same modal returns the first row instead. */
export async function recordSend(db: Database, values: NewKudosRow): Promise<{ row: KudosRow; created: boolean }> {
  const [inserted] = await db.insert(kudos).values(values).onConflictDoNothing({ target: [kudos.teamId, kudos.sourceViewId] }).returning();
  if (inserted) return { row: inserted, created: true };
  const [existing] = await db
    .select()
    .from(kudos)
    .where(and(eq(kudos.teamId, values.teamId), eq(kudos.sourceViewId, values.sourceViewId ?? '')));
  if (!existing) throw new Error('kudos insert conflicted but no row was found');
  return { row: existing, created: false };
}

/** Claims one row that needs work, for `leaseMs`. Returns undefined when there is none. */
export async function claimNext(db: Database, workerId: string, leaseMs: number): Promise<KudosRow | undefined> {
  return db.transaction(async (tx) => {
    const [candidate] = await tx
      .select({ id: kudos.id })
      .from(kudos)
      .where(and(needsWork, lte(kudos.nextAttemptAt, sql`now()`), or(isNull(kudos.claimedUntil), lte(kudos.claimedUntil, sql`now()`))))
      .orderBy(asc(kudos.nextAttemptAt), asc(kudos.createdAt))
      .limit(1)
      .for('update', { skipLocked: true });
    if (!candidate) return undefined;
    const [claimed] = await tx
      .update(kudos)
      .set({
        claimedUntil: sql`now() + ${`${Math.ceil(leaseMs / 1000)} seconds`}::interval`,
        claimedBy: workerId,
        attempts: sql`${kudos.attempts} + case when ${kudos.status} = 'pending' then 1 else 0 end`,
        updatedAt: sql`now()`,
      })
      .where(eq(kudos.id, candidate.id))
      .returning();
    return claimed;
  });
}

/** Gives a claimed row back (shutdown), so another worker can pick it up at once. */
export async function releaseClaim(db: Database, id: string, workerId: string): Promise<void> {
  await db
    .update(kudos)
    .set({ claimedUntil: null, claimedBy: null })
    .where(and(eq(kudos.id, id), eq(kudos.claimedBy, workerId)));
}

export async function updateKudos(db: Database, id: string, set: Partial<NewKudosRow>): Promise<KudosRow> {
  const [row] = await db.update(kudos).set({ ...set, updatedAt: new Date() }).where(eq(kudos.id, id)).returning();
  if (!row) throw new Error(`kudos ${id} not found`);
  return row;
}

/** A transient failure: try again after `delayMs` (database clock, like the claim), lease released. */
export async function scheduleRetry(db: Database, id: string, delayMs: number, error: { code: string; message: string }): Promise<KudosRow> {
  const [row] = await db
    .update(kudos)
    .set({
      errorCode: error.code,
      errorMessage: error.message,
      nextAttemptAt: sql`now() + ${`${Math.max(0, Math.round(delayMs))} milliseconds`}::interval`,
      claimedUntil: null,
      claimedBy: null,
      updatedAt: sql`now()`,
    })
    .where(eq(kudos.id, id))
    .returning();
  if (!row) throw new Error(`kudos ${id} not found`);
  return row;
}

/** Marks the sender as told; true only for the one caller that got there first. */
export async function markNotified(db: Database, id: string): Promise<boolean> {
  const rows = await db
    .update(kudos)
    .set({ notifiedAt: sql`now()`, claimedUntil: null, claimedBy: null })
    .where(and(eq(kudos.id, id), isNull(kudos.notifiedAt)))
    .returning({ id: kudos.id });
  return rows.length === 1;
}

export async function getKudos(db: Database, id: string): Promise<KudosRow | undefined> {
  const [row] = await db.select().from(kudos).where(eq(kudos.id, id));
  return row;
}

/** Scheduled sends still ahead, of one sender or (admins) of the whole workspace. */
export async function listScheduled(db: Database, opts: { teamId: string; senderUserId?: string; now: Date }): Promise<KudosRow[]> {
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

export async function recentSends(db: Database, opts: { teamId: string; senderUserId: string; limit: number }): Promise<KudosRow[]> {
  return db
    .select()
    .from(kudos)
    .where(and(eq(kudos.teamId, opts.teamId), eq(kudos.senderUserId, opts.senderUserId)))
    .orderBy(desc(kudos.createdAt))
    .limit(opts.limit);
}

/** Records a cancellation and who did it, once. */
export async function markCanceled(db: Database, row: KudosRow, actorUserId: string, details: Record<string, unknown>): Promise<KudosRow> {
  return db.transaction(async (tx) => {
    const [updated] = await tx
      .update(kudos)
      .set({ status: 'canceled', canceledBy: actorUserId, canceledAt: sql`now()`, orderStatus: 'CANCELED', updatedAt: sql`now()` })
      .where(and(eq(kudos.id, row.id), eq(kudos.status, 'scheduled')))
      .returning();
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
