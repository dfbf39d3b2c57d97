// When a kudos order's completion check first falls due, as SQL to run inside the statement that
// records the kudos placed (markPlaced in kudos-store.ts): the order's record and its check's schedule
// are one statement, one transaction. Kept apart from reconcile.ts (which schedules checks on its own,
// scheduleOrderCheck, with the same rule) so that kudos-store.ts can use it without an import cycle.
import { sql, type SQL } from 'drizzle-orm';

/**
 * An insert of one completion check per order of the kudos rows that the CTE named `placed` returned
 * (each order of `order_ids`, once: a second row for one order would fail the whole statement; none
 * when the fenced update matched no row). First due `firstDelayMs`
 * after now or after the send time, whichever is later, watched from then (the database's clock, like
 * the checks' claim). A check already there (order.created came first) only gains what it did not
 * know: exactly scheduleOrderCheck's rule for a second schedule (src/domain/reconcile.ts).
 */
export function checksOfPlacedKudos(firstDelayMs: SQL): SQL {
  return sql`insert into order_checks (order_id, source, team_id, enterprise_id, kudos_id, next_check_at, watch_from)
    select o.order_id, 'kudos', placed.team_id, placed.enterprise_id, placed.id,
           greatest(now(), coalesce(placed.scheduled_at, now())) + ${firstDelayMs} * interval '1 millisecond',
           greatest(now(), coalesce(placed.scheduled_at, now()))
    from placed cross join lateral (select distinct jsonb_array_elements_text(placed.order_ids)) as o(order_id)
    on conflict (order_id) do update set
      kudos_id = coalesce(order_checks.kudos_id, excluded.kudos_id),
      reward_link_request_id = coalesce(order_checks.reward_link_request_id, excluded.reward_link_request_id),
      team_id = coalesce(order_checks.team_id, excluded.team_id),
      enterprise_id = coalesce(order_checks.enterprise_id, excluded.enterprise_id),
      source = case when order_checks.source = 'webhook' then excluded.source else order_checks.source end,
      watch_from = greatest(order_checks.watch_from, excluded.watch_from),
      updated_at = now()
    returning order_id`;
}
