// What App Home needs beyond the kudos rows: who has opened Home (only they are re-published when
// something they see changes, and with the roles and pages they last saw), and the health warnings
// admins see there (announcements that Slack refused, and the like).
import { boolean, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

import { workspaceColumns } from './workspace.js';

/** Page of each paged list on a person's Home (0 = newest). */
export type HomePages = Partial<Record<'received' | 'sent' | 'scheduled' | 'approvals', number>>;

export const homeVisits = pgTable(
  'home_visits',
  {
    ...workspaceColumns(),
    userId: text('user_id').notNull(),
    /** Roles when Home was last published: which changes concern this person. */
    isApprover: boolean('is_approver').notNull().default(false),
    isAdmin: boolean('is_admin').notNull().default(false),
    pages: jsonb('pages').$type<HomePages>().notNull().default({}),
    openedAt: timestamp('opened_at', { withTimezone: true }).notNull().defaultNow(),
    publishedAt: timestamp('published_at', { withTimezone: true }),
    /** The outcome of the person's last click on Home, shown on top until `flashUntil` by every instance's re-publish. */
    flash: text('flash'),
    flashUntil: timestamp('flash_until', { withTimezone: true }),
  },
  (t) => [uniqueIndex('home_visits_team_user_uq').on(t.teamId, t.userId)],
);

export type HomeVisitRow = typeof homeVisits.$inferSelect;

/** e.g. `channel.unreachable` (subject: the channel id). */
export type HealthWarningKind = 'channel.unreachable' | (string & {});

export const healthWarnings = pgTable(
  'health_warnings',
  {
    ...workspaceColumns(),
    kind: text('kind').$type<HealthWarningKind>().notNull(),
    subject: text('subject').notNull(),
    /** Slack's (or the API's) error code, e.g. `not_in_channel`. */
    error: text('error').notNull(),
    count: integer('count').notNull().default(1),
    firstAt: timestamp('first_at', { withTimezone: true }).notNull().defaultNow(),
    lastAt: timestamp('last_at', { withTimezone: true }).notNull().defaultNow(),
    /** Set when the cause went away (a later post to the channel worked, or settings changed it). */
    resolvedAt: timestamp('resolved_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('health_warnings_team_kind_subject_uq').on(t.teamId, t.kind, t.subject),
    index('health_warnings_open_idx').on(t.teamId, t.resolvedAt),
  ],
);

export type HealthWarningRow = typeof healthWarnings.$inferSelect;
