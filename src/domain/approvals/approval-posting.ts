// Asking the approvers: a send that needs approval becomes a request, posted to the approval channel
// or, failing that, DMed to each approver; the sender is told it is waiting.
import type { ApprovalMessageRef, KudosRow } from '../../db/schema/index.js';
import { noteChannelFailure } from '../notices/health-warnings.js';
import type { ApproversAsked } from '../notices/notices.js';
import type { SettingsStore } from '../workspaces/settings.js';
import { type AnnounceDeps, tellSenderOnce, updateRequestMessages } from './approval-announce.js';
import { claimPosting, createApprovalRequest, getApprovalCase, markPosted, SENDER_NOTICE } from './approval-store.js';
import { type ApproverDirectory, listApprovers } from './approvers.js';

export interface PostingDeps extends AnnounceDeps {
  settings: SettingsStore;
  directory: ApproverDirectory;
  now: () => Date;
}

/** A kudos row was recorded as awaiting_approval: create the request and post it to approvers. */
export async function submitForApproval(deps: PostingDeps, row: KudosRow, reason: string): Promise<void> {
  const settings = await deps.settings.get({ teamId: row.teamId, enterpriseId: row.enterpriseId });
  const expiresAt = new Date(deps.now().getTime() + settings.approvalExpiryHours * 3_600_000);
  const { request } = await createApprovalRequest(deps.db, row, { reason, expiresAt });
  await postRequest(deps, request.id, row.id);
}

/** Posts a request once (the claim keeps two instances from both posting it) and tells the sender. */
export async function postRequest(deps: PostingDeps, requestId: string, kudosId: string): Promise<void> {
  const { log } = deps;
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
    await updateRequestMessages(deps, after);
    return;
  }
  await tellSenderOnce(
    deps,
    { kudos: view.kudos, request: { ...view.request, messages: refs } },
    SENDER_NOTICE.waiting,
    { type: 'approval.waiting', approval: view, asked },
  );
}
