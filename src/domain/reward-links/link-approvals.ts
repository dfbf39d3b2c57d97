// Reward links that need approval wait for it, as a send does: a request above the approval
// threshold, or past the requester's monthly budget, is recorded `awaiting_approval` (nothing is
// ordered), shown to the approvers (the approval channel, else each approver by DM), and decided
// once: one conditional update of the request (`awaiting_approval` -> `pending` | `rejected`), so
// concurrent clicks on any number of instances make one decision and at most one set of orders. The
// requester may not decide their own request. Approved, its parts are placed as any request's are.
import { and, eq, ne, sql } from 'drizzle-orm';

import type { Logger } from '../../config/logger.js';
import type { Database } from '../../db/client.js';
import { type RewardLinkRequestRow, rewardLinkRequests } from '../../db/schema/index.js';
import { type ApproverDirectory, isApprover, listApprovers } from '../approvals/approvers.js';
import { decidedByText, type Messenger, type NamingText } from '../common/ports.js';
import { type Refused, refused } from '../common/refusal.js';
import { moveGuard } from '../common/status-transitions.js';
import type { Workspace } from '../common/workspace.js';
import type { NoticePresenter } from '../notices/notices.js';
import { postOnce } from '../notices/outbox.js';
import { recordAudit } from '../workspaces/audit-trail.js';
import type { SettingsStore } from '../workspaces/settings.js';
import { REWARD_LINK_STATUS_TRANSITIONS } from './reward-links.js';

export interface LinkApprovalDeps {
  db: Database;
  chat: Messenger;
  present: NoticePresenter;
  settings: Pick<SettingsStore, 'get'>;
  directory: ApproverDirectory;
  logger: Logger;
}

/** Shows a request awaiting approval to the approvers, and tells the requester once that it waits. */
export async function askForLinkApproval(deps: LinkApprovalDeps, request: RewardLinkRequestRow): Promise<void> {
  const ws: Workspace = { teamId: request.teamId, enterpriseId: request.enterpriseId };
  const settings = await deps.settings.get(ws);
  const content = deps.present({ type: 'reward_links.approval', request });
  const refs: Array<{ channel: string; ts: string }> = [];
  if (settings.approvalChannel) {
    try {
      refs.push(await deps.chat.postMessage(ws, settings.approvalChannel, content));
    } catch (error) {
      deps.logger.warn('posting a reward-link approval to the approval channel failed; messaging approvers directly', {
        rewardLinkRequestId: request.id,
        error,
      });
    }
  }
  if (refs.length === 0) {
    const approvers = (await listApprovers(deps.directory, settings)).filter((id) => id !== request.requesterUserId);
    for (const approver of approvers) {
      try {
        refs.push(await deps.chat.sendDirectMessage(ws, approver, content));
      } catch (error) {
        deps.logger.warn('messaging an approver about reward links failed', {
          rewardLinkRequestId: request.id,
          approver,
          error,
        });
      }
    }
  }
  await deps.db
    .update(rewardLinkRequests)
    .set({ approvalMessages: refs, updatedAt: sql`now()` })
    .where(eq(rewardLinkRequests.id, request.id));
  await postOnce(
    deps,
    { kind: 'reward_links.waiting', subject: request.id, teamId: request.teamId, enterpriseId: request.enterpriseId },
    {
      to: { userId: request.requesterUserId },
      message: deps.present({ type: 'reward_links.waiting', request, asked: refs.length }),
    },
  );
}

export type LinkDecision =
  | { ok: true; request: RewardLinkRequestRow }
  | Refused<'not_found' | 'own_request' | 'not_approver' | 'already_decided', NamingText>;

/** Takes the decision exactly once; the caller places the links of an approved request. */
export async function decideLinkRequest(
  deps: Pick<LinkApprovalDeps, 'db' | 'settings' | 'directory'>,
  input: { requestId: string; teamId: string; actorUserId: string; decision: 'approve' | 'reject' },
): Promise<LinkDecision> {
  if (!/^[0-9a-f-]{36}$/i.test(input.requestId)) return refused('not_found', 'That request no longer exists.');
  // Read within the clicker's workspace: another workspace's request is, to them, one that does not exist.
  const [request] = await deps.db
    .select()
    .from(rewardLinkRequests)
    .where(and(eq(rewardLinkRequests.teamId, input.teamId), eq(rewardLinkRequests.id, input.requestId)));
  if (!request) return refused('not_found', 'That request no longer exists.');
  if (request.requesterUserId === input.actorUserId)
    return refused(
      'own_request',
      'You cannot approve or reject your own reward-link request; another approver has to decide.',
    );
  const settings = await deps.settings.get({ teamId: request.teamId, enterpriseId: request.enterpriseId });
  if (!(await isApprover(deps.directory, settings, input.actorUserId)))
    return refused('not_approver', 'Only approvers can approve or reject reward-link requests. Nothing was changed.');
  const to = input.decision === 'approve' ? 'pending' : 'rejected';
  return deps.db.transaction(async (tx): Promise<LinkDecision> => {
    const [decided] = await tx
      .update(rewardLinkRequests)
      .set({
        status: to,
        decidedBy: input.actorUserId,
        decidedAt: sql`now()`,
        updatedAt: sql`now()`,
      })
      .where(
        and(
          eq(rewardLinkRequests.teamId, input.teamId),
          eq(rewardLinkRequests.id, request.id),
          moveGuard(rewardLinkRequests.status, REWARD_LINK_STATUS_TRANSITIONS, to, ['awaiting_approval']),
          ne(rewardLinkRequests.requesterUserId, input.actorUserId),
        ),
      )
      .returning();
    if (!decided) {
      const [now] = await tx.select().from(rewardLinkRequests).where(eq(rewardLinkRequests.id, request.id));
      return refused(
        'already_decided',
        decidedByText(
          `This request was already ${now?.status === 'rejected' ? 'rejected' : 'approved'}`,
          now?.decidedBy,
          '.',
        ),
      );
    }
    await recordAudit(tx, {
      teamId: decided.teamId,
      enterpriseId: decided.enterpriseId,
      actorUserId: input.actorUserId,
      action: input.decision === 'approve' ? 'reward_links.approved' : 'reward_links.rejected',
      subjectType: 'reward_link_request',
      subjectId: decided.id,
      details: {
        quantity: decided.quantity,
        amountCents: decided.amountCents,
        totalCents: decided.quantity * decided.amountCents,
        reason: decided.approvalReason,
      },
    });
    return { ok: true, request: decided };
  });
}

/** After a decision: the approvers' messages show it (no buttons), and the requester hears it once. */
export async function announceLinkDecision(deps: LinkApprovalDeps, request: RewardLinkRequestRow): Promise<void> {
  const content = deps.present({ type: 'reward_links.approval', request });
  await Promise.all(
    request.approvalMessages.map((ref) =>
      deps.chat
        .updateMessage({ teamId: request.teamId, enterpriseId: request.enterpriseId }, ref.channel, ref.ts, content)
        .catch((error: unknown) =>
          deps.logger.warn('updating a reward-link approval message failed', {
            rewardLinkRequestId: request.id,
            error,
          }),
        ),
    ),
  );
  await postOnce(
    deps,
    { kind: 'reward_links.decided', subject: request.id, teamId: request.teamId, enterpriseId: request.enterpriseId },
    { to: { userId: request.requesterUserId }, message: deps.present({ type: 'reward_links.decided', request }) },
  );
}
