// Submissions of the money side's modals: the top-up request (amount and billing details checked
// inline, then posted to the admins for a second admin's approval) and the limit-increase request
// (sent at once; a STALE_LIMIT_SNAPSHOT answer re-opens the form with the API's current figures).
import type { App, SlackViewMiddlewareArgs } from '@slack/bolt';
import { z } from 'zod';

import type { BillingDetails, LimitIncreaseRequestRow } from '../../db/schema/index.js';
import { formatUsd } from '../../domain/common/money.js';
import { rememberBilling, rememberedBilling } from '../../domain/finance/billing-details.js';
import { knownLimits, parseLimitDollars, requestLimitIncrease } from '../../domain/finance/spending-limits.js';
import {
  checkBilling,
  isKnownSandbox,
  parseTopUpAmount,
  requestTopUp,
  SANDBOX_TOP_UP_MESSAGE,
} from '../../domain/finance/top-ups.js';
import { Finance } from '../ids.js';
import { plain, section } from '../kit/mrkdwn.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import { metadataOf, parseAtEdge, viewSubmission } from '../listening/payloads.js';
import { buildLimitsModal } from './finance-blocks.js';

const stateSchema = z.record(z.string(), z.record(z.string(), z.looseObject({ value: z.string().nullish() })));

function readTexts(raw: unknown, action: string): Record<string, string> | undefined {
  const parsed = stateSchema.safeParse(raw);
  if (!parsed.success) return undefined;
  const out: Record<string, string> = {};
  for (const [block, actions] of Object.entries(parsed.data)) out[block] = (actions[action]?.value ?? '').trim();
  return out;
}

const topUpMetadata = z.object({ billing: z.enum(['form', 'remembered']) });

function billingFromForm(values: Record<string, string>): BillingDetails {
  const B = Finance.topUpModal.blocks;
  return {
    companyName: values[B.companyName] ?? '',
    phoneNumber: values[B.phoneNumber] ?? '',
    billingAddress: values[B.billingAddress] ?? '',
    city: values[B.city] ?? '',
    state: values[B.state] ?? '',
    country: (values[B.country] ?? '').toUpperCase(),
    zipCode: values[B.zipCode] ?? '',
    ein: values[B.ein] ?? '',
    ...(values[B.companyWebsite] ? { companyWebsite: values[B.companyWebsite] } : {}),
  };
}

/** Stay inside Slack's 3 s for a view submission. */
const LIMIT_REQUEST_BUDGET_MS = 2200;

/** What a view submission's handler reads: the payload, and the ack that answers Slack. */
type ViewArgs = Pick<SlackViewMiddlewareArgs, 'ack' | 'body'>;

export function registerFinanceViews(app: App, deps: ListenerDeps): void {
  app.view(Finance.topUpModal.callbackId, (args) => onTopUpSubmitted(deps, args));
  app.view(Finance.limitsModal.callbackId, (args) => onLimitsSubmitted(deps, args));
}

async function onTopUpSubmitted(deps: ListenerDeps, { ack, body: raw }: ViewArgs): Promise<void> {
  const body = parseAtEdge(viewSubmission, raw, Finance.topUpModal.callbackId);
  const view = body.view;
  const B = Finance.topUpModal.blocks;
  const ws = workspaceOf(body);
  const actor = body.user.id;
  if (!(await deps.isAdmin(ws, actor)))
    return ack({ response_action: 'errors', errors: { [B.amount]: 'Only Kudos admins can ask for a top-up.' } });
  const values = readTexts(view.state.values, Finance.topUpModal.action);
  if (!values)
    return ack({ response_action: 'errors', errors: { [B.amount]: 'The form could not be read; open it again.' } });
  const amount = parseTopUpAmount(values[B.amount]);
  const form = metadataOf(topUpMetadata, view.private_metadata, { billing: 'form' });
  let billing: BillingDetails;
  const errors: Record<string, string> = {};
  if (form.billing === 'remembered') {
    const remembered = await rememberedBilling(deps.db, deps.config.keyRing, ws);
    if (!remembered)
      return ack({
        response_action: 'errors',
        errors: {
          [B.amount]:
            'The saved billing details could not be read (they were removed or their key changed). Click Change billing details and enter them again.',
        },
      });
    billing = remembered;
  } else {
    billing = billingFromForm(values);
    for (const [field, message] of Object.entries(checkBilling(billing))) errors[B[field as keyof typeof B]] = message;
  }
  if (!amount.ok) errors[B.amount] = amount.message;
  if (Object.keys(errors).length > 0) return ack({ response_action: 'errors', errors });
  if (await isKnownSandbox(deps.db, ws))
    return ack({ response_action: 'errors', errors: { [B.amount]: SANDBOX_TOP_UP_MESSAGE.replace(/\*/g, '') } });
  await ack();
  // Kept before the request is recorded: checked details are worth keeping, and a form opened right
  // after this one already asks only for the amount.
  if (form.billing === 'form')
    await rememberBilling(deps.db, deps.config.keyRing, ws, { billing, by: actor, at: deps.now() }).catch(
      (error: unknown) => deps.logger.warn('remembering the billing details failed', { error }),
    );
  const result = await requestTopUp(deps.finance.topUps, ws, {
    requesterUserId: actor,
    amountCents: (amount as { cents: number }).cents,
    note: values[B.note] ?? '',
    billing,
    sourceViewId: view.id,
  });
  // A second submission of the same form: the first one's answer is on its way.
  if (result.ok && result.duplicate) return;
  const text = result.ok
    ? `:hourglass_flowing_sand: Your top-up request of ${formatUsd(result.request.amountCents)} is waiting for a second admin's approval. Nothing is sent to the Rewards API before that.`
    : `:no_entry: ${result.message}`;
  await deps.slack
    .for(ws)
    .sendDirectMessage(actor, { text })
    .catch((error: unknown) => deps.logger.warn('top-up request DM failed', { error }));
}

async function onLimitsSubmitted(deps: ListenerDeps, { ack, body: raw }: ViewArgs): Promise<void> {
  const body = parseAtEdge(viewSubmission, raw, Finance.limitsModal.callbackId);
  const view = body.view;
  const B = Finance.limitsModal.blocks;
  const ws = workspaceOf(body);
  const actor = body.user.id;
  if (!(await deps.isAdmin(ws, actor)))
    return ack({
      response_action: 'errors',
      errors: { [B.requestedDaily]: 'Only Kudos admins can ask for higher limits.' },
    });
  const values = readTexts(view.state.values, Finance.limitsModal.action);
  if (!values)
    return ack({
      response_action: 'errors',
      errors: { [B.requestedDaily]: 'The form could not be read; open it again.' },
    });
  const { errors, cents } = checkLimitFigures(values);
  if (Object.keys(errors).length > 0) return ack({ response_action: 'errors', errors });
  const outcome = await requestLimitIncrease(
    deps.finance.deps,
    ws,
    actor,
    {
      currentDailyCents: cents.currentDaily!,
      currentMonthlyCents: cents.currentMonthly!,
      requestedDailyCents: cents.requestedDaily!,
      requestedMonthlyCents: cents.requestedMonthly!,
    },
    { timeoutMs: LIMIT_REQUEST_BUDGET_MS, sourceViewId: view.id },
  );
  if (outcome.outcome === 'duplicate') {
    // The same form again (a double click, a retry): nothing more is sent; the first request as it stands.
    const first = outcome.request;
    if (first.status === 'pending_review')
      return ack({ response_action: 'update', view: pendingReviewView(first) as never });
    const message =
      first.status === 'sending'
        ? 'This request is already on its way to the Rewards API: wait for its answer.'
        : `${first.message ?? 'This form was sent already.'} To ask again, open the form again (/kudos limits).`;
    return ack({ response_action: 'errors', errors: { [B.requestedDaily]: message } });
  }
  if (outcome.outcome === 'stale') {
    const limits = await knownLimits(deps.db, ws);
    const notice = outcome.current
      ? `:arrows_counterclockwise: *The limits changed since you looked.* The Rewards API's records say ${formatUsd(outcome.current.dailyCents)} a day and ${formatUsd(outcome.current.monthlyCents)} a month: the current figures below are updated. Check your request and send it again.`
      : ':arrows_counterclockwise: *The Rewards API says the current figures are out of date.* Enter them as the Rewards portal shows them now, and send again.';
    return ack({ response_action: 'update', view: buildLimitsModal({ limits, notice }) as never });
  }
  if (outcome.outcome === 'failed')
    return ack({ response_action: 'errors', errors: { [B.requestedDaily]: outcome.message } });
  return ack({ response_action: 'update', view: pendingReviewView(outcome.request) as never });
}

const LIMIT_FIELDS = {
  currentDaily: Finance.limitsModal.blocks.currentDaily,
  currentMonthly: Finance.limitsModal.blocks.currentMonthly,
  requestedDaily: Finance.limitsModal.blocks.requestedDaily,
  requestedMonthly: Finance.limitsModal.blocks.requestedMonthly,
} as const;

/** The four figures in cents, or errors by block: each a dollar amount, and the request above the current limits. */
function checkLimitFigures(values: Record<string, string>): {
  errors: Record<string, string>;
  cents: Partial<Record<keyof typeof LIMIT_FIELDS, number>>;
} {
  const B = Finance.limitsModal.blocks;
  const errors: Record<string, string> = {};
  const cents: Partial<Record<keyof typeof LIMIT_FIELDS, number>> = {};
  for (const [name, block] of Object.entries(LIMIT_FIELDS) as Array<[keyof typeof LIMIT_FIELDS, string]>) {
    const parsed = parseLimitDollars(values[block]);
    if (parsed.ok) cents[name] = parsed.cents;
    else errors[block] = parsed.message;
  }
  if (Object.keys(errors).length === 0) {
    if (cents.requestedDaily! < cents.currentDaily!)
      errors[B.requestedDaily] = 'Ask for at least the current daily limit.';
    if (cents.requestedMonthly! < cents.currentMonthly!)
      errors[B.requestedMonthly] = 'Ask for at least the current monthly limit.';
    if (cents.requestedDaily === cents.currentDaily && cents.requestedMonthly === cents.currentMonthly)
      errors[B.requestedDaily] = 'Ask for a higher daily or monthly limit.';
    if (cents.requestedDaily! > cents.requestedMonthly!)
      errors[B.requestedDaily] = 'The daily limit cannot be above the monthly limit.';
  }
  return { errors, cents };
}

function pendingReviewView(r: LimitIncreaseRequestRow) {
  return {
    type: 'modal',
    callback_id: `${Finance.limitsModal.callbackId}_done`,
    title: plain('Higher spending limits', 24),
    close: plain('Done', 24),
    blocks: [
      section(
        `:hourglass_flowing_sand: *Pending review.* Kudos asked for ${formatUsd(r.requestedDailyCents)} a day and ${formatUsd(r.requestedMonthlyCents)} a month.`,
      ),
      ...(r.message ? [section(r.message.replace(/[<>&]/g, ''))] : []),
    ],
  };
}
