// The approvals flow: a send that needs approval is recorded as `awaiting_approval`, posted to the
// approval channel (or DMed to each approver), decided exactly once (approval-store.ts), then placed
// by the same worker as direct sends. A periodic sweep (every instance; every step claim-safe)
// expires old requests, re-opens approved sends whose order the API refused for a fixable reason
// (balance, spending limits), re-posts requests whose posting was interrupted, and copies order
// outcomes into the audit trail.
import type { Logger } from '../../config/logger.js';
import type { Database } from '../../db/client.js';
import type { ApprovalMessageRef, KudosRow } from '../../db/schema/index.js';
import type { RewardsAccounts } from '../accounts/rewards-accounts.js';
import { recordOrderEvents } from '../workspaces/audit-trail.js';
import { promoteFoundKudosOrder } from '../sending/kudos-store.js';
import { kudosPartKey } from '../sending/kudos-parts.js';
import type { ApproversAsked, Notice, NoticePresenter } from '../notices/notices.js';
import { findNotification, postOnce, queueNoticeAfter, type NotificationKey } from '../notices/outbox.js';
import { decidedByText, type Messenger, type NamingText } from '../common/ports.js';
import { formatUtc } from '../common/zoned-time.js';
import { approvalPolicy } from './approval-policy.js';
import { isApprover, listApprovers, type ApproverDirectory } from './approvers.js';
import {
  claimPosting,
  createApprovalRequest,
  decideApproval,
  expireDue,
  findReopenable,
  findUnposted,
  findUntoldSenders,
  getApprovalCase,
  markPosted,
  rememberRequestMessage,
  reopenAfterFailure,
  REOPENABLE_FAILURES,
  REOPENED_APPROVER_NOTICE,
  SENDER_NOTICE,
  senderNoticeSubject,
  type ApprovalCase,
  type SenderNoticeKind,
  type Decision,
} from './approval-store.js';
import type { SendPolicy } from '../sending/send-policy.js';
import { isWorkspaceAdmin, type SettingsStore, type WorkspaceRef } from '../workspaces/settings.js';
import { noteChannelFailure } from '../notices/health-warnings.js';
import { createPeriodicJob, type PeriodicJob } from '../../lib/periodic-job.js';

export interface ApprovalsDeps {
  db: Database;
  chat: Messenger;
  present: NoticePresenter;
  rewards: RewardsAccounts;
  settings: SettingsStore;
  directory: ApproverDirectory;
  logger: Logger;
  wakeWorker(): void;
  now: () => Date;
}

/**
 * The clicker is told `message`. `announce`, when there, brings the request message they clicked up to
 * date (it still showed the buttons of a decided request); listeners call it after answering.
 */
export type Refusal = { ok: false; message: NamingText; announce?(): Promise<void> };

/** Who clicked: a user of a workspace. A request is decided only from its own workspace. */
export interface Decider {
  userId: string;
  teamId: string;
  /** The request message the click came from (none from App Home). */
  seenIn?: ApprovalMessageRef | undefined;
}

export interface SweepReport {
  auditedOrders: number;
  reopened: number;
  expired: number;
  reposted: number;
  /** Senders told late (waiting or decision) after the process that should have told them died. */
  toldLate: number;
}

export interface ApprovalService {
  /** Routes sends: threshold and monthly budget from the workspace settings. */
  policy: SendPolicy;
  /** A kudos row was recorded as awaiting_approval: create the request and post it to approvers. */
  submit(row: KudosRow, reason: string): Promise<void>;
  /** May this user decide this request now? (Reject checks before opening its modal.) */
  checkDecider(kudosId: string, actor: Decider): Promise<{ ok: true; request: ApprovalCase } | Refusal>;
  /**
   * Takes the decision (exactly once) and returns `announce`, which updates the request messages and
   * tells the sender; listeners call it after their ack.
   */
  decide(
    kudosId: string,
    actor: Decider,
    decision: Decision,
  ): Promise<{ ok: true; announce(): Promise<void> } | Refusal>;
  /** Admins of a workspace: the settings' list, or Slack admins and owners. */
  isAdmin(ws: WorkspaceRef, userId: string): Promise<boolean>;
  /** May this person decide approval requests in this workspace (App Home shows them the requests)? */
  isApprover(ws: WorkspaceRef, userId: string): Promise<boolean>;
  /**
   * The worker's hook for a refused order: an approved send refused for a fixable reason (limits,
   * balance) goes straight back to the approvers, and the sender hears it once. True when re-opened.
   */
  handleOrderFailure(row: KudosRow): Promise<boolean>;
  /** One pass of the periodic work; `now` is injectable for tests. */
  sweep(now?: Date): Promise<SweepReport>;
  start(intervalMs?: number): void;
  stop(): Promise<void>;
}

const knowsMessage = (messages: ApprovalMessageRef[], ref: ApprovalMessageRef) =>
  messages.some((m) => m.channel === ref.channel && m.ts === ref.ts);

export function createApprovalService(deps: ApprovalsDeps): ApprovalService {
  const log = deps.logger.child({ part: 'approvals' });
  let sweeps: PeriodicJob<unknown> | undefined;
  let sweeping: Promise<unknown> | undefined;

  async function updateRequestMessages(view: ApprovalCase, only?: ApprovalMessageRef): Promise<void> {
    const content = deps.present({ type: 'approval.request', approval: view });
    await Promise.all(
      (only ? [only] : view.request.messages).map((ref) =>
        deps.chat
          .updateMessage(view.kudos, ref.channel, ref.ts, content)
          .catch((error: unknown) =>
            log.warn('updating an approval message failed', { kudosId: view.kudos.id, channel: ref.channel, error }),
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
    view: ApprovalCase,
    kind: SenderNoticeKind | typeof REOPENED_APPROVER_NOTICE,
    userId: string,
    notice: Notice,
  ): Promise<void> {
    await postOnce({ db: deps.db, chat: deps.chat }, noticeKey(view, kind), {
      to: { userId },
      message: deps.present(notice),
    }).catch((error: unknown) =>
      log.warn('telling about an approval request failed', { kudosId: view.kudos.id, kind, error }),
    );
  }

  /** A notice of a request's round in the outbox: its kind, the kudos and round, the workspace. */
  const noticeKey = (
    view: ApprovalCase,
    kind: SenderNoticeKind | typeof REOPENED_APPROVER_NOTICE,
  ): NotificationKey => ({
    kind,
    subject: senderNoticeSubject(view.request),
    teamId: view.kudos.teamId,
    enterpriseId: view.kudos.enterpriseId,
  });

  const tellSenderOnce = (view: ApprovalCase, kind: SenderNoticeKind, notice: Notice) =>
    tellOnce(view, kind, view.kudos.senderUserId, notice);

  /** A re-opened round's opening: "back with the approvers" to the sender, and to the approver of the round before. */
  async function tellReopened(view: ApprovalCase): Promise<void> {
    await tellSenderOnce(view, SENDER_NOTICE.reopened, {
      type: 'approval.reopened',
      approval: view,
      audience: 'sender',
    });
    if (view.request.decidedBy)
      await tellOnce(view, REOPENED_APPROVER_NOTICE, view.request.decidedBy, {
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
      log.info('telling a sender the round opened, before its decision', { kudosId: view.kudos.id, notice: kind });
      if (kind === SENDER_NOTICE.reopened) await tellReopened(view);
      else
        await tellSenderOnce(view, SENDER_NOTICE.waiting, {
          type: 'approval.waiting',
          approval: view,
          asked: askedOf(view),
        });
      return await read();
    } catch (error) {
      log.warn('reading the opening notice of a request failed', { kudosId: view.kudos.id, error });
      return { state: 'unrecorded' };
    }
  }

  /**
   * The decision (approved, rejected, expired), once, after the round's opening notice: at once when
   * that one is told, through the outbox after it when it is still on its way; else left to the sweep.
   */
  async function tellDecision(view: ApprovalCase): Promise<void> {
    const opening = await roundOpening(view);
    if (opening.state === 'unrecorded') {
      log.warn('decision not told yet: the opening notice could not be recorded; the approvals sweep tells both', {
        kudosId: view.kudos.id,
      });
      return;
    }
    const notice: Notice = { type: 'approval.decided', approval: view };
    if (opening.state === 'told') return tellSenderOnce(view, SENDER_NOTICE.decision, notice);
    await queueNoticeAfter(deps.db, noticeKey(view, SENDER_NOTICE.decision), {
      to: { userId: view.kudos.senderUserId },
      after: opening.id,
      message: deps.present(notice),
    }).catch((error: unknown) =>
      log.warn('recording a decision notice after its opening failed; the approvals sweep tells it', {
        kudosId: view.kudos.id,
        error,
      }),
    );
  }

  async function post(requestId: string, kudosId: string): Promise<void> {
    const now = deps.now();
    if (!(await claimPosting(deps.db, requestId, now))) return;
    const view = await getApprovalCase(deps.db, kudosId);
    if (!view) return;
    if (view.kudos.status !== 'awaiting_approval') return markPosted(deps.db, requestId, []);
    const settings = await deps.settings.get({ teamId: view.kudos.teamId, enterpriseId: view.kudos.enterpriseId });
    const content = deps.present({ type: 'approval.request', approval: view });
    const refs: ApprovalMessageRef[] = [];
    let asked: ApproversAsked = { kind: 'unreachable' };
    if (settings.approvalChannel) {
      try {
        refs.push(await deps.chat.postMessage(settings, settings.approvalChannel, content));
        asked = { kind: 'channel', channel: settings.approvalChannel };
      } catch (error) {
        log.warn('posting to the approval channel failed; messaging approvers directly', {
          kudosId,
          channel: settings.approvalChannel,
          error,
        });
        await noteChannelFailure(deps.db, view.kudos, settings.approvalChannel, error).catch(() => false);
      }
    }
    if (refs.length === 0) {
      const approvers = (await listApprovers(deps.directory, settings)).filter((id) => id !== view.kudos.senderUserId);
      for (const approver of approvers) {
        try {
          refs.push(await deps.chat.sendDirectMessage(settings, approver, content));
        } catch (error) {
          log.warn('messaging an approver failed', { kudosId, approver, error });
        }
      }
      asked = refs.length > 0 ? { kind: 'people', userIds: approvers } : { kind: 'unreachable' };
    }
    await markPosted(deps.db, requestId, refs);
    log.info('approval requested', { kudosId, messages: refs.length });
    // Someone may have decided (or the request expired) between posting and recording where it was
    // posted: that decider saw no messages to update, so bring them up to date here.
    const after = await getApprovalCase(deps.db, kudosId);
    if (after && after.kudos.status !== 'awaiting_approval') {
      await updateRequestMessages(after);
      return;
    }
    await tellSenderOnce({ kudos: view.kudos, request: { ...view.request, messages: refs } }, SENDER_NOTICE.waiting, {
      type: 'approval.waiting',
      approval: view,
      asked,
    });
  }

  /** Who was asked, for a "waiting" notice sent late: read back from where the request was posted. */
  function askedOf(view: ApprovalCase): ApproversAsked {
    const channel = view.request.messages.find((m) => !m.channel.startsWith('D'))?.channel;
    return channel ? { kind: 'channel', channel } : { kind: 'unknown' };
  }

  function decidedText(view: ApprovalCase | undefined): NamingText {
    if (!view) return 'That request no longer exists.';
    const r = view.request;
    const at = r.decidedAt ? ` on ${formatUtc(r.decidedAt)}` : '';
    switch (view.kudos.status) {
      case 'rejected':
        return decidedByText('This request was already rejected', r.decidedBy, `${at}.`);
      case 'expired':
        return `This request already expired${at}.`;
      case 'awaiting_approval':
        return 'This request is still waiting; try again.';
      default:
        return decidedByText('This request was already approved', r.decidedBy, `${at}.`);
    }
  }

  /**
   * A clicked copy of the request that was never recorded (its poster died between posting and
   * recording) is recorded now, so that the decision reaches it.
   */
  async function rememberClicked(view: ApprovalCase, seenIn: ApprovalMessageRef | undefined): Promise<void> {
    if (!seenIn || knowsMessage(view.request.messages, seenIn)) return;
    try {
      const messages = await rememberRequestMessage(deps.db, view.request.id, seenIn);
      if (messages) view.request.messages = messages;
      log.info('a copy of the request nobody had recorded was clicked; recorded', {
        kudosId: view.kudos.id,
        channel: seenIn.channel,
      });
    } catch (error) {
      log.warn('recording a clicked copy of the request failed', { kudosId: view.kudos.id, error });
    }
  }

  /**
   * Already decided: the clicker is told by whom, and the copy they clicked, which still showed the
   * buttons, is brought up to date (one the decider did not know of, or whose update failed).
   */
  function alreadyDecided(view: ApprovalCase | undefined, seenIn: ApprovalMessageRef | undefined): Refusal {
    const message = decidedText(view);
    return view && seenIn
      ? { ok: false, message, announce: () => updateRequestMessages(view, seenIn) }
      : { ok: false, message };
  }

  async function checkDecider(kudosId: string, actor: Decider): Promise<{ ok: true; request: ApprovalCase } | Refusal> {
    const actorUserId = actor.userId;
    // Read within the clicker's workspace: another workspace's request is, to them, one that does not exist.
    const view = await getApprovalCase(deps.db, kudosId, { teamId: actor.teamId });
    if (!view) return { ok: false, message: 'That request no longer exists.' };
    await rememberClicked(view, actor.seenIn);
    if (view.kudos.senderUserId === actorUserId)
      return {
        ok: false,
        message: 'You cannot approve or reject your own kudos request; another approver has to decide.',
      };
    const settings = await deps.settings.get({ teamId: view.kudos.teamId, enterpriseId: view.kudos.enterpriseId });
    if (!(await isApprover(deps.directory, settings, actorUserId))) {
      return { ok: false, message: 'Only approvers can approve or reject kudos requests. Nothing was changed.' };
    }
    if (view.kudos.status !== 'awaiting_approval') return alreadyDecided(view, actor.seenIn);
    return { ok: true, request: view };
  }

  /** Puts one failed approved send back to the approvers; false when it is not (or no longer) theirs. */
  async function reopen(failed: ApprovalCase, now: Date): Promise<boolean> {
    // Only when the refused key really produced no order (a timed-out earlier try could have). A send in
    // parts stops at the first part it cannot place: that part's own key is the one to look up (the
    // send's key is never an order's), or the re-opened send, under a fresh key, would pay it twice.
    const key = kudosPartKey(failed.kudos, failed.kudos.partsPlaced);
    const existing = await (await deps.rewards.for(failed.kudos)).orders.list({ clientOrderId: key });
    const found = existing.data[0];
    if (found) {
      // The send went out after all: recorded as placed (the worker tells the sender), never re-opened.
      log.warn('not re-opening: an order exists for the failed key; recorded as placed', {
        kudosId: failed.kudos.id,
        orderId: found.orderId,
      });
      const promoted = await promoteFoundKudosOrder(deps.db, failed.kudos, key, found);
      if (promoted) deps.wakeWorker();
      return false;
    }
    const settings = await deps.settings.get({ teamId: failed.kudos.teamId });
    const reopened = await reopenAfterFailure(
      deps.db,
      failed,
      new Date(now.getTime() + settings.approvalExpiryHours * 3_600_000),
    );
    if (!reopened) return false;
    log.info('approved send re-opened after a refused order', {
      kudosId: reopened.kudos.id,
      code: reopened.request.lastFailureCode,
    });
    await updateRequestMessages(reopened);
    await tellReopened(reopened);
    return true;
  }

  async function sweepOnce(now: Date): Promise<SweepReport> {
    const report: SweepReport = { auditedOrders: 0, reopened: 0, expired: 0, reposted: 0, toldLate: 0 };
    const step = async (name: string, fn: () => Promise<void>) => {
      try {
        await fn();
      } catch (error) {
        log.error(`approvals sweep: ${name} failed`, { error });
      }
    };
    await step('order audit', async () => {
      report.auditedOrders = await recordOrderEvents(deps.db, 'all-workspaces');
    });
    await step('reopen', async () => {
      for (const failed of await findReopenable(deps.db)) {
        if (await reopen(failed, now)) report.reopened++;
      }
    });
    await step('expire', async () => {
      for (const expired of await expireDue(deps.db, now)) {
        report.expired++;
        log.info('approval request expired', { kudosId: expired.kudos.id });
        await updateRequestMessages(expired);
        await tellDecision(expired);
      }
    });
    await step('untold senders', async () => {
      for (const untold of await findUntoldSenders(deps.db, now)) {
        report.toldLate++;
        log.info('telling a sender late', { kudosId: untold.kudos.id, notice: untold.notice });
        if (untold.notice === SENDER_NOTICE.decision) {
          // The request messages may still show the buttons too (chat.update is safe to repeat).
          await updateRequestMessages(untold);
          await tellDecision(untold);
        } else if (untold.notice === SENDER_NOTICE.reopened) {
          // A process that died after re-opening may not have put the buttons back either.
          await updateRequestMessages(untold);
          await tellReopened(untold);
        } else {
          await tellSenderOnce(untold, untold.notice, {
            type: 'approval.waiting',
            approval: untold,
            asked: askedOf(untold),
          });
        }
      }
    });
    await step('repost', async () => {
      const { requests, orphans } = await findUnposted(deps.db, now);
      for (const r of requests) {
        report.reposted++;
        await post(r.id, r.kudosId);
      }
      for (const row of orphans) {
        report.reposted++;
        await service.submit(row, 'it needs approval');
      }
    });
    return report;
  }

  const service: ApprovalService = {
    policy: approvalPolicy({ db: deps.db, settings: deps.settings, now: deps.now }),

    async submit(row, reason) {
      const settings = await deps.settings.get({ teamId: row.teamId, enterpriseId: row.enterpriseId });
      const expiresAt = new Date(deps.now().getTime() + settings.approvalExpiryHours * 3_600_000);
      const { request } = await createApprovalRequest(deps.db, row, { reason, expiresAt });
      await post(request.id, row.id);
    },

    checkDecider,

    async decide(kudosId, actor, decision) {
      const actorUserId = actor.userId;
      const allowed = await checkDecider(kudosId, actor);
      if (!allowed.ok) return allowed;
      const result = await decideApproval(deps.db, {
        kudosId,
        teamId: actor.teamId,
        actorUserId,
        decision,
        now: deps.now(),
      });
      if (!result.ok) return alreadyDecided(result.current, actor.seenIn);
      // The clicked copy is updated with the others even if recording it failed.
      const seenIn = actor.seenIn;
      const view: ApprovalCase = {
        kudos: result.kudos,
        request:
          !seenIn || knowsMessage(result.request.messages, seenIn)
            ? result.request
            : { ...result.request, messages: [...result.request.messages, seenIn] },
      };
      log.info(`approval ${result.request.status}`, {
        kudosId,
        by: actorUserId,
        sentNow: Boolean(result.sentNowInsteadOf),
      });
      if (decision.kind === 'approve') deps.wakeWorker();
      return {
        ok: true,
        async announce() {
          await updateRequestMessages(view);
          await tellDecision(view);
        },
      };
    },

    async handleOrderFailure(row) {
      if (!row.errorCode || !(REOPENABLE_FAILURES as readonly string[]).includes(row.errorCode)) return false;
      const failed = await getApprovalCase(deps.db, row.id);
      if (!failed || failed.request.status !== 'approved') return false;
      return reopen(failed, deps.now());
    },

    isAdmin: (ws, userId) => isWorkspaceAdmin({ settings: deps.settings, users: deps.directory.users }, ws, userId),

    async isApprover(ws, userId) {
      return isApprover(deps.directory, await deps.settings.get(ws), userId);
    },

    async sweep(now) {
      // One sweep at a time per process; concurrent instances are safe through the store's conditions.
      while (sweeping) await sweeping.catch(() => {});
      const run = sweepOnce(now ?? deps.now());
      sweeping = run;
      try {
        return await run;
      } finally {
        sweeping = undefined;
      }
    },

    start(intervalMs = 30_000) {
      if (sweeps) return;
      sweeps = createPeriodicJob({
        name: 'approvals sweep',
        logger: log,
        periodMs: intervalMs,
        step: () => service.sweep(),
      });
      sweeps.start();
    },

    async stop() {
      const stopping = sweeps?.stop();
      sweeps = undefined;
      await stopping;
      await sweeping?.catch(() => {});
    },
  };
  return service;
}
