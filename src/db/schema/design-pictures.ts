// The picture an admin chose for a design (`/kudos picture`), shown in the announcements of kudos sent
// with it. Only an https URL an admin set; a design without one is announced without a picture.
import { pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

import { workspaceColumns } from './workspace.js';

export const designPictures = pgTable(
  'design_pictures',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    ...workspaceColumns(),
    /** The design (the Rewards API's product id). */
    productId: text('product_id').notNull(),
    url: text('url').notNull(),
    setBy: text('set_by').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('design_pictures_team_product_uq').on(t.teamId, t.productId)],
);

export type DesignPictureRow = typeof designPictures.$inferSelect;
