// The money side for admins: what Kudos knows of the Rewards account per workspace (the low-balance
// alert state, the environment, the spending limits), top-up requests with their second-admin
// approval, and limit-increase requests sent from Slack.
import { sql } from 'drizzle-orm';
import { bigint, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

import { workspaceColumns } from './workspace.js';

export const financeState = pgTable(
  'finance_state',
  {
    ...workspaceColumns(),
    /**
     * The alert state: 'below' once an alert was sent for the current crossing, 'above' otherwise.
     * Only the check that flips it to 'below' (one conditional UPDATE) alerts: one alert per crossing.
     */
    balanceState: text('balance_state').$type<'above' | 'below'>().notNull().default('above'),
    /** How many times the balance crossed below the threshold: the subject of each alert notice. */
    crossings: integer('crossings').notNull().default(0),
    lastBalanceCents: bigint('last_balance_cents', { mode: 'number' }),
    lastCheckedAt: timestamp('last_checked_at', { withTimezone: true }),
    /** 'sandbox' once the API refused a top-up as production only; null: not known. */
    environment: text('environment').$type<'sandbox' | 'production'>(),
    /** The organization's spending limits as last known (set by an admin or read from the API's answers). */
    dailyLimitCents: bigint('daily_limit_cents', { mode: 'number' }),
    monthlyLimitCents: bigint('monthly_limit_cents', { mode: 'number' }),
    limitsSource: text('limits_source'),
    limitsUpdatedAt: timestamp('limits_updated_at', { withTimezone: true }),
    /**
     * The billing details of the workspace's top-ups (BillingDetails as JSON), sealed with the key ring
     * (db/sealed-columns.ts): the top-up form asks only for the amount while they are here.
     */
    billingDetails: text('billing_details'),
    billingUpdatedBy: text('billing_updated_by'),
    billingUpdatedAt: timestamp('billing_updated_at', { withTimezone: true }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('finance_state_team_uq').on(t.teamId)],
);

export type FinanceStateRow = typeof financeState.$inferSelect;

/** The company details the top-up endpoint requires (spec 4.8), remembered sealed in finance_state. */
export interface BillingDetails {
  companyName: string;
  phoneNumber: string;
  billingAddress: string;
  city: string;
  state: string;
  country: string;
  zipCode: string;
  ein: string;
  companyWebsite?: string;
}

/**
 * awaiting_approval -> approved (a second admin, exactly once) -> submitted (fundingNo known) ->
 * completed (the ledger shows it processed) | unapproved (the ledger shows it rejected or canceled).
 * rejected: the second admin said no. failed: the API refused it (nothing was created).
 * unknown: the answer of the API call was lost; never sent again, an admin checks the ledger.
 */
export const TOP_UP_STATUSES = [
  'awaiting_approval',
  'approved',
  'submitted',
  'completed',
  'unapproved',
  'rejected',
  'failed',
  'unknown',
] as const;
export type TopUpStatus = (typeof TOP_UP_STATUSES)[number];

export const topUpRequests = pgTable(
  'top_up_requests',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    ...workspaceColumns(),
    requesterUserId: text('requester_user_id').notNull(),
    /** The modal submitted (Slack's view id): a form submitted twice records one request. */
    sourceViewId: text('source_view_id'),
    amountCents: bigint('amount_cents', { mode: 'number' }).notNull(),
    note: text('note').notNull().default(''),
    /**
     * The billing details in plain JSON: what requests made before they were sealed hold, and what a
     * request holds without a key ring (single-workspace mode without KUDOS_ENCRYPTION_KEY: nothing
     * to seal with). With a key ring it is null: the finance sweep seals older rows into
     * `billing_sealed` and clears it. Read by the previous release; dropped in a later one.
     */
    billing: jsonb('billing').$type<BillingDetails>(),
    /**
     * The billing details the request is sent with once approved (BillingDetails as JSON), sealed with
     * the key ring under the row's id (db/sealed-columns.ts), so `npm run keys:rotate` re-seals them.
     */
    billingSealed: text('billing_sealed'),
    status: text('status').$type<TopUpStatus>().notNull().default('awaiting_approval'),
    deciderUserId: text('decider_user_id'),
    decidedAt: timestamp('decided_at', { withTimezone: true }),
    fundingNo: text('funding_no'),
    errorCode: text('error_code'),
    errorMessage: text('error_message'),
    /** Where the approval request was posted ({channel, ts}), to update it after the decision. */
    messages: jsonb('messages').$type<Array<{ channel: string; ts: string }>>().notNull().default([]),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('top_up_requests_team_idx').on(t.teamId, t.status),
    uniqueIndex('top_up_requests_source_view_uq').on(t.teamId, t.sourceViewId),
    // The rows the finance sweep still has to seal: none once it has (with a key ring).
    index('top_up_requests_plain_billing_idx')
      .on(t.id)
      .where(sql`${t.billing} is not null`),
  ],
);

export type TopUpRequestRow = typeof topUpRequests.$inferSelect;

export const LIMIT_REQUEST_STATUSES = ['sending', 'pending_review', 'stale', 'failed', 'unknown'] as const;
export type LimitRequestStatus = (typeof LIMIT_REQUEST_STATUSES)[number];

export const limitIncreaseRequests = pgTable(
  'limit_increase_requests',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    ...workspaceColumns(),
    requesterUserId: text('requester_user_id').notNull(),
    /**
     * The modal submitted (Slack's view id) while its request is on its way or taken: the same form
     * submitted twice asks once. Cleared when nothing was queued (stale figures, a refusal), so the
     * form can be sent again.
     */
    sourceViewId: text('source_view_id'),
    currentDailyCents: bigint('current_daily_cents', { mode: 'number' }).notNull(),
    currentMonthlyCents: bigint('current_monthly_cents', { mode: 'number' }).notNull(),
    requestedDailyCents: bigint('requested_daily_cents', { mode: 'number' }).notNull(),
    requestedMonthlyCents: bigint('requested_monthly_cents', { mode: 'number' }).notNull(),
    /** sending -> pending_review | stale (figures were out of date: asked again) | failed | unknown (the answer was lost). */
    status: text('status').$type<LimitRequestStatus>().notNull().default('sending'),
    message: text('message'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** Moved on every change of status: App Home's money section is re-published from it. */
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('limit_increase_requests_team_idx').on(t.teamId, t.createdAt),
    uniqueIndex('limit_increase_requests_source_view_uq').on(t.teamId, t.sourceViewId),
  ],
);

export type LimitIncreaseRequestRow = typeof limitIncreaseRequests.$inferSelect;
