// What the approvals flow tells: the request messages brought up to date, and the sender's (and a
// previous approver's) notices, each once per decision round through the notice outbox.
import type { Logger } from '../../config/logger.js';
import type { Database } from '../../db/client.js';
import type { ApprovalMessageRef } from '../../db/schema/index.js';
import type { Messenger } from '../common/ports.js';
import type { ApproversAsked, Notice, NoticePresenter } from '../notices/notices.js';
import { findNotification, type NotificationKey, postOnce, queueNoticeAfter } from '../notices/outbox.js';
import {
  type ApprovalCase,
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
  kind: SenderNoticeKind | typeof REOPENED_APPROVER_NOTICE,
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

export const tellSenderOnce = (deps: AnnounceDeps, view: ApprovalCase, kind: SenderNoticeKind, notice: Notice) =>
  tellOnce(deps, view, kind, view.kudos.senderUserId, notice);

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
 * The round's opening notice ("waiting", or "back with the approvers" for a re-opened round) as the
 * outbox has it: `told` (posted or given up), `on_its_way` (recorded, still to be posted: paced by
 * Slack, or being posted by another instance; its row id) or `unrecorded`. A request can be decided
 * before its poster recorded that notice, or after the insert failed (a cut database): the sender is
 * then told it here first, so that no sender gets a decision without the opening notice, and never
 * the opening notice after it.
 */
async function roundOpening(
  deps: AnnounceDeps,
  view: ApprovalCase,
): Promise<{ state: 'told' } | { state: 'unrecorded' } | { state: 'on_its_way'; id: string }> {
  const kind = view.request.reopenCount > 0 ? SENDER_NOTICE.reopened : SENDER_NOTICE.waiting;
  const subject = senderNoticeSubject(view.request);
  const read = async () => {
    const row = await findNotification(deps.db, kind, subject);
    if (!row) return { state: 'unrecorded' as const };
    return row.postedAt || row.failedAt ? { state: 'told' as const } : { state: 'on_its_way' as const, id: row.id };
  };
  try {
    const found = await read();
    if (found.state !== 'unrecorded') return found;
    deps.log.info('telling a sender the round opened, before its decision', { kudosId: view.kudos.id, notice: kind });
    if (kind === SENDER_NOTICE.reopened) await tellReopened(deps, view);
    else
      await tellSenderOnce(deps, view, SENDER_NOTICE.waiting, {
        type: 'approval.waiting',
        approval: view,
        asked: askedOf(view),
      });
    return await read();
  } catch (error) {
    deps.log.warn('reading the opening notice of a request failed', { kudosId: view.kudos.id, error });
    return { state: 'unrecorded' };
  }
}

/**
 * The decision (approved, rejected, expired), once, after the round's opening notice: at once when
 * that one is told, through the outbox after it when it is still on its way; else left to the sweep.
 */
export async function tellDecision(deps: AnnounceDeps, view: ApprovalCase): Promise<void> {
  const opening = await roundOpening(deps, view);
  if (opening.state === 'unrecorded') {
    deps.log.warn('decision not told yet: the opening notice could not be recorded; the approvals sweep tells both', {
      kudosId: view.kudos.id,
    });
    return;
  }
  const notice: Notice = { type: 'approval.decided', approval: view };
  if (opening.state === 'told') return tellSenderOnce(deps, view, SENDER_NOTICE.decision, notice);
  await queueNoticeAfter(deps.db, noticeKey(view, SENDER_NOTICE.decision), {
    to: { userId: view.kudos.senderUserId },
    after: opening.id,
    message: deps.present(notice),
  }).catch((error: unknown) =>
    deps.log.warn('recording a decision notice after its opening failed; the approvals sweep tells it', {
      kudosId: view.kudos.id,
      error,
    }),
  );
}

/** Who was asked, for a "waiting" notice sent late: read back from where the request was posted. */
export function askedOf(view: ApprovalCase): ApproversAsked {
  const channel = view.request.messages.find((m) => !m.channel.startsWith('D'))?.channel;
  return channel ? { kind: 'channel', channel } : { kind: 'unknown' };
}
