// Pacing of the chat platform's calls, shared by every instance through the database
// (slack_call_schedules, one row per workspace and key): Slack limits each workspace per method per
// minute and each channel's posts to about one a second, whichever instance makes the call.
//
// - A schedule is a GCRA: each call takes the next slot, `intervalMs` after the previous one, with
//   `burst` calls allowed at once; one INSERT ... ON CONFLICT per call, on the database's clock, so
//   instances interleave in the order they asked. Posts asked for in the same turn of the event loop
//   (a notify's confirmation and announcement) are booked in one statement (takeAll).
// - `maxWaitMs`: a caller that cannot wait long (a post of the notice outbox, which then posts again
//   at the time it is told; a request inside Slack's 3 s) books a slot only when it is that close,
//   and otherwise learns when to come back (`notBeforeMs`) without taking one.
// - A 429 blocks the schedule until Slack's Retry-After; the calls after it resume one interval apart.
// - Scoped by workspace: one workspace's flood never books another workspace's slots.
// - Every wait follows the stop signal (the app stopping); if the database cannot be reached, the
//   call goes unpaced (Slack's 429, honoured by the callers, is the backstop).
import { setTimeout as delay } from 'node:timers/promises';

import { sql } from 'drizzle-orm';

import { type Database, rowsOf } from '../../db/client.js';

/** How often one key may be called: one slot every `intervalMs`, `burst` at once. */
export interface PaceRule {
  intervalMs: number;
  burst: number;
}

/** Booked: sleep `waitMs`, then call. Not booked (further away than the caller's maxWaitMs): come back in `notBeforeMs`. */
export type SlotAnswer = { booked: true; waitMs: number } | { booked: false; notBeforeMs: number };

export interface CallSchedules {
  /** Takes the next slot of `key` in workspace `teamId` if it is at most `maxWaitMs` away (default: any). */
  take(teamId: string, key: string, rule: PaceRule, opts?: { maxWaitMs?: number }): Promise<SlotAnswer>;
  /**
   * Takes the next slot of every one of `slots` (distinct keys of workspace `teamId`) in one statement,
   * all or none: booked only if each is at most `maxWaitMs` away; the wait is the furthest one's, and
   * `notBeforeMs` when not booked is when every one of them will be that close. A post needs its
   * channel's slot and its workspace's: a post refused for one uses up neither. Calls made in the same
   * turn of the event loop (a notify's two posts) are booked in one statement for their workspace, each
   * decided as if booked after the ones asked before it.
   */
  takeAll(
    teamId: string,
    slots: Array<{ key: string; rule: PaceRule }>,
    opts: { maxWaitMs: number },
  ): Promise<SlotAnswer>;
  /** Slack answered 429: nothing of `key` goes before `retryAfterMs` from now. */
  block(teamId: string, key: string, retryAfterMs: number): Promise<void>;
  /** Sleeps `ms`; rejects with the stop signal's reason when the app stops meanwhile (or has stopped, for a wait over a second). */
  sleep(ms: number): Promise<void>;
  /** Aborted when the app stops: waits end at once. */
  readonly stopSignal: AbortSignal;
  stop(): void;
}

/** Deletes schedules idle for an hour and not blocked (the hourly cleanup): most DM channels are used once or twice. */
export async function expireIdleSchedules(db: Database): Promise<number> {
  return rowsOf(
    await db.execute(
      sql`delete from slack_call_schedules where updated_at < now() - interval '1 hour' and coalesce(blocked_until, now()) <= now() returning key`,
    ),
  ).length;
}

export interface CallSchedulesOptions {
  onError?: (error: unknown) => void;
}

/** Schedules whose next slot this process remembers (least recently learned out first). */
const NOT_BEFORE_MAX = 10_000;

/** Once the app is stopping, a wait this short still completes. */
const STOP_ALLOWANCE_MS = 1000;

export function createCallSchedules(db: Database, opts: CallSchedulesOptions = {}): CallSchedules {
  const stopping = new AbortController();
  const queue: PendingBookings = { pending: [] };
  // When each schedule of this process's workspaces is known to have no slot sooner (Date.now() ms),
  // from the database's own answers: a schedule's next slot (next_at) only ever moves later, so a
  // caller that could not wait that long is refused here, without a statement (a burst of `/kudos`
  // past users.info's budget cost two statements each before its modal opened). Counted from before
  // the statement was sent, so never later than the database's own answer; kept only while ahead.
  const notBefore = new Map<string, number>();
  return {
    stopSignal: stopping.signal,
    stop: () => stopping.abort(new Error('the app is stopping')),
    take: (teamId, key, rule, o = {}) => takeSlot({ db, notBefore, onError: opts.onError }, teamId, key, rule, o),
    takeAll(teamId, slots, o) {
      // Posts asked for in the same turn of the event loop (a notify's confirmation and announcement,
      // posted together) are booked together: one statement for all of them (bookInOrder).
      return new Promise<SlotAnswer>((resolve) => {
        queue.pending.push({ teamId, slots, maxWaitMs: o.maxWaitMs, resolve });
        if (queue.pending.length === 1) setImmediate(() => flush(db, queue, opts.onError));
      });
    },
    block: (teamId, key, retryAfterMs) => blockSchedule(db, opts.onError, teamId, key, retryAfterMs),
    sleep: (waitMs) => sleepUnlessStopping(stopping.signal, waitMs),
  };
}

const ms = (value: number) => sql`${value}::float8 * interval '1 millisecond'`;
const step = (column: string) => sql.raw(`${column} * interval '1 millisecond'`);

/**
 * Books the groups of slots of one workspace in one statement, each group all or none, decided in
 * order exactly as one statement per group made one after another would decide them: a group is
 * booked only if each of its slots is at most `maxWaitMs` away, a key's slot coming one interval
 * after the slot of each earlier group that booked the same key (a notify's two posts both take the
 * workspace's `post` key: the second one's slot is the next one). A group's wait is its furthest
 * slot's; a group not booked learns when every one of its slots will be that close.
 */
async function bookInOrder(
  db: Database,
  teamId: string,
  groups: Array<Array<{ key: string; rule: PaceRule }>>,
  maxWaitMs: number,
): Promise<SlotAnswer[]> {
  const wanted = sql.join(
    groups.flatMap((slots, g) =>
      slots.map(
        ({ key, rule }) =>
          sql`(${g + 1}::integer, ${key}::text, ${rule.intervalMs}::float8, ${Math.max(0, rule.burst - 1) * rule.intervalMs}::float8)`,
      ),
    ),
    sql`, `,
  );
  const maxWait = ms(Math.min(maxWaitMs, 86_400_000));
  // The rows are locked first (their latest versions), so that the booking below is decided on what
  // was read; in key order, as the upsert below writes them, so that two bookings sharing keys (a
  // workspace's post key, a busy channel's) wait for each other instead of deadlocking. A key used
  // for the first time has no row to lock; the booking then goes after any row a concurrent caller
  // inserted meanwhile. `walk` decides the groups one by one (booked: the groups
  // booked so far); `uses` counts a key's booked slots, `earlier` those of the groups before this one.
  const rows = rowsOf<{ g: number | string; wait_ms: number | string; booked: boolean | string }>(
    await db.execute(sql`
        with recursive wanted (g, key, interval_ms, tolerance_ms) as (values ${wanted}),
        locked as (
          select key, next_at, blocked_until from slack_call_schedules
          where team_id = ${teamId} and key in (select key from wanted) order by key for update
        ),
        start as (
          select distinct on (w.key) w.key, w.interval_ms, w.tolerance_ms,
            greatest(coalesce(l.next_at, now()), now(), coalesce(l.blocked_until + ${step('w.tolerance_ms')}, now())) as base
          from wanted w left join locked l on l.key = w.key
        ),
        walk (g, booked) as (
          select 0, array[]::integer[]
          union all
          select walk.g + 1,
            case when (
              select coalesce(bool_and(s.base + (select count(*) from wanted e where e.key = w.key and e.g = any(walk.booked)) * ${step('s.interval_ms')} - ${step('s.tolerance_ms')} <= now() + ${maxWait}), false)
              from wanted w join start s on s.key = w.key where w.g = walk.g + 1
            ) then walk.booked || (walk.g + 1) else walk.booked end
          from walk where walk.g < (select max(g) from wanted)
        ),
        decided as (select booked from walk order by g desc limit 1),
        planned as (
          select w.g, w.key, s.interval_ms, s.tolerance_ms, s.base, w.g = any(d.booked) as booked,
            (select count(*) from wanted e where e.key = w.key and e.g < w.g and e.g = any(d.booked)) as earlier,
            (select count(*) from wanted e where e.key = w.key and e.g = any(d.booked)) as uses
          from wanted w join start s on s.key = w.key cross join decided d
        ),
        booked as (
          insert into slack_call_schedules as s (team_id, key, next_at)
          select distinct on (key) ${teamId}, key, base + uses * ${step('interval_ms')} from planned where uses > 0
          on conflict (team_id, key) do update set
            next_at = greatest(excluded.next_at, s.next_at + (select p.uses * ${step('p.interval_ms')} from planned p where p.key = s.key limit 1)), updated_at = now()
          returning s.key, s.next_at
        )
        select p.g, bool_or(p.booked) as booked,
          max(greatest(0, extract(epoch from (
            case when p.booked then b.next_at - (p.uses - p.earlier) * ${step('p.interval_ms')} else p.base + p.earlier * ${step('p.interval_ms')} end
            - ${step('p.tolerance_ms')} - now())) * 1000))::float8 as wait_ms
        from planned p left join booked b on b.key = p.key
        group by p.g`),
  );
  return groups.map((_, i) => {
    const row = rows.find((r) => Number(r.g) === i + 1);
    const waitMs = Number(row?.wait_ms ?? 0);
    return row?.booked === true || row?.booked === 't'
      ? { booked: true, waitMs }
      : { booked: false, notBeforeMs: waitMs };
  });
}

/** Groups asked for in this turn of the event loop, booked together at its end. */
interface PendingBookings {
  pending: Array<{
    teamId: string;
    slots: Array<{ key: string; rule: PaceRule }>;
    maxWaitMs: number;
    resolve: (answer: SlotAnswer) => void;
  }>;
}

function flush(db: Database, queue: PendingBookings, onError: ((error: unknown) => void) | undefined): void {
  const batch = queue.pending;
  queue.pending = [];
  // One statement per workspace and wait bound (in practice: per workspace), the groups in the order asked.
  const byScope = new Map<string, typeof batch>();
  for (const item of batch) {
    const scope = `${item.maxWaitMs}\u0000${item.teamId}`;
    const list = byScope.get(scope);
    if (list) list.push(item);
    else byScope.set(scope, [item]);
  }
  for (const items of byScope.values()) {
    bookInOrder(
      db,
      items[0]!.teamId,
      items.map((item) => item.slots),
      items[0]!.maxWaitMs,
    ).then(
      (answers) => items.forEach((item, i) => item.resolve(answers[i]!)),
      (error: unknown) => {
        onError?.(error);
        for (const item of items) item.resolve({ booked: true, waitMs: 0 });
      },
    );
  }
}

function remember(notBefore: Map<string, number>, scope: string, at: number): void {
  notBefore.delete(scope);
  notBefore.set(scope, at);
  if (notBefore.size > NOT_BEFORE_MAX) notBefore.delete(notBefore.keys().next().value!);
}

/** Takes the next slot of one key (see CallSchedules.take), refused without a statement when known to be too far. */
async function takeSlot(
  deps: { db: Database; notBefore: Map<string, number>; onError: ((error: unknown) => void) | undefined },
  teamId: string,
  key: string,
  rule: PaceRule,
  o: { maxWaitMs?: number },
): Promise<SlotAnswer> {
  const { db, notBefore } = deps;
  const tolerance = Math.max(0, rule.burst - 1) * rule.intervalMs;
  // The earliest a call may go: the theoretical slot less the burst tolerance, never before a block.
  const base = sql`greatest(s.next_at, now(), coalesce(s.blocked_until + ${ms(tolerance)}, now()))`;
  const maxWait = o.maxWaitMs ?? Number.MAX_SAFE_INTEGER / 2;
  const scope = `${teamId}\u0000${key}`;
  const startedAt = Date.now();
  const known = notBefore.get(scope);
  if (known !== undefined) {
    if (known <= startedAt) notBefore.delete(scope);
    else if (known > startedAt + maxWait) return { booked: false, notBeforeMs: known - startedAt };
  }
  try {
    const booked = rowsOf<{ wait_ms: number | string }>(
      await db.execute(sql`
            insert into slack_call_schedules as s (team_id, key, next_at) values (${teamId}, ${key}, now() + ${ms(rule.intervalMs)})
            on conflict (team_id, key) do update set next_at = ${base} + ${ms(rule.intervalMs)}, updated_at = now()
            where ${base} - ${ms(tolerance)} <= now() + ${ms(Math.min(maxWait, 86_400_000))}
            returning greatest(0, extract(epoch from (s.next_at - ${ms(rule.intervalMs + tolerance)} - now())) * 1000)::float8 as wait_ms`),
    );
    if (booked[0]) {
      const waitMs = Number(booked[0].wait_ms);
      // Past the burst (a wait), the next slot is one interval after this one; within it, unknown.
      if (waitMs > 0) remember(notBefore, scope, startedAt + waitMs + rule.intervalMs);
      return { booked: true, waitMs };
    }
    const [row] = rowsOf<{ wait_ms: number | string; slot_wait_ms: number | string }>(
      await db.execute(sql`
            select greatest(0, extract(epoch from (${base} - ${ms(tolerance)} - now())) * 1000)::float8 as wait_ms,
              greatest(0, extract(epoch from (s.next_at - ${ms(tolerance)} - now())) * 1000)::float8 as slot_wait_ms
            from slack_call_schedules as s where team_id = ${teamId} and key = ${key}`),
    );
    // Remembered: the schedule's own next slot, not a 429's block (its end is Slack's word, not ours).
    const slotWaitMs = Number(row?.slot_wait_ms ?? 0);
    if (slotWaitMs > 0) remember(notBefore, scope, startedAt + slotWaitMs);
    return { booked: false, notBeforeMs: Number(row?.wait_ms ?? 0) };
  } catch (error) {
    deps.onError?.(error);
    return { booked: true, waitMs: 0 };
  }
}

async function blockSchedule(
  db: Database,
  onError: ((error: unknown) => void) | undefined,
  teamId: string,
  key: string,
  retryAfterMs: number,
): Promise<void> {
  try {
    await db.execute(sql`
          insert into slack_call_schedules as s (team_id, key, next_at, blocked_until, rate_limited) values (${teamId}, ${key}, now(), now() + ${ms(retryAfterMs)}, 1)
          on conflict (team_id, key) do update set blocked_until = greatest(coalesce(s.blocked_until, now()), excluded.blocked_until),
            rate_limited = s.rate_limited + 1, updated_at = now()`);
  } catch (error) {
    onError?.(error);
  }
}

async function sleepUnlessStopping(stopSignal: AbortSignal, waitMs: number): Promise<void> {
  if (waitMs <= 0) return;
  // Stopping: a slot moments away is still used (the work in hand finishes inside the grace); a longer wait ends now.
  if (stopSignal.aborted && waitMs > STOP_ALLOWANCE_MS) throw stopSignal.reason;
  if (stopSignal.aborted) return delay(waitMs);
  await delay(waitMs, undefined, { signal: stopSignal }).catch(() => {
    throw stopSignal.reason;
  });
}
