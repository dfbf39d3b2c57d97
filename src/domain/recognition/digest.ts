// The weekly digest: once a week, in each workspace that turned it on (`/kudos settings`, off by
// default) and has an announcement channel, last week's kudos and this month's leaders.
//
// Posted on Mondays from 09:00 UTC for the week that just ended (Monday to Sunday, UTC), within a
// one-day window (a process down all Monday skips that week rather than post it late in the week).
// Every instance runs the pass; the notice outbox makes it exactly once: the row (kind
// `digest.weekly`, subject `team:week`) is inserted before posting and only the instance whose insert
// won posts; a post whose outcome is unknown is looked up, not repeated (outbox.ts).
import { and, eq, isNotNull, sql } from 'drizzle-orm';

import type { Logger } from '../../config/logger.js';
import { type Database, rowsOf } from '../../db/client.js';
import { workspaceSettings } from '../../db/schema/index.js';
import { createPeriodicJob, type PeriodicJob } from '../../lib/periodic-job.js';
import type { NoticePresenter } from '../notices/notices.js';
import { findNotification, type NoticeDeps, postOnce } from '../notices/outbox.js';
import { monthlyLeaderboard, valueCounts, type WeeklyDigest } from './stats.js';

export const WEEKLY_DIGEST_KIND = 'digest.weekly';
/** Mondays from this hour (UTC)… */
export const DIGEST_HOUR_UTC = 9;
/** …for this long. */
const DIGEST_WINDOW_MS = 24 * 3_600_000;

/** Monday 00:00 UTC of the week `at` is in. */
export function weekStartUtc(at: Date): Date {
  const day = (at.getUTCDay() + 6) % 7; // Monday 0 … Sunday 6
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() - day));
}

/** The week to report on at `now`, when `now` is inside a digest window; undefined otherwise. */
export function digestWeekAt(now: Date): Date | undefined {
  const thisMonday = weekStartUtc(now);
  const opens = thisMonday.getTime() + DIGEST_HOUR_UTC * 3_600_000;
  if (now.getTime() < opens || now.getTime() >= opens + DIGEST_WINDOW_MS) return undefined;
  return new Date(thisMonday.getTime() - 7 * 24 * 3_600_000);
}

export async function loadWeeklyDigest(
  db: Database,
  teamId: string,
  weekStart: Date,
  amounts: boolean,
): Promise<WeeklyDigest> {
  const weekEnd = new Date(weekStart.getTime() + 7 * 24 * 3_600_000);
  const lastDay = new Date(weekEnd.getTime() - 1);
  const [counts, board, weekValues] = await Promise.all([
    db.execute(sql`
      select
        (select count(*)::int from kudos k where k.team_id = ${teamId} and k.status = 'placed' and k.created_at >= ${weekStart.toISOString()} and k.created_at < ${weekEnd.toISOString()}) as kudos,
        (select count(*)::int from kudos_reactions x where x.team_id = ${teamId} and x.created_at >= ${weekStart.toISOString()} and x.created_at < ${weekEnd.toISOString()}) as plus`),
    monthlyLeaderboard(db, teamId, { year: lastDay.getUTCFullYear(), month: lastDay.getUTCMonth() + 1 }, 3),
    valueCounts(
      db,
      teamId,
      sql`k.team_id = ${teamId} and k.status = 'placed' and k.created_at >= ${weekStart.toISOString()} and k.created_at < ${weekEnd.toISOString()}`,
    ),
  ]);
  const row = rowsOf<{ kudos: number | string; plus: number | string }>(counts)[0];
  return {
    weekStart,
    weekCount: Number(row?.kudos ?? 0),
    weekPlusOnes: Number(row?.plus ?? 0),
    weekValues,
    board,
    amounts,
  };
}

export interface DigestDeps extends NoticeDeps {
  present: NoticePresenter;
  logger: Logger;
}

/** One pass: posts this week's digest in every workspace that wants one and has not had it. */
export async function postWeeklyDigests(deps: DigestDeps, now: Date): Promise<{ posted: number }> {
  const week = digestWeekAt(now);
  if (!week) return { posted: 0 };
  const workspaces = await deps.db
    .select({
      teamId: workspaceSettings.teamId,
      enterpriseId: workspaceSettings.enterpriseId,
      channel: workspaceSettings.notifyChannel,
      amounts: workspaceSettings.leaderboardAmounts,
    })
    .from(workspaceSettings)
    .where(
      and(
        eq(workspaceSettings.weeklyDigest, true),
        isNotNull(workspaceSettings.notifyChannel),
        // A workspace that uninstalled the app gets nothing (its tokens are gone; its data is on the way out).
        sql`not exists (select 1 from installations i where i.team_id = ${workspaceSettings.teamId} and i.uninstalled_at is not null)`,
      ),
    );
  let posted = 0;
  for (const ws of workspaces) {
    const subject = `${ws.teamId}:${week.toISOString().slice(0, 10)}`;
    // Cheap skip for the instances that lost (or passes after the post); postOnce decides the race.
    if (await findNotification(deps.db, WEEKLY_DIGEST_KIND, subject)) continue;
    try {
      const digest = await loadWeeklyDigest(deps.db, ws.teamId, week, ws.amounts);
      const result = await postOnce(
        deps,
        { kind: WEEKLY_DIGEST_KIND, subject, teamId: ws.teamId, enterpriseId: ws.enterpriseId },
        { to: { channel: ws.channel! }, message: deps.present({ type: 'digest.weekly', digest }) },
      );
      if (result.posted) posted++;
    } catch (error) {
      // Not in the channel: a health warning for the admins (outbox.ts); the next pass tries again.
      deps.logger.warn('weekly digest not posted', { team: ws.teamId, error });
    }
  }
  return { posted };
}

export interface DigestJob {
  /** One pass now (tests). */
  runOnce(now?: Date): Promise<{ posted: number }>;
  start(intervalMs: number): void;
  stop(): Promise<void>;
}

export function createDigestJob(deps: DigestDeps & { now(): Date }): DigestJob {
  let passes: PeriodicJob<unknown> | undefined;
  let running: Promise<unknown> | undefined;
  const runOnce = async (at?: Date) => {
    const pass = postWeeklyDigests(deps, at ?? deps.now());
    running = pass;
    try {
      return await pass;
    } finally {
      running = undefined;
    }
  };
  return {
    runOnce,
    start(intervalMs) {
      if (passes) return;
      passes = createPeriodicJob<unknown>({
        name: 'weekly digest pass',
        logger: deps.logger,
        failureLevel: 'warn',
        periodMs: intervalMs,
        step: () => (running ? Promise.resolve() : runOnce()),
      });
      passes.start();
    },
    async stop() {
      const stopping = passes?.stop();
      passes = undefined;
      await stopping;
      await running?.catch(() => {});
    },
  };
}
