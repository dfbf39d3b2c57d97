// A workspace's own Rewards account (distribution mode, the README's installation modes): the credentials an
// admin connected from App Home. One row per workspace (team_id UNIQUE). `id` is the connectionId of
// the workspace's webhook URL, POST /webhooks/rewards/{id}: random and unguessable (it names the
// secret a delivery is verified with; the signature, not the id, is what authenticates).
// The client secret and the webhook secret are sealed with the KUDOS_ENCRYPTION_KEY key ring
// (src/secrets/key-ring.ts) under the context `rewards_connections:{id}:{column}`, so a sealed value
// copied to another row or column fails to open. The client id is an identifier, not a secret (it is
// shown to admins in App Home), and is kept in clear. Single-workspace mode has no row: the
// environment's REWARDS_* credentials are its one connection.
// Disconnecting keeps the row (status `disconnected`, secrets erased) so the same webhook URL comes
// back when the workspace connects again.
import { index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

import { workspaceColumns } from './workspace.js';

export const REWARDS_CONNECTION_STATUSES = ['active', 'disconnected'] as const;
export type RewardsConnectionStatus = (typeof REWARDS_CONNECTION_STATUSES)[number];

export const rewardsConnections = pgTable(
  'rewards_connections',
  {
    id: text('id').primaryKey(),
    ...workspaceColumns(),
    clientId: text('client_id').notNull(),
    /** Sealed (enc:v1:…); null once disconnected. */
    clientSecret: text('client_secret'),
    /** Sealed (enc:v1:…); null once disconnected. */
    webhookSecret: text('webhook_secret'),
    status: text('status').$type<RewardsConnectionStatus>().notNull(),
    /** Slack user id of the admin who connected the account. */
    connectedBy: text('connected_by').notNull(),
    connectedAt: timestamp('connected_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  // updated_at: the change feed's poll (src/domain/workspaces/change-feed.ts) asks for the rows changed since its last.
  (t) => [
    uniqueIndex('rewards_connections_team_uq').on(t.teamId),
    index('rewards_connections_updated_at_idx').on(t.updatedAt),
  ],
);

export type RewardsConnectionRow = typeof rewardsConnections.$inferSelect;
