// When an order's completion check first falls due, and what a second schedule of the same order's
// check keeps: the one rule for both places that schedule checks, the statement that records a kudos
// placed (markPlaced in kudos-store.ts, the order's record and its check's schedule in one statement)
// and scheduleOrderCheck (reconcile.ts). Kept apart from reconcile.ts so that kudos-store.ts can use
// it without an import cycle.
import { sql, type SQL } from 'drizzle-orm';
import { orderChecks } from '../db/schema/index.js';

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
  Object.entries(orderCheckMerge).map(([field, value]) => sql`${sql.identifier(orderChecks[field as keyof typeof orderCheckMerge].name)} = ${value}`),
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
