// Deciding a request: who may, exactly once (approval-store.ts), and what the clicker is told when
// someone was quicker.
import type { ApprovalMessageRef } from '../../db/schema/index.js';
import { decidedByText, type NamingText } from '../common/ports.js';
import { type Refused, refused } from '../common/refusal.js';
import { formatUtc } from '../common/zoned-time.js';
import type { SettingsStore } from '../workspaces/settings.js';
import { type AnnounceDeps, tellDecision, updateRequestMessages } from './approval-announce.js';
import {
  type ApprovalCase,
  decideApproval,
  type Decision,
  getApprovalCase,
  rememberRequestMessage,
} from './approval-store.js';
import { type ApproverDirectory, isApprover } from './approvers.js';

/**
 * The clicker is told `message`. `announce`, when there, brings the request message they clicked up to
 * date (it still showed the buttons of a decided request); listeners call it after answering.
 * `conflict`: the request was still waiting when another decision got in the way; a new click decides.
 */
export type Refusal = Refused<
  'not_found' | 'own_request' | 'not_approver' | 'already_decided' | 'conflict',
  NamingText
> & { announce?(): Promise<void> };

/** Who clicked: a user of a workspace. A request is decided only from its own workspace. */
export interface Decider {
  userId: string;
  teamId: string;
  /** The request message the click came from (none from App Home). */
  seenIn?: ApprovalMessageRef | undefined;
}

export interface DecisionDeps extends AnnounceDeps {
  settings: SettingsStore;
  directory: ApproverDirectory;
  wakeWorker(): void;
  now: () => Date;
}

const knowsMessage = (messages: ApprovalMessageRef[], ref: ApprovalMessageRef) =>
  messages.some((m) => m.channel === ref.channel && m.ts === ref.ts);

/** May this user decide this request now? (Reject checks before opening its modal.) */
export async function checkDecider(
  deps: DecisionDeps,
  kudosId: string,
  actor: Decider,
): Promise<{ ok: true; request: ApprovalCase } | Refusal> {
  const actorUserId = actor.userId;
  // Read within the clicker's workspace: another workspace's request is, to them, one that does not exist.
  const view = await getApprovalCase(deps.db, kudosId, { teamId: actor.teamId });
  if (!view) return refused('not_found', 'That request no longer exists.');
  await rememberClicked(deps, view, actor.seenIn);
  if (view.kudos.senderUserId === actorUserId)
    return refused(
      'own_request',
      'You cannot approve or reject your own kudos request; another approver has to decide.',
    );
  const settings = await deps.settings.get({ teamId: view.kudos.teamId, enterpriseId: view.kudos.enterpriseId });
  if (!(await isApprover(deps.directory, settings, actorUserId))) {
    return refused('not_approver', 'Only approvers can approve or reject kudos requests. Nothing was changed.');
  }
  if (view.kudos.status !== 'awaiting_approval') return alreadyDecided(deps, view, actor.seenIn);
  return { ok: true, request: view };
}

/**
 * Takes the decision (exactly once) and returns `announce`, which updates the request messages and
 * tells the sender; listeners call it after their ack.
 */
export async function decideRequest(
  deps: DecisionDeps,
  kudosId: string,
  actor: Decider,
  decision: Decision,
): Promise<{ ok: true; announce(): Promise<void> } | Refusal> {
  const actorUserId = actor.userId;
  const allowed = await checkDecider(deps, kudosId, actor);
  if (!allowed.ok) return allowed;
  const result = await decideApproval(deps.db, {
    kudosId,
    teamId: actor.teamId,
    actorUserId,
    decision,
    now: deps.now(),
  });
  if (!result.ok) return alreadyDecided(deps, result.current, actor.seenIn);
  // The clicked copy is updated with the others even if recording it failed.
  const seenIn = actor.seenIn;
  const view: ApprovalCase = {
    kudos: result.kudos,
    request:
      !seenIn || knowsMessage(result.request.messages, seenIn)
        ? result.request
        : { ...result.request, messages: [...result.request.messages, seenIn] },
  };
  deps.log.info(`approval ${result.request.status}`, {
    kudosId,
    by: actorUserId,
    sentNow: Boolean(result.sentNowInsteadOf),
  });
  if (decision.kind === 'approve') deps.wakeWorker();
  return {
    ok: true,
    async announce() {
      await updateRequestMessages(deps, view);
      await tellDecision(deps, view);
    },
  };
}

function decidedRefusal(view: ApprovalCase | undefined): Refusal {
  if (!view) return refused('not_found', 'That request no longer exists.');
  const r = view.request;
  const at = r.decidedAt ? ` on ${formatUtc(r.decidedAt)}` : '';
  switch (view.kudos.status) {
    case 'rejected':
      return refused('already_decided', decidedByText('This request was already rejected', r.decidedBy, `${at}.`));
    case 'expired':
      return refused('already_decided', `This request already expired${at}.`);
    case 'awaiting_approval':
      return refused('conflict', 'This request is still waiting; try again.');
    default:
      return refused('already_decided', decidedByText('This request was already approved', r.decidedBy, `${at}.`));
  }
}

/**
 * A clicked copy of the request that was never recorded (its poster died between posting and
 * recording) is recorded now, so that the decision reaches it.
 */
async function rememberClicked(
  deps: DecisionDeps,
  view: ApprovalCase,
  seenIn: ApprovalMessageRef | undefined,
): Promise<void> {
  if (!seenIn || knowsMessage(view.request.messages, seenIn)) return;
  try {
    const messages = await rememberRequestMessage(deps.db, view.request.id, seenIn);
    if (messages) view.request.messages = messages;
    deps.log.info('a copy of the request nobody had recorded was clicked; recorded', {
      kudosId: view.kudos.id,
      channel: seenIn.channel,
    });
  } catch (error) {
    deps.log.warn('recording a clicked copy of the request failed', { kudosId: view.kudos.id, error });
  }
}

/**
 * Already decided: the clicker is told by whom, and the copy they clicked, which still showed the
 * buttons, is brought up to date (one the decider did not know of, or whose update failed).
 */
function alreadyDecided(
  deps: DecisionDeps,
  view: ApprovalCase | undefined,
  seenIn: ApprovalMessageRef | undefined,
): Refusal {
  const refusal = decidedRefusal(view);
  return view && seenIn ? { ...refusal, announce: () => updateRequestMessages(deps, view, seenIn) } : refusal;
}
