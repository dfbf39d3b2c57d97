// Slack user -> Rewards address-book recipient, per workspace, keyed by the Slack profile e-mail.
import { index, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

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
  (t) => [
    uniqueIndex('recipient_mappings_team_user_uq').on(t.teamId, t.slackUserId),
    index('recipient_mappings_team_recipient_idx').on(t.teamId, t.recipientId),
  ],
);

export type RecipientMappingRow = typeof recipientMappings.$inferSelect;

/**
 * Single flight of address-book recipient creation, per workspace and e-mail (lower-case), across
 * instances (src/domain/sending/recipients.ts): the first claimer creates the recipient, the others wait for
 * its id instead of each creating it (and meeting 409 EMAIL_TAKEN). A finished row answers for 10
 * minutes only: it is a flight, not a cache (the address book may change, or the account).
 */
export const recipientCreations = pgTable(
  'recipient_creations',
  {
    ...workspaceColumns(),
    email: text('email').notNull(),
    claimedBy: text('claimed_by').notNull(),
    claimedUntil: timestamp('claimed_until', { withTimezone: true }).notNull(),
    recipientId: text('recipient_id'),
    doneAt: timestamp('done_at', { withTimezone: true }),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.email] })],
);
