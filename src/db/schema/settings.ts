// Per-workspace settings that admins edit in Slack (`/kudos settings`). The row is seeded from the
// environment (the README's configuration table) the first time a workspace is seen; the database holds them after.
import { boolean, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

import { workspaceColumns } from './workspace.js';

/** Who a workspace sends cards to: full members only (the default), also guests, also invited people. */
export type CardRecipients = 'members' | 'guests' | 'invited';

/** Who may send kudos with cards: everyone (the default), the members of one Slack user group, or Kudos admins. */
export type CardSenders = 'everyone' | 'usergroup' | 'admins';

/** What happens to a send over its sender's monthly allowance: it waits for an approver (the default), or is refused. */
export type OverAllowance = 'approval' | 'refuse';

export const workspaceSettings = pgTable(
  'workspace_settings',
  {
    ...workspaceColumns(),
    /** Channel for public announcements; null: none posted. */
    notifyChannel: text('notify_channel'),
    /** Channel for approval requests; null: approvers get direct messages. */
    approvalChannel: text('approval_channel'),
    /** Slack user ids who approve; null (and no user group): workspace admins and owners. */
    approverUserIds: jsonb('approver_user_ids').$type<string[]>(),
    /** A Slack user group whose members approve (in addition to approverUserIds). */
    approverUsergroupId: text('approver_usergroup_id'),
    /** Sends whose total is above this (cents) need approval; 0: every send. */
    approvalThresholdCents: integer('approval_threshold_cents').notNull(),
    /**
     * The default monthly allowance per sender in cents (calendar month, UTC); null: none. Overrides by
     * person or user group: sender_allowances.
     */
    monthlyBudgetCents: integer('monthly_budget_cents'),
    /** A send over its sender's allowance: `approval` (waits for an approver) or `refuse`. */
    overAllowance: text('over_allowance').$type<OverAllowance>().notNull().default('approval'),
    /** Who may send kudos with cards. */
    cardSenders: text('card_senders').$type<CardSenders>().notNull().default('everyone'),
    /** The Slack user group whose members may send, when cardSenders is `usergroup`. */
    senderUsergroupId: text('sender_usergroup_id'),
    defaultProductId: text('default_product_id'),
    /**
     * The country (ISO 3166-1 alpha-3) whose brands people are offered unless their own is known
     * (people_countries); null: every country.
     */
    defaultCountry: text('default_country'),
    /** The Slack custom profile field holding people's country (team.profile.get id), if mapped. */
    countryProfileFieldId: text('country_profile_field_id'),
    defaultAmountCents: integer('default_amount_cents'),
    /** Slack user ids who administer Kudos; null: workspace admins and owners. */
    adminUserIds: jsonb('admin_user_ids').$type<string[]>(),
    approvalExpiryHours: integer('approval_expiry_hours').notNull().default(72),
    /** Emoji name (without colons) that "+1"s an announcement. */
    reactionEmoji: text('reaction_emoji').notNull().default('gift'),
    /** A weekly leaderboard digest in the announcement channel. */
    weeklyDigest: boolean('weekly_digest').notNull().default(false),
    /** Show dollar amounts on the leaderboard (counts only by default). */
    leaderboardAmounts: boolean('leaderboard_amounts').notNull().default(false),
    /** Channel for admin alerts (low balance, top-up requests); null: admins get direct messages. */
    adminChannel: text('admin_channel'),
    /** Available balance in cents under which admins are alerted (once per crossing); null: no alert. */
    lowBalanceThresholdCents: integer('low_balance_threshold_cents'),
    /** Recurring series (active or paused) one person may have. */
    maxSeriesPerPerson: integer('max_series_per_person').notNull().default(20),
    /** Recurring series (active or paused) the whole workspace may have. */
    maxSeriesPerWorkspace: integer('max_series_per_workspace').notNull().default(500),
    /** Who receives cards: `members` (full members only), `guests` (and guests), `invited` (and guests and invited people). */
    cardRecipients: text('card_recipients').$type<CardRecipients>().notNull().default('members'),
    /** Senders must pick a company value (when the workspace has any); false: the value is optional. */
    valuesRequired: boolean('values_required').notNull().default(false),
    /** Every send from a person must say why (a message): the send form and `/kudos @a 25 …` ask for one. */
    requireMessage: boolean('require_message').notNull().default(false),
    updatedBy: text('updated_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  // updated_at: the change feed's poll (src/domain/workspaces/change-feed.ts) asks for the rows changed since its last.
  (t) => [
    uniqueIndex('workspace_settings_team_uq').on(t.teamId),
    index('workspace_settings_updated_at_idx').on(t.updatedAt),
  ],
);

/**
 * A monthly allowance of its own for one person or for the members of one Slack user group, in place
 * of the workspace's default (monthlyBudgetCents). A person's wins over a group's; among groups, the
 * most generous. allowanceCents null: no allowance (no limit).
 */
export const senderAllowances = pgTable(
  'sender_allowances',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    ...workspaceColumns(),
    subjectKind: text('subject_kind').$type<'user' | 'usergroup'>().notNull(),
    /** A Slack user id or user group id. */
    subjectId: text('subject_id').notNull(),
    allowanceCents: integer('allowance_cents'),
    updatedBy: text('updated_by'),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('sender_allowances_subject_uq').on(t.teamId, t.subjectKind, t.subjectId)],
);

export type SenderAllowanceRow = typeof senderAllowances.$inferSelect;

export type WorkspaceSettingsRow = typeof workspaceSettings.$inferSelect;
export type NewWorkspaceSettingsRow = typeof workspaceSettings.$inferInsert;
