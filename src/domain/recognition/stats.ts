// The recognition feed's numbers: a monthly leaderboard of kudos given and received (counts; the
// amounts too, which are shown only when an admin turns them on), for the workspace, one channel or
// one user group, "+1" reactions on announcements, and people who chose not to appear. Plain data.
import { and, eq, type SQL, sql } from 'drizzle-orm';

import { type Database, rowsOf } from '../../db/client.js';
import { kudos, kudosReactions, statsOptOuts } from '../../db/schema/index.js';
import type { Workspace } from '../common/workspace.js';
import { campaignSpendInMonth, type MonthCampaignSpend } from '../finance/campaigns.js';

// Money in USD: a branded card counts what it was charged once known (its judged cost before that); a
// choice card its amount. A person received their share of a branded send's charge.
const GIVEN_USD = sql.raw(
  `case when k.card_type = 'BRANDED_CARD' then coalesce(k.cost_cents, k.total_cents) else k.total_cents end`,
);
const RECEIVED_USD = sql.raw(
  `case when k.card_type = 'BRANDED_CARD' and k.cost_cents is not null then round(k.cost_cents::numeric / greatest(k.recipient_count, 1)) else k.amount_cents end`,
);

export interface MonthRef {
  year: number;
  /** 1-12 */
  month: number;
}

export interface LeaderRow {
  userId: string;
  count: number;
  /** Money given (sends' totals) or received (per-person amounts), in cents. */
  cents: number;
}

/** Which kudos a leaderboard counts: the whole workspace, one channel's, or one user group's people. */
export interface LeaderboardScope {
  /** Kudos announced in this channel or given from it. */
  channel?: string;
  /** Only these people appear (givers among them, receivers among them): a user group's members. */
  members?: string[];
}

/** Kudos sent for one company value: named as the value is now, or as its last kudos kept it if it was removed. */
export interface ValueCount {
  valueId: string;
  name: string;
  emoji: string;
  count: number;
}

export interface Leaderboard {
  month: MonthRef;
  givers: LeaderRow[];
  receivers: LeaderRow[];
  kudosCount: number;
  plusOnes: number;
  /** Kudos per company value, most first (kudos without a value are not in it). */
  byValue: ValueCount[];
}

/** The weekly digest's content (src/domain/recognition/digest.ts posts it). */
export interface WeeklyDigest {
  /** Monday 00:00 UTC of the week reported on. */
  weekStart: Date;
  weekCount: number;
  weekPlusOnes: number;
  /** Last week's kudos per company value. */
  weekValues: ValueCount[];
  /** The leaderboard of the month the week ended in, so far. */
  board: Leaderboard;
  amounts: boolean;
}

/** "2026-11" or "nov" / "november" (this year) ; undefined: the current month. */
export function parseMonth(text: string | undefined, now: Date): MonthRef | undefined {
  const t = (text ?? '').trim().toLowerCase();
  if (t === '') return { year: now.getUTCFullYear(), month: now.getUTCMonth() + 1 };
  const iso = /^(\d{4})-(\d{1,2})$/.exec(t);
  if (iso && Number(iso[2]) >= 1 && Number(iso[2]) <= 12) return { year: Number(iso[1]), month: Number(iso[2]) };
  const names = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
  const i = t.length >= 3 ? names.findIndex((n) => t.startsWith(n) && n.startsWith(t.slice(0, 3))) : -1;
  return i >= 0 ? { year: now.getUTCFullYear(), month: i + 1 } : undefined;
}

function monthRange(month: MonthRef): { from: string; to: string } {
  return {
    from: new Date(Date.UTC(month.year, month.month - 1, 1)).toISOString(),
    to: new Date(Date.UTC(month.year, month.month, 1)).toISOString(),
  };
}

const inList = (ids: string[]) =>
  sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  );

/**
 * The month's leaderboard of one workspace (UTC calendar month, sends that went out): the top givers
 * and receivers by count (ties: more money, then user id), people who opted out left out, and how many
 * kudos and "+1"s there were in the scope.
 */
export async function monthlyLeaderboard(
  db: Database,
  teamId: string,
  month: MonthRef,
  top = 5,
  scope: LeaderboardScope = {},
): Promise<Leaderboard> {
  if (scope.members && scope.members.length === 0)
    return { month, givers: [], receivers: [], kudosCount: 0, plusOnes: 0, byValue: [] };
  const { from, to } = monthRange(month);
  const inScope = sql`k.team_id = ${teamId} and k.status = 'placed' and k.created_at >= ${from} and k.created_at < ${to}${
    scope.channel
      ? sql` and (k.announcement_channel = ${scope.channel} or k.origin_channel_id = ${scope.channel})`
      : sql``
  }`;
  const optedOut = sql`(select o.user_id from stats_opt_outs o where o.team_id = ${teamId})`;
  const members = scope.members;
  const inMembers = members
    ? sql` and (k.sender_user_id in (${inList(members)}) or exists (select 1 from jsonb_array_elements(k.recipients) r where r->>'slackUserId' in (${inList(members)})))`
    : sql``;
  const [givers, receivers, total, plus, byValue] = await Promise.all([
    db.execute(sql`
      select k.sender_user_id as "userId", count(*)::int as count, coalesce(sum(${GIVEN_USD}), 0)::bigint as cents
      from kudos k
      where ${inScope} and k.sender_user_id not in ${optedOut}${members ? sql` and k.sender_user_id in (${inList(members)})` : sql``}
      group by 1 order by 2 desc, 3 desc, 1 limit ${top}`),
    db.execute(sql`
      select r->>'slackUserId' as "userId", count(*)::int as count, coalesce(sum(${RECEIVED_USD}), 0)::bigint as cents
      from kudos k, jsonb_array_elements(k.recipients) r
      where ${inScope} and r->>'slackUserId' is not null and r->>'slackUserId' not in ${optedOut}${members ? sql` and r->>'slackUserId' in (${inList(members)})` : sql``}
      group by 1 order by 2 desc, 3 desc, 1 limit ${top}`),
    db.execute(sql`
      select count(*)::int as n from kudos k
      where ${inScope}${members ? sql` and (k.sender_user_id in (${inList(members)}) or exists (select 1 from jsonb_array_elements(k.recipients) r where r->>'slackUserId' in (${inList(members)})))` : sql``}`),
    db.execute(sql`
      select count(*)::int as n from kudos_reactions x join kudos k on k.id = x.kudos_id
      where x.team_id = ${teamId} and x.created_at >= ${from} and x.created_at < ${to} and k.team_id = ${teamId}${
        scope.channel
          ? sql` and (k.announcement_channel = ${scope.channel} or k.origin_channel_id = ${scope.channel})`
          : sql``
      }${inMembers}`),
    valueCounts(db, teamId, sql`${inScope}${inMembers}`),
  ]);
  const leaders = (result: unknown) =>
    rowsOf<{ userId: string; count: number | string; cents: number | string }>(result as never).map((r) => ({
      userId: r.userId,
      count: Number(r.count),
      cents: Number(r.cents),
    }));
  const n = (result: unknown) => Number(rowsOf<{ n: number | string }>(result)[0]?.n ?? 0);
  return {
    month,
    givers: leaders(givers),
    receivers: leaders(receivers),
    kudosCount: n(total),
    plusOnes: n(plus),
    byValue,
  };
}

/**
 * Kudos per company value among the kudos `k` that `where` picks (of one workspace). A value renamed
 * since is counted as one, under its name now; a removed one under the name its latest kudos kept.
 */
export async function valueCounts(db: Database, teamId: string, where: SQL): Promise<ValueCount[]> {
  const rows = await db.execute(sql`
    select k.value_id as "valueId",
      coalesce(max(v.name), (array_agg(k.value_name order by k.created_at desc))[1]) as name,
      coalesce(max(v.emoji), (array_agg(k.value_emoji order by k.created_at desc))[1]) as emoji,
      count(*)::int as count
    from kudos k left join company_values v on v.team_id = ${teamId} and v.id = k.value_id
    where ${where} and k.value_id is not null
    group by k.value_id order by 4 desc, 2 limit 20`);
  return rowsOf<{ valueId: string; name: string | null; emoji: string | null; count: number | string }>(rows).map(
    (r) => ({ valueId: r.valueId, name: r.name ?? '', emoji: r.emoji ?? 'star', count: Number(r.count) }),
  );
}

/** The month's spend per campaign, the sends the campaign list counts (shown beside the board when amounts are). */
export async function monthlyCampaignSpend(
  db: Database,
  teamId: string,
  month: MonthRef,
): Promise<MonthCampaignSpend[]> {
  const { from, to } = monthRange(month);
  return campaignSpendInMonth(db, teamId, { from: new Date(from), to: new Date(to) });
}

/** One person's month (shown to them even when they opted out of the leaderboard). */
export interface PersonalMonth {
  given: number;
  received: number;
  givenCents: number;
  receivedCents: number;
  /** "+1"s others added to kudos this person gave or received. */
  plusOnes: number;
  optedOut: boolean;
}

export async function personalMonth(
  db: Database,
  teamId: string,
  userId: string,
  month: MonthRef,
): Promise<PersonalMonth> {
  const { from, to } = monthRange(month);
  const inMonth = sql`k.team_id = ${teamId} and k.status = 'placed' and k.created_at >= ${from} and k.created_at < ${to}`;
  const mine = sql`(k.sender_user_id = ${userId} or k.recipients @> ${JSON.stringify([{ slackUserId: userId }])}::jsonb)`;
  const [given, received, plus, opted] = await Promise.all([
    db.execute(
      sql`select count(*)::int as n, coalesce(sum(${GIVEN_USD}), 0)::bigint as cents from kudos k where ${inMonth} and k.sender_user_id = ${userId}`,
    ),
    db.execute(
      sql`select count(*)::int as n, coalesce(sum(${RECEIVED_USD}), 0)::bigint as cents from kudos k where ${inMonth} and k.recipients @> ${JSON.stringify([{ slackUserId: userId }])}::jsonb`,
    ),
    db.execute(
      sql`select count(*)::int as n from kudos_reactions x join kudos k on k.id = x.kudos_id where x.team_id = ${teamId} and x.created_at >= ${from} and x.created_at < ${to} and ${mine}`,
    ),
    db
      .select({ userId: statsOptOuts.userId })
      .from(statsOptOuts)
      .where(and(eq(statsOptOuts.teamId, teamId), eq(statsOptOuts.userId, userId))),
  ]);
  const row = (result: unknown) => rowsOf<{ n: number | string; cents?: number | string }>(result)[0];
  return {
    given: Number(row(given)?.n ?? 0),
    givenCents: Number(row(given)?.cents ?? 0),
    received: Number(row(received)?.n ?? 0),
    receivedCents: Number(row(received)?.cents ?? 0),
    plusOnes: Number(row(plus)?.n ?? 0),
    optedOut: opted.length > 0,
  };
}

export async function setStatsOptOut(db: Database, ws: Workspace, userId: string, optOut: boolean): Promise<void> {
  if (optOut)
    await db
      .insert(statsOptOuts)
      .values({ teamId: ws.teamId, enterpriseId: ws.enterpriseId ?? null, userId })
      .onConflictDoNothing();
  else await db.delete(statsOptOuts).where(and(eq(statsOptOuts.teamId, ws.teamId), eq(statsOptOuts.userId, userId)));
}

/** A "+1" on an announcement: counted once per person and kudos; undefined when it is not an announcement. */
export async function recordPlusOne(
  db: Database,
  input: { teamId: string; channel: string; ts: string; userId: string; reaction: string },
): Promise<'counted' | 'already' | undefined> {
  const [row] = await db
    .select({ id: kudos.id, enterpriseId: kudos.enterpriseId })
    .from(kudos)
    .where(
      and(
        eq(kudos.teamId, input.teamId),
        eq(kudos.announcementChannel, input.channel),
        eq(kudos.announcementTs, input.ts),
      ),
    );
  if (!row) return undefined;
  const inserted = await db
    .insert(kudosReactions)
    .values({
      teamId: input.teamId,
      enterpriseId: row.enterpriseId,
      kudosId: row.id,
      userId: input.userId,
      reaction: input.reaction,
    })
    .onConflictDoNothing()
    .returning({ userId: kudosReactions.userId });
  return inserted.length > 0 ? 'counted' : 'already';
}

/** Undoes a "+1"; answers whether there was one. */
export async function removePlusOne(
  db: Database,
  input: { teamId: string; channel: string; ts: string; userId: string },
): Promise<boolean> {
  const removed = await db.execute(sql`
    delete from kudos_reactions r using kudos k
    where r.kudos_id = k.id and k.team_id = ${input.teamId} and k.announcement_channel = ${input.channel} and k.announcement_ts = ${input.ts} and r.user_id = ${input.userId}
    returning r.user_id`);
  return rowsOf(removed).length > 0;
}

/**
 * The people of the announced kudos (sender and recipients) who have a Home: their stats section
 * counts the +1s on their kudos, so a +1 re-publishes their Homes.
 */
export async function plusOneAudience(
  db: Database,
  input: { teamId: string; channel: string; ts: string },
): Promise<string[]> {
  const rows = await db.execute(sql`
    select distinct v.user_id as "userId"
    from kudos k
    join home_visits v on v.team_id = k.team_id
      and (v.user_id = k.sender_user_id or k.recipients @> jsonb_build_array(jsonb_build_object('slackUserId', v.user_id)))
    where k.team_id = ${input.teamId} and k.announcement_channel = ${input.channel} and k.announcement_ts = ${input.ts}
    limit 200`);
  return rowsOf<{ userId: string }>(rows).map((r) => r.userId);
}
