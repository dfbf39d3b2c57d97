// Posting a notice exactly once, through an outbox row (notifications, unique kind + subject). The
// message was rendered by a presenter (notices.ts) and goes out through the Messenger port (ports.ts).
//
// postOnce inserts the row, with its message and where it goes, BEFORE posting; only the caller
// whose insert succeeded posts, everyone else (a redelivered event, reconciliation racing the
// webhook, a second instance) skips. The poster holds a lease on the row while it posts; the message
// carries the row's id as Slack message metadata. After posting, channel/ts are stored.
//
// chat.postMessage has no idempotency key, so an attempt whose outcome is unknown (a timeout, a
// dropped connection, the process killed mid-call) is never simply retried: once its lease has run
// out, resumeStalledNotices looks for the message by its metadata (conversations.history or
// .replies) and posts only if Slack does not have it. Slack refusing a post (ok:false) means nothing
// was posted: the row is given up (resumed) or removed so that the caller may retry (inline).
//
// A notice may have to follow another into its thread (a completion notice under its kudos'
// announcement, which is still waiting for its turn in Slack): queueNoticeInThreadOf records it with
// thread_of, and the sweep leaves it until that one is posted (then posts it in its thread) or given
// up or removed (then in its channel). So whoever records a notice is done with it once it is
// recorded: the outbox posts it, once, at its turn, whatever the delay (the sweep has no window).
//
// A notice may also be an edit of another (editOnce: edit_of, its own kind and subject): a kudos
// announcement that must name more people since a part of the send turned up later, each later step
// of the sender's one DM about a send (approved after "waiting", which Slack may still be pacing or
// another instance posting; on its way; delivered). chat.update of that one's channel and ts, once it
// is posted: the sweep leaves an edit until then, so an edit never overtakes the message it edits.
// Edits of one message are made in the order they were recorded (one waits while an earlier one is
// still to be made: Slack made it wait, or another instance is making it), so a message never goes
// back to an older step. Safe to repeat, so an edit whose answer was lost is simply made again after
// its lease (no lookup). One whose message was never posted (given up, removed) is given up too:
// there is nothing to edit.
//
// Rows recorded by older versions may carry `follows` (a notice posted after another, in its own
// place): the sweep still leaves those until that one is posted, given up or removed.
//
// The stored message is only needed until the notice is posted (or given up). A notice whose text is
// a secret (reward links: bearer gift cards) has it erased at that moment; the row keeps its kind and
// subject (the order id and part), which exactly-once needs. Every other message is erased after
// NOTICE_RETENTION_DAYS by expireNoticeMessages (the hourly cleanup).
import { and, eq, isNotNull, isNull, lt, or, type SQL, sql } from 'drizzle-orm';

import type { Logger } from '../../config/logger.js';
import { type Database, rowsOf } from '../../db/client.js';
import { type NotificationRow, notifications } from '../../db/schema/index.js';
import { isChatRefusal, type Messenger, type PostedMessage, type RenderedMessage } from '../common/ports.js';
import { workspaceOfRow } from '../common/workspace.js';
import { noteChannelFailure } from './health-warnings.js';

export interface NotificationKey {
  kind: string;
  subject: string;
  teamId?: string | null;
  enterpriseId?: string | null;
}

/** Where a notice goes: a channel (optionally a thread in it), or a user's DM. */
export type NoticeTarget = { channel: string; threadTs?: string } | { userId: string };

/** One rendered notice on its way out. */
export interface OutboxNotice {
  to: NoticeTarget;
  message: RenderedMessage;
}

export interface NoticeDeps {
  db: Database;
  chat: Pick<Messenger, 'postMessage' | 'openDirectChannel' | 'findMessageByMetadata' | 'updateMessage'>;
}

export type PostOnceResult =
  { posted: true; message: PostedMessage } | { posted: false; existing: NotificationRow | undefined };

/** The metadata event type our notices carry; the payload is `{ notice_id }`. */
export const NOTICE_EVENT_TYPE = 'kudos_notice';

/** How long a poster owns a row: far longer than one chat.postMessage may take (5 s timeout, no retry). */
export const NOTICE_LEASE_MS = 60_000;

/** Slack's clock and ours may differ a little: look this much before the attempt. */
const CLOCK_MARGIN_MS = 2 * 60_000;

/** The `/kudos links` DM (subject: `ORDER_ID#PART`): its text is reward links, which are gift cards. */
export const REWARD_LINKS_NOTICE_KIND = 'reward_links.delivered';

/** Kinds whose message is erased as soon as it is posted or given up. */
const SECRET_KINDS = [REWARD_LINKS_NOTICE_KIND];
const isSecretKind = sql`kind in (${sql.join(
  SECRET_KINDS.map((kind) => sql`${kind}`),
  sql`, `,
)})`;

/** How long a posted (or given-up) notice keeps its message. */
export const NOTICE_RETENTION_DAYS = 7;

const lease = (ms: number) => sql`now() + ${`${Math.ceil(ms / 1000)} seconds`}::interval`;

export async function postOnce(deps: NoticeDeps, key: NotificationKey, notice: OutboxNotice): Promise<PostOnceResult> {
  const [result] = await postAllOnce(deps, [{ key, notice }]);
  if (result!.status === 'rejected') throw result!.reason;
  return result!.value;
}

/**
 * Whether a notice postAllOnce could not post now is still recorded, and the outbox sweep posts it
 * (exactly once): paced or rate-limited, its outcome unknown, its DM not opened yet. Not when Slack
 * refused it (its row was removed, so that the caller may try again).
 */
export function isLeftToOutbox(reason: unknown): boolean {
  return !isRefused(reason);
}

/**
 * postOnce for a caller that is done once the notice is recorded: `later` when Slack did not take it
 * now and the outbox posts it at its turn (isLeftToOutbox). Throws when Slack refused it, or the
 * database failed.
 */
export async function postOnceOrLater(
  deps: NoticeDeps,
  key: NotificationKey,
  notice: OutboxNotice,
): Promise<PostOnceResult | 'later'> {
  const [result] = await postAllOnce(deps, [{ key, notice }]);
  if (result!.status === 'fulfilled') return result!.value;
  if (isLeftToOutbox(result!.reason)) return 'later';
  throw result!.reason;
}

/** A notice's key as its row's columns. */
const keyColumns = (key: NotificationKey) => ({
  kind: key.kind,
  subject: key.subject,
  teamId: key.teamId ?? null,
  enterpriseId: key.enterpriseId ?? null,
});

/**
 * Records a notice to post in the thread of another notice (`threadOf`, its row id) that is still
 * waiting in the outbox, without posting it: the sweep posts it once that one is posted (in its
 * thread), given up or removed (in `channel`). Nothing happens if the notice is recorded already.
 */
export async function queueNoticeInThreadOf(
  db: Database,
  key: NotificationKey,
  notice: { channel: string; threadOf: string; message: RenderedMessage },
): Promise<void> {
  await db
    .insert(notifications)
    .values({ ...keyColumns(key), channel: notice.channel, threadOf: notice.threadOf, message: notice.message })
    .onConflictDoNothing({ target: [notifications.kind, notifications.subject] });
}

/**
 * Records, once (unique kind + subject, across instances), an edit of the message of the notice `of`
 * (a channel message or a DM) to `message`, and makes it now when that one is posted and no earlier
 * edit of it is still to be made: `edited`. Otherwise the outbox makes it (`later`: that notice is
 * still to be posted, an earlier edit still to be made, or Slack did not take the edit now;
 * resumeStalledNotices). `recorded` when the edit was recorded before (nothing is done again);
 * `given_up` when Slack refused it (the message is gone, or the channel).
 */
export async function editOnce(
  deps: NoticeDeps,
  key: NotificationKey,
  edit: { of: NotificationRow; message: RenderedMessage },
): Promise<'edited' | 'later' | 'recorded' | 'given_up'> {
  const [row] = await deps.db
    .insert(notifications)
    .values({ ...keyColumns(key), channel: edit.of.channel, editOf: edit.of.id, message: edit.message })
    .onConflictDoNothing({ target: [notifications.kind, notifications.subject] })
    .returning({ id: notifications.id });
  if (!row) return 'recorded';
  // Made now when the message it edits is posted and no earlier edit of it is still to be made (edits
  // of one message are made in the order they were recorded); else the sweep makes it at its turn.
  const [target] = rowsOf<{ channel: string; ts: string }>(
    await deps.db.execute(sql`
      update notifications as n set claimed_until = ${lease(NOTICE_LEASE_MS)}, attempts = 1
      from notifications as parent
      where n.id = ${row.id} and parent.id = n.edit_of and parent.ts is not null and parent.channel is not null
        and not exists (${earlierEditPending(sql`n`)})
      returning parent.channel as channel, parent.ts as ts`),
  );
  if (!target) return 'later';
  try {
    await deps.chat.updateMessage(
      workspaceOfRow({ teamId: key.teamId, enterpriseId: key.enterpriseId }),
      target.channel,
      target.ts,
      edit.message,
    );
  } catch (error) {
    if (isRefused(error)) {
      await giveUp(deps.db, row.id, errorCodeOf(error));
      await noteChannelFailure(deps.db, key, target.channel, error);
      return 'given_up';
    }
    // Rate-limited: after Slack's wait; unknown: after the lease (an edit may be made twice).
    if (isRateLimited(error) || isChatRefusal(error, 'not_sent')) await postLater(deps.db, row.id, error);
    return 'later';
  }
  await markPosted(deps.db, [{ id: row.id, ...target }]);
  return 'edited';
}

/** An edit of the same message as `edit` (a row alias), recorded before it, still to be made. */
const earlierEditPending = (edit: SQL) => sql`
  select 1 from notifications earlier
  where earlier.edit_of = ${edit}.edit_of and earlier.id <> ${edit}.id and earlier.created_at < ${edit}.created_at
    and earlier.posted_at is null and earlier.failed_at is null`;

/**
 * postOnce for several notices with one insert and one update in all (they are posted in parallel):
 * a kudos' confirmation and announcement. Each result settles on its own.
 */
export async function postAllOnce(
  deps: NoticeDeps,
  items: Array<{ key: NotificationKey; notice: OutboxNotice }>,
  opts: {
    /**
     * A statement of the caller's to make once the results are known, in the same statement as
     * recording where the notices went (one transaction, not two): the worker marks its kudos told.
     */
    andThen?: (results: Array<PromiseSettledResult<PostOnceResult>>) => SQL;
  } = {},
): Promise<Array<PromiseSettledResult<PostOnceResult>>> {
  if (items.length === 0) {
    if (opts.andThen) await deps.db.execute(opts.andThen([]));
    return [];
  }
  const channels = await Promise.allSettled(
    items.map(({ key, notice }) =>
      'userId' in notice.to
        ? deps.chat.openDirectChannel(
            workspaceOfRow({ teamId: key.teamId, enterpriseId: key.enterpriseId }),
            notice.to.userId,
          )
        : Promise.resolve(notice.to.channel),
    ),
  );
  const keyOf = (kind: string, subject: string) => `${kind}\u0000${subject}`;
  // Every notice is recorded, even one whose DM could not be opened (Slack unreachable): that one is
  // stored without a channel and not leased, so the next sweep of resumeStalledNotices opens the DM
  // and posts it. Nothing was attempted yet, so nothing needs looking up first.
  const rows = items.map((item, i) => ({
    ...item,
    channel: channels[i]!.status === 'fulfilled' ? (channels[i] as PromiseFulfilledResult<string>).value : null,
  }));
  // Plain SQL rather than the query builder: built in microseconds, and this runs for every notice.
  const claimed: ClaimedNotice[] = rowsOf<ClaimedNotice>(
    await deps.db.execute(sql`
      insert into notifications (kind, subject, team_id, enterprise_id, channel, dm_user_id, thread_ts, message, claimed_until, attempted_at, attempts)
      values ${sql.join(
        rows.map(({ key, notice, channel }) =>
          channel === null
            ? sql`(${key.kind}, ${key.subject}, ${key.teamId ?? null}, ${key.enterpriseId ?? null}, null, ${'userId' in notice.to ? notice.to.userId : null}, null, ${JSON.stringify(notice.message)}::jsonb, null, null, 0)`
            : sql`(${key.kind}, ${key.subject}, ${key.teamId ?? null}, ${key.enterpriseId ?? null}, ${channel}, ${'userId' in notice.to ? notice.to.userId : null}, ${'threadTs' in notice.to ? (notice.to.threadTs ?? null) : null}, ${JSON.stringify(notice.message)}::jsonb, ${lease(NOTICE_LEASE_MS)}, now(), 1)`,
        ),
        sql`, `,
      )}
      on conflict (kind, subject) do nothing
      returning id, kind, subject, message, thread_ts as "threadTs", team_id as "teamId", enterprise_id as "enterpriseId"`),
  );
  const claimedByKey = new Map(claimed.map((row) => [keyOf(row.kind, row.subject), row]));
  const posts = await Promise.allSettled(
    items.map(async ({ key }, i): Promise<PostOnceResult> => {
      const channel = channels[i]!;
      const row = claimedByKey.get(keyOf(key.kind, key.subject));
      if (!row) return { posted: false, existing: await findNotification(deps.db, key.kind, key.subject) };
      // Recorded for the sweep to post; the caller hears why it was not posted now.
      if (channel.status === 'rejected') throw channel.reason;
      try {
        return { posted: true, message: await send(deps, row, channel.value) };
      } catch (error) {
        // Refused by Slack: nothing was posted, the caller may try again. Rate-limited: posted later
        // by resumeStalledNotices. Unknown: the lease runs out and resumeStalledNotices finds out.
        if (isRefused(error)) {
          await deps.db.delete(notifications).where(eq(notifications.id, row.id));
          // Not in the channel, or the channel is gone: only an admin can fix that; tell them on Home.
          if ('channel' in items[i]!.notice.to) await noteChannelFailure(deps.db, key, channel.value, error);
        } else if (isRateLimited(error) || isChatRefusal(error, 'not_sent')) await postLater(deps.db, row.id, error);
        throw error;
      }
    }),
  );
  const posted = claimed.flatMap((row) => {
    const i = items.findIndex(({ key }) => key.kind === row.kind && key.subject === row.subject);
    const result = posts[i];
    return result?.status === 'fulfilled' && result.value.posted ? [{ id: row.id, ...result.value.message }] : [];
  });
  await markPosted(deps.db, posted, opts.andThen?.(posts));
  return posts;
}

/** Known not posted (429): try again after Slack's Retry-After, with no need to look first. */
async function postLater(db: Database, id: string, error: unknown): Promise<void> {
  const retryAfterSeconds = Math.max(1, (isChatRefusal(error) ? error.retryAfterSeconds : undefined) ?? 5);
  await db
    .update(notifications)
    .set({ attemptedAt: null, claimedUntil: lease(retryAfterSeconds * 1000) })
    .where(eq(notifications.id, id));
}

/** What posting needs of a notice row. */
type ClaimedNotice = Pick<
  NotificationRow,
  'id' | 'kind' | 'subject' | 'message' | 'threadTs' | 'teamId' | 'enterpriseId'
>;

function send(deps: NoticeDeps, row: ClaimedNotice, channel: string): Promise<PostedMessage> {
  return deps.chat.postMessage(workspaceOfRow(row), channel, {
    ...(row.message as RenderedMessage),
    ...(row.threadTs ? { threadTs: row.threadTs } : {}),
    metadata: { eventType: NOTICE_EVENT_TYPE, payload: { notice_id: row.id } },
  });
}

/** Records where posted notices went, all in one statement (with `andThen`, a statement of the caller's, in the same one). */
async function markPosted(db: Database, posted: Array<{ id: string } & PostedMessage>, andThen?: SQL): Promise<void> {
  if (posted.length === 0) {
    if (andThen) await db.execute(andThen);
    return;
  }
  const values = sql.join(
    posted.map((p) => sql`(${p.id}::uuid, ${p.channel}, ${p.ts})`),
    sql`, `,
  );
  const update = sql`
    update notifications as n set channel = v.channel, ts = v.ts, posted_at = now(), claimed_until = null,
      message = case when ${isSecretKind} then null else n.message end
    from (values ${values}) as v(id, channel, ts)
    where n.id = v.id`;
  await db.execute(andThen ? sql`with marked as (${update}) ${andThen}` : update);
}

export interface ResumeReport {
  /** Found in Slack: the lost answer had posted it. */
  found: number;
  /** Posted, or for an edit (editOnce) made. */
  posted: number;
  failed: number;
  /** Still unknown (Slack unreachable): tried again after the lease. */
  deferred: number;
  /** Posted again without a lookup (no history reads), among `posted`: a duplicate is possible. */
  reposted: number;
}

/**
 * Finishes notices whose poster died or lost Slack's answer (lease run out, not posted, not given
 * up): posts each one unless Slack already has it. Safe on several instances (rows are claimed).
 */
export async function resumeStalledNotices(
  deps: NoticeDeps & { logger: Logger },
  opts: { limit?: number; leaseMs?: number; perTarget?: number } = {},
): Promise<ResumeReport> {
  const report: ResumeReport = { found: 0, posted: 0, failed: 0, deferred: 0, reposted: 0 };
  const due = and(
    isNull(notifications.postedAt),
    isNull(notifications.failedAt),
    or(isNull(notifications.claimedUntil), lt(notifications.claimedUntil, sql`now()`)),
    // A notice for another's thread (queueNoticeInThreadOf), an edit of another (editOnce), or one
    // that comes after another (queueNoticeAfter) waits while that one is still to be posted.
    sql`not exists (select 1 from notifications parent where parent.id = coalesce(notifications.thread_of, notifications.edit_of, notifications.follows) and parent.posted_at is null and parent.failed_at is null)`,
    // Edits of one message are made in the order they were recorded.
    sql`not exists (${earlierEditPending(sql`notifications`)})`,
  );
  // Fair turns: each workspace's conversation (channel or DM) gives its oldest due notices first, a
  // few per sweep, so that one workspace's flood (a channel paced to a post a second, 429s) never
  // fills a sweep that another workspace's notice is waiting for. The update re-checks that a row is
  // still due, so two instances never claim the same row.
  const turns = sql`select id from (
      select id, row_number() over (partition by team_id, coalesce(channel, dm_user_id) order by claimed_until nulls first, created_at) as turn
      from notifications where ${due}) as due_rows
    where turn <= ${opts.perTarget ?? 3} order by turn limit ${opts.limit ?? 20}`;
  const rows = await deps.db
    .update(notifications)
    .set({ claimedUntil: lease(opts.leaseMs ?? NOTICE_LEASE_MS) })
    .where(and(sql`${notifications.id} in (${turns})`, due))
    .returning();
  // Conversations in parallel, each one's notices in order (they are paced one after another).
  const byTarget = new Map<string, NotificationRow[]>();
  for (const row of rows) {
    const target = `${row.teamId ?? ''}\u0000${row.channel ?? row.dmUserId ?? ''}`;
    byTarget.set(target, [...(byTarget.get(target) ?? []), row]);
  }
  await Promise.all(
    [...byTarget.values()].map(async (group) => {
      for (const row of group) await resumeOne(deps, row, report);
    }),
  );
  return report;
}

/** The ts of the notice another follows into its thread: null when it was given up or removed (the other goes in its channel). */
async function threadOfNotice(db: Database, id: string): Promise<string | null> {
  const [parent] = await db.select({ ts: notifications.ts }).from(notifications).where(eq(notifications.id, id));
  return parent?.ts ?? null;
}

async function resumeOne(
  deps: NoticeDeps & { logger: Logger },
  row: NotificationRow,
  report: ResumeReport,
): Promise<void> {
  const log = deps.logger.child({ notice: row.kind, subject: row.subject, noticeId: row.id });
  if (row.editOf) return resumeEdit(deps, row, report, log);
  if (!row.message || !(row.channel || row.dmUserId)) {
    await giveUp(deps.db, row.id, 'nothing stored to post (recorded by an older version)');
    report.failed++;
    return;
  }
  try {
    if (row.threadOf && !row.threadTs) row = { ...row, threadTs: await threadOfNotice(deps.db, row.threadOf) };
    const channel = row.channel ?? (await deps.chat.openDirectChannel(workspaceOfRow(row), row.dmUserId!));
    if (row.attemptedAt && !deps.chat.findMessageByMetadata) {
      // No history reads (distribution mode): whether the lost answer had posted it cannot be
      // looked up, so it is posted again: a notice is never lost, and a duplicate is possible only
      // when Slack took the post and its answer was lost (never for a post that was not sent).
      log.warn(
        're-posting a notice whose answer was lost, without looking it up (no history reads): it may appear twice',
        { attempts: row.attempts },
      );
    }
    if (row.attemptedAt && deps.chat.findMessageByMetadata) {
      const ts = await deps.chat.findMessageByMetadata(workspaceOfRow(row), channel, {
        eventType: NOTICE_EVENT_TYPE,
        match: (payload) => payload.notice_id === row.id,
        since: new Date(row.attemptedAt.getTime() - CLOCK_MARGIN_MS),
        ...(row.threadTs ? { threadTs: row.threadTs } : {}),
      });
      if (ts) {
        await markPosted(deps.db, [{ id: row.id, channel, ts }]);
        log.info('notice had been posted; its answer was lost', { ts });
        report.found++;
        return;
      }
    }
    await deps.db
      .update(notifications)
      .set({ channel, threadTs: row.threadTs, attemptedAt: sql`now()`, attempts: sql`${notifications.attempts} + 1` })
      .where(eq(notifications.id, row.id));
    await markPosted(deps.db, [{ id: row.id, ...(await send(deps, row, channel)) }]);
    log.info('stalled notice posted');
    report.posted++;
    if (row.attemptedAt && !deps.chat.findMessageByMetadata) report.reposted++;
  } catch (error) {
    await settleFailedResume(deps, row, error, report, log, {
      channel: row.channel && !row.dmUserId ? row.channel : undefined,
      refused: 'Slack refused a stalled notice; given up',
      failed: 'resuming a notice failed; will try again after its lease',
    });
  }
}

/** An edit (editOnce) whose notice is posted now, or whose edit was not made yet (Slack's wait, an answer lost). */
async function resumeEdit(deps: NoticeDeps, row: NotificationRow, report: ResumeReport, log: Logger): Promise<void> {
  const [target] = await deps.db
    .select({ channel: notifications.channel, ts: notifications.ts })
    .from(notifications)
    .where(eq(notifications.id, row.editOf!));
  if (!row.message || !target?.channel || !target.ts) {
    await giveUp(deps.db, row.id, row.message ? 'the message it edits was never posted' : 'nothing stored to post');
    report.failed++;
    return;
  }
  try {
    await deps.db
      .update(notifications)
      .set({ attemptedAt: sql`now()`, attempts: sql`${notifications.attempts} + 1` })
      .where(eq(notifications.id, row.id));
    await deps.chat.updateMessage(workspaceOfRow(row), target.channel, target.ts, row.message);
    await markPosted(deps.db, [{ id: row.id, channel: target.channel, ts: target.ts }]);
    log.info('notice edited');
    report.posted++;
  } catch (error) {
    await settleFailedResume(deps, row, error, report, log, {
      channel: target.channel,
      refused: 'Slack refused an edit; given up',
      failed: 'editing a notice failed; will try again after its lease',
    });
  }
}

/**
 * A resumed notice (a post or an edit) Slack did not take: refused for good, it is given up (and a
 * channel that refuses is noted); rate-limited or not sent, it is posted later at Slack's word; any
 * other failure is tried again after its lease.
 */
async function settleFailedResume(
  deps: NoticeDeps,
  row: NotificationRow,
  error: unknown,
  report: ResumeReport,
  log: Logger,
  what: { channel: string | undefined; refused: string; failed: string },
): Promise<void> {
  if (isRefused(error)) {
    await giveUp(deps.db, row.id, errorCodeOf(error));
    if (what.channel) await noteChannelFailure(deps.db, row, what.channel, error);
    log.warn(what.refused, { error });
    report.failed++;
  } else if (isRateLimited(error) || isChatRefusal(error, 'not_sent')) {
    await postLater(deps.db, row.id, error);
    report.deferred++;
  } else {
    log.warn(what.failed, { error });
    report.deferred++;
  }
}

async function giveUp(db: Database, id: string, error: string): Promise<void> {
  await db
    .update(notifications)
    .set({
      failedAt: sql`now()`,
      error,
      claimedUntil: null,
      message: sql`case when ${isSecretKind} then null else ${notifications.message} end`,
    })
    .where(eq(notifications.id, id));
}

/**
 * Records that a notice will never be posted (Slack refused it for good: a person whose DMs are closed
 * to the app, a user not found), so that nobody posts it later and others can ask who was not told.
 * A notice posted meanwhile stays posted.
 */
export async function giveUpNotice(db: Database, key: NotificationKey, error: unknown): Promise<void> {
  await db
    .insert(notifications)
    .values({ ...keyColumns(key), failedAt: sql`now()`, error: errorCodeOf(error) })
    .onConflictDoUpdate({
      target: [notifications.kind, notifications.subject],
      set: { failedAt: sql`now()`, error: errorCodeOf(error), claimedUntil: null },
      setWhere: isNull(notifications.postedAt),
    });
}

/**
 * Erases the message of notices posted or given up more than `retentionDays` ago (the row stays: it
 * is what keeps a notice from being posted twice, and where it went is threaded under). Returns how many.
 */
export async function expireNoticeMessages(db: Database, retentionDays = NOTICE_RETENTION_DAYS): Promise<number> {
  const cutoff = sql`now() - ${`${retentionDays} days`}::interval`;
  const expired = await db
    .update(notifications)
    .set({ message: null })
    .where(
      and(isNotNull(notifications.message), or(lt(notifications.postedAt, cutoff), lt(notifications.failedAt, cutoff))),
    )
    .returning({ id: notifications.id });
  return expired.length;
}

export async function findNotification(
  db: Database,
  kind: string,
  subject: string,
): Promise<NotificationRow | undefined> {
  const [row] = await db
    .select()
    .from(notifications)
    .where(and(eq(notifications.kind, kind), eq(notifications.subject, subject)));
  return row;
}

/** The Messenger says the message was not posted, and will not be as it is. */
function isRefused(error: unknown): boolean {
  return isChatRefusal(error, 'refused', 'channel_unreachable', 'not_found');
}

/** Not posted for now (rate-limited): try again after the wait the Messenger names. */
function isRateLimited(error: unknown): boolean {
  return isChatRefusal(error, 'rate_limited');
}

function errorCodeOf(error: unknown): string {
  if (isChatRefusal(error)) return error.detail;
  return error instanceof Error ? error.message : String(error);
}
