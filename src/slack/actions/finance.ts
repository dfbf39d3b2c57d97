// Buttons of the money side: "Request a top-up" (alerts, /kudos balance, App Home), Approve / Reject
// on a top-up request (a second admin; exactly once), "Request higher limits". Admins only, by the
// one admin rule (deps.isAdmin); refusals go only to the clicker.
import type { App } from '@slack/bolt';
import { z } from 'zod';
import { knownLimits } from '../../domain/spending-limits.js';
import { decideTopUp, isKnownSandbox, lastBilling, SANDBOX_TOP_UP_MESSAGE, type TopUpDecision } from '../../domain/top-ups.js';
import { buildLimitsModal, buildTopUpModal } from '../blocks/finance.js';
import type { ListenerDeps } from '../deps.js';
import { workspaceOf } from '../deps.js';
import { Finance } from '../ids.js';

const clickSchema = z.looseObject({
  user: z.looseObject({ id: z.string() }),
  trigger_id: z.string().optional(),
  response_url: z.string().optional(),
  channel: z.looseObject({ id: z.string().optional() }).optional(),
});
const valueSchema = z.looseObject({ value: z.string().max(100).optional() });

type Respond = (message: { response_type: 'ephemeral'; replace_original: false; text: string }) => Promise<unknown>;

async function tellClicker(deps: ListenerDeps, body: z.infer<typeof clickSchema>, respond: Respond, text: string): Promise<void> {
  if (body.response_url) {
    await respond({ response_type: 'ephemeral', replace_original: false, text });
    return;
  }
  if (body.channel?.id) await deps.slack.postEphemeral(body.channel.id, body.user.id, { text });
  else await deps.slack.sendDirectMessage(body.user.id, { text });
}

const NOT_ADMIN = ':no_entry: Only Kudos admins can do this.';

export function register(app: App, deps: ListenerDeps): void {
  app.action(Finance.actions.openTopUp, async ({ ack, body, respond }) => {
    await ack();
    const click = clickSchema.parse(body);
    const ws = workspaceOf(body as never);
    if (!(await deps.isAdmin(ws, click.user.id))) return tellClicker(deps, click, respond as Respond, NOT_ADMIN);
    if (await isKnownSandbox(deps.db, ws)) return tellClicker(deps, click, respond as Respond, SANDBOX_TOP_UP_MESSAGE);
    if (!click.trigger_id) return;
    await deps.slack.openView(click.trigger_id, buildTopUpModal({ billing: await lastBilling(deps.db, ws) }));
  });

  app.action(Finance.actions.openLimits, async ({ ack, body, respond }) => {
    await ack();
    const click = clickSchema.parse(body);
    const ws = workspaceOf(body as never);
    if (!(await deps.isAdmin(ws, click.user.id))) return tellClicker(deps, click, respond as Respond, NOT_ADMIN);
    if (!click.trigger_id) return;
    await deps.slack.openView(click.trigger_id, buildLimitsModal({ limits: await knownLimits(deps.db, ws) }));
  });

  const decide =
    (decision: TopUpDecision) =>
    async ({ ack, body, action, respond }: { ack: () => Promise<void>; body: unknown; action: unknown; respond: unknown }) => {
      await ack();
      const click = clickSchema.parse(body);
      const id = valueSchema.parse(action).value ?? '';
      const ws = workspaceOf(body as never);
      if (!(await deps.isAdmin(ws, click.user.id))) return tellClicker(deps, click, respond as Respond, NOT_ADMIN);
      const outcome = await decideTopUp(deps.finance.topUps, id, click.user.id, decision);
      if (!outcome.ok) return tellClicker(deps, click, respond as Respond, `:no_entry: ${outcome.message}`);
      const request = outcome.request;
      await deps.finance.deps.notifier.updateTopUpMessages(request);
      await deps.finance.deps.notifier
        .toUser(request, request.requesterUserId, `top_up_outcome:${request.id}:${request.status}`, { kind: 'top_up_outcome', request })
        .catch((error: unknown) => deps.logger.warn('telling the requester of a top-up failed', { topUpId: request.id, error }));
    };
  app.action(Finance.actions.approveTopUp, decide('approve') as never);
  app.action(Finance.actions.rejectTopUp, decide('reject') as never);
}
