// webhook_events: stored on arrival (INSERT ... ON CONFLICT (event_id) DO NOTHING, so a redelivery
// changes nothing), claimed by processors with FOR UPDATE SKIP LOCKED plus a lease (safe across
// instances; a crashed processor's claim simply expires), and deleted 8 days after processing.
import { and, asc, eq, inArray, isNull, lt, lte, or, sql } from 'drizzle-orm';

import type { Database } from '../db/client.js';
import { type WebhookEventRow, webhookEvents } from '../db/schema/index.js';

/** Processed events are kept this long: the only replay defence, and it must outlast 7 days. */
export const EVENT_RETENTION_DAYS = 8;

export interface IncomingEvent {
  eventId: string;
  eventType: string;
  createdAt: Date | null;
  body: Record<string, unknown>;
  /** Distribution mode: the connection (and so the workspace) the event arrived on. */
  source?: EventSource | undefined;
}

export interface EventSource {
  connectionId: string;
  teamId: string;
  enterpriseId: string | null;
}

/** The row values of an incoming event. */
export function eventValues(event: IncomingEvent) {
  return {
    eventId: event.eventId,
    eventType: event.eventType,
    createdAt: event.createdAt,
    body: event.body,
    ...(event.source
      ? {
          connectionId: event.source.connectionId,
          teamId: event.source.teamId,
          enterpriseId: event.source.enterpriseId,
        }
      : {}),
  };
}

/** Stores an event; `stored` is false when its eventId was already known (a redelivery). */
export async function storeEvent(db: Database, event: IncomingEvent): Promise<{ stored: boolean }> {
  const inserted = await db
    .insert(webhookEvents)
    .values(eventValues(event))
    .onConflictDoNothing({ target: webhookEvents.eventId })
    .returning({ id: webhookEvents.id });
  return { stored: inserted.length === 1 };
}

/** Claims up to `limit` unprocessed, due events for `leaseMs`. */
export async function claimEvents(db: Database, limit: number, leaseMs: number): Promise<WebhookEventRow[]> {
  // One statement (UPDATE ... WHERE id IN (SELECT ... FOR UPDATE SKIP LOCKED)): an event another
  // claimer holds is skipped, never waited for; an idle poll costs one statement, not a transaction of three.
  const due = db
    .select({ id: webhookEvents.id })
    .from(webhookEvents)
    .where(
      and(
        isNull(webhookEvents.processedAt),
        lte(webhookEvents.nextAttemptAt, sql`now()`),
        or(isNull(webhookEvents.claimedUntil), lte(webhookEvents.claimedUntil, sql`now()`)),
      ),
    )
    .orderBy(asc(webhookEvents.id))
    .limit(limit)
    .for('update', { skipLocked: true });
  const claimed = await db
    .update(webhookEvents)
    .set({
      claimedUntil: sql`now() + ${`${Math.ceil(leaseMs / 1000)} seconds`}::interval`,
      attempts: sql`${webhookEvents.attempts} + 1`,
    })
    .where(inArray(webhookEvents.id, due))
    .returning();
  return claimed.sort((a, b) => a.id - b.id);
}

export async function markEventProcessed(
  db: Database,
  id: number,
  result: { outcome: string; teamId?: string | null; enterpriseId?: string | null; error?: string },
): Promise<void> {
  await db
    .update(webhookEvents)
    .set({
      processedAt: sql`now()`,
      claimedUntil: null,
      outcome: result.outcome,
      error: result.error ?? null,
      ...(result.teamId !== undefined ? { teamId: result.teamId, enterpriseId: result.enterpriseId ?? null } : {}),
    })
    .where(eq(webhookEvents.id, id));
}

/** A failed attempt: try again after `retryInMs`. */
export async function markEventFailed(db: Database, id: number, error: string, retryInMs: number): Promise<void> {
  await db
    .update(webhookEvents)
    .set({
      claimedUntil: null,
      error,
      nextAttemptAt: sql`now() + ${`${Math.ceil(retryInMs / 1000)} seconds`}::interval`,
    })
    .where(eq(webhookEvents.id, id));
}

/** Deletes processed events older than the retention; returns how many. */
export async function deleteExpiredEvents(db: Database, retentionDays = EVENT_RETENTION_DAYS): Promise<number> {
  const deleted = await db
    .delete(webhookEvents)
    .where(lt(webhookEvents.processedAt, sql`now() - ${`${retentionDays} days`}::interval`))
    .returning({ id: webhookEvents.id });
  return deleted.length;
}
