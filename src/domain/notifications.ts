// Posting a Slack notification exactly once. The (kind, subject) row is inserted BEFORE posting and
// only the caller whose insert succeeded posts; a redelivered event, reconciliation racing the
// webhook, or a second app instance finds the row and skips. After posting, channel/ts are stored.
//
// If Slack answers with an error (ok:false: nothing was posted) the row is removed so that a later
// retry may post; if the outcome is unknown (timeout, dropped connection) the row stays: a notice
// may then be missing, but it is never doubled.
import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { notifications, type NotificationRow } from '../db/schema/index.js';
import type { PostedMessage } from '../slack/gateway.js';

export interface NotificationKey {
  kind: string;
  subject: string;
  teamId?: string | null;
  enterpriseId?: string | null;
}

export type PostOnceResult = { posted: true; message: PostedMessage } | { posted: false; existing: NotificationRow | undefined };

export async function postOnce(db: Database, key: NotificationKey, post: () => Promise<PostedMessage>): Promise<PostOnceResult> {
  const [claimed] = await db
    .insert(notifications)
    .values({ kind: key.kind, subject: key.subject, teamId: key.teamId ?? null, enterpriseId: key.enterpriseId ?? null })
    .onConflictDoNothing({ target: [notifications.kind, notifications.subject] })
    .returning({ id: notifications.id });
  if (!claimed) return { posted: false, existing: await findNotification(db, key.kind, key.subject) };
  let message: PostedMessage;
  try {
    message = await post();
  } catch (error) {
    if (isDefinitelyNotPosted(error)) await db.delete(notifications).where(eq(notifications.id, claimed.id));
    throw error;
  }
  await db.update(notifications).set({ channel: message.channel, ts: message.ts, postedAt: sql`now()` }).where(eq(notifications.id, claimed.id));
  return { posted: true, message };
}

export async function findNotification(db: Database, kind: string, subject: string): Promise<NotificationRow | undefined> {
  const [row] = await db.select().from(notifications).where(and(eq(notifications.kind, kind), eq(notifications.subject, subject)));
  return row;
}

/** Slack answered ok:false (a platform error): the message was not posted. */
function isDefinitelyNotPosted(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === 'slack_webapi_platform_error';
}
