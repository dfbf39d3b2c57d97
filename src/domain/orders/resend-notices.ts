// What a resend of a bounced card tells: the recipient's DM says the card is on its way to the
// corrected address, the sender's one DM is brought up to date (resent, or the reason it failed with
// the fix button again), and, once resent, the announcement's thread hears that the card is on its way
// (the same thread, never a new announcement; no word of the bounce). The thread is the announcement's
// wherever it is: recorded on the send, posted by the outbox later, or still waiting there for its
// turn (the notice then follows it into its thread).
import type { BouncedRecipientRow, KudosRow } from '../../db/schema/index.js';
import type { NoticePresenter } from '../notices/notices.js';
import { findNotification, type NoticeDeps, postOnceOrLater, queueNoticeInThreadOf } from '../notices/outbox.js';
import { getKudos } from '../sending/kudos-store.js';
import { tellRecipientResent } from '../sending/recipient-dms.js';
import { pointBouncesAt, senderDmNotice, updateSenderDm } from '../sending/sender-dm.js';

export async function tellResendOutcome(
  deps: NoticeDeps & { present: NoticePresenter },
  bounce: BouncedRecipientRow,
  outcome: { resent: boolean; note?: string | undefined },
): Promise<void> {
  const row = await getKudos(deps.db, bounce.kudosId);
  if (!row || row.teamId !== bounce.teamId) return;
  if (outcome.resent && bounce.slackUserId && bounce.correctedEmail)
    await tellRecipientResent(deps, row, {
      userId: bounce.slackUserId,
      email: bounce.correctedEmail,
      bounceId: bounce.id,
    });
  const step = outcome.resent ? `resent:${bounce.id}` : `resend_failed:${bounce.id}:${bounce.attempts}`;
  const notice = await senderDmNotice(deps.db, row, true, outcome.note);
  const dm = await updateSenderDm(deps, row, step, deps.present(notice));
  if (dm) await pointBouncesAt(deps.db, row.id, dm);
  if (outcome.resent) await tellThreadResent(deps, row, bounce);
}

/** Under the announcement, when the send has one: the card is on its way (once per bounced card). */
async function tellThreadResent(
  deps: NoticeDeps & { present: NoticePresenter },
  row: KudosRow,
  bounce: BouncedRecipientRow,
): Promise<void> {
  const key = { kind: 'kudos.resent', subject: bounce.id, teamId: row.teamId, enterpriseId: row.enterpriseId };
  const message = deps.present({ type: 'kudos.resent', kudos: row, bounce });
  let thread =
    row.announcementChannel && row.announcementTs
      ? { channel: row.announcementChannel, ts: row.announcementTs }
      : undefined;
  if (!thread) {
    // Not recorded on the send: the outbox posted the announcement after the send was told, or has
    // still to (Slack made it wait). Given up or never made: there is no thread, and nothing is said.
    const announcement = await findNotification(deps.db, 'kudos.announcement', row.id);
    if (!announcement || announcement.failedAt || !announcement.channel) return;
    if (!announcement.ts) {
      await queueNoticeInThreadOf(deps.db, key, { channel: announcement.channel, threadOf: announcement.id, message });
      return;
    }
    thread = { channel: announcement.channel, ts: announcement.ts };
  }
  await postOnceOrLater(deps, key, { to: { channel: thread.channel, threadTs: thread.ts }, message });
}
