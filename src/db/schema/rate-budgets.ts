// One Rewards API rate budget per account, shared by every instance (src/domain/pacing/rewards-rate-budget.ts).
// `account` is the connection id (distribution mode) or `env` (single mode: the environment's one
// account). Not a workspace's row: in single mode one account serves every workspace, so the key is
// the account, never a team. The figures are learned from the API's X-RateLimit-* headers, never set
// by hand: `limit_per_window` and `window_ms` (the longest Reset seen), `next_at` the next free send
// slot (a GCRA schedule: each request takes the next slot, one `interval` apart), `blocked_until`
// the reset a 429 or an exhausted budget announced.
import { doublePrecision, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

export const rewardsRateBudgets = pgTable('rewards_rate_budgets', {
  account: text('account').primaryKey(),
  limitPerWindow: integer('limit_per_window'),
  windowMs: integer('window_ms'),
  /** Milliseconds between two send slots: window / (limit x share); null until the API announced a limit. */
  intervalMs: doublePrecision('interval_ms'),
  nextAt: timestamp('next_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  blockedUntil: timestamp('blocked_until', { withTimezone: true, precision: 3 }),
  /** 429s this account was answered (all instances), for the metrics and the bench. */
  rateLimited: integer('rate_limited').notNull().default(0),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

export type RewardsRateBudgetRow = typeof rewardsRateBudgets.$inferSelect;
