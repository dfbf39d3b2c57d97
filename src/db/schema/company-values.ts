// Company values ("Teamwork", "Customer first"): admins define them per workspace in `/kudos settings`;
// a sender picks one in the send form or types `#teamwork` in the one-line command. A kudos keeps a
// copy of the value's name and emoji (kudos.value_name, value_emoji), so that renaming or deleting a
// value never rewrites what was sent.
import { sql } from 'drizzle-orm';
import { integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

import { workspaceColumns } from './workspace.js';

export const companyValues = pgTable(
  'company_values',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    ...workspaceColumns(),
    name: text('name').notNull(),
    /** An emoji shortcode without colons (`rocket`). */
    emoji: text('emoji').notNull(),
    description: text('description').notNull().default(''),
    /** Grows when the name or emoji changes: a send form showing the older one is refused, not sent under the new. */
    revision: integer('revision').notNull().default(1),
    createdBy: text('created_by').notNull(),
    updatedBy: text('updated_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  // One value of a name per workspace, whatever its case (senders type it as `#name`).
  (t) => [uniqueIndex('company_values_team_name_uq').on(t.teamId, sql`lower(${t.name})`)],
);

export type CompanyValueRow = typeof companyValues.$inferSelect;
