// The "Fix address" modal: the address is checked inline (response_action: errors); then the modal
// closes, the card is resent in the background and the DM with the button is updated.
import type { App } from '@slack/bolt';
import { checkCorrectedEmail, getBounce, resendBouncedCard } from '../../domain/resend.js';
import { buildBounceResendFailed, buildBounceResolved } from '../blocks/notification-messages.js';
import type { ListenerDeps } from '../deps.js';
import { workspaceOf } from '../deps.js';
import { BounceFix } from '../ids.js';

function bounceIdOf(privateMetadata: string | undefined): string {
  try {
    const parsed = JSON.parse(privateMetadata || '{}') as { bounceId?: unknown };
    return typeof parsed.bounceId === 'string' ? parsed.bounceId : '';
  } catch {
    return '';
  }
}

export function registerResendViews(app: App, deps: ListenerDeps): void {
  app.view(BounceFix.callbackId, async ({ ack, body, view }) => {
    const block = BounceFix.blocks.email;
    const actor = body.user.id;
    const teamId = workspaceOf(body as never).teamId;
    const values = view.state.values as Record<string, Record<string, { value?: string | null }>>;
    const email = (values[block]?.[BounceFix.actions.email]?.value ?? '').trim();
    const bounce = await getBounce(deps.db, bounceIdOf(view.private_metadata));
    if (!bounce || bounce.teamId !== teamId) return ack({ response_action: 'errors', errors: { [block]: 'This bounced card is not known any more.' } });
    const problem = checkCorrectedEmail(email, bounce.email);
    if (problem) return ack({ response_action: 'errors', errors: { [block]: problem } });
    const admin = bounce.senderUserId === actor ? false : await deps.isAdmin(actor);
    if (bounce.senderUserId !== actor && !admin) return ack({ response_action: 'errors', errors: { [block]: 'Only the sender of these kudos (or an admin) can resend the card.' } });
    if (bounce.status !== 'open') return ack({ response_action: 'errors', errors: { [block]: bounce.status === 'resent' ? `Already resent to ${bounce.correctedEmail ?? 'the corrected address'}.` : 'A resend is already in progress.' } });
    await ack();

    const outcome = await resendBouncedCard(
      { db: deps.db, rewards: deps.rewards, logger: deps.logger },
      { bounceId: bounce.id, teamId, actorUserId: actor, actorIsAdmin: admin, newEmail: email },
    );
    const where = bounce.dmChannel && bounce.dmTs ? { channel: bounce.dmChannel, ts: bounce.dmTs } : undefined;
    if (outcome.ok) {
      if (where) await deps.slack.updateMessage(where.channel, where.ts, buildBounceResolved(outcome.row, email, outcome.note));
      else await deps.slack.sendDirectMessage(actor, buildBounceResolved(outcome.row, email, outcome.note));
      return;
    }
    if (outcome.reason === 'failed' && where && outcome.row) {
      await deps.slack.updateMessage(where.channel, where.ts, buildBounceResendFailed(outcome.row, outcome.message));
      return;
    }
    await deps.slack.sendDirectMessage(actor, { text: outcome.message });
  });
}
