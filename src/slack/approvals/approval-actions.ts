// Approve / Reject on an approval request. Approve decides at once; Reject first checks who is
// clicking, then opens a modal for an optional reason (the decision happens on its submission).
// Refusals (not an approver, own request, already decided) go only to the clicker, ephemerally.
import type { App } from '@slack/bolt';
import { z } from 'zod';

import type { ApprovalMessageRef } from '../../db/schema/index.js';
import { isChatRefusal } from '../../domain/common/ports.js';
import { Approval } from '../ids.js';
import { namingMrkdwn } from '../kit/mrkdwn.js';
import { ANSWER_BUDGET_MS, answerBy, secondsToWait } from '../listening/deadline.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import { buttonClick, parseAtEdge, uuidValue } from '../listening/payloads.js';
import { buildRejectModal, rejectSummary } from './approval-blocks.js';

type Respond = (message: { response_type: 'ephemeral'; replace_original: false; text: string }) => Promise<unknown>;

/** A click on Approve or Reject, in a channel, a DM or App Home (a view of type home). */
const click = buttonClick(uuidValue).extend({ view: z.looseObject({ type: z.string().optional() }).optional() });
type ClickBody = z.output<typeof click>;

/** The request message the click came from: none on App Home (or in an ephemeral message). */
function clickedMessage(body: Pick<ClickBody, 'container'>): ApprovalMessageRef | undefined {
  const c = body.container;
  return c?.channel_id && c.message_ts && c['is_ephemeral'] !== true
    ? { channel: c.channel_id, ts: c.message_ts }
    : undefined;
}

/** The click came from App Home (no channel, no response_url): answers go on Home itself. */
function onHome(body: ClickBody): boolean {
  return body.view?.type === 'home';
}

/** Only the clicker sees it: on Home, through the response_url, or chat.postEphemeral when there is none. */
async function refuse(deps: ListenerDeps, body: ClickBody, respond: Respond, text: string): Promise<void> {
  const message = `:no_entry: ${text}`;
  if (onHome(body)) {
    await deps.home.publish(workspaceOf(body), body.user.id, { flash: message });
    return;
  }
  if (body.response_url) {
    await respond({ response_type: 'ephemeral', replace_original: false, text: message });
    return;
  }
  if (body.channel?.id)
    await deps.slack.for(workspaceOf(body)).postEphemeral(body.channel.id, body.user.id, { text: message });
}

export function registerApprovalActions(app: App, deps: ListenerDeps): void {
  app.action(Approval.actions.approve, async ({ ack, body: raw, respond }) => {
    const body = parseAtEdge(click, raw, Approval.actions.approve);
    await ack();
    const outcome = await deps.approvals.decide(
      body.actions[0].value,
      { userId: body.user.id, teamId: workspaceOf(body).teamId, seenIn: clickedMessage(body) },
      { kind: 'approve' },
    );
    if (!outcome.ok) {
      await refuse(deps, body, respond, namingMrkdwn(outcome.message));
      return outcome.announce?.();
    }
    // On Home the request leaves the list at once; the channel copies and the sender follow.
    if (onHome(body))
      await deps.home.publish(workspaceOf(body), body.user.id, {
        flash: ':white_check_mark: Approved. The card is being sent.',
      });
    await outcome.announce();
  });

  app.action(Approval.actions.reject, async ({ ack, body: raw, respond }) => {
    const clickedAt = Date.now();
    const body = parseAtEdge(click, raw, Approval.actions.reject);
    await ack();
    const seenIn = clickedMessage(body);
    // The trigger_id dies 3 s after the click: who may decide (the approvers' group, from Slack) is
    // read under that deadline (deadline.ts), or the clicker is told when to click again.
    let checked: Awaited<ReturnType<typeof deps.approvals.checkDecider>>;
    try {
      checked = await answerBy(clickedAt + ANSWER_BUDGET_MS, () =>
        deps.approvals.checkDecider(body.actions[0].value, {
          userId: body.user.id,
          teamId: workspaceOf(body).teamId,
          seenIn,
        }),
      );
    } catch (error) {
      if (!isChatRefusal(error, 'rate_limited')) throw error;
      return refuse(
        deps,
        body,
        respond,
        `Slack is busy right now (its rate limit), so Kudos could not check that you may decide. Click Reject again in ${secondsToWait(error.retryAfterSeconds)} s.`,
      );
    }
    if (!checked.ok) {
      await refuse(deps, body, respond, namingMrkdwn(checked.message));
      return checked.announce?.();
    }
    if (!body.trigger_id)
      return refuse(deps, body, respond, 'Slack did not let this click open the reason form; click Reject again.');
    await deps.slack
      .for(workspaceOf(body))
      .openView(
        body.trigger_id,
        buildRejectModal({ kudosId: checked.request.kudos.id, summary: rejectSummary(checked.request.kudos), seenIn }),
      );
  });
}
