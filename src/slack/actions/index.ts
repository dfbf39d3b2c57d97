// Buttons: Cancel on the scheduled list (only the sender or an admin), and Home's "Give kudos".
import type { App } from '@slack/bolt';
import { cancelScheduledSend, isCancellable } from '../../domain/cancel.js';
import { listScheduled } from '../../domain/kudos-store.js';
import { formatUsd } from '../../domain/money.js';
import { buildScheduledList, recipientList } from '../blocks/messages.js';
import type { ListenerDeps } from '../deps.js';
import { workspaceOf } from '../deps.js';
import { Home, ScheduledList } from '../ids.js';
import { openSendModal } from '../open-send-modal.js';
import { register as registerApprovalActions } from './approval.js';
import { register as registerHomeActions } from './home.js';
import { registerResendActions } from './resend.js';

export function register(app: App, deps: ListenerDeps): void {
  registerResendActions(app, deps);
  registerApprovalActions(app, deps);
  registerHomeActions(app, deps);
  app.action(ScheduledList.actions.cancel, async ({ ack, body, action, respond }) => {
    await ack();
    const kudosId = 'value' in action && typeof action.value === 'string' ? action.value : '';
    const actor = body.user.id;
    const ws = workspaceOf(body as never);
    const admin = await deps.isAdmin(ws, actor);
    const outcome = await cancelScheduledSend(
      { db: deps.db, rewards: deps.rewards, logger: deps.logger },
      { kudosId, teamId: ws.teamId, actorUserId: actor, actorIsAdmin: admin, now: deps.now() },
    );
    const note = outcome.ok
      ? `:no_entry_sign: Cancelled: ${recipientList(outcome.row.recipients, 5)} · ${formatUsd(outcome.row.amountCents)} each. The amount is back in the balance.`
      : `:warning: ${outcome.message}`;
    // The list is ephemeral (Slack does not send it back): rebuild it and replace it in place.
    const now = deps.now();
    const rows = await listScheduled(deps.db, { teamId: ws.teamId, ...(admin ? {} : { senderUserId: actor }), now });
    const content = buildScheduledList(
      rows.map((row) => ({ row, cancellable: isCancellable(row, now) && !(outcome.ok === false && outcome.reason === 'too_late' && outcome.row?.id === row.id) })),
      { showSender: admin, note },
    );
    await respond({ replace_original: true, response_type: 'ephemeral', ...content });
  });

  app.action(Home.actions.openSendModal, async ({ ack, body }) => {
    await ack();
    const trigger = (body as { trigger_id?: string }).trigger_id;
    if (!trigger) return;
    await openSendModal(deps, { userId: body.user.id, triggerId: trigger });
  });
}
