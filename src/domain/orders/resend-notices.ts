// What a resend of a bounced card tells: the sender's one DM is brought up to date (resent, or the
// reason it failed with the fix button again), and, once resent, the announcement's thread hears
// that the card is on its way (the same thread, never a new announcement; no word of the bounce).
import type { BouncedRecipientRow } from '../../db/schema/index.js';
import type { NoticePresenter } from '../notices/notices.js';
import { type NoticeDeps, postOnceOrLater } from '../notices/outbox.js';
import { getKudos } from '../sending/kudos-store.js';
import { pointBouncesAt, senderDmNotice, updateSenderDm } from '../sending/sender-dm.js';

export async function tellResendOutcome(
  deps: NoticeDeps & { present: NoticePresenter },
  bounce: BouncedRecipientRow,
  outcome: { resent: boolean; note?: string | undefined },
): Promise<void> {
  const row = await getKudos(deps.db, bounce.kudosId);
  if (!row || row.teamId !== bounce.teamId) return;
  const step = outcome.resent ? `resent:${bounce.id}` : `resend_failed:${bounce.id}:${bounce.attempts}`;
  const notice = await senderDmNotice(deps.db, row, true, outcome.note);
  const dm = await updateSenderDm(deps, row, step, deps.present(notice));
  if (dm) await pointBouncesAt(deps.db, row.id, dm);
  if (!outcome.resent || !row.announcementChannel || !row.announcementTs) return;
  await postOnceOrLater(
    deps,
    { kind: 'kudos.resent', subject: bounce.id, teamId: row.teamId, enterpriseId: row.enterpriseId },
    {
      to: { channel: row.announcementChannel, threadTs: row.announcementTs },
      message: deps.present({ type: 'kudos.resent', kudos: row, bounce }),
    },
  );
}
