// Cancel on the `/kudos scheduled` list: only the sender or an admin; the list is answered again in place.
import type { App } from '@slack/bolt';

import { cancelScheduledSend, isCancellable } from '../../domain/sending/cancel-scheduled.js';
import { listScheduled } from '../../domain/sending/kudos-store.js';
import { tellSenderCancelled } from '../../domain/sending/sender-dm.js';
import { ScheduledList } from '../ids.js';
import { namingMrkdwn } from '../kit/mrkdwn.js';
import { cardEach, sendRecipients } from '../kit/recipients.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import { buttonClick, parseAtEdge, uuidValue } from '../listening/payloads.js';
import { presentNotice } from '../notices/present-notice.js';
import { buildScheduledList } from './scheduled-blocks.js';

const cancelClick = buttonClick(uuidValue);

export function registerCancelScheduled(app: App, deps: ListenerDeps): void {
  app.action(ScheduledList.actions.cancel, async ({ ack, body: raw, respond }) => {
    const body = parseAtEdge(cancelClick, raw, ScheduledList.actions.cancel);
    await ack();
    const kudosId = body.actions[0].value;
    const actor = body.user.id;
    const ws = workspaceOf(body);
    const admin = await deps.isAdmin(ws, actor);
    const outcome = await cancelScheduledSend(
      { db: deps.db, rewards: deps.rewards, logger: deps.logger },
      { kudosId, teamId: ws.teamId, actorUserId: actor, actorIsAdmin: admin, now: deps.now() },
    );
    // The sender's DM about the send says it was cancelled (in place); the list answers the clicker.
    if (outcome.ok)
      await tellSenderCancelled({ db: deps.db, chat: deps.slack, present: presentNotice }, outcome.row).catch(
        (error: unknown) => deps.logger.warn('telling the sender of the cancel failed', { kudosId, error }),
      );
    const note = outcome.ok
      ? `:no_entry_sign: Cancelled: ${sendRecipients(outcome.row, outcome.row.recipientCount, 5)} · ${cardEach(outcome.row)}. The amount is back in the balance.`
      : `:warning: ${namingMrkdwn(outcome.message)}`;
    // The list is ephemeral (Slack does not send it back): rebuild it and replace it in place.
    const now = deps.now();
    const rows = await listScheduled(deps.db, { teamId: ws.teamId, ...(admin ? {} : { senderUserId: actor }), now });
    const content = buildScheduledList(
      rows.map((row) => ({
        row,
        cancellable:
          isCancellable(row, now) &&
          !(outcome.ok === false && outcome.code === 'too_late' && outcome.row?.id === row.id),
      })),
      { showSender: admin, note },
    );
    await respond({ replace_original: true, response_type: 'ephemeral', ...content });
  });
}
