// The recognition feed's numbers: a monthly leaderboard of kudos given and received (counts, not
// amounts), "+1" reactions on announcements, and people who chose not to appear. Plain data.
import { and, count, desc, eq, gte, lt, sql } from 'drizzle-orm';
import { rowsOf, type Database } from '../db/client.js';
import { kudos, kudosReactions, statsOptOuts, workspaceSettings } from '../db/schema/index.js';

export interface MonthRef {
  year: number;
  /** 1-12 */
  month: number;
}

export interface Leaderboard {
  month: MonthRef;
  givers: Array<{ userId: string; count: number }>;
  receivers: Array<{ userId: string; count: number }>;
  kudosCount: number;
  plusOnes: number;
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

const SENT = sql`${kudos.status} = 'placed'`;

export async function monthlyLeaderboard(db: Database, teamId: string, month: MonthRef, top = 5): Promise<Leaderboard> {
  const from = new Date(Date.UTC(month.year, month.month - 1, 1));
  const to = new Date(Date.UTC(month.year, month.month, 1));
  const inMonth = and(eq(kudos.teamId, teamId), SENT, gte(kudos.createdAt, from), lt(kudos.createdAt, to));
  const optedOut = sql`(select user_id from stats_opt_outs o where o.team_id = ${teamId})`;
  const [givers, receivers, [total], [plus]] = await Promise.all([
    db
      .select({ userId: kudos.senderUserId, count: count() })
      .from(kudos)
      .where(and(inMonth, sql`${kudos.senderUserId} not in ${optedOut}`))
      .groupBy(kudos.senderUserId)
      .orderBy(desc(count()), kudos.senderUserId)
      .limit(top),
    db.execute(sql`
      select r->>'slackUserId' as "userId", count(*)::int as count
      from kudos k, jsonb_array_elements(k.recipients) r
      where k.team_id = ${teamId} and k.status = 'placed' and k.created_at >= ${from.toISOString()} and k.created_at < ${to.toISOString()}
        and r->>'slackUserId' is not null and r->>'slackUserId' not in ${optedOut}
      group by 1 order by 2 desc, 1 limit ${top}`),
    db.select({ n: count() }).from(kudos).where(inMonth),
    db
      .select({ n: count() })
      .from(kudosReactions)
      .where(and(eq(kudosReactions.teamId, teamId), gte(kudosReactions.createdAt, from), lt(kudosReactions.createdAt, to))),
  ]);
  const rows = rowsOf<{ userId: string; count: number | string }>(receivers);
  return {
    month,
    givers: givers.map((g) => ({ userId: g.userId, count: Number(g.count) })),
    receivers: rows.map((r) => ({ userId: r.userId, count: Number(r.count) })),
    kudosCount: Number(total?.n ?? 0),
    plusOnes: Number(plus?.n ?? 0),
  };
}

export async function setStatsOptOut(db: Database, ws: { teamId: string; enterpriseId?: string | null }, userId: string, optOut: boolean): Promise<void> {
  if (optOut)
    await db
      .insert(statsOptOuts)
      .values({ teamId: ws.teamId, enterpriseId: ws.enterpriseId ?? null, userId })
      .onConflictDoNothing();
  else await db.delete(statsOptOuts).where(and(eq(statsOptOuts.teamId, ws.teamId), eq(statsOptOuts.userId, userId)));
}

/** A "+1" on an announcement: counted once per person and kudos; undefined when it is not an announcement. */
export async function recordPlusOne(db: Database, input: { teamId: string; channel: string; ts: string; userId: string; reaction: string }): Promise<'counted' | 'already' | undefined> {
  const [row] = await db
    .select({ id: kudos.id, enterpriseId: kudos.enterpriseId })
    .from(kudos)
    .where(and(eq(kudos.teamId, input.teamId), eq(kudos.announcementChannel, input.channel), eq(kudos.announcementTs, input.ts)));
  if (!row) return undefined;
  const inserted = await db
    .insert(kudosReactions)
    .values({ teamId: input.teamId, enterpriseId: row.enterpriseId, kudosId: row.id, userId: input.userId, reaction: input.reaction })
    .onConflictDoNothing()
    .returning({ userId: kudosReactions.userId });
  return inserted.length > 0 ? 'counted' : 'already';
}

export async function removePlusOne(db: Database, input: { teamId: string; channel: string; ts: string; userId: string }): Promise<void> {
  await db.execute(sql`
    delete from kudos_reactions r using kudos k
    where r.kudos_id = k.id and k.team_id = ${input.teamId} and k.announcement_channel = ${input.channel} and k.announcement_ts = ${input.ts} and r.user_id = ${input.userId}`);
}

/** The reaction that "+1"s an announcement in this workspace (default :gift:). */
export async function plusOneReaction(db: Database, teamId: string): Promise<string> {
  const [row] = await db.select({ emoji: workspaceSettings.reactionEmoji }).from(workspaceSettings).where(eq(workspaceSettings.teamId, teamId));
  return row?.emoji ?? 'gift';
}
