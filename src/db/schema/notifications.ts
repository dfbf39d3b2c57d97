// Slack notifications that must be posted once, bounced recipients awaiting a fix, and reward-link
// requests made from Slack.
//
// notifications: an outbox of Slack notices that must be posted exactly once. The row (unique kind +
// subject) is inserted with the message BEFORE posting; whoever inserts it posts, everyone else (a
// redelivered event, the webhook racing reconciliation, a second instance) skips. A posting attempt
// holds a lease (claimed_until); if its process dies, or Slack's answer is lost, another one resumes
// the row after the lease: it looks for the message by its metadata (notice id) before posting.
import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

import type { CardType } from './kudos.js';

export const notifications = pgTable(
  'notifications',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    teamId: text('team_id'),
    enterpriseId: text('enterprise_id'),
    /** e.g. `order.completed`, `order.completed.dm`, `order.bounced`, `order.external`. */
    kind: text('kind').notNull(),
    /** What it is about, e.g. an order id, or `orderId:email`. */
    subject: text('subject').notNull(),
    /** Where it goes: a channel (set at insert), or the DM with `dmUserId` (set when opened). */
    channel: text('channel'),
    dmUserId: text('dm_user_id'),
    threadTs: text('thread_ts'),
    /**
     * Posted in the thread of this other notice (a completion notice under its kudos' announcement
     * still waiting in the outbox): not before that one is posted (then in its thread) or given up
     * or removed (then in `channel`).
     */
    threadOf: uuid('thread_of'),
    /**
     * An edit of this other notice's message (chat.update: its channel and ts), not a post: made once
     * that one is posted; given up when it was given up or removed (there is nothing to edit). A kudos
     * announcement that a part found later made too small (the send reached more people).
     */
    editOf: uuid('edit_of'),
    /**
     * Posted after this other notice, in its own place: not before that one is posted, given up or
     * removed. A sender's approval decision that must not overtake the "waiting" notice still on its
     * way (paced by Slack, or being posted by another instance).
     */
    follows: uuid('follows'),
    /** What is posted ({ text, blocks }), kept so that any instance can resume it. */
    message: jsonb('message').$type<{ text: string; blocks?: unknown[] }>(),
    ts: text('ts'),
    /** While set and in the future, one poster owns the row. */
    claimedUntil: timestamp('claimed_until', { withTimezone: true }),
    /** When the last chat.postMessage was sent (its outcome may be unknown): where to look on resume. */
    attemptedAt: timestamp('attempted_at', { withTimezone: true }),
    attempts: integer('attempts').notNull().default(0),
    /** Slack refused it for good (e.g. channel_not_found) when resumed: not tried again. */
    failedAt: timestamp('failed_at', { withTimezone: true }),
    error: text('error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    postedAt: timestamp('posted_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('notifications_kind_subject_uq').on(t.kind, t.subject),
    index('notifications_unposted_idx')
      .on(t.claimedUntil)
      .where(sql`${t.postedAt} is null and ${t.failedAt} is null`),
  ],
);

export type NotificationRow = typeof notifications.$inferSelect;

/**
 * open: the sender was asked to fix it; resending: a resend is in flight (held until claimed_until; a
 * resend whose process died is taken over after that, looking at the order first); resent: done.
 */
export const BOUNCE_STATUSES = ['open', 'resending', 'resent'] as const;
export type BounceStatus = (typeof BOUNCE_STATUSES)[number];

export const bouncedRecipients = pgTable(
  'bounced_recipients',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    teamId: text('team_id').notNull(),
    enterpriseId: text('enterprise_id'),
    kudosId: uuid('kudos_id').notNull(),
    orderId: text('order_id').notNull(),
    senderUserId: text('sender_user_id').notNull(),
    /** The address that bounced (the order's current address for this recipient). */
    email: text('email').notNull(),
    name: text('name').notNull().default(''),
    slackUserId: text('slack_user_id'),
    recipientId: text('recipient_id'),
    /** False when the API did not say which recipient bounced and the sender is asked to check. */
    confirmed: boolean('confirmed').notNull().default(true),
    status: text('status').$type<BounceStatus>().notNull().default('open'),
    correctedEmail: text('corrected_email'),
    /** While `resending`: the holder's lease. After it, the sweep (or the sender's next try) takes the resend over. */
    claimedUntil: timestamp('claimed_until', { withTimezone: true }),
    /** Claims so far: fences the holder's writes, and above 1 means an earlier try may have reached the API. */
    attempts: integer('attempts').notNull().default(0),
    dmChannel: text('dm_channel'),
    dmTs: text('dm_ts'),
    resentBy: text('resent_by'),
    resentAt: timestamp('resent_at', { withTimezone: true }),
    error: text('error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('bounced_recipients_order_email_uq').on(t.orderId, t.email),
    index('bounced_recipients_kudos_idx').on(t.kudosId),
  ],
);

export type BouncedRecipientRow = typeof bouncedRecipients.$inferSelect;

/**
 * awaiting_approval: above the threshold or past the requester's budget, waiting for an approver
 * (nothing is ordered before); rejected: an approver said no (nothing ordered);
 * pending: recorded, its orders not (all) created yet; placed: every part created; partial: some parts
 * created, the rest refused (never reported as failed: the created links are paid and delivered);
 * failed: refused before any part was created.
 */
export const REWARD_LINK_REQUEST_STATUSES = [
  'awaiting_approval',
  'rejected',
  'pending',
  'placed',
  'partial',
  'failed',
] as const;
export type RewardLinkRequestStatus = (typeof REWARD_LINK_REQUEST_STATUSES)[number];

export const rewardLinkRequests = pgTable(
  'reward_link_requests',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    teamId: text('team_id').notNull(),
    enterpriseId: text('enterprise_id'),
    requesterUserId: text('requester_user_id').notNull(),
    productId: text('product_id').notNull(),
    designName: text('design_name').notNull(),
    quantity: integer('quantity').notNull(),
    /** Per link: USD cents; for a branded card the judged USD cost (the estimate plus the safety margin). */
    amountCents: integer('amount_cents').notNull(),
    cardType: text('card_type').$type<CardType>().notNull().default('CHOICE_CARD'),
    /** A branded card's face value per link, in cents of `faceCurrency` (null for choice cards). */
    faceCurrency: text('face_currency'),
    faceCents: integer('face_cents'),
    /** What the created parts were charged, USD cents (their `totalCost`), once known. */
    costCents: integer('cost_cents'),
    /** Persisted before the API call; parts above 500 links use keys derived from it. */
    idempotencyKey: uuid('idempotency_key').notNull().defaultRandom(),
    status: text('status').$type<RewardLinkRequestStatus>().notNull().default('pending'),
    orderIds: jsonb('order_ids').$type<string[]>().notNull().default([]),
    /** Parts (of at most 500 links) created so far, in order, each recorded as soon as it was created. */
    partsCreated: integer('parts_created').notNull().default(0),
    /** Links in the created parts: what is charged (the budget counts this once the request is settled). */
    createdQuantity: integer('created_quantity').notNull().default(0),
    attempts: integer('attempts').notNull().default(0),
    claimedUntil: timestamp('claimed_until', { withTimezone: true }),
    errorCode: text('error_code'),
    errorMessage: text('error_message'),
    /** Why it needs approval (threshold, budget); null when it went straight out. */
    approvalReason: text('approval_reason'),
    /** Where the request was shown to approvers (a channel message, or one DM per approver). */
    approvalMessages: jsonb('approval_messages').$type<Array<{ channel: string; ts: string }>>().notNull().default([]),
    decidedBy: text('decided_by'),
    decidedAt: timestamp('decided_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('reward_link_requests_key_uq').on(t.idempotencyKey),
    index('reward_link_requests_status_idx').on(t.status),
  ],
);

export type RewardLinkRequestRow = typeof rewardLinkRequests.$inferSelect;
