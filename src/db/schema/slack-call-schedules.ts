// Slack's rate limits, paced by the app across instances (src/domain/pacing/slack-call-schedules.ts): one schedule
// per workspace and key (`post:<channel>` for a channel's posts, `post` for the workspace's, a method
// name for its tier). `next_at` is the schedule's theoretical next slot (GCRA: each call takes the
// next slot, one interval apart, with a short burst allowed), `blocked_until` the Retry-After of the
// last 429, `rate_limited` how many 429s Slack answered on it (all instances).
import { index, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

export const slackCallSchedules = pgTable(
  'slack_call_schedules',
  {
    teamId: text('team_id').notNull(),
    key: text('key').notNull(),
    nextAt: timestamp('next_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    blockedUntil: timestamp('blocked_until', { withTimezone: true, precision: 3 }),
    rateLimited: integer('rate_limited').notNull().default(0),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.key] }), index('slack_call_schedules_updated_at').on(t.updatedAt)],
);

export type SlackCallScheduleRow = typeof slackCallSchedules.$inferSelect;
