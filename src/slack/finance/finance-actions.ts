// Buttons of the money side: "Request a top-up" (alerts, /kudos balance, App Home), Approve / Reject
// on a top-up request (a second admin; exactly once), "Request higher limits". Admins only, by the
// one admin rule (deps.isAdmin); refusals go only to the clicker.
import type { App } from '@slack/bolt';
import { z } from 'zod';

import type { Workspace } from '../../domain/common/workspace.js';
import { rememberedBilling } from '../../domain/finance/billing-details.js';
import { knownLimits } from '../../domain/finance/spending-limits.js';
import {
  decideTopUp,
  isKnownSandbox,
  lastBilling,
  SANDBOX_TOP_UP_MESSAGE,
  type TopUpDecision,
} from '../../domain/finance/top-ups.js';
import { Finance } from '../ids.js';
import { namingMrkdwn } from '../kit/mrkdwn.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import { buttonClick, buttonOpeningModal, noValue, parseAtEdge, uuidValue } from '../listening/payloads.js';
import { buildLimitsModal, buildTopUpModal } from './finance-blocks.js';

/** "Request a top-up" / "Request higher limits": open a modal. */
const openClick = buttonOpeningModal(noValue);
/** "Change billing details" in the short top-up form: the view it is in, with what was typed. */
const changeBillingClick = buttonClick(noValue).extend({
  view: z.looseObject({
    id: z.string().min(1),
    hash: z.string().optional(),
    state: z.looseObject({ values: z.unknown() }).optional(),
  }),
});

/**
 * The top-up form for a workspace: only the amount when its billing details are remembered (sealed),
 * else every field, prefilled with the last request's.
 */
export async function topUpModalFor(deps: ListenerDeps, ws: Workspace): Promise<Record<string, unknown>> {
  const remembered = await rememberedBilling(deps.db, deps.config.keyRing, ws);
  return buildTopUpModal({
    billing: remembered ?? (await lastBilling(deps.db, deps.config.keyRing, ws)),
    remembered,
    keepsBilling: Boolean(deps.config.keyRing),
  });
}

/** What was typed in a top-up form's input (block id), from a view's state. */
function typed(values: unknown, blockId: string): string | undefined {
  const value = (values as Record<string, Record<string, { value?: unknown }>> | undefined)?.[blockId]?.[
    Finance.topUpModal.action
  ]?.value;
  return typeof value === 'string' ? value : undefined;
}
/** Approve / Reject on a top-up request: its id. */
const decisionClick = buttonClick(uuidValue);

type Respond = (message: { response_type: 'ephemeral'; replace_original: false; text: string }) => Promise<unknown>;
type Clicker = { user: { id: string }; response_url?: string | undefined; channel?: { id: string } | undefined };

async function tellClicker(deps: ListenerDeps, body: Clicker, respond: Respond, text: string): Promise<void> {
  if (body.response_url) {
    await respond({ response_type: 'ephemeral', replace_original: false, text });
    return;
  }
  const slack = deps.slack.for(workspaceOf(body as never));
  if (body.channel?.id) await slack.postEphemeral(body.channel.id, body.user.id, { text });
  else await slack.sendDirectMessage(body.user.id, { text });
}

const NOT_ADMIN = ':no_entry: Only Kudos admins can do this.';

export function registerFinanceActions(app: App, deps: ListenerDeps): void {
  app.action(Finance.actions.openTopUp, async ({ ack, body: raw, respond }) => {
    const click = parseAtEdge(openClick, raw, Finance.actions.openTopUp);
    await ack();
    const ws = workspaceOf(click);
    if (!(await deps.isAdmin(ws, click.user.id))) return tellClicker(deps, click, respond, NOT_ADMIN);
    if (await isKnownSandbox(deps.db, ws)) return tellClicker(deps, click, respond, SANDBOX_TOP_UP_MESSAGE);
    await deps.slack.for(ws).openView(click.trigger_id, await topUpModalFor(deps, ws));
  });

  app.action(Finance.actions.changeBilling, async ({ ack, body: raw, respond }) => {
    const click = parseAtEdge(changeBillingClick, raw, Finance.actions.changeBilling);
    await ack();
    const ws = workspaceOf(click);
    if (!(await deps.isAdmin(ws, click.user.id))) return tellClicker(deps, click, respond, NOT_ADMIN);
    const B = Finance.topUpModal.blocks;
    const values = click.view.state?.values;
    // Every field, prefilled with the remembered details; what was typed stays.
    const view = buildTopUpModal({
      billing:
        (await rememberedBilling(deps.db, deps.config.keyRing, ws)) ??
        (await lastBilling(deps.db, deps.config.keyRing, ws)),
      keepsBilling: Boolean(deps.config.keyRing),
      amount: typed(values, B.amount),
      note: typed(values, B.note),
    });
    await deps.slack
      .for(ws)
      .updateView(click.view.id, view, click.view.hash)
      .catch((error: unknown) => deps.logger.warn('showing the billing fields failed', { error }));
  });

  app.action(Finance.actions.openLimits, async ({ ack, body: raw, respond }) => {
    const click = parseAtEdge(openClick, raw, Finance.actions.openLimits);
    await ack();
    const ws = workspaceOf(click);
    if (!(await deps.isAdmin(ws, click.user.id))) return tellClicker(deps, click, respond, NOT_ADMIN);
    await deps.slack.for(ws).openView(click.trigger_id, buildLimitsModal({ limits: await knownLimits(deps.db, ws) }));
  });

  const decide =
    (decision: TopUpDecision) =>
    async ({ ack, body: raw, respond }: { ack: () => Promise<void>; body: unknown; respond: unknown }) => {
      const click = parseAtEdge(
        decisionClick,
        raw,
        decision === 'approve' ? Finance.actions.approveTopUp : Finance.actions.rejectTopUp,
      );
      await ack();
      const id = click.actions[0].value;
      const ws = workspaceOf(click);
      if (!(await deps.isAdmin(ws, click.user.id))) return tellClicker(deps, click, respond as Respond, NOT_ADMIN);
      const outcome = await decideTopUp(deps.finance.topUps, ws, id, click.user.id, decision);
      if (!outcome.ok)
        return tellClicker(deps, click, respond as Respond, `:no_entry: ${namingMrkdwn(outcome.message)}`);
      const request = outcome.request;
      await deps.finance.deps.notifier.updateTopUpMessages(request);
      await deps.finance.deps.notifier
        .toUser(request, request.requesterUserId, `top_up_outcome:${request.id}:${request.status}`, {
          kind: 'top_up_outcome',
          request,
        })
        .catch((error: unknown) =>
          deps.logger.warn('telling the requester of a top-up failed', { topUpId: request.id, error }),
        );
    };
  app.action(Finance.actions.approveTopUp, decide('approve'));
  app.action(Finance.actions.rejectTopUp, decide('reject'));
}
