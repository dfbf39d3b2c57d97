// Slack user -> Rewards address-book recipient, per workspace, keyed by the Slack profile e-mail.
import { index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { workspaceColumns } from './workspace.js';

export const recipientMappings = pgTable(
  'recipient_mappings',
  {
    ...workspaceColumns(),
    slackUserId: text('slack_user_id').notNull(),
    recipientId: text('recipient_id').notNull(),
    email: text('email').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('recipient_mappings_team_user_uq').on(t.teamId, t.slackUserId),
    index('recipient_mappings_team_recipient_idx').on(t.teamId, t.recipientId),
  ],
);

export type RecipientMappingRow = typeof recipientMappings.$inferSelect;
