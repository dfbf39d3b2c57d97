// Every table is keyed by the Slack workspace: team_id always, enterprise_id where the
// workspace belongs to an Enterprise Grid org. Installing in several workspaces later then
// needs no data migration.
import { text } from 'drizzle-orm/pg-core';

export const workspaceColumns = () => ({
  teamId: text('team_id').notNull(),
  enterpriseId: text('enterprise_id'),
});
