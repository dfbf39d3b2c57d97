// Campaigns: a named way of sending kudos ("Q4 spot awards") with a default design, an
// amount range and an optional e-mail template, kept per workspace. Kudos' own row is what senders
// pick and what spend is counted by (kudos.campaign_id); a mirror is kept in the Rewards account
// (spec 2.5) so that it shows in the provider's portal. Creating the mirror is recorded first: the
// row carries the name the API campaign is given, with a tag unique to the row, so that an answer
// lost after the API took the request is found by searching instead of creating a second one.
import { sql } from 'drizzle-orm';
import { index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

import { workspaceColumns } from './workspace.js';

/**
 * - `creating`: recorded, the Rewards API's campaign not known to exist yet (the call is in flight, or
 *   its answer was lost); not offered to senders;
 * - `active`: the API has it (api_campaign_id); offered in the send form;
 * - `archived`: deleted from the Rewards account; kept for the spend and audit it carries.
 */
export const CAMPAIGN_STATUSES = ['creating', 'active', 'archived'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

export const campaigns = pgTable(
  'campaigns',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    ...workspaceColumns(),
    name: text('name').notNull(),
    productId: text('product_id').notNull(),
    designName: text('design_name').notNull(),
    /** The amount range a sender may pick under this campaign, whole dollars in cents, and the default. */
    minCents: integer('min_cents').notNull(),
    maxCents: integer('max_cents').notNull(),
    defaultCents: integer('default_cents').notNull(),
    /** The e-mail template of its sends (spec 2.3 templateId); null: the account's default. */
    templateId: text('template_id'),
    templateName: text('template_name'),
    /** The e-mail's sender name and subject; null: the sender's name and "<sender> sent you kudos". */
    senderName: text('sender_name'),
    subject: text('subject'),
    status: text('status').$type<CampaignStatus>().notNull().default('creating'),
    /** The name of the API's campaign: the name plus a tag unique to this row (found by search after a lost answer). */
    apiName: text('api_name').notNull(),
    apiCampaignId: text('api_campaign_id'),
    /** When the create call was last sent: a search that finds nothing sooner than the settle time after it proves nothing. */
    apiAttemptAt: timestamp('api_attempt_at', { withTimezone: true }),
    /** The form that created it: submitting the same form again finds this row. */
    sourceViewId: text('source_view_id'),
    createdBy: text('created_by').notNull(),
    updatedBy: text('updated_by'),
    archivedBy: text('archived_by'),
    archivedAt: timestamp('archived_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('campaigns_source_view_uq').on(t.teamId, t.sourceViewId),
    // One live campaign of a name per workspace (senders pick it by name).
    uniqueIndex('campaigns_live_name_uq')
      .on(t.teamId, sql`lower(${t.name})`)
      .where(sql`${t.status} <> 'archived'`),
    index('campaigns_team_status_idx').on(t.teamId, t.status),
  ],
);

export type CampaignRow = typeof campaigns.$inferSelect;
export type NewCampaignRow = typeof campaigns.$inferInsert;
