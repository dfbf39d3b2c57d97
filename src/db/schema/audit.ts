// Append-only audit trail of who did what (cancellations now; approvals and settings later).
import { bigserial, index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

import { workspaceColumns } from './workspace.js';

export const auditEvents = pgTable(
  'audit_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    ...workspaceColumns(),
    actorUserId: text('actor_user_id').notNull(),
    /** e.g. `kudos.canceled`. */
    action: text('action').notNull(),
    subjectType: text('subject_type').notNull(),
    subjectId: text('subject_id').notNull(),
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('audit_events_subject_idx').on(t.subjectType, t.subjectId)],
);

export type AuditEventRow = typeof auditEvents.$inferSelect;
