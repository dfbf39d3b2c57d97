// Home's "Give kudos" opens the send form.
import type { App } from '@slack/bolt';
import { z } from 'zod';

import { Home } from '../ids.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import { buttonClick, parseAtEdge } from '../listening/payloads.js';
import { openSendModal } from './open-send-modal.js';

/** Home's button carries no value; opening a modal needs the click's trigger_id. */
const homeClick = buttonClick(z.unknown().optional()).extend({ trigger_id: z.string().min(1) });

export function registerHomeButton(app: App, deps: ListenerDeps): void {
  app.action(Home.actions.openSendModal, async ({ ack, body: raw }) => {
    const body = parseAtEdge(homeClick, raw, Home.actions.openSendModal);
    await ack();
    await openSendModal(deps, { ws: workspaceOf(raw), userId: body.user.id, triggerId: body.trigger_id });
  });
}
