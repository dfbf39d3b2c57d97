// The exchange rates Kudos learned from its own branded orders, one row per workspace and currency:
// the catalog gives no rate, so the USD cost of a non-USD card is estimated from what an earlier order
// of that currency was charged (its `totalCost`, USD cents) for its face value (cents of the currency).
// The latest order wins; the rate is the ratio of the two, kept exact (src/domain/branded/).
import { bigint, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

import { workspaceColumns } from './workspace.js';

export const learnedExchangeRates = pgTable(
  'learned_exchange_rates',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    ...workspaceColumns(),
    /** ISO 4217 code of the face value, never USD (USD costs its face value). */
    currency: text('currency').notNull(),
    /** The face total of the order learned from, in cents (hundredths) of `currency`. */
    faceCents: bigint('face_cents', { mode: 'number' }).notNull(),
    /** What that order was charged, USD cents (its `totalCost`). */
    costCents: bigint('cost_cents', { mode: 'number' }).notNull(),
    /** The order learned from (the Rewards API's id), for the record. */
    orderId: text('order_id'),
    /** When that order was charged: the rate's age is measured from here. */
    learnedAt: timestamp('learned_at', { withTimezone: true }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('learned_exchange_rates_team_currency_uq').on(t.teamId, t.currency)],
);

export type LearnedExchangeRateRow = typeof learnedExchangeRates.$inferSelect;
