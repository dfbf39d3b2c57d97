// Slack Events API deliveries already handled, by workspace and event_id. Slack redelivers an event
// (over HTTP or Socket Mode, possibly to another instance) when it thinks an attempt failed; the
// first insert wins and every later copy is dropped. Rows older than a day are pruned (Slack's
// retries span minutes).
import { index, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

export const eventReceipts = pgTable(
  'event_receipts',
  {
    teamId: text('team_id').notNull(),
    eventId: text('event_id').notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.eventId] }), index('event_receipts_received_idx').on(t.receivedAt)],
);
