// Each recipient is told in Slack: a DM when the send goes out (who thanked them, with what, that it
// is on its way to their e-mail), the same DM edited once it is delivered (where to look), and again
// when a card that bounced is resent to a corrected address (on its way there). One outbox
// row per kudos and person (kind `kudos.recipient`, subject `${kudosId}:${userId}`), so nobody is told
// twice. A person Slack will not let the app write to (DMs closed, user not found) is recorded as not
// told (the row given up): the kudos still goes through and the sender's DM says who was not told.
import { and, eq, isNotNull, like } from 'drizzle-orm';

import type { KudosRow, NotificationRow } from '../../db/schema/index.js';
import { notifications } from '../../db/schema/index.js';
import type { Notice, NoticePresenter } from '../notices/notices.js';
import { editOnce, giveUpNotice, isLeftToOutbox, type NoticeDeps, postAllOnce } from '../notices/outbox.js';
import { placedRecipientCount } from './kudos-parts.js';

export const RECIPIENT_DM_KIND = 'kudos.recipient';
/** The edit of a recipient's DM once their card is delivered (subject: as the DM's). */
const RECIPIENT_DELIVERED_KIND = 'kudos.recipient.delivered';
/** The edit of a recipient's DM once their bounced card is resent (subject: the DM's, `#` the bounce). */
const RECIPIENT_RESENT_KIND = 'kudos.recipient.resent';

/**
 * Most recipients told by DM for one send: a send to a big group is announced, and thousands of DMs
 * would hold Slack's pace for everyone else's notices. The people beyond it are not told by DM.
 */
export const MAX_RECIPIENT_DMS = 100;

type Items = Parameters<typeof postAllOnce>[1];
type Results = Awaited<ReturnType<typeof postAllOnce>>;

const subjectOf = (row: Pick<KudosRow, 'id'>, userId: string) => `${row.id}:${userId}`;
const userOfSubject = (subject: string) => subject.slice(subject.indexOf(':') + 1);

/** The people of a send told by DM: those with a Slack account among the recipients it reached, once each. */
function peopleToTell(row: KudosRow): Array<{ userId: string; email: string }> {
  const reached = row.recipients.slice(0, placedRecipientCount(row));
  const people = new Map<string, string>();
  for (const r of reached) if (r.slackUserId && !people.has(r.slackUserId)) people.set(r.slackUserId, r.email);
  return [...people].slice(0, MAX_RECIPIENT_DMS).map(([userId, email]) => ({ userId, email }));
}

/** The recipients' DMs of a send that went out, to post with its other notices (tell-sends.ts). */
export function recipientDmItems(row: KudosRow, present: NoticePresenter): Items {
  return peopleToTell(row).map(({ userId }) => ({
    key: {
      kind: RECIPIENT_DM_KIND,
      subject: subjectOf(row, userId),
      teamId: row.teamId,
      enterpriseId: row.enterpriseId,
    },
    notice: { to: { userId }, message: present({ type: 'kudos.recipient', kudos: row, userId }) },
  }));
}

/**
 * The recipients' DMs Slack refused for good are recorded as not told (never tried again). Returns the
 * people newly known not told.
 */
export async function settleRecipientDms(db: NoticeDeps['db'], items: Items, results: Results): Promise<string[]> {
  const untold: string[] = [];
  for (const [i, item] of items.entries()) {
    const result = results[i];
    if (item.key.kind !== RECIPIENT_DM_KIND || result?.status !== 'rejected' || isLeftToOutbox(result.reason)) continue;
    await giveUpNotice(db, item.key, result.reason);
    untold.push(userOfSubject(item.key.subject));
  }
  return untold;
}

/** The recipients of a send Slack would not let Kudos tell (their DM refused). */
export async function untoldRecipients(db: NoticeDeps['db'], kudosId: string): Promise<string[]> {
  const rows = await db
    .select({ subject: notifications.subject })
    .from(notifications)
    .where(
      and(
        eq(notifications.kind, RECIPIENT_DM_KIND),
        like(notifications.subject, `${kudosId}:%`),
        isNotNull(notifications.failedAt),
      ),
    );
  return rows.map((r) => userOfSubject(r.subject));
}

/**
 * A send is delivered: each recipient's DM says where to look (edited once; posted now for a person
 * not told yet, e.g. a scheduled send, which tells its recipients when it arrives). Not for the people
 * whose card bounced (`bounced`: their e-mail addresses, lower case), nor those who could not be told.
 * Returns the people newly known not told (a scheduled send's, told only now).
 */
export async function tellRecipientsDelivered(
  deps: NoticeDeps & { present: NoticePresenter },
  row: KudosRow,
  bounced: Set<string>,
): Promise<string[]> {
  const told = new Map<string, NotificationRow>();
  const rows = await deps.db
    .select()
    .from(notifications)
    .where(and(eq(notifications.kind, RECIPIENT_DM_KIND), like(notifications.subject, `${row.id}:%`)));
  for (const r of rows) told.set(userOfSubject(r.subject), r);
  const ws = { teamId: row.teamId, enterpriseId: row.enterpriseId };
  const fresh: Items = [];
  for (const { userId, email } of peopleToTell(row)) {
    if (bounced.has(email.toLowerCase())) continue;
    const dm = told.get(userId);
    if (dm?.failedAt) continue;
    const notice: Notice = { type: 'kudos.recipient', kudos: row, userId, deliveredTo: email };
    if (dm) {
      await editOnce(
        deps,
        { kind: RECIPIENT_DELIVERED_KIND, subject: subjectOf(row, userId), ...ws },
        { of: dm, message: deps.present(notice) },
      );
    } else {
      fresh.push({
        key: { kind: RECIPIENT_DM_KIND, subject: subjectOf(row, userId), ...ws },
        notice: { to: { userId }, message: deps.present(notice) },
      });
    }
  }
  return fresh.length > 0 ? settleRecipientDms(deps.db, fresh, await postAllOnce(deps, fresh)) : [];
}

/**
 * A recipient's bounced card was resent to `email`: their DM says it is on its way there (edited
 * once; posted now for a person who had none, e.g. a scheduled send's, told only at delivery, which
 * skips the people whose card bounced). Not for a person Slack would not let Kudos tell, nor one
 * beyond the people a send tells by DM. Returns the people newly known not told.
 */
export async function tellRecipientResent(
  deps: NoticeDeps & { present: NoticePresenter },
  row: KudosRow,
  resend: { userId: string; email: string; bounceId: string },
): Promise<string[]> {
  const { userId, email } = resend;
  if (!peopleToTell(row).some((p) => p.userId === userId)) return [];
  const ws = { teamId: row.teamId, enterpriseId: row.enterpriseId };
  const subject = subjectOf(row, userId);
  const [dm] = await deps.db
    .select()
    .from(notifications)
    .where(and(eq(notifications.kind, RECIPIENT_DM_KIND), eq(notifications.subject, subject)));
  if (dm?.failedAt) return [];
  const message = deps.present({ type: 'kudos.recipient', kudos: row, userId, resentTo: email });
  if (dm) {
    await editOnce(
      deps,
      { kind: RECIPIENT_RESENT_KIND, subject: `${subject}#${resend.bounceId}`, ...ws },
      { of: dm, message },
    );
    return [];
  }
  const fresh: Items = [{ key: { kind: RECIPIENT_DM_KIND, subject, ...ws }, notice: { to: { userId }, message } }];
  return settleRecipientDms(deps.db, fresh, await postAllOnce(deps, fresh));
}
