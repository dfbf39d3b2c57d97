// Scheduling an order's completion check: when it first falls due, the back-off between checks, and
// what a second schedule of the same order's check keeps. Used where orders are placed (the statement
// that records a kudos placed, markPlaced in kudos-store.ts; reward links; the order.created webhook);
// the checks themselves run in orders/order-checks.ts.
import { type SQL, sql } from 'drizzle-orm';

import { type Database, rowsOf } from '../../db/client.js';
import { prepared } from '../../db/prepared.js';
import { type KudosRow, orderChecks, type OrderCheckSource } from '../../db/schema/index.js';
import { orderIdsOf } from './kudos-parts.js';

/** Delays after the 1st, 2nd, ... check that found the order unfinished; the last one repeats. */
export const DEFAULT_CHECK_DELAYS_MS = [5_000, 15_000, 60_000, 5 * 60_000, 15 * 60_000, 30 * 60_000, 60 * 60_000];
export const MAX_CHECK_DELAY_MS = 60 * 60_000;

/**
 * A check already there (order.created came first, or a second schedule) only gains what it did not
 * know: the kudos or reward-link request it belongs to, its workspace; a webhook-sourced check takes
 * the new source; it is watched from the later of the two times. Its next check time is kept.
 * For drizzle's onConflictDoUpdate.
 */
export const orderCheckMerge = {
  kudosId: sql`coalesce(${orderChecks.kudosId}, excluded.kudos_id)`,
  rewardLinkRequestId: sql`coalesce(${orderChecks.rewardLinkRequestId}, excluded.reward_link_request_id)`,
  teamId: sql`coalesce(${orderChecks.teamId}, excluded.team_id)`,
  enterpriseId: sql`coalesce(${orderChecks.enterpriseId}, excluded.enterprise_id)`,
  source: sql`case when ${orderChecks.source} = 'webhook' then excluded.source else ${orderChecks.source} end`,
  watchFrom: sql`greatest(${orderChecks.watchFrom}, excluded.watch_from)`,
  updatedAt: sql`now()`,
} satisfies Partial<Record<keyof typeof orderChecks.$inferInsert, SQL>>;

/** orderCheckMerge as the SET list of an `on conflict (order_id) do update` written in SQL. */
const orderCheckMergeSet = sql.join(
  Object.entries(orderCheckMerge).map(
    ([field, value]) => sql`${sql.identifier(orderChecks[field as keyof typeof orderCheckMerge].name)} = ${value}`,
  ),
  sql`, `,
);

/**
 * An insert of one completion check per order of the kudos rows that the CTE named `placed` returned
 * (each order of `order_ids`, once: a second row for one order would fail the whole statement; none
 * when the fenced update matched no row). First due `firstDelayMs`
 * after now or after the send time, whichever is later, watched from then (the database's clock, like
 * the checks' claim). A check already there merges by orderCheckMerge.
 */
export function checksOfPlacedKudos(firstDelayMs: SQL): SQL {
  return sql`insert into order_checks (order_id, source, team_id, enterprise_id, kudos_id, next_check_at, watch_from)
    select o.order_id, 'kudos', placed.team_id, placed.enterprise_id, placed.id,
           greatest(now(), coalesce(placed.scheduled_at, now())) + ${firstDelayMs} * interval '1 millisecond',
           greatest(now(), coalesce(placed.scheduled_at, now()))
    from placed cross join lateral (select distinct jsonb_array_elements_text(placed.order_ids)) as o(order_id)
    on conflict (order_id) do update set ${orderCheckMergeSet}
    returning order_id`;
}

/** Delay before the next check after `checksDone` checks found the order unfinished: never below the first delay, never above 1 h. */
export function nextCheckDelayMs(checksDone: number, delays: number[] = DEFAULT_CHECK_DELAYS_MS): number {
  const list = delays.length > 0 ? delays : DEFAULT_CHECK_DELAYS_MS;
  const index = Math.min(Math.max(0, Math.floor(checksDone) - 1), list.length - 1);
  return Math.min(list[Math.max(0, index)]!, MAX_CHECK_DELAY_MS);
}

export interface ScheduleCheck {
  orderId: string;
  source: OrderCheckSource;
  teamId?: string | null;
  enterpriseId?: string | null;
  kudosId?: string | null;
  rewardLinkRequestId?: string | null;
  /** First check: not before this instant (a scheduled order's send time). */
  notBefore?: Date | null;
  /** Otherwise, this long from now. */
  firstDelayMs: number;
}

/**
 * Schedules a completion check once per order. A second schedule (the webhook and the worker both
 * report the order) only adds what the first did not know (the kudos or reward-link request).
 */
export async function scheduleOrderCheck(db: Database, check: ScheduleCheck): Promise<void> {
  const firstAt = new Date(
    Math.max(Date.now() + check.firstDelayMs, (check.notBefore?.getTime() ?? 0) + check.firstDelayMs),
  );
  // Prepared: this runs once per kudos placed (src/db/prepared.ts).
  const statement = prepared(db, 'orderChecks.schedule', (d) =>
    d
      .insert(orderChecks)
      .values({
        orderId: sql`${sql.placeholder('orderId')}`,
        source: sql`${sql.placeholder('source')}`,
        teamId: sql`${sql.placeholder('teamId')}`,
        enterpriseId: sql`${sql.placeholder('enterpriseId')}`,
        kudosId: sql`${sql.placeholder('kudosId')}::uuid`,
        rewardLinkRequestId: sql`${sql.placeholder('rewardLinkRequestId')}::uuid`,
        nextCheckAt: sql`${sql.placeholder('nextCheckAt')}::timestamptz`,
        watchFrom: sql`${sql.placeholder('watchFrom')}::timestamptz`,
      })
      .onConflictDoUpdate({ target: orderChecks.orderId, set: orderCheckMerge })
      .prepare('order_checks_schedule'),
  );
  await statement.execute({
    orderId: check.orderId,
    source: check.source,
    teamId: check.teamId ?? null,
    enterpriseId: check.enterpriseId ?? null,
    kudosId: check.kudosId ?? null,
    rewardLinkRequestId: check.rewardLinkRequestId ?? null,
    nextCheckAt: firstAt.toISOString(),
    watchFrom: new Date(Math.max(Date.now(), check.notBefore?.getTime() ?? 0)).toISOString(),
  });
}

/** The checks of a kudos the worker just placed: one per order (a send of several parts has several). */
export async function scheduleKudosCheck(db: Database, row: KudosRow, firstDelayMs: number): Promise<void> {
  for (const orderId of orderIdsOf(row)) {
    await scheduleOrderCheck(db, {
      orderId,
      source: 'kudos',
      teamId: row.teamId,
      enterpriseId: row.enterpriseId,
      kudosId: row.id,
      notBefore: row.scheduledAt,
      firstDelayMs,
    });
  }
}

/**
 * Safety net for a crash between placing an order and scheduling its check: every kudos with an order
 * and no check, placed or due to go out in the last 7 days (or later), gets one.
 */
export async function scheduleMissingKudosChecks(db: Database, firstDelayMs: number): Promise<number> {
  const result = await db.execute(sql`
    insert into order_checks (order_id, team_id, enterprise_id, kudos_id, source, next_check_at, watch_from)
    select o.order_id, k.team_id, k.enterprise_id, k.id, 'kudos',
           greatest(now(), coalesce(k.scheduled_at, now())) + ${`${Math.ceil(firstDelayMs)} milliseconds`}::interval,
           greatest(now(), coalesce(k.scheduled_at, now()))
    from kudos k
    cross join lateral (select k.order_id union select jsonb_array_elements_text(k.order_ids)) as o(order_id)
    where k.order_id is not null and o.order_id is not null and k.status in ('placed', 'scheduled', 'partial')
      and greatest(k.placed_at, coalesce(k.scheduled_at, k.placed_at)) > now() - interval '7 days'
      and not exists (select 1 from order_checks c where c.order_id = o.order_id)
    on conflict do nothing
    returning order_id`);
  return rowsOf(result).length;
}
