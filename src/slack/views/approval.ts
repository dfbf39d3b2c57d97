// The reject modal's submission: the decision is taken before the ack so that a request decided
// meanwhile (another approver, expiry) is shown in the modal instead of being lost.
import type { App } from '@slack/bolt';
import { z } from 'zod';
import type { ListenerDeps } from '../deps.js';
import { workspaceOf } from '../deps.js';
import { Approval } from '../ids.js';
import { namingPlain } from '../blocks/text.js';
import { metadataOf, parseAtEdge, textOf, viewSubmission } from '../payloads.js';

const metadataSchema = z.object({ kudosId: z.guid() });

export function register(app: App, deps: ListenerDeps): void {
  app.view(Approval.rejectModal.callbackId, async ({ ack, body: payload }) => {
    const body = parseAtEdge(viewSubmission, payload, Approval.rejectModal.callbackId);
    const { blocks: B, actions: A } = Approval.rejectModal;
    const { kudosId } = metadataOf(metadataSchema, body.view.private_metadata, { kudosId: '' });
    if (!kudosId) return ack({ response_action: 'errors', errors: { [B.reason]: 'This form is damaged; reject from the request message again.' } });
    const raw = textOf(body.view.state.values[B.reason]?.[A.reason]);
    const reason = raw.trim().slice(0, 500);
    const outcome = await deps.approvals.decide(kudosId, { userId: body.user.id, teamId: workspaceOf(body).teamId }, { kind: 'reject', reason: reason === '' ? null : reason });
    if (!outcome.ok) return ack({ response_action: 'errors', errors: { [B.reason]: namingPlain(outcome.message) } });
    await ack();
    await outcome.announce();
  });
}
