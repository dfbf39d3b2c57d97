// Completion by reconciliation. The spec documents no completion event, so after an order is
// created (order.created, or the worker placing it) the app checks it with backoff until COMPLETE
// or CANCELED: one order_checks row per order, claimed with FOR UPDATE SKIP LOCKED plus a lease
// (several instances, restarts), due at next_check_at. Scheduled orders are first checked at their
// send time. The Rewards client itself honours the X-RateLimit-* headers; the processor keeps
// concurrency small, so checks never hammer the API.
import { and, asc, eq, inArray, isNull, lte, or, sql } from 'drizzle-orm';

import { type Database, rowsOf } from '../../db/client.js';
import { prepared } from '../../db/prepared.js';
import { type OrderCheckRow, orderChecks } from '../../db/schema/index.js';
import {
  isRewardsError,
  type Order,
  type OrderSummary,
  type RewardsClient,
  RewardsConnectionError,
  RewardsServerError,
  RewardsTimeoutError,
  toApiDate,
  tryParseApiTimestamp,
} from '../../rewards/index.js';
import type { RewardsAccounts } from '../accounts/rewards-accounts.js';
import { landWatchedOrder } from '../sending/kudos-store.js';
import { DEFAULT_CHECK_DELAYS_MS, nextCheckDelayMs } from '../sending/order-check-schedule.js';
import { type CompletionDeps, handleOrderCanceled, handleOrderComplete } from './order-finished.js';

/**
 * An order still unfinished this long after its check started watching it (the later of the check's
 * creation and the order's send time: check.watchFrom) is given up (and logged).
 */
export const GIVE_UP_AFTER_MS = 7 * 24 * 3600_000;
/** A check stuck on NOT_FOUND this many times is given up (an order of another environment). */
const MAX_NOT_FOUND = 5;

/** The longest a rate-limited completion check waits before it is tried again. */
const RATE_LIMITED_RETRY_CAP_MS = 60_000;
/**
 * The longest a check waits after a failure that says nothing about the order (a 5xx, a dropped
 * connection, a timeout), or after a failure to tell people about an order known to be finished. The
 * ladder is for orders found unfinished; `attempts` counts every try, rate-limited ones included; this cap
 * keeps a burst of 429s followed by one 503 from pushing a finished order's notices an hour out.
 */
export const TRANSIENT_RETRY_CAP_MS = 30_000;

/** A failure of the call, not an answer about the order. */
function isTransient(error: unknown): boolean {
  return (
    error instanceof RewardsServerError ||
    error instanceof RewardsConnectionError ||
    error instanceof RewardsTimeoutError
  );
}

export interface ReconcileOptions {
  /** Backoff between checks (tests shorten it). */
  delaysMs?: number[];
}

export interface ReconcileDeps extends CompletionDeps {
  rewards: RewardsAccounts;
}

/** Claims one due check for `leaseMs`. */
export async function claimDueCheck(
  db: Database,
  workerId: string,
  leaseMs: number,
): Promise<OrderCheckRow | undefined> {
  // One prepared statement (UPDATE ... WHERE order_id IN (SELECT ... FOR UPDATE SKIP LOCKED)): a check
  // another claimer holds is skipped, never waited for.
  const statement = prepared(db, 'orderChecks.claimDue', (d) => {
    const due = d
      .select({ orderId: orderChecks.orderId })
      .from(orderChecks)
      .where(
        and(
          isNull(orderChecks.doneAt),
          lte(orderChecks.nextCheckAt, sql`now()`),
          or(isNull(orderChecks.claimedUntil), lte(orderChecks.claimedUntil, sql`now()`)),
        ),
      )
      .orderBy(asc(orderChecks.nextCheckAt))
      .limit(1)
      .for('update', { skipLocked: true });
    return d
      .update(orderChecks)
      .set({
        claimedUntil: sql`now() + (${sql.placeholder('leaseSeconds')} || ' seconds')::interval`,
        claimedBy: sql`${sql.placeholder('workerId')}`,
        attempts: sql`${orderChecks.attempts} + 1`,
        updatedAt: sql`now()`,
      })
      .where(inArray(orderChecks.orderId, due))
      .returning()
      .prepare('order_checks_claim_due');
  });
  const [claimed] = await statement.execute({ workerId, leaseSeconds: String(Math.ceil(leaseMs / 1000)) });
  return claimed;
}

/**
 * Completion checks are answered on a grid of instants, the multiples of `slotMs` since the epoch, the
 * same on every instance: a check that falls due is answered at the next one, together with every
 * check due by then. A stream of orders therefore shares one list request per step (a lone order waits
 * half a step on average), where waiting a fixed time after the oldest due check gave the same mean
 * wait with batches half as big.
 */
export const CHECK_SLOT_MS = 4_000;
/** Checks claimed and answered together: one page of the orders list (its largest page). */
export const CHECK_BATCH_SIZE = 100;

/** The last grid instant at or before `nowMs` (see CHECK_SLOT_MS); `nowMs` itself without a grid. */
export function checkSlotStartMs(nowMs: number, slotMs: number): number {
  if (!(slotMs > 0)) return nowMs;
  return Math.floor(nowMs / slotMs) * slotMs;
}

/**
 * Whether a batch of checks is worth a list request now, for all instances together: `batchSize` are
 * due, or one fell due before the last grid instant (checkSlotStartMs). Once one instance claimed
 * them, the others find nothing ready until the next instant, so N instances make one list per step,
 * not N.
 */
export async function dueChecksReady(db: Database, slotMs: number, batchSize: number): Promise<boolean> {
  const slotStart = new Date(checkSlotStartMs(Date.now(), slotMs)).toISOString();
  const result = await db.execute(sql`
    select count(*)::int as due, coalesce(bool_or(next_check_at <= ${slotStart}::timestamptz), false) as slot_passed
    from (select next_check_at from order_checks
          where done_at is null and next_check_at <= now() and (claimed_until is null or claimed_until <= now())
          order by next_check_at
          limit ${batchSize}) due`);
  const [row] = rowsOf<{ due: number | string; slot_passed: boolean | string }>(result);
  const due = Number(row?.due ?? 0);
  return due >= batchSize || (due > 0 && (row?.slot_passed === true || row?.slot_passed === 't'));
}

/** Claims up to `limit` due checks for `leaseMs`, the longest due first (see claimDueCheck). */
export async function claimDueChecks(
  db: Database,
  workerId: string,
  leaseMs: number,
  limit: number,
): Promise<OrderCheckRow[]> {
  if (limit < 1) return [];
  const due = db
    .select({ orderId: orderChecks.orderId })
    .from(orderChecks)
    .where(
      and(
        isNull(orderChecks.doneAt),
        lte(orderChecks.nextCheckAt, sql`now()`),
        or(isNull(orderChecks.claimedUntil), lte(orderChecks.claimedUntil, sql`now()`)),
      ),
    )
    .orderBy(asc(orderChecks.nextCheckAt))
    .limit(limit)
    .for('update', { skipLocked: true });
  const claimed = await db
    .update(orderChecks)
    .set({
      claimedUntil: sql`now() + ${`${Math.ceil(leaseMs / 1000)} seconds`}::interval`,
      claimedBy: workerId,
      attempts: sql`${orderChecks.attempts} + 1`,
      updatedAt: sql`now()`,
    })
    .where(inArray(orderChecks.orderId, due))
    .returning();
  return claimed.sort((a, b) => a.nextCheckAt.getTime() - b.nextCheckAt.getTime());
}

/** Pages of the order list read at most per batch of checks. */
const BATCH_MAX_PAGES = 5;
const LIST_PAGE_SIZE = CHECK_BATCH_SIZE;
/** Clocks and the time between placing an order and scheduling its check: how far before a check an order may have been created. */
const CREATED_MARGIN_MS = 60_000;

/**
 * Checks many orders with the orders list instead of one GET each: the claimed checks are grouped by
 * Rewards account, and each account's list since the oldest check's day (`startDate`, 100 a page) is
 * read until every order was seen, the list ended, or it reached orders created before the oldest
 * check (the API lists newest first; nothing depends on it, it only stops the paging early). An order
 * the list shows unfinished is rescheduled, a cancelled one recorded, and a finished kudos or
 * outside order without bounces is told from the list's counts. Everything else (bounces, whose
 * addresses only the order itself has; reward links, whose links too; an order the list did not
 * show) is checked with its own GET. Never throws.
 */
export async function runOrderChecks(
  deps: ReconcileDeps,
  checks: OrderCheckRow[],
  opts: ReconcileOptions & { signal?: AbortSignal } = {},
): Promise<CheckOutcome[]> {
  const groups = new Map<RewardsClient | undefined, OrderCheckRow[]>();
  for (const check of checks) {
    const client = await deps.rewards
      .for({ teamId: check.teamId ?? '', enterpriseId: check.enterpriseId })
      .catch(() => undefined);
    const group = groups.get(client);
    if (group) group.push(check);
    else groups.set(client, [check]);
  }
  const outcomes = new Map<string, CheckOutcome>();
  // The checks closed by this batch, closed together in one statement at its end (a crash before
  // then only runs them again after their lease: their notices are recorded once, in the outbox).
  const finished: FinishedCheck[] = [];
  const finish = (orderId: string, set: FinishSet) => finished.push({ orderId, ...set });
  for (const [client, group] of groups) {
    // A check whose order is known finished already (finishedOrder) needs no list.
    const toAsk = group.filter((c) => !c.finishedOrder);
    const listed =
      client && toAsk.length > 1
        ? await listForChecks(client, toAsk, opts.signal).catch(() => new Map<string, OrderSummary>())
        : new Map<string, OrderSummary>();
    for (const check of group) {
      const summary = listed.get(check.orderId);
      const fromList = summary && answersWithoutGet(check, summary) ? { ...summary, recipients: [] } : undefined;
      outcomes.set(
        check.orderId,
        await runOrderCheck(deps, check, { ...opts, finish, ...(fromList ? { known: fromList } : {}) }),
      );
    }
  }
  await finishChecks(deps.db, finished).catch((error: unknown) =>
    deps.logger.warn('closing finished completion checks failed; they run again after their lease', {
      error,
      checks: finished.length,
    }),
  );
  return checks.map((c) => outcomes.get(c.orderId) ?? 'error');
}

/** The list's summary says enough: unfinished, cancelled, or finished without bounces and without reward links to deliver. */
function answersWithoutGet(check: OrderCheckRow, summary: OrderSummary): boolean {
  if (summary.status === 'CANCELED') return true;
  if (summary.status !== 'COMPLETE') return true;
  return !check.rewardLinkRequestId && summary.bouncedCount === 0 && summary.sentCount !== undefined;
}

async function listForChecks(
  client: RewardsClient,
  checks: OrderCheckRow[],
  signal: AbortSignal | undefined,
): Promise<Map<string, OrderSummary>> {
  const wanted = new Set(checks.map((c) => c.orderId));
  const oldest = Math.min(...checks.map((c) => c.createdAt.getTime())) - CREATED_MARGIN_MS;
  const startDate = toApiDate(new Date(oldest));
  const seen = new Map<string, OrderSummary>();
  for (let page = 1; page <= BATCH_MAX_PAGES; page++) {
    const result = await client.orders.list({ startDate, page, pageSize: LIST_PAGE_SIZE }, signal ? { signal } : {});
    let reachedOlder = false;
    for (const order of result.data) {
      if (wanted.has(order.orderId)) seen.set(order.orderId, order);
      if (order.createdAt && order.createdAt.getTime() < oldest) reachedOlder = true;
    }
    if (result.data.length < LIST_PAGE_SIZE || seen.size === wanted.size || reachedOlder) break;
  }
  return seen;
}

/** How a check closes: its last status (kept when not given) and its error (null: none). */
type FinishSet = { lastStatus?: string; error: string | null };
type FinishedCheck = FinishSet & { orderId: string };

async function closeCheck(db: Database, orderId: string, set: FinishSet): Promise<void> {
  await db
    .update(orderChecks)
    .set({
      doneAt: sql`now()`,
      claimedUntil: null,
      claimedBy: null,
      finishedOrder: null,
      updatedAt: sql`now()`,
      ...set,
    })
    .where(eq(orderChecks.orderId, orderId));
}

/** Closes several checks in one statement (finishCheck for each). */
async function finishChecks(db: Database, checks: FinishedCheck[]): Promise<void> {
  if (checks.length === 0) return;
  const values = sql.join(
    checks.map((c) => sql`(${c.orderId}::text, ${c.lastStatus ?? null}::text, ${c.error}::text)`),
    sql`, `,
  );
  await db.execute(sql`
    update order_checks as c set done_at = now(), claimed_until = null, claimed_by = null, finished_order = null, updated_at = now(),
      last_status = coalesce(v.last_status, c.last_status), error = v.error
    from (values ${values}) as v(order_id, last_status, error)
    where c.order_id = v.order_id`);
}

async function rescheduleCheck(
  db: Database,
  orderId: string,
  at: Date,
  set: { lastStatus?: string; error?: string | null; watchFrom?: Date; finishedOrder?: Order | null },
): Promise<void> {
  await db
    .update(orderChecks)
    .set({ nextCheckAt: at, claimedUntil: null, claimedBy: null, updatedAt: sql`now()`, ...set })
    .where(eq(orderChecks.orderId, orderId));
}

export type CheckOutcome = 'complete' | 'canceled' | 'pending' | 'error' | 'given_up';

/** One check of one claimed order (`known`: what the orders list said, instead of a GET). Never throws: failures reschedule the check. */
export async function runOrderCheck(
  deps: ReconcileDeps,
  check: OrderCheckRow,
  opts: ReconcileOptions & {
    signal?: AbortSignal;
    known?: Order;
    /** Closes the check later, with others (runOrderChecks); by default at once. */
    finish?: (orderId: string, set: FinishSet) => void;
  } = {},
): Promise<CheckOutcome> {
  const log = deps.logger.child({ orderId: check.orderId, kudosId: check.kudosId ?? undefined });
  const close = async (orderId: string, set: FinishSet): Promise<void> =>
    opts.finish ? opts.finish(orderId, set) : closeCheck(deps.db, orderId, set);
  const delays = opts.delaysMs ?? DEFAULT_CHECK_DELAYS_MS;
  const later = (ms: number) => new Date(Date.now() + ms);

  if (Date.now() - check.watchFrom.getTime() > GIVE_UP_AFTER_MS) {
    log.warn('order never finished; giving up its completion check', {
      lastStatus: check.lastStatus,
      watchFrom: check.watchFrom,
    });
    await close(check.orderId, { error: 'gave up: not finished 7 days after it was due' });
    return 'given_up';
  }

  let order: Order;
  try {
    // Asked of the account of the workspace the order belongs to (single mode: the one account).
    if (opts.known) order = opts.known;
    // Seen finished by an earlier pass that could not tell about it yet: the API is not asked again.
    // (Stored as JSON: only the order's id, status, counts, card name, type and recipients are read.)
    else if (check.finishedOrder) order = check.finishedOrder as unknown as Order;
    else {
      const rewards = await deps.rewards.for({ teamId: check.teamId ?? '', enterpriseId: check.enterpriseId });
      order = await rewards.orders.get(check.orderId, opts.signal ? { signal: opts.signal } : {});
    }
  } catch (error) {
    if (isRewardsError(error, 'NOT_FOUND') && check.attempts >= MAX_NOT_FOUND) {
      log.warn('order not found; giving up its completion check');
      await close(check.orderId, { error: 'NOT_FOUND' });
      return 'given_up';
    }
    const code = isRewardsError(error) ? error.code : 'UNEXPECTED';
    log.warn('order check failed; will retry', { code, error });
    // A rate-limited check says nothing about the order: retry once the window allows, not on the
    // order's own backoff ladder (which after many checks is an hour and would hold its notices back).
    // Nor does a 5xx, a dropped connection or a timeout, and an order already seen finished only
    // waits for its notices: neither waits longer than TRANSIENT_RETRY_CAP_MS.
    const finished = check.lastStatus === 'COMPLETE' || check.lastStatus === 'CANCELED';
    const delay =
      code === 'RATE_LIMITED'
        ? Math.min(
            Math.max((error as { retryAfterMs?: number }).retryAfterMs ?? 0, nextCheckDelayMs(1, delays)),
            RATE_LIMITED_RETRY_CAP_MS,
          )
        : isTransient(error) || finished
          ? Math.min(nextCheckDelayMs(check.attempts, delays), TRANSIENT_RETRY_CAP_MS)
          : nextCheckDelayMs(check.attempts, delays);
    await rescheduleCheck(deps.db, check.orderId, later(delay), { error: code });
    return 'error';
  }

  try {
    // Watched for a send that settled without it (its answer lost): it lands on that send first.
    if (check.kudosId && !check.finishedOrder && (await landWatchedOrder(deps.db, check.kudosId, order)))
      log.warn('an order the send had been settled without was found; recorded on it');
    if (order.status === 'COMPLETE') {
      const result = await handleOrderComplete(deps, check, order);
      if (result.done) {
        await close(check.orderId, { lastStatus: order.status, error: null });
        log.info('order complete; notifications done', {
          sentCount: order.sentCount,
          bouncedCount: order.bouncedCount,
        });
        return 'complete';
      }
      // Waiting on our side (the worker to tell the sender first) keeps the API's answer; waiting for
      // the API (reward links not issued yet) asks again.
      await rescheduleCheck(deps.db, check.orderId, later(result.retryInMs), {
        lastStatus: order.status,
        finishedOrder: result.askAgain ? null : order,
      });
      return 'pending';
    }
    if (order.status === 'CANCELED') {
      await handleOrderCanceled(deps, check);
      await close(check.orderId, { lastStatus: order.status, error: null });
      return 'canceled';
    }
  } catch (error) {
    // Slack or the database failed while notifying: posting is idempotent, so simply retry.
    log.warn('handling a finished order failed; will retry', { status: order.status, error });
    const delay = Math.min(nextCheckDelayMs(check.attempts, delays), TRANSIENT_RETRY_CAP_MS);
    await rescheduleCheck(deps.db, check.orderId, later(delay), {
      lastStatus: order.status,
      error: String((error as Error).message ?? error).slice(0, 500),
      ...(order.status === 'COMPLETE' ? { finishedOrder: order } : {}),
    });
    return 'error';
  }

  // Not finished: wait, but a scheduled order not before its send time.
  let next = later(nextCheckDelayMs(check.attempts, delays));
  const sendAt = scheduledSendAt(order);
  if (sendAt && sendAt.getTime() > next.getTime())
    next = new Date(sendAt.getTime() + (delays[0] ?? DEFAULT_CHECK_DELAYS_MS[0]!));
  // The API knows the send time even of an order we did not book (placed outside Slack): the give-up clock starts there.
  const watchFrom = sendAt && sendAt.getTime() > check.watchFrom.getTime() ? sendAt : undefined;
  await rescheduleCheck(deps.db, check.orderId, next, {
    lastStatus: order.status,
    error: null,
    ...(watchFrom ? { watchFrom } : {}),
  });
  return 'pending';
}

/** The send time of a scheduled order, when the API tells it (`sendTiming.sendAt`, or an instant `scheduledAt`). */
function scheduledSendAt(order: Order): Date | undefined {
  const timing = (order as { sendTiming?: { type?: string; sendAt?: unknown; scheduledAt?: unknown } }).sendTiming;
  if (!timing || timing.type !== 'SCHEDULED') return undefined;
  if (typeof timing.sendAt === 'string') return tryParseApiTimestamp(timing.sendAt);
  if (typeof timing.scheduledAt === 'string' && /(Z|[+-]\d\d:?\d\d)$/.test(timing.scheduledAt))
    return tryParseApiTimestamp(timing.scheduledAt);
  return undefined;
}
