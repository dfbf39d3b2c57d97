// One approval request per kudos that needed a second pair of eyes. The decision itself is the
// kudos row's conditional status change (awaiting_approval -> pending | rejected | expired); this
// row keeps where the request was posted, who decided, why, and when it expires.
import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

import { kudos } from './kudos.js';
import { workspaceColumns } from './workspace.js';

export const APPROVAL_STATUSES = ['awaiting_approval', 'approved', 'rejected', 'expired'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** A message that shows the request (in the approval channel, or one DM per approver). */
export interface ApprovalMessageRef {
  channel: string;
  ts: string;
}

export const approvalRequests = pgTable(
  'approval_requests',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    ...workspaceColumns(),
    kudosId: uuid('kudos_id')
      .notNull()
      .references(() => kudos.id, { onDelete: 'cascade' }),
    senderUserId: text('sender_user_id').notNull(),
    status: text('status').$type<ApprovalStatus>().notNull().default('awaiting_approval'),
    /** Why it needs approval, e.g. "above the $100 threshold". */
    reason: text('reason').notNull(),
    messages: jsonb('messages').$type<ApprovalMessageRef[]>().notNull().default([]),
    /** Set once the request was posted to approvers; a row without it is (re)posted by the sweep. */
    postedAt: timestamp('posted_at', { withTimezone: true }),
    postClaimedUntil: timestamp('post_claimed_until', { withTimezone: true }),
    decidedBy: text('decided_by'),
    decidedAt: timestamp('decided_at', { withTimezone: true }),
    rejectReason: text('reject_reason'),
    /** The schedule was dropped at approval because its time had passed or was too close. */
    sentNowInsteadOf: timestamp('sent_now_instead_of', { withTimezone: true }),
    /** Why placing the approved order failed (limits, balance); the request is decidable again. */
    lastFailureCode: text('last_failure_code'),
    lastFailureMessage: text('last_failure_message'),
    /** Times the request went back to approvers after a failure. */
    reopenCount: integer('reopen_count').notNull().default(0),
    /** When it last went back to approvers: the sweep looks this far back for an untold "back with the approvers". */
    reopenedAt: timestamp('reopened_at', { withTimezone: true }),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('approval_requests_kudos_uq').on(t.kudosId),
    index('approval_requests_status_expiry_idx').on(t.status, t.expiresAt),
  ],
);

export type ApprovalRequestRow = typeof approvalRequests.$inferSelect;
