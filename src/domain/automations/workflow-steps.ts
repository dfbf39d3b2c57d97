// Workflow Builder steps that outlive the process that received them. The step's send is recorded
// first (automated-send.ts); then the step is kept in workflow_step_runs with the workflow's token
// (sealed under KUDOS_ENCRYPTION_KEY), and any instance finishes it once the worker has an outcome
// (the handler itself when it comes while it waits): claimed with a lease, finished once, the token
// erased. It goes through the run even when the outcome is there at once: Slack redelivers
// function_executed, and only the run's claim keeps the step to one completion. A step whose token
// Slack no longer accepts (it ended, or expired) is abandoned.
import { and, eq, isNull, lte, or, sql } from 'drizzle-orm';

import type { Logger } from '../../config/logger.js';
import type { Database } from '../../db/client.js';
import { kudos, type StepRunStatus, type WorkflowStepRunRow, workflowStepRuns } from '../../db/schema/index.js';
import { workflowStepTokenContext } from '../../db/sealed-columns.js';
import type { KeyRing } from '../../secrets/key-ring.js';
import { isChatRefusal } from '../common/ports.js';
import type { StatusTransitions } from '../common/status-transitions.js';
import type { Workspace } from '../common/workspace.js';
import { outcomeOf } from './automated-send.js';

/**
 * Every status a step's run may be written with, from each status (common/status-transitions.ts): a
 * waiting run, once claimed, is finished on Slack or abandoned.
 */
export const STEP_RUN_STATUS_TRANSITIONS = {
  waiting: ['finished', 'abandoned'],
  finished: [],
  abandoned: [],
} as const satisfies StatusTransitions<StepRunStatus>;

/** Finishes a step on the chat platform (Slack: functions.completeSuccess / completeError with the workflow token). */
export interface StepFinisher {
  finish(
    ws: Workspace,
    token: string,
    functionExecutionId: string,
    result: { ok: true; outputs: Record<string, string> } | { ok: false; error: string },
  ): Promise<void>;
}

export interface WorkflowStepDeps {
  db: Database;
  keyRing: KeyRing;
  finisher: StepFinisher;
  logger: Logger;
  now(): Date;
}

const LEASE_MS = 30_000;
/** A workflow token does not outlive its run for long: a step still waiting after this is abandoned. */
export const STEP_GIVE_UP_MS = 24 * 3_600_000;
const iso = (d: Date) => sql`${d.toISOString()}::timestamptz`;

/** Keeps a step waiting for its send's outcome (once per execution: a re-delivered event changes nothing). */
export async function recordWaitingStep(
  deps: Pick<WorkflowStepDeps, 'db' | 'keyRing'>,
  input: { ws: Workspace; functionExecutionId: string; kudosId: string; token: string },
): Promise<void> {
  await deps.db
    .insert(workflowStepRuns)
    .values({
      functionExecutionId: input.functionExecutionId,
      teamId: input.ws.teamId,
      enterpriseId: input.ws.enterpriseId ?? null,
      kudosId: input.kudosId,
      token: deps.keyRing.seal(input.token, workflowStepTokenContext(input.functionExecutionId)),
    })
    .onConflictDoNothing();
}

/** Where a step's run stands, if one is kept: a redelivered event of a finished step finishes nothing. */
export async function stepRunStatus(
  db: Database,
  functionExecutionId: string,
): Promise<WorkflowStepRunRow['status'] | undefined> {
  const [run] = await db
    .select({ status: workflowStepRuns.status })
    .from(workflowStepRuns)
    .where(eq(workflowStepRuns.functionExecutionId, functionExecutionId));
  return run?.status;
}

/**
 * Finishes the waiting steps whose send has an outcome (or only `functionExecutionId`'s): each is
 * claimed first, so two instances (or the handler and the sweep) finish it once. Returns how many.
 */
export async function finishWaitingSteps(deps: WorkflowStepDeps, only?: string): Promise<number> {
  const now = deps.now();
  const candidates = await deps.db
    .select({ run: workflowStepRuns, kudos })
    .from(workflowStepRuns)
    .innerJoin(kudos, eq(kudos.id, workflowStepRuns.kudosId))
    .where(
      and(
        eq(workflowStepRuns.status, 'waiting'),
        only ? eq(workflowStepRuns.functionExecutionId, only) : undefined,
        or(isNull(workflowStepRuns.claimedUntil), lte(workflowStepRuns.claimedUntil, iso(now))),
      ),
    )
    .limit(50);
  let finished = 0;
  for (const { run, kudos: row } of candidates) {
    const outcome = outcomeOf(row);
    const tooOld = now.getTime() - run.createdAt.getTime() > STEP_GIVE_UP_MS;
    if (!outcome.settled && !tooOld) continue;
    const [claimed] = await deps.db
      .update(workflowStepRuns)
      .set({ claimedUntil: iso(new Date(now.getTime() + LEASE_MS)) })
      .where(
        and(
          eq(workflowStepRuns.functionExecutionId, run.functionExecutionId),
          eq(workflowStepRuns.status, 'waiting'),
          or(isNull(workflowStepRuns.claimedUntil), lte(workflowStepRuns.claimedUntil, iso(now))),
        ),
      )
      .returning();
    if (!claimed) continue;
    if (!outcome.settled || !claimed.token) {
      await settle(deps.db, claimed, 'abandoned', claimed.token ? 'still not placed after 24 hours' : 'no token kept');
      continue;
    }
    const result =
      'message' in outcome
        ? { ok: false as const, error: `Send kudos: ${outcome.message}` }
        : { ok: true as const, outputs: { kudos_id: row.id, status: outcome.status } };
    try {
      const token = deps.keyRing.open(claimed.token, workflowStepTokenContext(claimed.functionExecutionId));
      await deps.finisher.finish(
        { teamId: claimed.teamId, enterpriseId: claimed.enterpriseId },
        token,
        claimed.functionExecutionId,
        result,
      );
      await settle(deps.db, claimed, 'finished', result.ok ? result.outputs.status : result.error);
      finished++;
    } catch (error) {
      // Refused by Slack (the run ended, its token expired): it cannot be finished any more.
      if (isChatRefusal(error, 'not_found', 'refused'))
        await settle(deps.db, claimed, 'abandoned', `Slack: ${error.detail}`);
      // Anything else (Slack unreachable, rate limited): the lease runs out and the next pass tries again.
      else
        deps.logger.warn('finishing a workflow step failed', {
          functionExecutionId: claimed.functionExecutionId,
          error,
        });
    }
  }
  return finished;
}

async function settle(
  db: Database,
  run: WorkflowStepRunRow,
  status: 'finished' | 'abandoned',
  outcome: string,
): Promise<void> {
  // Only while this pass's claim holds: an instance whose claim ran out (a slow call to Slack) and was
  // taken over writes nothing over the outcome of the pass that took it.
  await db
    .update(workflowStepRuns)
    .set({ status, outcome, token: null, claimedUntil: null, finishedAt: sql`now()` })
    .where(
      and(
        eq(workflowStepRuns.functionExecutionId, run.functionExecutionId),
        eq(workflowStepRuns.status, 'waiting'),
        run.claimedUntil ? eq(workflowStepRuns.claimedUntil, run.claimedUntil) : isNull(workflowStepRuns.claimedUntil),
      ),
    );
}
