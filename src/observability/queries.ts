// The cheap queries behind the state gauges of /metrics. Both read the kudos table only:
// `group by status` and the worker's own "needs work" predicate (src/domain/sending/kudos-store.ts), whose
// pending part is served by the partial index kudos_work_idx.
import { sql } from 'drizzle-orm';

import { type Database, rowsOf } from '../db/client.js';

export interface QueueState {
  ready: number;
  delayed: number;
  claimed: number;
  oldestReadyAgeSeconds: number;
}

export async function readStateCounts(db: Database): Promise<Array<{ state: string; count: number }>> {
  const result = await db.execute(sql`select status as state, count(*)::int as count from kudos group by status`);
  return rowsOf<{ state: string; count: number | string }>(result).map((r) => ({
    state: r.state,
    count: Number(r.count),
  }));
}

export async function readQueueState(db: Database): Promise<QueueState> {
  const result = await db.execute(sql`
    with work as (
      select next_attempt_at, claimed_until > now() as claimed
      from kudos
      where status = 'pending' or (status in ('placed', 'scheduled', 'failed', 'partial') and notified_at is null)
    )
    select
      count(*) filter (where not coalesce(claimed, false) and next_attempt_at <= now())::int as ready,
      count(*) filter (where not coalesce(claimed, false) and next_attempt_at > now())::int as delayed,
      count(*) filter (where coalesce(claimed, false))::int as claimed,
      coalesce(extract(epoch from now() - min(next_attempt_at) filter (where not coalesce(claimed, false) and next_attempt_at <= now())), 0)::float8 as oldest
    from work`);
  const [row] = rowsOf<{
    ready: number | string;
    delayed: number | string;
    claimed: number | string;
    oldest: number | string;
  }>(result);
  return {
    ready: Number(row?.ready ?? 0),
    delayed: Number(row?.delayed ?? 0),
    claimed: Number(row?.claimed ?? 0),
    oldestReadyAgeSeconds: Math.max(0, Number(row?.oldest ?? 0)),
  };
}

export interface NoticeBacklog {
  /** A poster holds the row (posting now, or waiting for Slack's Retry-After). */
  posting: number;
  /** Its lease ran out (the poster died or lost Slack's answer): the next sweep resumes it. */
  stalled: number;
  oldestAgeSeconds: number;
}

/** Notices of the outbox not posted yet (and not given up), from the partial index notifications_unposted_idx. */
export async function readNoticeBacklog(db: Database): Promise<NoticeBacklog> {
  const result = await db.execute(sql`
    select
      count(*) filter (where claimed_until > now())::int as posting,
      count(*) filter (where claimed_until is null or claimed_until <= now())::int as stalled,
      coalesce(extract(epoch from now() - min(created_at)), 0)::float8 as oldest
    from notifications
    where posted_at is null and failed_at is null`);
  const [row] = rowsOf<{ posting: number | string; stalled: number | string; oldest: number | string }>(result);
  return {
    posting: Number(row?.posting ?? 0),
    stalled: Number(row?.stalled ?? 0),
    oldestAgeSeconds: Math.max(0, Number(row?.oldest ?? 0)),
  };
}

/** Stored webhook events by type and processing outcome (`pending` while unprocessed). */
export async function readWebhookEventCounts(
  db: Database,
): Promise<Array<{ type: string; outcome: string; count: number }>> {
  const result = await db.execute(sql`
    select event_type as type, coalesce(outcome, case when processed_at is null then 'pending' else 'processed' end) as outcome, count(*)::int as count
    from webhook_events group by 1, 2`);
  return rowsOf<{ type: string; outcome: string; count: number | string }>(result).map((r) => ({
    type: r.type,
    outcome: r.outcome,
    count: Number(r.count),
  }));
}
