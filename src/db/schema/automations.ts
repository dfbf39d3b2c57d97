// Automations: celebrations (birthdays, work anniversaries) and recurring kudos. Each run of one is
// an occurrence row, unique per workspace by its key, claimed with a lease and turned into one
// ordinary kudos row (source key `auto:<key>`), so that several instances and restarts send each once.
import { boolean, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

import type { CardType } from './kudos.js';
import { workspaceColumns } from './workspace.js';

export const CELEBRATION_KINDS = ['birthday', 'anniversary'] as const;
export type CelebrationKind = (typeof CELEBRATION_KINDS)[number];

/** Per workspace and kind, the admin's rule. */
export const celebrationRules = pgTable(
  'celebration_rules',
  {
    ...workspaceColumns(),
    kind: text('kind').$type<CelebrationKind>().notNull(),
    enabled: boolean('enabled').notNull().default(false),
    amountCents: integer('amount_cents').notNull(),
    productId: text('product_id').notNull(),
    /** `BRANDED_CARD`: `productId` is a brand and `amountCents` is in cents of `currency`. */
    cardType: text('card_type').$type<CardType>().notNull().default('CHOICE_CARD'),
    currency: text('currency').notNull().default('USD'),
    /** With `{name}` and `{years}`. */
    messageTemplate: text('message_template').notNull(),
    /** The person the card is from (budgets and approvals apply to them). */
    senderUserId: text('sender_user_id').notNull(),
    /** Where celebrations are announced; null: the workspace's announcement channel. */
    channelId: text('channel_id'),
    /** The Slack custom profile field holding the date (team.profile.get id), if mapped. */
    profileFieldId: text('profile_field_id'),
    updatedBy: text('updated_by'),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('celebration_rules_team_kind_uq').on(t.teamId, t.kind)],
);

/** People's dates, from a CSV upload or the mapped profile fields. */
export const celebrationDates = pgTable(
  'celebration_dates',
  {
    ...workspaceColumns(),
    slackUserId: text('slack_user_id').notNull(),
    email: text('email').notNull(),
    /** MM-DD (a year, if given, is not kept). */
    birthday: text('birthday'),
    /** YYYY-MM-DD. */
    startDate: text('start_date'),
    source: text('source').$type<'csv' | 'profile'>().notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('celebration_dates_team_user_uq').on(t.teamId, t.slackUserId)],
);

/** A person's choice: no celebrations at all, or no public post. */
export const celebrationPreferences = pgTable(
  'celebration_preferences',
  {
    ...workspaceColumns(),
    slackUserId: text('slack_user_id').notNull(),
    optOut: boolean('opt_out').notNull().default(false),
    noPublicPost: boolean('no_public_post').notNull().default(false),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('celebration_preferences_team_user_uq').on(t.teamId, t.slackUserId)],
);

export const CADENCES = ['weekly', 'monthly_day', 'last_working_day'] as const;
export type Cadence = (typeof CADENCES)[number];

export const SERIES_STATUSES = ['active', 'paused', 'deleted'] as const;
export type SeriesStatus = (typeof SERIES_STATUSES)[number];

/** A sender's repeating send. */
export const recurringSeries = pgTable(
  'recurring_series',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    ...workspaceColumns(),
    senderUserId: text('sender_user_id').notNull(),
    recipientUserIds: jsonb('recipient_user_ids').$type<string[]>().notNull(),
    productId: text('product_id').notNull(),
    amountCents: integer('amount_cents').notNull(),
    /** `BRANDED_CARD`: `productId` is a brand and `amountCents` is in cents of `currency`. */
    cardType: text('card_type').$type<CardType>().notNull().default('CHOICE_CARD'),
    currency: text('currency').notNull().default('USD'),
    message: text('message').notNull().default(''),
    cadence: text('cadence').$type<Cadence>().notNull(),
    /** weekly: ISO weekday, 1 = Monday … 7 = Sunday. */
    weekday: integer('weekday'),
    /** monthly_day: 1–31 (a shorter month uses its last day). */
    dayOfMonth: integer('day_of_month'),
    /** HH:mm in `timezone` (the sender's). */
    timeOfDay: text('time_of_day').notNull(),
    timezone: text('timezone').notNull(),
    status: text('status').$type<SeriesStatus>().notNull().default('active'),
    /** No occurrence before this instant (the series' creation). */
    startsAt: timestamp('starts_at', { withTimezone: true }).notNull(),
    /** The Slack view its form was submitted from: Slack's resend (or a second press) of it creates nothing more. */
    sourceViewId: text('source_view_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('recurring_series_team_idx').on(t.teamId, t.status),
    uniqueIndex('recurring_series_team_view_uq').on(t.teamId, t.sourceViewId),
  ],
);

export const OCCURRENCE_STATUSES = [
  'planned',
  'skipped',
  'sent',
  'retrying',
  'failed',
  'refused',
  'canceled',
  'missed',
] as const;
export type OccurrenceStatus = (typeof OCCURRENCE_STATUSES)[number];

/**
 * One run of an automation:
 * - `planned`: waiting for its time; `skipped`: an admin or the sender skipped it, or the person opted out;
 * - `sent`: recorded as kudos `kudos_id` (approval, placing); `retrying`: that kudos was refused for a
 *   fixable reason (balance, spending limits) and is sent again, same row, once the reason is gone;
 *   `failed`: that kudos was refused for good (or `retrying` ran out of days);
 * - `refused`: the send was refused (error says why); `canceled`: its series was paused or deleted;
 * - `missed`: its time passed too long ago to send it late.
 */
export const automationOccurrences = pgTable(
  'automation_occurrences',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    ...workspaceColumns(),
    /** e.g. `birthday:U123:2028-02-28`, `series:<id>:2028-03-31`. */
    key: text('key').notNull(),
    source: text('source').$type<'birthday' | 'anniversary' | 'recurring'>().notNull(),
    seriesId: uuid('series_id'),
    /** The person celebrated (celebrations). */
    subjectUserId: text('subject_user_id'),
    /** The local date it belongs to (YYYY-MM-DD), and the instant it is due. */
    localDate: text('local_date').notNull(),
    dueAt: timestamp('due_at', { withTimezone: true }).notNull(),
    /** Years since the start date (anniversaries). */
    years: integer('years'),
    status: text('status').$type<OccurrenceStatus>().notNull().default('planned'),
    kudosId: uuid('kudos_id'),
    error: text('error'),
    skippedBy: text('skipped_by'),
    claimedUntil: timestamp('claimed_until', { withTimezone: true }),
    claimedBy: text('claimed_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('automation_occurrences_team_key_uq').on(t.teamId, t.key),
    index('automation_occurrences_due_idx').on(t.status, t.dueAt),
  ],
);

export const STEP_RUN_STATUSES = ['waiting', 'finished', 'abandoned'] as const;
export type StepRunStatus = (typeof STEP_RUN_STATUSES)[number];

/**
 * A Workflow Builder step whose send was recorded but not yet placed (or refused) when the event's
 * handler had to stop waiting: any instance finishes it once the worker has an outcome, with the
 * workflow's own token (sealed; erased once finished), so a restart does not leave it running.
 */
export const workflowStepRuns = pgTable(
  'workflow_step_runs',
  {
    functionExecutionId: text('function_execution_id').primaryKey(),
    ...workspaceColumns(),
    kudosId: uuid('kudos_id').notNull(),
    /** The event's bot_access_token, sealed (sealed-columns.ts); null once finished. */
    token: text('token'),
    status: text('status').$type<StepRunStatus>().notNull().default('waiting'),
    /** What the step was finished with (a status, or the error). */
    outcome: text('outcome'),
    claimedUntil: timestamp('claimed_until', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [index('workflow_step_runs_waiting_idx').on(t.status, t.createdAt)],
);
export type WorkflowStepRunRow = typeof workflowStepRuns.$inferSelect;

export type CelebrationRuleRow = typeof celebrationRules.$inferSelect;
export type CelebrationDateRow = typeof celebrationDates.$inferSelect;
export type RecurringSeriesRow = typeof recurringSeries.$inferSelect;
export type NewRecurringSeriesRow = typeof recurringSeries.$inferInsert;
export type OccurrenceRow = typeof automationOccurrences.$inferSelect;
