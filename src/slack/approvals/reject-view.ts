// The reject modal's submission: the decision is taken before the ack so that a request decided
// meanwhile (another approver, expiry) is shown in the modal instead of being lost.
import type { App } from '@slack/bolt';
import { z } from 'zod';

import { isChatRefusal } from '../../domain/common/ports.js';
import { Approval } from '../ids.js';
import { namingPlain } from '../kit/mrkdwn.js';
import { ANSWER_BUDGET_MS, answerBy, secondsToWait } from '../listening/deadline.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import { metadataOf, parseAtEdge, textOf, viewSubmission } from '../listening/payloads.js';

const metadataSchema = z.object({
  kudosId: z.guid(),
  seenIn: z.object({ channel: z.string().min(1), ts: z.string().min(1) }).optional(),
});

export function registerRejectView(app: App, deps: ListenerDeps): void {
  app.view(Approval.rejectModal.callbackId, async ({ ack, body: payload }) => {
    const body = parseAtEdge(viewSubmission, payload, Approval.rejectModal.callbackId);
    const { blocks: B, actions: A } = Approval.rejectModal;
    const { kudosId, seenIn } = metadataOf(metadataSchema, body.view.private_metadata, { kudosId: '' });
    if (!kudosId)
      return ack({
        response_action: 'errors',
        errors: { [B.reason]: 'This form is damaged; reject from the request message again.' },
      });
    const raw = textOf(body.view.state.values[B.reason]?.[A.reason]);
    const reason = raw.trim().slice(0, 500);
    // Who may decide is read from Slack (the approvers' group) before the answer: under Slack's 3 s (deadline.ts).
    let outcome: Awaited<ReturnType<typeof deps.approvals.decide>>;
    try {
      outcome = await answerBy(Date.now() + ANSWER_BUDGET_MS, () =>
        deps.approvals.decide(
          kudosId,
          { userId: body.user.id, teamId: workspaceOf(body).teamId, seenIn },
          { kind: 'reject', reason: reason === '' ? null : reason },
        ),
      );
    } catch (error) {
      if (!isChatRefusal(error, 'rate_limited')) throw error;
      const message = `Slack is busy right now (its rate limit), so Kudos could not check that you may decide. Nothing was rejected. Press Reject again in ${secondsToWait(error.retryAfterSeconds)} s.`;
      return ack({ response_action: 'errors', errors: { [B.reason]: message } });
    }
    if (!outcome.ok) {
      await ack({ response_action: 'errors', errors: { [B.reason]: namingPlain(outcome.message) } });
      return outcome.announce?.();
    }
    await ack();
    await outcome.announce();
  });
}
