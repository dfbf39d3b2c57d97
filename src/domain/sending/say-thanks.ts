// A recipient's "Say thanks": only a recipient of the kudos, in its own workspace, may answer it. The
// words reach the sender (in the thread of their DM about the kudos, or a DM when it is not known) and
// the announcement's thread when there is one. Each thank-you is posted once, keyed by the form it came
// from: a redelivered or double-submitted form posts nothing twice; a second thank-you is a new form.
import type { KudosRow } from '../../db/schema/index.js';
import { type Refused, refused } from '../common/refusal.js';
import type { Workspace } from '../common/workspace.js';
import type { NoticePresenter } from '../notices/notices.js';
import { isLeftToOutbox, type NoticeDeps, postAllOnce } from '../notices/outbox.js';
import { getKudos } from './kudos-store.js';
import { findSenderDm } from './sender-dm.js';

/** The longest thank-you: a few sentences. */
export const MAX_THANKS_CHARS = 500;

/** Inline check of the words; undefined when they are fine. */
export function checkThanksWords(words: string): string | undefined {
  const trimmed = words.trim();
  if (trimmed === '') return 'Write a few words of thanks.';
  if ([...trimmed].length > MAX_THANKS_CHARS)
    return `Keep it to ${MAX_THANKS_CHARS} characters (this is ${[...trimmed].length.toLocaleString('en-US')}).`;
  return undefined;
}

/** The kudos `kudosId` when `userId` received it in workspace `ws`; a refusal in one short line otherwise. */
export async function kudosToThank(
  db: NoticeDeps['db'],
  ws: Workspace,
  kudosId: string,
  userId: string,
): Promise<KudosRow | Refused<'not_found' | 'not_recipient'>> {
  const row = /^[0-9a-f-]{36}$/i.test(kudosId) ? await getKudos(db, kudosId) : undefined;
  if (!row || row.teamId !== ws.teamId) return refused('not_found', 'This kudos is not known here.');
  if (!row.recipients.some((r) => r.slackUserId === userId))
    return refused('not_recipient', 'Only a recipient of these kudos can say thanks for it.');
  return row;
}

/** Posts the thank-you to the sender and under the announcement, once per form (`formId`). */
export async function sayThanks(
  deps: NoticeDeps & { present: NoticePresenter },
  row: KudosRow,
  input: { fromUserId: string; words: string; formId: string },
): Promise<void> {
  const ws = { teamId: row.teamId, enterpriseId: row.enterpriseId };
  const words = input.words.trim();
  const subject = `${row.id}:${input.formId}`;
  // The thread of the sender's DM about the kudos: as the send recorded it, else as the outbox has it
  // (posted after the send was told: Slack had made it wait).
  const dm =
    row.confirmationChannel && row.confirmationTs ? undefined : await findSenderDm(deps.db, row).catch(() => undefined);
  const toSender =
    row.confirmationChannel && row.confirmationTs
      ? { channel: row.confirmationChannel, threadTs: row.confirmationTs }
      : dm?.channel && dm.ts && !dm.failedAt
        ? { channel: dm.channel, threadTs: dm.ts }
        : { userId: row.senderUserId };
  const items: Parameters<typeof postAllOnce>[1] = [
    {
      key: { kind: 'kudos.thanks.sender', subject, ...ws },
      notice: {
        to: toSender,
        message: deps.present({
          type: 'kudos.thanks',
          kudos: row,
          fromUserId: input.fromUserId,
          words,
          audience: 'sender',
        }),
      },
    },
  ];
  if (row.announcementChannel && row.announcementTs)
    items.push({
      key: { kind: 'kudos.thanks.thread', subject, ...ws },
      notice: {
        to: { channel: row.announcementChannel, threadTs: row.announcementTs },
        message: deps.present({
          type: 'kudos.thanks',
          kudos: row,
          fromUserId: input.fromUserId,
          words,
          audience: 'thread',
        }),
      },
    });
  const results = await postAllOnce(deps, items);
  const failure = results.find((r) => r.status === 'rejected' && !isLeftToOutbox(r.reason));
  if (failure) throw (failure as PromiseRejectedResult).reason;
}
