// The "Fix address" modal: the address is checked inline (response_action: errors); then the modal
// closes, the card is resent in the background and the DM with the button is updated.
import type { App } from '@slack/bolt';
import { z } from 'zod';

import {
  checkCorrectedEmail,
  getBounce,
  resendBouncedCard,
  resendInProgress,
} from '../../domain/orders/bounce-resend.js';
import { tellResendOutcome } from '../../domain/orders/resend-notices.js';
import { BounceFix } from '../ids.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import { metadataOf, parseAtEdge, textOf, viewSubmission } from '../listening/payloads.js';
import { presentNotice } from '../notices/present-notice.js';

const metadataSchema = z.object({
  bounceId: z.string().default(''),
  channel: z.string().optional(),
  ts: z.string().optional(),
});

export function registerResendViews(app: App, deps: ListenerDeps): void {
  app.view(BounceFix.callbackId, async ({ ack, body: raw }) => {
    const body = parseAtEdge(viewSubmission, raw, BounceFix.callbackId);
    const view = body.view;
    const block = BounceFix.blocks.email;
    const actor = body.user.id;
    const ws = workspaceOf(body);
    const teamId = ws.teamId;
    const email = textOf(view.state.values[block]?.[BounceFix.actions.email]).trim();
    const metadata = metadataOf(metadataSchema, view.private_metadata, { bounceId: '' });
    const bounce = await getBounce(deps.db, ws, metadata.bounceId);
    if (!bounce)
      return ack({ response_action: 'errors', errors: { [block]: 'This bounced card is not known any more.' } });
    const problem = checkCorrectedEmail(email, bounce.email);
    if (problem) return ack({ response_action: 'errors', errors: { [block]: problem } });
    const admin = bounce.senderUserId === actor ? false : await deps.isAdmin(ws, actor);
    if (bounce.senderUserId !== actor && !admin)
      return ack({
        response_action: 'errors',
        errors: { [block]: 'Only the sender of these kudos (or an admin) can resend the card.' },
      });
    if (bounce.status === 'resent' || (bounce.status === 'resending' && resendInProgress(bounce, deps.now())))
      return ack({
        response_action: 'errors',
        errors: {
          [block]:
            bounce.status === 'resent'
              ? `Already resent to ${bounce.correctedEmail ?? 'the corrected address'}.`
              : 'A resend is already in progress.',
        },
      });
    await ack();

    const outcome = await resendBouncedCard(
      { db: deps.db, rewards: deps.rewards, logger: deps.logger },
      { bounceId: bounce.id, teamId, actorUserId: actor, actorIsAdmin: admin, newEmail: email },
    );
    const latest = outcome.row ?? bounce;
    // The sender's one DM is brought up to date (resent, or why not with the button again).
    if (outcome.ok || (outcome.row && (outcome.code === 'already_resent' || outcome.code === 'api_error'))) {
      await tellResendOutcome({ db: deps.db, chat: deps.slack, present: presentNotice }, latest, {
        resent: latest.status === 'resent',
        note: outcome.ok ? outcome.note : undefined,
      });
      return;
    }
    await deps.slack.for(ws).sendDirectMessage(actor, { text: outcome.message });
  });
}
