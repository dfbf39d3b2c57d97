// What order.created webhooks say, learned by listing orders: the only source with
// REWARDS_WEBHOOKS=off, the safety net (at a slower pace) otherwise. Every order the list shows that the app has not seen becomes a stored `order.created`
// event (event id `poll:order.created:<orderId>`) and goes through the same processor as a webhook:
// a kudos is linked and watched, a reward-link order too, anything else gets its "placed outside
// Slack" notice. Notices are posted through the outbox, keyed by what they are about, so a late
// webhook and a poll reporting the same order give one notice. Completion and bounces then come from
// the completion checks, as they always do (the API has no completion event).
//
// Cost: one list request per poll (more pages only when more than a page of orders appeared since
// yesterday), every `activeMs` while any order is open and backing off to `idleMaxMs` when none is;
// every request runs in the rate budget's background lane (src/domain/pacing/rewards-rate-budget.ts): it waits
// while sends placed from Slack use the account's budget.
import { and, eq, inArray, isNull, like, or, sql } from 'drizzle-orm';

import type { Logger } from '../config/logger.js';
import type { Database } from '../db/client.js';
import { kudos, orderChecks, webhookEvents } from '../db/schema/index.js';
import type { RewardsAccounts } from '../domain/accounts/rewards-accounts.js';
import { inBackgroundLane } from '../domain/pacing/rewards-rate-budget.js';
import { createPeriodicJob } from '../lib/periodic-job.js';
import type { OrderSummary, RewardsClient } from '../rewards/index.js';
import type { EventSource } from './event-store.js';
import { storeEvent } from './event-store.js';

export const POLL_EVENT_PREFIX = 'poll:order.created:';
const PAGE_SIZE = 100;
const BASELINE_EVENT_ID = `${POLL_EVENT_PREFIX}baseline`;

export interface OrderPollerOptions {
  /** Between polls while orders are open. Default 15 s. */
  activeMs?: number;
  /** Longest pause when nothing is open (doubling from activeMs). Default 5 min. */
  idleMaxMs?: number;
  /** Pages read per poll at most. Default 5. */
  maxPages?: number;
  /** Before the first poll. Default 0. */
  firstDelayMs?: number;
}

export interface OrderPollerDeps {
  db: Database;
  rewards: Pick<RewardsAccounts, 'all'>;
  logger: Logger;
  /** A new order was stored as an event: process it now. */
  onStored: () => void;
}

export interface OrderPoller {
  start(): void;
  /** Polls once now (tests; a send placed). Resolves with the orders newly stored. */
  pollNow(): Promise<number>;
  /** Something was placed: poll soon again at the active pace. */
  wake(): void;
  stop(): Promise<void>;
}

export function createOrderPoller(deps: OrderPollerDeps, opts: OrderPollerOptions = {}): OrderPoller {
  const activeMs = opts.activeMs ?? 15_000;
  const idleMaxMs = Math.max(activeMs, opts.idleMaxMs ?? 5 * 60_000);
  const maxPages = opts.maxPages ?? 5;
  let delayMs = activeMs;
  /** The accounts being listed: a poll asked for meanwhile shares it. */
  let listing: Promise<number> | undefined;

  const polls = createPeriodicJob<{ found: number; open: boolean }>({
    name: 'order polling',
    logger: deps.logger,
    failureLevel: 'warn',
    quietWhenStopping: true,
    cadence: 'after-step',
    periodMs: activeMs,
    firstDelayMs: opts.firstDelayMs ?? 0,
    // A failed poll backs off as an idle one does.
    next: (polled) => {
      delayMs = polled?.open ? activeMs : Math.min(idleMaxMs, delayMs * 2);
      return delayMs;
    },
    step: async ({ signal }) => {
      listing ??= inBackgroundLane(() => pollAccounts(deps, maxPages, signal)).finally(() => {
        listing = undefined;
      });
      const found = await listing;
      // An order just found is open: its event is still to be processed.
      return { found, open: found > 0 || (await hasOpenOrders(deps.db)) };
    },
  });

  return {
    start: () => polls.start(),
    pollNow: async () => (await polls.runOnce()).found,
    wake() {
      delayMs = activeMs;
      // Sooner, never later: in a steady stream of sends each wake would otherwise push the poll
      // back again, and it would never run while the stream lasts. A wake during a poll gets another
      // poll after it: the order placed may not have been listed yet.
      polls.wake(activeMs);
    },
    // Stopping aborts the poll in progress at once: it is read again by the next poll.
    stop: () => polls.stop(0),
  };
}

/** Every account in turn (single mode: the one account; distribution: each connected workspace's). */
async function pollAccounts(deps: OrderPollerDeps, maxPages: number, signal: AbortSignal): Promise<number> {
  let found = 0;
  for (const account of await deps.rewards.all()) {
    const source =
      account.ws && account.connectionId
        ? {
            connectionId: account.connectionId,
            teamId: account.ws.teamId,
            enterpriseId: account.ws.enterpriseId ?? null,
          }
        : undefined;
    found += await pollAccount(deps, maxPages, signal, account.client, source);
  }
  return found;
}

async function pollAccount(
  deps: OrderPollerDeps,
  maxPages: number,
  signal: AbortSignal,
  rewards: RewardsClient,
  source: EventSource | undefined,
): Promise<number> {
  const orders: OrderSummary[] = [];
  const baselineId = source ? `${BASELINE_EVENT_ID}:${source.connectionId}` : BASELINE_EVENT_ID;
  const scope = source
    ? { connectionId: source.connectionId, teamId: source.teamId, enterpriseId: source.enterpriseId }
    : {};
  // Orders created since yesterday (UTC): the list's date filter has day precision.
  const startDate = new Date(Date.now() - 24 * 3600_000).toISOString().slice(0, 10);
  for (let page = 1; page <= maxPages; page++) {
    const result = await rewards.orders.list({ startDate, page, pageSize: PAGE_SIZE }, { signal });
    orders.push(...result.data);
    if (result.data.length < PAGE_SIZE) break;
  }
  const baseline = !(await anyPolledBefore(deps.db, source?.connectionId));
  const unseen = await unseenOrders(deps.db, orders);
  for (const order of unseen) {
    const eventId = `${POLL_EVENT_PREFIX}${order.orderId}`;
    const createdAt = order.createdAt ?? null;
    const body = {
      eventId,
      eventType: 'order.created',
      source: 'poll',
      createdAt: createdAt?.toISOString() ?? null,
      data: {
        orderId: order.orderId,
        cardType: order.cardType ?? order.orderType ?? 'UNKNOWN',
        totalAmount: order.totalCost?.amount ?? '0.00',
        currency: order.totalCost?.currency ?? 'USD',
        recipientCount: order.recipientCount ?? 0,
      },
    };
    // The first poll ever: orders that existed before polling started were told (or not) by
    // whatever ran before; they are remembered as already processed, without a notice.
    if (baseline)
      await deps.db
        .insert(webhookEvents)
        .values({
          eventId,
          eventType: 'order.created',
          createdAt,
          body,
          processedAt: new Date(),
          outcome: 'baseline',
          ...scope,
        })
        .onConflictDoNothing();
    else await storeEvent(deps.db, { eventId, eventType: 'order.created', createdAt, body, source });
  }
  if (baseline) {
    await deps.db
      .insert(webhookEvents)
      .values({
        eventId: baselineId,
        eventType: 'poll.baseline',
        createdAt: new Date(),
        body: {},
        processedAt: new Date(),
        outcome: 'baseline',
        ...scope,
      })
      .onConflictDoNothing();
    deps.logger.info('order polling started; existing orders taken as known', { orders: unseen.length });
    return 0;
  }
  if (unseen.length > 0) {
    deps.logger.info('orders found by polling', { orders: unseen.length });
    deps.onStored();
  }
  return unseen.length;
}

async function anyPolledBefore(db: Database, connectionId: string | undefined): Promise<boolean> {
  const [row] = await db
    .select({ id: webhookEvents.id })
    .from(webhookEvents)
    .where(
      and(
        like(webhookEvents.eventId, `${POLL_EVENT_PREFIX}%`),
        connectionId ? eq(webhookEvents.connectionId, connectionId) : undefined,
      ),
    )
    .limit(1);
  return row !== undefined;
}

/** Orders neither polled before, nor reported by a webhook, nor watched, nor placed by the app. */
async function unseenOrders(db: Database, orders: OrderSummary[]): Promise<OrderSummary[]> {
  if (orders.length === 0) return [];
  const ids = [...new Set(orders.map((o) => o.orderId))];
  const [polled, watched, placed, reported] = await Promise.all([
    db
      .select({ id: webhookEvents.eventId })
      .from(webhookEvents)
      .where(
        inArray(
          webhookEvents.eventId,
          ids.map((id) => `${POLL_EVENT_PREFIX}${id}`),
        ),
      ),
    db.select({ id: orderChecks.orderId }).from(orderChecks).where(inArray(orderChecks.orderId, ids)),
    db.select({ id: kudos.orderId }).from(kudos).where(inArray(kudos.orderId, ids)),
    db
      .select({ id: sql<string>`${webhookEvents.body}->'data'->>'orderId'` })
      .from(webhookEvents)
      .where(
        and(eq(webhookEvents.eventType, 'order.created'), inArray(sql`${webhookEvents.body}->'data'->>'orderId'`, ids)),
      ),
  ]);
  const seen = new Set<string>([
    ...polled.map((r) => r.id.slice(POLL_EVENT_PREFIX.length)),
    ...watched.map((r) => r.id),
    ...placed.map((r) => r.id ?? ''),
    ...reported.map((r) => r.id),
  ]);
  const unique = new Map(orders.map((o) => [o.orderId, o]));
  return [...unique.values()].filter((o) => !seen.has(o.orderId));
}

/** Orders the app is still waiting on: a completion check not done, or a send not placed yet. */
export async function hasOpenOrders(db: Database): Promise<boolean> {
  const [check] = await db
    .select({ id: orderChecks.orderId })
    .from(orderChecks)
    .where(isNull(orderChecks.doneAt))
    .limit(1);
  if (check) return true;
  const [send] = await db
    .select({ id: kudos.id })
    .from(kudos)
    .where(or(eq(kudos.status, 'pending'), and(eq(kudos.status, 'placed'), isNull(kudos.orderId))))
    .limit(1);
  return send !== undefined;
}
