// The sender's one DM about a send. It is posted once (the confirmation, tell-sends.ts; for a send that
// needs approval, the approvals' "waiting" notice, posted before anything else) and then edited in
// place at each later step (approved, rejected, expired, back with the approvers, on its way,
// delivered, a card bounced, resent, cancelled, someone who could not be told in Slack) instead of a
// new DM per step. Each step's edit is an outbox row of its own (editOnce: once per step, across
// instances), made after the DM is posted (an edit waits in the outbox for the message it edits, so a
// step never overtakes the DM still being posted). When the DM is gone (Slack refuses the edit, or it
// was never posted), the DM is posted again, once, and later steps edit that one.
import { and, asc, eq, or } from 'drizzle-orm';

import type { BouncedRecipientRow, KudosRow, NotificationRow } from '../../db/schema/index.js';
import { bouncedRecipients, notifications } from '../../db/schema/index.js';
import type { PostedMessage, RenderedMessage } from '../common/ports.js';
import type { Notice, NoticePresenter } from '../notices/notices.js';
import { editOnce, type NoticeDeps, postOnceOrLater } from '../notices/outbox.js';
import { partialNoticeSubject } from './kudos-parts.js';
import { untoldRecipients } from './recipient-dms.js';

/** The outbox kind of each edit of the sender's DM (subject: `${kudosId}#${step}`). */
const SENDER_DM_EDIT_KIND = 'kudos.sender_dm';
/** The sender's DM posted again because the first one is gone (subject: the kudos id; once). */
const SENDER_DM_REPOST_KIND = 'kudos.sender_dm.repost';
/**
 * A send that needs approval: the approvals' "waiting" notice (subject `${kudosId}#0`, the first
 * decision round) is the sender's DM, posted when the request is, and every later step edits it.
 */
export const APPROVAL_WAITING_KIND = 'approval.waiting';
const approvalWaitingSubject = (kudosId: string) => `${kudosId}#0`;

type SendRow = Pick<
  KudosRow,
  'id' | 'teamId' | 'enterpriseId' | 'senderUserId' | 'status' | 'errorCode' | 'partsPlaced'
>;

/**
 * The outbox row of the sender's DM: the one posted again when there is one, else the confirmation,
 * else (a send that needed approval) the "waiting" notice.
 */
export async function findSenderDm(db: NoticeDeps['db'], row: SendRow): Promise<NotificationRow | undefined> {
  // One read (the worker asks for every send it tells), then the first that applies.
  const keys: Array<[string, string]> = [
    [SENDER_DM_REPOST_KIND, row.id],
    ['kudos.confirmation', row.id],
    ...(row.status === 'partial' ? [['kudos.partial', partialNoticeSubject(row)] as [string, string]] : []),
    [APPROVAL_WAITING_KIND, approvalWaitingSubject(row.id)],
  ];
  const found = await db
    .select()
    .from(notifications)
    .where(or(...keys.map(([kind, subject]) => and(eq(notifications.kind, kind), eq(notifications.subject, subject)))));
  const of = (kind: string) => found.find((n) => n.kind === kind);
  const repost = of(SENDER_DM_REPOST_KIND);
  if (repost && !repost.failedAt) return repost;
  return of('kudos.confirmation') ?? of('kudos.partial') ?? of(APPROVAL_WAITING_KIND);
}

/**
 * The sender's DM when it was posted before the send was placed (the send needed approval, or its DM
 * had to be posted again): the worker edits it instead of posting a confirmation. Undefined for a send
 * whose first DM is its confirmation (still to be posted, or posted: the outbox keeps it once).
 */
export async function earlierSenderDm(db: NoticeDeps['db'], row: SendRow): Promise<NotificationRow | undefined> {
  const dm = await findSenderDm(db, row);
  return dm && !isOutcomeDm(dm) ? dm : undefined;
}

const isOutcomeDm = (dm: NotificationRow) => dm.kind === 'kudos.confirmation' || dm.kind === 'kudos.partial';

/**
 * Whether the sender's DM about the send is its confirmation (posted by the worker, which found no
 * DM to edit): it tells the send as it is, and nothing that came before (waiting, approved) is told
 * after it.
 */
export async function outcomeToldFirst(db: NoticeDeps['db'], row: SendRow): Promise<boolean> {
  const dm = await findSenderDm(db, row);
  return dm !== undefined && isOutcomeDm(dm);
}

/**
 * Brings the sender's DM to `message` for `step` (once per step; a step is a word, or the outbox key
 * of the edit when another capability keeps count of it, as approvals do of their rounds). Returns
 * where the DM is when known (the bounces' "Fix address" buttons live there).
 */
export async function updateSenderDm(
  deps: NoticeDeps,
  row: SendRow,
  step: string | { kind: string; subject: string },
  message: RenderedMessage,
): Promise<PostedMessage | undefined> {
  const ws = { teamId: row.teamId, enterpriseId: row.enterpriseId };
  const dm = await findSenderDm(deps.db, row);
  const where = (n: NotificationRow | undefined) => (n?.channel && n.ts ? { channel: n.channel, ts: n.ts } : undefined);
  if (dm && !dm.failedAt) {
    const key =
      typeof step === 'string'
        ? {
            kind: SENDER_DM_EDIT_KIND,
            subject: `${row.id}#${step}${dm.kind === SENDER_DM_REPOST_KIND ? '#again' : ''}`,
          }
        : step;
    const outcome = await editOnce(deps, { ...key, ...ws }, { of: dm, message });
    if (outcome !== 'given_up') return where(dm);
  }
  // The DM is gone (deleted, never posted): posted again, once; a later step edits that one.
  const posted = await postOnceOrLater(
    deps,
    { kind: SENDER_DM_REPOST_KIND, subject: row.id, ...ws },
    { to: { userId: row.senderUserId }, message },
  );
  if (posted === 'later') return undefined;
  return posted.posted ? posted.message : where(posted.existing);
}

/** What the sender's DM says besides the send itself: its bounced cards and who could not be told. */
export async function senderDmState(
  db: NoticeDeps['db'],
  kudosId: string,
): Promise<{ bounces: BouncedRecipientRow[]; untold: string[] }> {
  const bounces = await db
    .select()
    .from(bouncedRecipients)
    .where(eq(bouncedRecipients.kudosId, kudosId))
    .orderBy(asc(bouncedRecipients.createdAt));
  return { bounces, untold: await untoldRecipients(db, kudosId) };
}

/** The sender's DM as it is now (`delivered`: every order of the send finished). */
export async function senderDmNotice(
  db: NoticeDeps['db'],
  row: KudosRow,
  delivered: boolean,
  note?: string,
): Promise<Extract<Notice, { type: 'kudos.sender_dm' }>> {
  const state = await senderDmState(db, row.id);
  return { type: 'kudos.sender_dm', kudos: row, delivered, ...state, ...(note ? { note } : {}) };
}

/** The bounced cards of a send point at the sender's DM, where their "Fix address" buttons are. */
export async function pointBouncesAt(db: NoticeDeps['db'], kudosId: string, dm: PostedMessage): Promise<void> {
  await db
    .update(bouncedRecipients)
    .set({ dmChannel: dm.channel, dmTs: dm.ts })
    .where(eq(bouncedRecipients.kudosId, kudosId));
}

/** A scheduled send cancelled: the sender's DM about it says so (in place). */
export async function tellSenderCancelled(
  deps: NoticeDeps & { present: NoticePresenter },
  row: KudosRow,
): Promise<void> {
  await updateSenderDm(deps, row, 'canceled', deps.present(await senderDmNotice(deps.db, row, false)));
}
