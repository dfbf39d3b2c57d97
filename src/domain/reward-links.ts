// Reward links made from Slack (`/kudos links N AMOUNT [design]`, admins only). The request is
// recorded with its idempotency key before the API call; the order is created in the background
// (batches above 500 are split by the client with derived keys) and a completion check is scheduled
// per order. The links reach the requester by DM only once the order is COMPLETE (reconcile-completion.ts).
// A request whose placing was interrupted (crash, restart) is resumed with the same key.
import { and, eq, isNull, lte, or, sql } from 'drizzle-orm';
import type { Logger } from '../config/logger.js';
import type { Database } from '../db/client.js';
import { rewardLinkRequests, type RewardLinkRequestRow } from '../db/schema/index.js';
import type { RewardsClient } from '../rewards/index.js';
import { centsToDecimal } from './money.js';
import type { NoticePresenter } from './notices.js';
import { postOnce } from './notifications.js';
import type { Messenger } from './ports.js';
import { scheduleOrderCheck } from './reconcile.js';
import { classifyRewardsFailure } from './rewards-errors.js';

/** One request makes at most this many links (the client splits them into requests of 500). */
export const MAX_LINKS_PER_COMMAND = 2000;
const PLACE_LEASE_S = 120;
const MAX_PLACE_ATTEMPTS = 8;

export interface RewardLinkDeps {
  db: Database;
  rewards: RewardsClient;
  chat: Messenger;
  present: NoticePresenter;
  logger: Logger;
}

export async function recordRewardLinkRequest(
  db: Database,
  values: { teamId: string; enterpriseId: string | null; requesterUserId: string; productId: string; designName: string; quantity: number; amountCents: number },
): Promise<RewardLinkRequestRow> {
  const [row] = await db.insert(rewardLinkRequests).values(values).returning();
  return row!;
}

async function claim(db: Database, id: string): Promise<RewardLinkRequestRow | undefined> {
  const [row] = await db
    .update(rewardLinkRequests)
    .set({ claimedUntil: sql`now() + ${`${PLACE_LEASE_S} seconds`}::interval`, attempts: sql`${rewardLinkRequests.attempts} + 1`, updatedAt: sql`now()` })
    .where(
      and(
        eq(rewardLinkRequests.id, id),
        eq(rewardLinkRequests.status, 'pending'),
        or(isNull(rewardLinkRequests.claimedUntil), lte(rewardLinkRequests.claimedUntil, sql`now()`)),
      ),
    )
    .returning();
  return row;
}

/** Creates the order(s) of a recorded request, exactly once; safe to call again after any failure. */
export async function placeRewardLinkRequest(deps: RewardLinkDeps, id: string, opts: { firstCheckDelayMs: number; signal?: AbortSignal }): Promise<'placed' | 'failed' | 'retry' | 'skipped'> {
  const row = await claim(deps.db, id);
  if (!row) return 'skipped';
  const log = deps.logger.child({ rewardLinkRequestId: row.id });
  try {
    const created = await deps.rewards.orders.createRewardLinks(
      { cardType: 'CHOICE_CARD', productId: row.productId, quantity: row.quantity, amountPerLink: centsToDecimal(row.amountCents) },
      { idempotencyKey: row.idempotencyKey, ...(opts.signal ? { signal: opts.signal } : {}) },
    );
    const orderIds = created.orders.map((o) => o.order.orderId);
    await deps.db
      .update(rewardLinkRequests)
      .set({ status: 'placed', orderIds, claimedUntil: null, errorCode: null, errorMessage: null, updatedAt: sql`now()` })
      .where(eq(rewardLinkRequests.id, row.id));
    for (const orderId of orderIds) {
      await scheduleOrderCheck(deps.db, { orderId, source: 'reward_links', teamId: row.teamId, enterpriseId: row.enterpriseId, rewardLinkRequestId: row.id, firstDelayMs: opts.firstCheckDelayMs });
    }
    log.info('reward links ordered', { orderIds, recovered: created.recovered });
    return 'placed';
  } catch (error) {
    const verdict = classifyRewardsFailure(error);
    if (opts.signal?.aborted || (!verdict.permanent && row.attempts < MAX_PLACE_ATTEMPTS)) {
      log.warn('ordering reward links failed; will retry with the same key', { code: verdict.code, error });
      await deps.db
        .update(rewardLinkRequests)
        .set({ claimedUntil: sql`now() + interval '20 seconds'`, errorCode: verdict.code, errorMessage: verdict.userMessage, updatedAt: sql`now()` })
        .where(eq(rewardLinkRequests.id, row.id));
      return 'retry';
    }
    log.warn('reward links refused', { code: verdict.code, error });
    const [failed] = await deps.db
      .update(rewardLinkRequests)
      .set({ status: 'failed', claimedUntil: null, errorCode: verdict.code, errorMessage: verdict.userMessage, updatedAt: sql`now()` })
      .where(eq(rewardLinkRequests.id, row.id))
      .returning();
    await postOnce(deps, { kind: 'reward_links.failed', subject: row.id, teamId: row.teamId, enterpriseId: row.enterpriseId }, {
      to: { userId: row.requesterUserId },
      message: deps.present({ type: 'reward_links.failed', request: failed ?? row, reason: verdict.userMessage }),
    });
    return 'failed';
  }
}

/** Requests left pending (a crash, a transient failure): placed again with their own key. */
export async function resumePendingRewardLinkRequests(deps: RewardLinkDeps, opts: { firstCheckDelayMs: number; signal?: AbortSignal }): Promise<number> {
  const due = await deps.db
    .select({ id: rewardLinkRequests.id })
    .from(rewardLinkRequests)
    .where(
      and(
        eq(rewardLinkRequests.status, 'pending'),
        lte(rewardLinkRequests.createdAt, sql`now() - interval '10 seconds'`),
        or(isNull(rewardLinkRequests.claimedUntil), lte(rewardLinkRequests.claimedUntil, sql`now()`)),
      ),
    )
    .limit(5);
  let placed = 0;
  for (const { id } of due) {
    if ((await placeRewardLinkRequest(deps, id, opts)) === 'placed') placed++;
  }
  return placed;
}
