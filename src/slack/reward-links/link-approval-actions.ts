// Approve / Reject on a reward-link request waiting for approval (src/domain/reward-links/link-approvals.ts).
// The decision is taken once; refusals (not an approver, own request, already decided) go only to
// the clicker. Approved, the links are placed in the background as any request's are.
import type { App } from '@slack/bolt';

import { announceLinkDecision, decideLinkRequest } from '../../domain/reward-links/link-approvals.js';
import { LinkApproval } from '../ids.js';
import { namingMrkdwn } from '../kit/mrkdwn.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import { buttonClick, parseAtEdge, uuidValue } from '../listening/payloads.js';
import { linkApprovalDeps } from './links-command.js';

const click = buttonClick(uuidValue);

export function registerLinkApprovalActions(app: App, deps: ListenerDeps): void {
  for (const [action, decision] of [
    [LinkApproval.actions.approve, 'approve'],
    [LinkApproval.actions.reject, 'reject'],
  ] as const) {
    app.action(action, async ({ ack, body: raw, respond }) => {
      const body = parseAtEdge(click, raw, action);
      await ack();
      const flow = linkApprovalDeps(deps);
      const outcome = await decideLinkRequest(flow, {
        requestId: body.actions[0].value,
        teamId: workspaceOf(body).teamId,
        actorUserId: body.user.id,
        decision,
      });
      if (!outcome.ok) {
        if (body.response_url)
          await respond({
            response_type: 'ephemeral',
            replace_original: false,
            text: `:no_entry: ${namingMrkdwn(outcome.message)}`,
          });
        else if (body.channel?.id)
          await deps.slack
            .for(workspaceOf(body))
            .postEphemeral(body.channel.id, body.user.id, { text: `:no_entry: ${namingMrkdwn(outcome.message)}` });
        return;
      }
      if (decision === 'approve') deps.placeRewardLinks?.(outcome.request.id);
      await announceLinkDecision(flow, outcome.request);
    });
  }
}
