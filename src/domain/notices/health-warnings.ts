// Health warnings that admins see on App Home: something keeps failing that only an admin can fix
// (an announcement channel the app cannot post in, ...). Raised where the failure happens, counted,
// and resolved when the cause goes away.
import { and, desc, eq, isNull, sql } from 'drizzle-orm';

import type { Database } from '../../db/client.js';
import { type HealthWarningRow, healthWarnings } from '../../db/schema/index.js';
import { isChatRefusal } from '../common/ports.js';

export const CHANNEL_UNREACHABLE = 'channel.unreachable';

export async function openHealthWarnings(db: Database, teamId: string): Promise<HealthWarningRow[]> {
  return db
    .select()
    .from(healthWarnings)
    .where(and(eq(healthWarnings.teamId, teamId), isNull(healthWarnings.resolvedAt)))
    .orderBy(desc(healthWarnings.lastAt))
    .limit(10);
}

/** Records (or re-opens and counts) a warning. */
export async function raiseHealthWarning(
  db: Database,
  w: { teamId: string; enterpriseId?: string | null; kind: string; subject: string; error: string },
): Promise<void> {
  await db
    .insert(healthWarnings)
    .values({
      teamId: w.teamId,
      enterpriseId: w.enterpriseId ?? null,
      kind: w.kind,
      subject: w.subject,
      error: w.error,
    })
    .onConflictDoUpdate({
      target: [healthWarnings.teamId, healthWarnings.kind, healthWarnings.subject],
      set: {
        error: w.error,
        count: sql`case when ${healthWarnings.resolvedAt} is null then ${healthWarnings.count} + 1 else 1 end`,
        firstAt: sql`case when ${healthWarnings.resolvedAt} is null then ${healthWarnings.firstAt} else now() end`,
        lastAt: sql`now()`,
        resolvedAt: null,
      },
    });
}

/** The cause went away (e.g. a post to that channel worked): the warning leaves the admins' Home. */
export async function resolveHealthWarning(
  db: Database,
  w: { teamId: string; kind: string; subject: string },
): Promise<boolean> {
  const resolved = await db
    .update(healthWarnings)
    .set({ resolvedAt: sql`now()` })
    .where(
      and(
        eq(healthWarnings.teamId, w.teamId),
        eq(healthWarnings.kind, w.kind),
        eq(healthWarnings.subject, w.subject),
        isNull(healthWarnings.resolvedAt),
      ),
    )
    .returning({ kind: healthWarnings.kind });
  return resolved.length > 0;
}

/**
 * A post to `channel` failed with `error`: a warning for the admins when the Messenger says the
 * channel is unreachable (only an admin can fix that), with the platform's word for it.
 */
export async function noteChannelFailure(
  db: Database,
  ws: { teamId?: string | null; enterpriseId?: string | null },
  channel: string,
  error: unknown,
): Promise<boolean> {
  if (!ws.teamId || !isChatRefusal(error, 'channel_unreachable')) return false;
  await raiseHealthWarning(db, {
    teamId: ws.teamId,
    enterpriseId: ws.enterpriseId ?? null,
    kind: CHANNEL_UNREACHABLE,
    subject: channel,
    error: error.detail,
  });
  return true;
}
