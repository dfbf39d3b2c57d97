// "Fix address and resend" button, in the sender's DM or on App Home: opens the modal (only for the
// sender or an admin). A refusal (stale button, someone else's bounce) goes to the clicker only:
// ephemerally in the DM, as a line on top of Home on Home (which has no response_url).
import type { App } from '@slack/bolt';
import { z } from 'zod';

import { getBounce } from '../../domain/orders/bounce-resend.js';
import { tellResendOutcome } from '../../domain/orders/resend-notices.js';
import { BounceFix } from '../ids.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import { buttonClick, parseAtEdge, uuidValue } from '../listening/payloads.js';
import { presentNotice } from '../notices/present-notice.js';
import { buildBounceFixModal } from './resend-modal-blocks.js';

const bounceClick = buttonClick(uuidValue).extend({ view: z.looseObject({ type: z.string().optional() }).optional() });

export function registerResendActions(app: App, deps: ListenerDeps): void {
  app.action(BounceFix.actions.open, async ({ ack, body: raw, respond }) => {
    const body = parseAtEdge(bounceClick, raw, BounceFix.actions.open);
    await ack();
    const bounceId = body.actions[0].value;
    const trigger = body.trigger_id;
    const actor = body.user.id;
    const ws = workspaceOf(body);
    const bounce = await getBounce(deps.db, ws, bounceId);
    // Through response_url: an ephemeral note works in the sender's DM for whoever clicked. On Home:
    // a line on top of the clicker's Home.
    const tell = async (text: string) => {
      if (body.view?.type === 'home') await deps.home.publish(ws, actor, { flash: `:warning: ${text}` });
      else await respond({ response_type: 'ephemeral', replace_original: false, text });
    };
    if (!bounce) return tell('This bounced card is not known any more.');
    if (bounce.senderUserId !== actor && !(await deps.isAdmin(ws, actor)))
      return tell('Only the sender of these kudos (or an admin) can fix the address.');
    if (bounce.status === 'resent') {
      await tellResendOutcome({ db: deps.db, chat: deps.slack, present: presentNotice }, bounce, { resent: true });
      return tell(`Already resent to ${bounce.correctedEmail ?? 'the corrected address'}.`);
    }
    if (!trigger) return tell('Slack did not let this click open the form; click the button again.');
    // The clicked message: the DM's ts may not be stored yet if the click came right after posting.
    const container = body.container;
    const message =
      container?.channel_id && container.message_ts
        ? { channel: container.channel_id, ts: container.message_ts }
        : undefined;
    await deps.slack.for(ws).openView(
      trigger,
      buildBounceFixModal({
        bounceId: bounce.id,
        email: bounce.email,
        name: bounce.name,
        ...(message ? { message } : {}),
      }),
    );
  });
}
