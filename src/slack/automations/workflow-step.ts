// Workflow Builder custom steps (Bolt's app.function): parse the inputs at the edge, call the domain,
// complete or fail the step with a readable message.
import type { App } from '@slack/bolt';
import { z } from 'zod';

import { outcomeOf, sendAutomated, waitForOutcome } from '../../domain/automations/automated-send.js';
import { finishWaitingSteps, recordWaitingStep, stepRunStatus } from '../../domain/automations/workflow-steps.js';
import { WorkflowStep } from '../ids.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import { functionExecutedEvent, parseAtEdge } from '../listening/payloads.js';

const SLACK_USER_ID = z.string().regex(/^[UW][A-Z0-9_]{2,}$/, 'must be a Slack user id');

/** The step's inputs as declared in manifest.yml (functions.send_kudos.input_parameters). */
export const SendKudosInputs = z.object({
  sender: SLACK_USER_ID,
  recipients: z.array(SLACK_USER_ID).min(1, 'needs at least one person'),
  amount: z
    .union([
      z.number(),
      z
        .string()
        .regex(/^\s*\d+(\.\d+)?\s*$/)
        .transform(Number),
    ])
    .pipe(z.number().positive('must be more than 0')),
  message: z.string().max(2000).nullish(),
  design: z.string().trim().max(200).nullish(),
});
export type SendKudosInputs = z.infer<typeof SendKudosInputs>;

/** How long the step waits for the worker to place (or refuse) a direct send before answering. */
export const STEP_OUTCOME_WAIT_MS = 60_000;

export function describeInputErrors(error: z.ZodError, raw: Record<string, unknown>): string {
  const parts = error.issues.map((issue) => {
    const field = String(issue.path[0] ?? 'inputs');
    if (raw[field] === undefined || raw[field] === null) return `${field} is missing`;
    return issue.code === 'invalid_union' ? `${field} must be a number` : `${field} ${issue.message}`;
  });
  return `Send kudos: ${[...new Set(parts)].join('; ')}.`;
}

export function registerWorkflowStep(app: App, deps: ListenerDeps): void {
  app.function(WorkflowStep.sendKudos, async ({ body: rawBody, complete, fail, context }) => {
    // The envelope first: without its execution id there is no idempotency key for the send.
    const body = parseAtEdge(functionExecutedEvent, rawBody, WorkflowStep.sendKudos);
    const event = body.event;
    const log = deps.logger.child({ step: WorkflowStep.sendKudos, execution: event.function_execution_id });
    const steps = deps.workflowSteps && event.bot_access_token ? deps.workflowSteps : undefined;
    const stepStatus = steps ? await stepRunStatus(steps.db, event.function_execution_id) : undefined;
    if (stepStatus && stepStatus !== 'waiting') {
      // Slack delivered the event again for a step already finished (or given up): completing it
      // again would be refused, and there is nothing more to send.
      log.info('step delivered again: already finished', { status: stepStatus });
      return;
    }
    const raw: Record<string, unknown> = event.inputs ?? {};
    const parsed = SendKudosInputs.safeParse(raw);
    if (!parsed.success) {
      log.info('step inputs refused', { issues: parsed.error.issues.length });
      await fail({ error: describeInputErrors(parsed.error, raw) });
      return;
    }
    const input = parsed.data;
    const result = await sendAutomated(
      { ...deps, users: deps.slack },
      {
        workspace: workspaceOf(body),
        senderUserId: input.sender,
        recipientUserIds: input.recipients,
        // In the product's currency: USD for a choice card, the brand's own for a branded product.
        amount: input.amount,
        message: input.message ?? '',
        productId: input.design || undefined,
        // A choice-card design if the choice catalog has it, else a branded product.
        card: 'ANY',
        // A retried function_executed event carries the same execution id: one send.
        sourceKey: `workflow:${event.function_execution_id}`,
        origin: {
          kind: 'workflow',
          functionExecutionId: event.function_execution_id,
          workflowExecutionId: event.workflow_execution_id,
        },
        botUserId: context.botUserId,
        // The step's inputs are fixed (the manifest); its message names the company value: `#teamwork`.
        valueInMessage: true,
      },
    );
    if (!result.ok) {
      log.info('step send refused', { code: result.code });
      await fail({ error: `Send kudos: ${result.message}` });
      return;
    }
    const { row } = result.recorded;
    const first = outcomeOf(row);
    if (steps && event.bot_access_token) {
      // Kept before waiting (or finishing): if this process stops now, any instance finishes the step
      // once the worker has placed or refused the send (automations pass). Whoever claims it first
      // finishes it, so a redelivered event, here or on another instance, never completes it twice.
      await recordWaitingStep(steps, {
        ws: workspaceOf(body),
        functionExecutionId: event.function_execution_id,
        kudosId: row.id,
        token: event.bot_access_token,
      });
      const waited = first.settled
        ? first
        : await waitForOutcome(deps.db, row.id, deps.workflowStepWaitMs ?? STEP_OUTCOME_WAIT_MS);
      if (waited.settled) await finishWaitingSteps(steps, event.function_execution_id);
      return;
    }
    const outcome = first.settled
      ? first
      : await waitForOutcome(deps.db, row.id, deps.workflowStepWaitMs ?? STEP_OUTCOME_WAIT_MS);
    if (outcome.settled && 'message' in outcome) {
      await fail({ error: `Send kudos: ${outcome.message}` });
    } else if (outcome.settled) {
      await complete({ outputs: { kudos_id: row.id, status: outcome.status } });
    } else {
      // Still being placed (the Rewards API is slow): it will be placed or the sender told; do not
      // report success for money that has not moved.
      await fail({
        error: `Send kudos: the send ${row.id} is recorded but not placed yet; its sender will hear the outcome in Slack.`,
      });
    }
  });
}
