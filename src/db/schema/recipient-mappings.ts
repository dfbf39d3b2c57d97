// Slack user -> Rewards address-book recipient, per workspace, keyed by the Slack profile e-mail.
import { index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { workspaceColumns } from './workspace.js';

export const recipientMappings = pgTable(
  'recipient_mappings',
  {
    ...workspaceColumns(),
    slackUserId: text('slack_user_id').notNull(),
    recipientId: text('recipient_id').notNull(),
    /** Where cards go: the Slack e-mail, or the address a sender corrected after a bounce. */
    email: text('email').notNull(),
    /**
     * The Slack profile e-mail the mapping was last synced from. A bounce fix changes `email` only, so
     * the correction lasts until the person's Slack e-mail itself changes. Null on rows from before
     * this column: then `email` is the Slack e-mail.
     */
    slackEmail: text('slack_email'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('recipient_mappings_team_user_uq').on(t.teamId, t.slackUserId), index('recipient_mappings_team_recipient_idx').on(t.teamId, t.recipientId)],
);

export type RecipientMappingRow = typeof recipientMappings.$inferSelect;
