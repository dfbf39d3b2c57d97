// The recognition feed's own data: "+1" reactions on announcements (no money moves) and people who
// chose not to appear on the leaderboard.
import { index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

import { kudos } from './kudos.js';
import { workspaceColumns } from './workspace.js';

export const kudosReactions = pgTable(
  'kudos_reactions',
  {
    ...workspaceColumns(),
    kudosId: uuid('kudos_id')
      .notNull()
      .references(() => kudos.id, { onDelete: 'cascade' }),
    userId: text('user_id').notNull(),
    reaction: text('reaction').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('kudos_reactions_uq').on(t.kudosId, t.userId),
    index('kudos_reactions_team_idx').on(t.teamId, t.createdAt),
  ],
);

export const statsOptOuts = pgTable(
  'stats_opt_outs',
  {
    ...workspaceColumns(),
    userId: text('user_id').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('stats_opt_outs_uq').on(t.teamId, t.userId)],
);
