// The sender's one DM about a send. It is posted once (the confirmation, tell-sends.ts) and then
// edited in place at each later step (delivered, a card bounced, resent, someone who could not be told
// in Slack) instead of a new DM per step. Each step's edit is an outbox row of its own (editOnce: once
// per step, across instances). When the DM is gone (Slack refuses the edit, or the confirmation was
// never posted), the DM is posted again, once, and later steps edit that one.
import { asc, eq } from 'drizzle-orm';

import type { BouncedRecipientRow, KudosRow, NotificationRow } from '../../db/schema/index.js';
import { bouncedRecipients } from '../../db/schema/index.js';
import type { PostedMessage, RenderedMessage } from '../common/ports.js';
import type { Notice, NoticePresenter } from '../notices/notices.js';
import { editOnce, findNotification, type NoticeDeps, postOnceOrLater } from '../notices/outbox.js';
import { partialNoticeSubject } from './kudos-parts.js';
import { untoldRecipients } from './recipient-dms.js';

/** The outbox kind of each edit of the sender's DM (subject: `${kudosId}#${step}`). */
const SENDER_DM_EDIT_KIND = 'kudos.sender_dm';
/** The sender's DM posted again because the first one is gone (subject: the kudos id; once). */
const SENDER_DM_REPOST_KIND = 'kudos.sender_dm.repost';

type SendRow = Pick<
  KudosRow,
  'id' | 'teamId' | 'enterpriseId' | 'senderUserId' | 'status' | 'errorCode' | 'partsPlaced'
>;

/** The outbox row of the sender's DM: the one posted again when there is one, else the confirmation. */
export async function findSenderDm(db: NoticeDeps['db'], row: SendRow): Promise<NotificationRow | undefined> {
  const repost = await findNotification(db, SENDER_DM_REPOST_KIND, row.id);
  if (repost && !repost.failedAt) return repost;
  const confirmation = await findNotification(db, 'kudos.confirmation', row.id);
  if (confirmation) return confirmation;
  return row.status === 'partial' ? findNotification(db, 'kudos.partial', partialNoticeSubject(row)) : undefined;
}

/**
 * Brings the sender's DM to `message` for `step` (once per step). Returns where the DM is when known
 * (the bounces' "Fix address" buttons live there).
 */
export async function updateSenderDm(
  deps: NoticeDeps,
  row: SendRow,
  step: string,
  message: RenderedMessage,
): Promise<PostedMessage | undefined> {
  const ws = { teamId: row.teamId, enterpriseId: row.enterpriseId };
  const dm = await findSenderDm(deps.db, row);
  const where = (n: NotificationRow | undefined) => (n?.channel && n.ts ? { channel: n.channel, ts: n.ts } : undefined);
  if (dm && !dm.failedAt) {
    const subject = `${row.id}#${step}${dm.kind === SENDER_DM_REPOST_KIND ? '#again' : ''}`;
    const outcome = await editOnce(deps, { kind: SENDER_DM_EDIT_KIND, subject, ...ws }, { of: dm, message });
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
