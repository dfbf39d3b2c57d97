// The kudos aggregate: one row per send started in Slack. The row is written (with its
// idempotency key) before any Rewards API call, then placed by the worker (src/domain/sending/place-sends.ts).
import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

import { workspaceColumns } from './workspace.js';

/** A gift card's type, as the Rewards API names it. */
export type CardType = 'CHOICE_CARD' | 'BRANDED_CARD';
/** How the USD cost of a card was known before ordering (src/domain/branded/usd-cost.ts). */
export type UsdBasis = 'exact' | 'learned' | 'unknown';

/**
 * Life of a send:
 * - `pending`: recorded, waiting for the worker to place the order (also while being placed: see claimed_until);
 * - `placed`: an immediate order was created; `scheduled`: a scheduled order was created (the API holds it);
 * - `failed`: the API refused it permanently, or it certainly was not created (error_code / error_message say why);
 * - `unknown`: the last attempt's answer was lost and the order could not be looked up yet: it may
 *   exist. Never reported as failed; the worker looks it up by its key until it knows;
 * - `canceled`: a scheduled send cancelled from Slack (canceled_by / canceled_at);
 * - `partial`: a send of several orders (more recipients than one order takes, src/domain/sending/kudos-parts.ts)
 *   whose first parts were created and a later one refused: what was created is paid and delivered,
 *   never reported as failed (parts_placed, order_ids and cost_cents say exactly what went out).
 * Before `pending`, a send that needs approval (src/domain/approvals/approval-service.ts) is `awaiting_approval`, then
 * `pending` once approved, or `rejected` / `expired`.
 */
export const KUDOS_STATUSES = [
  'awaiting_approval',
  'rejected',
  'expired',
  'pending',
  'unknown',
  'placed',
  'scheduled',
  'failed',
  'partial',
  'canceled',
] as const;
export type KudosStatus = (typeof KUDOS_STATUSES)[number] | (string & {});

/** One recipient as resolved when the send was submitted. */
export interface KudosRecipientSnapshot {
  slackUserId: string | null;
  recipientId: string | null;
  email: string;
  name: string;
  firstName?: string;
  lastName?: string;
}

export const kudos = pgTable(
  'kudos',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    ...workspaceColumns(),
    senderUserId: text('sender_user_id').notNull(),
    senderName: text('sender_name').notNull(),
    /** Channel the command was typed in (for ephemeral answers); null when unknown. */
    originChannelId: text('origin_channel_id'),
    /** The modal that produced this send: a double-submitted modal maps to the same row. */
    sourceViewId: text('source_view_id'),
    recipients: jsonb('recipients').$type<KudosRecipientSnapshot[]>().notNull(),
    recipientCount: integer('recipient_count').notNull(),
    slackUsergroupId: text('slack_usergroup_id'),
    recipientGroupId: text('recipient_group_id'),
    recipientGroupName: text('recipient_group_name'),
    productId: text('product_id').notNull(),
    designName: text('design_name').notNull(),
    /** Per recipient, in cents (whole dollars for choice cards). */
    amountCents: integer('amount_cents').notNull(),
    totalCents: integer('total_cents').notNull(),
    currency: text('currency').notNull().default('USD'),
    /** `CHOICE_CARD` (the recipient picks the brand) or `BRANDED_CARD` (a fixed brand in its own currency). */
    cardType: text('card_type').$type<CardType>().notNull().default('CHOICE_CARD'),
    /**
     * A branded card's face value per recipient, in cents of `faceCurrency` (null for choice cards).
     * `amountCents` and `totalCents` are then the judged USD cost (the estimate plus the safety margin,
     * src/domain/branded/usd-cost.ts) that approvals, budgets and limits judge.
     */
    faceCurrency: text('face_currency'),
    faceCents: integer('face_cents'),
    /** How the USD cost of a branded card was known when recorded: `exact` (USD), `learned` or `unknown`. */
    usdBasis: text('usd_basis').$type<UsdBasis>(),
    message: text('message').notNull().default(''),
    /** Permalink of the Slack message the kudos was given for ("Give kudos for this"); quoted in the announcement. */
    sourceMessageUrl: text('source_message_url'),
    /**
     * Where this send is announced: null, the workspace's announcement channel; a channel id (a
     * celebration rule's channel); `none`, nowhere (the person opted out of public posts).
     */
    announceTo: text('announce_to'),
    /** The campaign (src/db/schema/campaigns.ts) this send was made under; its spend is counted by it. */
    campaignId: uuid('campaign_id'),
    /**
     * The company value (src/db/schema/company-values.ts) the sender picked, with a copy of its name and
     * emoji as they were at send time: a later rename or delete leaves what was sent as it was.
     */
    valueId: uuid('value_id'),
    valueName: text('value_name'),
    valueEmoji: text('value_emoji'),
    /** The order's e-mail (spec 2.3): a template, and a sender name and subject other than the sender's own. */
    emailTemplateId: text('email_template_id'),
    emailSenderName: text('email_sender_name'),
    emailSubject: text('email_subject'),
    /** null: no refund; 30/60/90: refund window in days. */
    refundOptionDays: integer('refund_option_days'),
    /** The instant a scheduled send goes out; null for immediate sends. */
    scheduledAt: timestamp('scheduled_at', { withTimezone: true }),
    /** The sender's IANA zone and the wall time with offset sent to the API. */
    scheduleTimezone: text('schedule_timezone'),
    scheduleLocal: text('schedule_local'),
    status: text('status').$type<KudosStatus>().notNull().default('pending'),
    /** UUID v4 generated at insert; sent as the order's idempotencyKey on every attempt. */
    idempotencyKey: uuid('idempotency_key').notNull().defaultRandom(),
    /** Claims of the row (the claim's fence); grows on every restart or lost lease too. */
    attempts: integer('attempts').notNull().default(0),
    /** Order calls that failed without a refusal: the retry back-off and the give-up count grow with these alone. */
    failedCalls: integer('failed_calls').notNull().default(0),
    /** Earliest time the worker may (re)try. */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    /**
     * Lease: a worker placing this row holds it until then (renewed while its call is in flight); an
     * expired lease is resumed by any worker. Writes after a claim are fenced on claimed_by, attempts and status.
     */
    claimedUntil: timestamp('claimed_until', { withTimezone: true }),
    claimedBy: text('claimed_by'),
    /** The order of the send; of a send in several parts, the first part's (order_ids has them all). */
    orderId: text('order_id'),
    /**
     * A send of more recipients than one order takes is placed in parts (src/domain/sending/kudos-parts.ts), each
     * an order with a key derived from idempotency_key: every part's order id, in part order, each
     * recorded as soon as it was created. One-order sends: the order id too.
     */
    orderIds: jsonb('order_ids').$type<string[]>().notNull().default([]),
    /** Parts created so far, in order (a resumed send continues from here with the next part's key). */
    partsPlaced: integer('parts_placed').notNull().default(0),
    /** Orders of the send found COMPLETE, with their delivery counts: one completion notice once every part is. */
    partsCompleted: jsonb('parts_completed')
      .$type<Record<string, { sentCount: number; bouncedCount: number; recipientCount: number }>>()
      .notNull()
      .default({}),
    orderStatus: text('order_status'),
    costCents: integer('cost_cents'),
    costCurrency: text('cost_currency'),
    errorCode: text('error_code'),
    errorMessage: text('error_message'),
    announcementChannel: text('announcement_channel'),
    announcementTs: text('announcement_ts'),
    confirmationChannel: text('confirmation_channel'),
    confirmationTs: text('confirmation_ts'),
    /** Set once the sender was told (confirmation or failure), so a resumed row does not notify twice. */
    notifiedAt: timestamp('notified_at', { withTimezone: true }),
    canceledBy: text('canceled_by'),
    /**
     * A cancel asked from Slack, recorded before the API call: if the API accepts it and recording the
     * outcome fails (or the process dies), the background sweep looks the order up and finishes it.
     */
    cancelRequestedBy: text('cancel_requested_by'),
    cancelRequestedAt: timestamp('cancel_requested_at', { withTimezone: true }),
    canceledAt: timestamp('canceled_at', { withTimezone: true }),
    placedAt: timestamp('placed_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('kudos_idempotency_key_uq').on(t.idempotencyKey),
    uniqueIndex('kudos_source_view_uq').on(t.teamId, t.sourceViewId),
    // The worker's queue: what still has to be placed or told (same predicate as kudos-store's needsWork,
    // written with literals so that PostgreSQL can match it under prepared statements).
    index('kudos_work_idx')
      .on(t.nextAttemptAt)
      .where(
        sql`${t.status} in ('pending', 'unknown') or (${t.status} in ('placed', 'scheduled', 'failed', 'partial') and ${t.notifiedAt} is null)`,
      ),
    // The claim (kudos-store's claimBatch): the workspaces with work by a skip scan, each one's oldest
    // due rows by a range (same predicate); its sends in progress from the claimed rows alone.
    index('kudos_team_work_idx')
      .on(t.teamId, t.nextAttemptAt, t.id)
      .where(
        sql`${t.status} in ('pending', 'unknown') or (${t.status} in ('placed', 'scheduled', 'failed', 'partial') and ${t.notifiedAt} is null)`,
      ),
    index('kudos_team_busy_idx')
      .on(t.teamId, t.claimedUntil)
      .where(
        sql`(${t.status} in ('pending', 'unknown') or (${t.status} in ('placed', 'scheduled', 'failed', 'partial') and ${t.notifiedAt} is null)) and ${t.claimedUntil} is not null`,
      ),
    index('kudos_team_sender_idx').on(t.teamId, t.senderUserId, t.status),
    // The low-balance decision after an order sums what the workspace's orders cost since the last
    // balance read (low-balance.ts, decisionReads): a range of the last minute or so, not the
    // workspace's whole history.
    index('kudos_team_placed_idx')
      .on(t.teamId, t.placedAt)
      .where(sql`${t.placedAt} is not null`),
    index('kudos_order_idx').on(t.orderId),
    index('kudos_team_value_idx')
      .on(t.teamId, t.valueId)
      .where(sql`${t.valueId} is not null`),
    index('kudos_team_campaign_idx')
      .on(t.teamId, t.campaignId)
      .where(sql`${t.campaignId} is not null`),
  ],
);

export type KudosRow = typeof kudos.$inferSelect;
export type NewKudosRow = typeof kudos.$inferInsert;
