// The one-line confirmation's buttons. Send checks the send again (as the form's Send does: people,
// design, amount, approvals, budgets, limits), records it under the confirmation's key (a second
// click or a redelivered action finds the first send: one kudos, one order) and replaces the
// confirmation with one line of the outcome. Edit opens the send form with the same send filled in.
import type { App, RespondFn } from '@slack/bolt';

import { findOneLineSend, oneLineExpired, oneLineSourceKey } from '../../domain/sending/one-line.js';
import { recordPreparedSend, SendRefusedOnRecord, startRecordedSend } from '../../domain/sending/record-send.js';
import { listCompanyValues } from '../../domain/workspaces/company-values.js';
import { OneLine } from '../ids.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import { buttonClick, buttonOpeningModal, parseAtEdge } from '../listening/payloads.js';
import { ONE_LINE_EDITED, ONE_LINE_EXPIRED, oneLineNotSent, oneLineOutcome } from './one-line-blocks.js';
import { checkFailedLine, prepareOneLine, refusalLine } from './one-line-command.js';
import { confirmationToken } from './one-line-token.js';
import { openPrefilledSendForm } from './open-send-modal.js';

const sendClick = buttonClick(confirmationToken);
const editClick = buttonOpeningModal(confirmationToken);

/** Replaces the confirmation with one line (its buttons go with it). */
const replaceWith = (respond: RespondFn, text: string) =>
  respond({ replace_original: true, response_type: 'ephemeral', text });

export function registerOneLineActions(app: App, deps: ListenerDeps): void {
  app.action(OneLine.actions.send, async ({ ack, body: raw, respond, context }) => {
    const body = parseAtEdge(sendClick, raw, OneLine.actions.send);
    await ack();
    const confirmation = body.actions[0].value;
    const ws = workspaceOf(body);
    const log = deps.logger.child({ action: OneLine.actions.send, user: body.user.id, confirmation: confirmation.id });
    // Only the sender sees the confirmation; a click by anyone else is not theirs to send.
    if (confirmation.senderUserId !== body.user.id) return log.warn('a one-line confirmation clicked by another user');
    if (oneLineExpired(confirmation.createdAtMs, deps.now()))
      return void (await replaceWith(respond, ONE_LINE_EXPIRED));
    const earlier = await findOneLineSend(deps.db, ws.teamId, confirmation.id);
    if (earlier) return void (await replaceWith(respond, oneLineOutcome(earlier, false)));

    let prepared;
    try {
      prepared = await prepareOneLine(deps, {
        ws,
        userId: body.user.id,
        channelId: confirmation.channelId || undefined,
        botUserId: context.botUserId,
        sourceKey: oneLineSourceKey(confirmation.id),
        send: confirmation.send,
      });
    } catch (error) {
      // Not the send's fault: a new line, and the confirmation stays for another press of Send.
      log.warn('checking a one-line send failed', { error });
      return void (await respond({
        response_type: 'ephemeral',
        replace_original: false,
        text: checkFailedLine(error),
      }));
    }
    if (!prepared.ok) return void (await replaceWith(respond, oneLineNotSent(refusalLine(prepared))));
    let recorded;
    try {
      recorded = await recordPreparedSend(deps.db, prepared);
    } catch (error) {
      // Another send took what was left of the allowance since the check: nothing recorded.
      if (error instanceof SendRefusedOnRecord) return void (await replaceWith(respond, oneLineNotSent(error.message)));
      throw error;
    }
    log.info(recorded.created ? 'one-line send recorded' : 'one-line send already recorded (second click)', {
      kudosId: recorded.row.id,
      totalCents: recorded.row.totalCents,
    });
    await replaceWith(respond, oneLineOutcome(recorded.row, Boolean(recorded.approvalReason)));
    await startRecordedSend(deps, recorded);
  });

  app.action(OneLine.actions.edit, async ({ ack, body: raw, respond }) => {
    const body = parseAtEdge(editClick, raw, OneLine.actions.edit);
    await ack();
    const confirmation = body.actions[0].value;
    const ws = workspaceOf(body);
    const log = deps.logger.child({ action: OneLine.actions.edit, user: body.user.id, confirmation: confirmation.id });
    if (confirmation.senderUserId !== body.user.id) return log.warn('a one-line confirmation clicked by another user');
    if (oneLineExpired(confirmation.createdAtMs, deps.now()))
      return void (await replaceWith(respond, ONE_LINE_EXPIRED));
    const earlier = await findOneLineSend(deps.db, ws.teamId, confirmation.id);
    if (earlier) return void (await replaceWith(respond, oneLineOutcome(earlier, false)));
    const { send } = confirmation;
    // The value as the confirmation named it, while it is still the same (the form shows the pick again otherwise).
    const value = send.value
      ? (await listCompanyValues(deps.db, ws.teamId)).find(
          (v) => v.id === send.value!.id && v.revision === send.value!.revision,
        )
      : undefined;
    await openPrefilledSendForm(deps, {
      ws,
      userId: body.user.id,
      triggerId: body.trigger_id,
      channelId: confirmation.channelId || undefined,
      prefill: {
        userIds: send.userIds,
        ...(send.group ? { groups: [send.group] } : {}),
        message: send.message,
        ...(send.face !== undefined
          ? { brandPick: { productId: send.productId, face: send.face } }
          : { amountDollars: send.amountDollars, productId: send.productId }),
        ...(value ? { value } : {}),
      },
      respond,
      log,
    });
    // Sent from the form now, never from here as well.
    await replaceWith(respond, ONE_LINE_EDITED);
  });
}
