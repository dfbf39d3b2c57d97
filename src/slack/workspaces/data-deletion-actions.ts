// `/kudos settings` → "Delete our data" (distribution mode): an admin, after Slack's confirmation
// dialog, has every row Kudos keeps for the workspace deleted now (src/domain/workspaces/data-purge.ts).
import type { App } from '@slack/bolt';
import { z } from 'zod';

import { SettingsModal } from '../ids.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import { buttonClick, parseAtEdge } from '../listening/payloads.js';

const click = buttonClick(z.unknown().optional()).extend({ view: z.looseObject({ id: z.string() }).optional() });

export function registerDataDeletionActions(app: App, deps: ListenerDeps): void {
  app.action(SettingsModal.actions.deleteData, async ({ ack, body: raw }) => {
    const body = parseAtEdge(click, raw, SettingsModal.actions.deleteData);
    await ack();
    const ws = workspaceOf(body);
    const actor = body.user.id;
    const slack = deps.slack.for(ws);
    if (!deps.installations?.requestDeletion || !(await deps.isAdmin(ws, actor))) {
      await slack.sendDirectMessage(actor, { text: ':no_entry: Only Kudos admins can delete the workspace’s data.' });
      return;
    }
    await deps.installations.requestDeletion(ws, actor);
    await slack.sendDirectMessage(actor, {
      text: ':wastebasket: Done: everything Kudos kept for this workspace is deleted (kudos history, settings, audit trail, celebrations).',
    });
  });
}
