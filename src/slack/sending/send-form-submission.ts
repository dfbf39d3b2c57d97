// The send modal's submission: errors inline (response_action: errors, keyed by block_id), or the
// send is recorded (with its idempotency key) and the modal closes; the worker places it.
import type { App } from '@slack/bolt';
import { z } from 'zod';

import type { KudosRow } from '../../db/schema/index.js';
import { faceAmount } from '../../domain/branded/card-amounts.js';
import { formatUsd } from '../../domain/common/money.js';
import { isChatRefusal } from '../../domain/common/ports.js';
import { formRefused } from '../../domain/common/refusal.js';
import { getCampaign } from '../../domain/finance/campaigns.js';
import { type PreparedSend, prepareSend, type SendField, type SendForm } from '../../domain/sending/check-send.js';
import {
  type RecordedSend,
  recordPreparedSend,
  SendRefusedOnRecord,
  startRecordedSend,
} from '../../domain/sending/record-send.js';
import { listCompanyValues } from '../../domain/workspaces/company-values.js';
import { COMMAND, GroupValuePrefix, NO_TEMPLATE, RefundChoice, SendBrand, SendModal, TimingChoice } from '../ids.js';
import { brandedOf } from '../kit/card-amounts.js';
import { section } from '../kit/mrkdwn.js';
import { escapeMrkdwn } from '../kit/mrkdwn-escape.js';
import { peopleCount } from '../kit/recipients.js';
import { ANSWER_BUDGET_MS, answerByAnswered, secondsToWait } from '../listening/deadline.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import { metadataOf, parseAtEdge, type StateValues, textOf, viewSubmission } from '../listening/payloads.js';
import { brandBlockId } from './brand-blocks.js';
import { faceIn } from './brand-fields.js';
import {
  buildSendAccepted,
  buildSendChecking,
  buildSendNotSent,
  filledBlockId,
  isSafePermalink,
  pickedValueOf,
} from './send-modal-blocks.js';

/** Stay under Slack's 3 s: the paced lookups book only slots they can use before this. */
const SUBMIT_BUDGET_MS = ANSWER_BUDGET_MS;
/**
 * Checks still running after this are handed off: the form is answered "checking" and the send goes
 * on after the answer. Before the 2 s at which a shared read still waiting is given up (untilDeadline).
 */
const HAND_OFF_MS = 1700;

/** The brand picked and its amount as typed in its currency, when the form shows the brand fields. */
function brandedPick(values: StateValues, fill: string | undefined): Pick<SendForm, 'productId' | 'amount'> {
  const picked = values[brandBlockId('brand', fill)]?.[SendBrand.actions.brand]?.selected_option?.value;
  return { productId: picked ?? undefined, amount: faceIn(values, fill) ?? '' };
}

export function readSendForm(values: StateValues, fill?: string, card?: 'brand'): SendForm {
  const { blocks: B, actions: A } = SendModal;
  const get = (block: string, action: string) => values[block]?.[action];
  const filled = (block: string, action: string) => get(filledBlockId(block, fill), action);
  const template = filled(B.template, A.template)?.selected_option?.value;
  const groupOption = get(B.group, A.group)?.selected_option;
  let group: SendForm['group'];
  if (groupOption?.value?.startsWith(GroupValuePrefix.slack)) {
    group = {
      kind: 'slack',
      id: groupOption.value.slice(GroupValuePrefix.slack.length),
      ...(groupOption.text?.text ? { label: groupOption.text.text } : {}),
    };
  } else if (groupOption?.value?.startsWith(GroupValuePrefix.addressBook)) {
    group = {
      kind: 'addressBook',
      id: groupOption.value.slice(GroupValuePrefix.addressBook.length),
      ...(groupOption.text?.text ? { label: groupOption.text.text } : {}),
    };
  }
  const refund = get(B.refund, A.refund)?.selected_option?.value;
  const timing = get(B.timing, A.timing)?.selected_option?.value ?? TimingChoice.now;
  return {
    userIds: get(B.recipients, A.recipients)?.selected_users ?? [],
    group,
    ...(card === 'brand'
      ? { cardType: 'BRANDED_CARD' as const, ...brandedPick(values, fill) }
      : {
          productId: filled(B.design, A.design)?.selected_option?.value ?? undefined,
          amount: filled(B.amount, A.amount)?.value ?? undefined,
        }),
    campaignId: get(B.campaign, A.campaign)?.selected_option?.value ?? undefined,
    template: template === undefined ? undefined : template === NO_TEMPLATE ? null : template,
    message: textOf(get(B.message, A.message)),
    value: pickedValueOf(get(B.value, A.value)?.selected_option?.value),
    refundDays: refund && refund !== RefundChoice.none ? Number(refund) : undefined,
    schedule:
      timing === TimingChoice.schedule
        ? {
            date: get(B.date, A.date)?.selected_date ?? undefined,
            time: get(B.time, A.time)?.selected_time ?? undefined,
          }
        : undefined,
  };
}

/**
 * The block of each field in the modal as it is now (a campaign's fill renames three of them; with
 * the brand fields shown, design and amount are the brand picker and the brand's amount).
 */
function fieldBlocks(fill: string | undefined, card?: 'brand'): Record<SendField, string> {
  const B = SendModal.blocks;
  return {
    recipients: B.recipients,
    group: B.group,
    campaign: B.campaign,
    design: card === 'brand' ? brandBlockId('brand', fill) : filledBlockId(B.design, fill),
    amount: card === 'brand' ? brandBlockId('face', fill) : filledBlockId(B.amount, fill),
    template: filledBlockId(B.template, fill),
    message: B.message,
    value: B.value,
    refund: B.refund,
    date: B.date,
    time: B.time,
  };
}

/** The inline error when Slack's rate limit leaves no time to check the people now. */
function slackBusy(retryAfterSeconds: number | undefined): string {
  return `Slack is busy right now (its rate limit), so the people could not be checked. Nothing was sent. Press Send again in ${secondsToWait(retryAfterSeconds)} s.`;
}

export const sendMetadata = z.object({
  channelId: z.string().optional(),
  sourceMessageUrl: z.string().optional(),
  fill: z.string().max(20).optional(),
  more: z.boolean().optional(),
  card: z.literal('brand').optional(),
});

function safePermalinkOr(url: string | undefined): string | undefined {
  return isSafePermalink(url) ? url : undefined;
}

export function registerSendFormSubmission(app: App, deps: ListenerDeps): void {
  app.view(SendModal.callbackId, async ({ ack, body: raw, context }) => {
    const body = parseAtEdge(viewSubmission, raw, SendModal.callbackId);
    const view = body.view;
    const ws = workspaceOf(body);
    const log = deps.logger.child({ view: SendModal.callbackId, user: body.user.id, viewId: view.id });
    const metadata = metadataOf(sendMetadata, view.private_metadata, {});
    const form = readSendForm(view.state.values, metadata.fill, metadata.card);

    // Slack's limits: a lookup whose slot comes too late for this answer is refused, not booked
    // (deadline.ts). Checks that are only slow (a big group read page by page, as slowly as Slack
    // answers) are handed off at HAND_OFF_MS: the form is answered "checking", and the send goes on.
    let answered: () => void = () => {};
    const work = answerByAnswered(Date.now() + SUBMIT_BUDGET_MS, async (answer) => {
      answered = answer;
      const [sender, settings] = await Promise.all([deps.slack.for(ws).userInfo(body.user.id), deps.settings.get(ws)]);
      if (!sender) return formRefused<SendField>({ recipients: 'Slack did not tell us who you are; try again.' });
      return prepareSend(
        {
          users: deps.slack,
          rewards: deps.rewards,
          catalog: deps.catalog.of(ws),
          branded: { db: deps.db, brands: deps.brands.of(ws) },
          policy: deps.policy,
          campaign: (teamId, id) => getCampaign(deps.db, teamId, id),
          values: (teamId) => listCompanyValues(deps.db, teamId),
        },
        {
          workspace: ws,
          sender,
          originChannelId: metadata.channelId,
          sourceMessageUrl: safePermalinkOr(metadata.sourceMessageUrl),
          sourceViewId: view.id,
          now: deps.now(),
          botUserId: context.botUserId,
          cardRecipients: settings.cardRecipients,
          // A form opened before the workspace had values has no field to show the error on: it sends without one.
          valuesRequired: settings.valuesRequired && SendModal.blocks.value in view.state.values,
          requireMessage: settings.requireMessage,
        },
        form,
      );
    });
    let handOffTimer: NodeJS.Timeout | undefined;
    const handOff = new Promise<'hand_off'>((resolve) => {
      handOffTimer = setTimeout(() => resolve('hand_off'), HAND_OFF_MS);
    });

    let prepared: Awaited<typeof work> | 'hand_off';
    try {
      prepared = await Promise.race([work, handOff]);
    } catch (error) {
      if (isChatRefusal(error, 'rate_limited')) {
        // Slack's rate limit (a 429, or no slot of it left before the answer): nothing booked or recorded.
        log.info('checking the send waits for Slack rate limit', { retryAfterSeconds: error.retryAfterSeconds });
        return ack({
          response_action: 'errors',
          errors: { [SendModal.blocks.recipients]: slackBusy(error.retryAfterSeconds) },
        });
      }
      log.warn('checking the send failed', { error });
      return ack({ response_action: 'errors', errors: { [SendModal.blocks.recipients]: COULD_NOT_CHECK } });
    } finally {
      clearTimeout(handOffTimer);
    }
    if (prepared === 'hand_off') {
      answered(); // from here the checks wait for Slack's slots as background work does
      log.info('checking the send goes on after the answer');
      await ack({ response_action: 'update', view: buildSendChecking(form.group?.label) as never });
      await finishAfterAnswer(deps, { ws, userId: body.user.id, viewId: view.id, shown: metadata, log }, work);
      return;
    }
    const outcome = await recordChecked(deps, prepared, metadata, log);
    if (!outcome.ok) return ack({ response_action: 'errors', errors: outcome.errors });
    await (outcome.notes.length > 0
      ? ack({ response_action: 'update', view: buildSendAccepted(outcome.notes) as never })
      : ack());
    await startRecordedSend(deps, outcome.recorded);
  });
}

/** Could not check: the inline error (and, after the answer, the line) for a failure that is neither a problem with the form nor Slack's limit. */
const COULD_NOT_CHECK =
  'Could not check the recipients or the design right now (Slack or the Rewards API did not answer). Press Send again.';

/** A checked form recorded (once, by its view: a double submission finds the first), or the errors by block. */
async function recordChecked(
  deps: ListenerDeps,
  prepared: PreparedSend,
  /** The form's metadata: which blocks it shows. */
  shown: { fill?: string | undefined; card?: 'brand' | undefined },
  log: ListenerDeps['logger'],
): Promise<{ ok: true; recorded: RecordedSend; notes: string[] } | { ok: false; errors: Record<string, string> }> {
  if (!prepared.ok) {
    const blocks = fieldBlocks(shown.fill, shown.card);
    return {
      ok: false,
      errors: Object.fromEntries(
        Object.entries(prepared.errors).map(([field, message]) => [blocks[field as SendField], message]),
      ),
    };
  }
  // A send that needs approval is recorded as awaiting_approval and posted to approvers (approvals.ts).
  let recorded: RecordedSend;
  try {
    recorded = await recordPreparedSend(deps.db, prepared);
    const { row, created } = recorded;
    log.info(created ? 'send recorded' : 'send already recorded (double submission)', {
      kudosId: row.id,
      totalCents: row.totalCents,
      recipients: row.recipientCount,
      needsApproval: Boolean(recorded.approvalReason),
    });
  } catch (error) {
    // Another send took what was left of the allowance since the form was checked: nothing recorded.
    if (error instanceof SendRefusedOnRecord)
      return { ok: false, errors: { [fieldBlocks(shown.fill, shown.card).amount]: error.message } };
    log.error('recording the send failed', { error });
    return { ok: false, errors: { [SendModal.blocks.message]: 'Could not save this send. Press Send again.' } };
  }
  if (recorded.differs) {
    // The form was edited after Slack lost our first answer: that first send stands (it may be out already).
    const first = recorded.row;
    return {
      ok: false,
      errors: {
        [fieldBlocks(shown.fill, shown.card).amount]:
          `This form was already sent before your changes: ${alreadySent(first)}. It cannot be changed now. Close this window; to send something else, use ${COMMAND} again.`,
      },
    };
  }
  return { ok: true, recorded, notes: prepared.notes };
}

/**
 * The rest of a send whose checks went on after the form was answered: recorded and started as any
 * send (the sender then hears how it goes, as after any send), or the problem shown in the window and
 * sent to the sender in a message (the window may be closed by then). Nothing is recorded on a problem.
 */
async function finishAfterAnswer(
  deps: ListenerDeps,
  at: {
    ws: ReturnType<typeof workspaceOf>;
    userId: string;
    viewId: string;
    shown: { fill?: string | undefined; card?: 'brand' | undefined };
    log: ListenerDeps['logger'];
  },
  work: Promise<PreparedSend>,
): Promise<void> {
  const slack = deps.slack.for(at.ws);
  const tell = async (problems: string[]) => {
    await slack
      .updateView(at.viewId, buildSendNotSent(problems))
      .catch((error: unknown) => at.log.info('the send window is gone', { error }));
    const text = `Your kudos was not sent. ${problems.join(' ')}`;
    await slack
      .sendDirectMessage(at.userId, { text, blocks: [section(escapeMrkdwn(text))] })
      .catch((error: unknown) => at.log.warn('telling the sender failed', { error }));
  };
  let prepared: PreparedSend;
  try {
    prepared = await work;
  } catch (error) {
    at.log.warn('checking the send failed after the answer', { error });
    return tell([
      isChatRefusal(error, 'rate_limited')
        ? slackBusy(error.retryAfterSeconds).replace('Press Send again', `Use ${COMMAND} again`)
        : COULD_NOT_CHECK.replace('Press Send again.', `Use ${COMMAND} again.`),
    ]);
  }
  const outcome = await recordChecked(deps, prepared, at.shown, at.log);
  if (!outcome.ok) return tell([...new Set(Object.values(outcome.errors))]);
  await slack
    .updateView(at.viewId, buildSendAccepted(outcome.notes))
    .catch((error: unknown) => at.log.info('the send window is gone', { error }));
  await startRecordedSend(deps, outcome.recorded);
}

/** "$25 each to 3 people (Thank You cards)"; a brand by its face: "£20 each to 3 people (Tesco Gift Card cards)". */
function alreadySent(first: KudosRow): string {
  const face = brandedOf(first);
  const each = first.recipientCount > 1 ? ' each' : '';
  const amount = face ? faceAmount(face) : formatUsd(first.amountCents);
  return `${amount}${each} to ${peopleCount(first.recipientCount)} (${escapeMrkdwn(first.designName)} ${first.recipientCount > 1 ? 'cards' : 'card'})`;
}
