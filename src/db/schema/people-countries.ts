// Where people are, for the brands they are offered: a branded card is sold for one country (or
// GLOBAL), so a sender sees, for each recipient, the brands of that person's country. From a CSV
// upload or a mapped Slack profile field, like celebration dates; the workspace default covers the rest.
import { pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

import { workspaceColumns } from './workspace.js';

export const peopleCountries = pgTable(
  'people_countries',
  {
    ...workspaceColumns(),
    slackUserId: text('slack_user_id').notNull(),
    /** ISO 3166-1 alpha-3, upper case ("GBR"). */
    countryCode: text('country_code').notNull(),
    source: text('source').$type<'csv' | 'profile'>().notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('people_countries_team_user_uq').on(t.teamId, t.slackUserId)],
);

export type PersonCountryRow = typeof peopleCountries.$inferSelect;
