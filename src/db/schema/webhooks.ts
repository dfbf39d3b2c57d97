// Rewards API webhooks (stored before they are processed) and order completion checks.
//
// webhook_events: one row per eventId ever received (UNIQUE), so a redelivery is recognised and
// acknowledged without doing anything twice. The signature covers no timestamp, so these ids are
// the only replay defence: processed rows are kept 8 days (the retries span 2.5 hours).
// order_checks: one row per order whose completion the app is waiting for (the spec documents no
// completion event), polled with backoff; claimed with FOR UPDATE SKIP LOCKED plus a lease.
import { sql } from 'drizzle-orm';
import { bigserial, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

export const webhookEvents = pgTable(
  'webhook_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    /**
     * Workspace of the order the event is about, filled in when it is processed and matched to a
     * kudos (a Rewards account is not tied to a Slack workspace, so it is unknown on arrival).
     */
    teamId: text('team_id'),
    enterpriseId: text('enterprise_id'),
    /**
     * The workspace Rewards connection the event arrived on (POST /webhooks/rewards/{connectionId},
     * distribution mode): team_id and enterprise_id are then known on arrival, and the event is
     * processed with that workspace's client only. Null on the single-workspace route.
     */
    connectionId: text('connection_id'),
    eventId: text('event_id').notNull(),
    eventType: text('event_type').notNull(),
    /** The envelope as received (JSON). */
    body: jsonb('body').$type<Record<string, unknown>>().notNull(),
    /** The envelope's createdAt (UTC). */
    createdAt: timestamp('created_at', { withTimezone: true }),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
    /** Set once processed (successfully, ignored as unknown, or given up: see error). */
    processedAt: timestamp('processed_at', { withTimezone: true }),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    claimedUntil: timestamp('claimed_until', { withTimezone: true }),
    /** What processing did (e.g. `kudos`, `external`, `ignored`). */
    outcome: text('outcome'),
    error: text('error'),
  },
  (t) => [
    uniqueIndex('webhook_events_event_id_uq').on(t.eventId),
    index('webhook_events_pending_idx')
      .on(t.nextAttemptAt)
      .where(sql`${t.processedAt} is null`),
    index('webhook_events_processed_idx').on(t.processedAt),
  ],
);

export type WebhookEventRow = typeof webhookEvents.$inferSelect;

/** Why the app watches an order. */
export type OrderCheckSource = 'kudos' | 'webhook' | 'reward_links';

export const orderChecks = pgTable(
  'order_checks',
  {
    orderId: text('order_id').primaryKey(),
    teamId: text('team_id'),
    enterpriseId: text('enterprise_id'),
    kudosId: uuid('kudos_id'),
    rewardLinkRequestId: uuid('reward_link_request_id'),
    source: text('source').$type<OrderCheckSource>().notNull(),
    /** Order status seen by the last check. */
    lastStatus: text('last_status'),
    attempts: integer('attempts').notNull().default(0),
    nextCheckAt: timestamp('next_check_at', { withTimezone: true }).notNull().defaultNow(),
    claimedUntil: timestamp('claimed_until', { withTimezone: true }),
    claimedBy: text('claimed_by'),
    /**
     * The Rewards API's answer once it said the order is COMPLETE, kept while telling about it waits
     * on our side (the worker has still to tell the sender, a Slack or database failure): later passes
     * use it instead of asking the API again. Cleared once done.
     */
    finishedOrder: jsonb('finished_order').$type<Record<string, unknown>>(),
    /** COMPLETE or CANCELED was seen and handled (or the order was given up: see error). */
    doneAt: timestamp('done_at', { withTimezone: true }),
    error: text('error'),
    /**
     * The give-up clock starts here: the later of the check's creation and the order's send time (a
     * send scheduled a year ahead is watched for 7 days after it goes out, not after it was booked).
     */
    watchFrom: timestamp('watch_from', { withTimezone: true }).notNull().defaultNow(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('order_checks_due_idx')
      .on(t.nextCheckAt)
      .where(sql`${t.doneAt} is null`),
    index('order_checks_kudos_idx').on(t.kudosId),
  ],
);

export type OrderCheckRow = typeof orderChecks.$inferSelect;
