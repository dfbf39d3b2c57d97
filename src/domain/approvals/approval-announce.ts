// What the approvals flow tells: the request messages brought up to date, and the sender's (and a
// previous approver's) notices, each once per decision round through the notice outbox. The sender
// has one DM per kudos: "waiting" is posted, and every later notice edits it in place.
import type { Logger } from '../../config/logger.js';
import type { Database } from '../../db/client.js';
import type { ApprovalMessageRef, KudosRow } from '../../db/schema/index.js';
import type { Messenger } from '../common/ports.js';
import type { ApproversAsked, Notice, NoticePresenter } from '../notices/notices.js';
import { findNotification, giveUpNotice, type NotificationKey, postOnce } from '../notices/outbox.js';
import { outcomeToldFirst, updateSenderDm } from '../sending/sender-dm.js';
import {
  type ApprovalCase,
  getApprovalCase,
  REOPENED_APPROVER_NOTICE,
  SENDER_NOTICE,
  type SenderNoticeKind,
  senderNoticeSubject,
} from './approval-store.js';

/** What telling needs: the database (the outbox), Slack, the notice presenter, the approvals logger. */
export interface AnnounceDeps {
  db: Database;
  chat: Messenger;
  present: NoticePresenter;
  log: Logger;
}

/** Updates the request's messages (or only the one given) to show where it stands. */
export async function updateRequestMessages(
  deps: AnnounceDeps,
  view: ApprovalCase,
  only?: ApprovalMessageRef,
): Promise<void> {
  const content = deps.present({ type: 'approval.request', approval: view });
  await Promise.all(
    (only ? [only] : view.request.messages).map((ref) =>
      deps.chat
        .updateMessage(view.kudos, ref.channel, ref.ts, content)
        .catch((error: unknown) =>
          deps.log.warn('updating an approval message failed', { kudosId: view.kudos.id, channel: ref.channel, error }),
        ),
    ),
  );
}

/**
 * Every notice about a request goes through the notice outbox, once per decision round (a re-opened
 * request is decided again); the sweep tells a sender whom a dead process or a cut database left
 * without the "waiting", "back with the approvers" or decision notice.
 */
async function tellOnce(
  deps: AnnounceDeps,
  view: ApprovalCase,
  kind: typeof SENDER_NOTICE.waiting | typeof REOPENED_APPROVER_NOTICE,
  userId: string,
  notice: Notice,
): Promise<void> {
  await postOnce({ db: deps.db, chat: deps.chat }, noticeKey(view, kind), {
    to: { userId },
    message: deps.present(notice),
  }).catch((error: unknown) =>
    deps.log.warn('telling about an approval request failed', { kudosId: view.kudos.id, kind, error }),
  );
}

/** A notice of a request's round in the outbox: its kind, the kudos and round, the workspace. */
const noticeKey = (view: ApprovalCase, kind: SenderNoticeKind | typeof REOPENED_APPROVER_NOTICE): NotificationKey => ({
  kind,
  subject: senderNoticeSubject(view.request),
  teamId: view.kudos.teamId,
  enterpriseId: view.kudos.enterpriseId,
});

/**
 * The sender's one DM about the send (sending/sender-dm.ts): "waiting" is posted (it is that DM), and
 * every later notice of a round ("back with the approvers", the decision) edits it in place, once per
 * round, after it is posted (an edit waits in the outbox for the message it edits).
 */
export async function tellSenderOnce(
  deps: AnnounceDeps,
  view: ApprovalCase,
  kind: SenderNoticeKind,
  notice: Notice,
): Promise<void> {
  if (kind === SENDER_NOTICE.waiting) return tellOnce(deps, view, kind, view.kudos.senderUserId, notice);
  const { kind: k, subject } = noticeKey(view, kind);
  await updateSenderDm({ db: deps.db, chat: deps.chat }, view.kudos, { kind: k, subject }, deps.present(notice))
    .then(() => undefined)
    .catch((error: unknown) =>
      deps.log.warn('telling the sender about an approval request failed', { kudosId: view.kudos.id, kind, error }),
    );
}

/** A re-opened round's opening: "back with the approvers" to the sender, and to the approver of the round before. */
export async function tellReopened(deps: AnnounceDeps, view: ApprovalCase): Promise<void> {
  await tellSenderOnce(deps, view, SENDER_NOTICE.reopened, {
    type: 'approval.reopened',
    approval: view,
    audience: 'sender',
  });
  if (view.request.decidedBy)
    await tellOnce(deps, view, REOPENED_APPROVER_NOTICE, view.request.decidedBy, {
      type: 'approval.reopened',
      approval: view,
      audience: 'approver',
    });
}

/**
 * Whether the round's opening notice ("waiting", or "back with the approvers" for a re-opened round)
 * is recorded in the outbox (posted, given up, or still to be posted: paced by Slack, or being posted
 * by another instance). A request can be decided before its poster recorded that notice, or after the
 * insert failed (a cut database): the sender is then told it here first, so that no sender gets a
 * decision without the opening notice, and never the opening notice after it. The decision edits the
 * same DM, and the outbox makes that edit only once the DM is posted.
 */
async function roundOpened(deps: AnnounceDeps, view: ApprovalCase): Promise<boolean> {
  const kind = view.request.reopenCount > 0 ? SENDER_NOTICE.reopened : SENDER_NOTICE.waiting;
  const subject = senderNoticeSubject(view.request);
  const recorded = async () => (await findNotification(deps.db, kind, subject)) !== undefined;
  try {
    if (await recorded()) return true;
    deps.log.info('telling a sender the round opened, before its decision', { kudosId: view.kudos.id, notice: kind });
    if (kind === SENDER_NOTICE.reopened) await tellReopened(deps, view);
    else
      await tellSenderOnce(deps, view, SENDER_NOTICE.waiting, {
        type: 'approval.waiting',
        approval: view,
        asked: askedOf(view),
      });
    return await recorded();
  } catch (error) {
    deps.log.warn('reading the opening notice of a request failed', { kudosId: view.kudos.id, error });
    return false;
  }
}

/**
 * The decision (approved, rejected, expired), once, as an edit of the sender's DM after the round's
 * opening notice; left to the sweep when that notice cannot be recorded.
 */
export async function tellDecision(deps: AnnounceDeps, view: ApprovalCase): Promise<void> {
  if (await outcomeToldFirst(deps.db, view.kudos)) {
    // Approved, placed and confirmed before anything about the request could be recorded (a cut
    // database): the confirmation tells the send as it is; "waiting" or "approved" after it would not.
    await giveUpNotice(deps.db, noticeKey(view, SENDER_NOTICE.decision), new Error('the send was confirmed first'));
    return;
  }
  if (!(await roundOpened(deps, view))) {
    deps.log.warn('decision not told yet: the opening notice could not be recorded; the approvals sweep tells both', {
      kudosId: view.kudos.id,
    });
    return;
  }
  await tellSenderOnce(deps, view, SENDER_NOTICE.decision, { type: 'approval.decided', approval: view });
}

/**
 * The worker is about to edit the sender's DM with the send's outcome (on its way, scheduled, failed):
 * the decision that let it go is recorded first, when its announcer has not yet, so that the DM reads
 * "approved" before "on its way" and never the other way round (edits of one message are made in the
 * order they are recorded).
 */
export async function tellDecisionBeforeOutcome(deps: AnnounceDeps, row: KudosRow): Promise<void> {
  const view = await getApprovalCase(deps.db, row.id);
  if (!view || view.request.status !== 'approved') return;
  if (await findNotification(deps.db, SENDER_NOTICE.decision, senderNoticeSubject(view.request))) return;
  await tellDecision(deps, view);
}

/** Who was asked, for a "waiting" notice sent late: read back from where the request was posted. */
export function askedOf(view: ApprovalCase): ApproversAsked {
  const channel = view.request.messages.find((m) => !m.channel.startsWith('D'))?.channel;
  return channel ? { kind: 'channel', channel } : { kind: 'unknown' };
}
