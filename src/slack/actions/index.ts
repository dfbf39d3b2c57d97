// Buttons: Cancel on the scheduled list (only the sender or an admin), and Home's "Give kudos".
import type { App } from '@slack/bolt';
import { z } from 'zod';
import { cancelScheduledSend, isCancellable } from '../../domain/sending/cancel-scheduled.js';
import { listScheduled } from '../../domain/sending/kudos-store.js';
import { formatUsd } from '../../domain/common/money.js';
import { buildScheduledList, sendRecipients } from '../blocks/messages.js';
import { namingMrkdwn } from '../kit/mrkdwn.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import { Home, ScheduledList } from '../ids.js';
import { openSendModal } from '../sending/open-send-modal.js';
import { buttonClick, parseAtEdge, uuidValue } from '../listening/payloads.js';
import { register as registerApprovalActions } from '../approvals/approval-actions.js';
import { register as registerHomeActions } from '../home/home-actions.js';
import { registerResendActions } from '../orders/resend-actions.js';
import { register as registerFinanceActions } from '../finance/finance-actions.js';
import { registerTemplates } from '../finance/email-templates.js';
import { registerCampaigns } from '../finance/campaigns.js';
import { register as registerSendCampaign } from '../sending/send-with-campaign.js';
import { register as registerAutomationActions } from '../automations/automation-actions.js';
import { register as registerLinkApprovalActions } from '../reward-links/link-approval-actions.js';
import { register as registerWorkspaceDataActions } from '../workspaces/data-deletion-actions.js';

const cancelClick = buttonClick(uuidValue);
/** Home's button carries no value; opening a modal needs the click's trigger_id. */
const homeClick = buttonClick(z.unknown().optional()).extend({ trigger_id: z.string().min(1) });

export function register(app: App, deps: ListenerDeps): void {
  registerResendActions(app, deps);
  registerApprovalActions(app, deps);
  registerHomeActions(app, deps);
  registerFinanceActions(app, deps);
  registerTemplates(app, deps);
  registerCampaigns(app, deps);
  registerSendCampaign(app, deps);
  registerAutomationActions(app, deps);
  registerLinkApprovalActions(app, deps);
  registerWorkspaceDataActions(app, deps);
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
    const note = outcome.ok
      ? `:no_entry_sign: Cancelled: ${sendRecipients(outcome.row, outcome.row.recipientCount, 5)} · ${formatUsd(outcome.row.amountCents)} each. The amount is back in the balance.`
      : `:warning: ${namingMrkdwn(outcome.message)}`;
    // The list is ephemeral (Slack does not send it back): rebuild it and replace it in place.
    const now = deps.now();
    const rows = await listScheduled(deps.db, { teamId: ws.teamId, ...(admin ? {} : { senderUserId: actor }), now });
    const content = buildScheduledList(
      rows.map((row) => ({
        row,
        cancellable:
          isCancellable(row, now) &&
          !(outcome.ok === false && outcome.reason === 'too_late' && outcome.row?.id === row.id),
      })),
      { showSender: admin, note },
    );
    await respond({ replace_original: true, response_type: 'ephemeral', ...content });
  });

  app.action(Home.actions.openSendModal, async ({ ack, body: raw }) => {
    const body = parseAtEdge(homeClick, raw, Home.actions.openSendModal);
    await ack();
    await openSendModal(deps, { ws: workspaceOf(raw), userId: body.user.id, triggerId: body.trigger_id });
  });
}
