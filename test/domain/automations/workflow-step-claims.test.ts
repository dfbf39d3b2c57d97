// Two passes finishing one workflow step: the first one's call to Slack outlasts its claim, a second
// pass takes the step over and finishes it; when the first call finally fails, the first pass writes
// nothing over the finished step.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createLogger } from '../../../src/config/logger.js';
import { kudos, workflowStepRuns } from '../../../src/db/schema/index.js';
import {
  finishWaitingSteps,
  recordWaitingStep,
  type StepFinisher,
  type WorkflowStepDeps,
} from '../../../src/domain/automations/workflow-steps.js';
import { ChatRefusal } from '../../../src/domain/common/ports.js';
import { generateKey, parseKeyRing } from '../../../src/secrets/key-ring.js';
import { createTestDatabase, type TestDatabase } from '../../support/db.js';
import { buildKudosRow } from '../../support/kudos-row.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.close();
});

describe('finishing a workflow step claimed twice', () => {
  it('keeps the outcome of the pass that took the step over when the first pass fails late', async () => {
    const db = database.db;
    const row = buildKudosRow({ status: 'placed' });
    await db.insert(kudos).values(row);
    const keyRing = parseKeyRing(generateKey('k1'));
    const ws = { teamId: row.teamId, enterpriseId: null };
    await recordWaitingStep({ db, keyRing }, { ws, functionExecutionId: 'Fx1', kudosId: row.id, token: 'xwfp-1' });

    // The first pass's call to Slack hangs until the test fails it.
    let firstCallMade: (fail: (error: Error) => void) => void = () => {};
    const firstCall = new Promise<(error: Error) => void>((resolve) => (firstCallMade = resolve));
    const slowFinisher: StepFinisher = {
      finish: () => new Promise<void>((_, reject) => firstCallMade(reject)),
    };
    const finished: string[] = [];
    const finisher: StepFinisher = {
      finish: async (_ws, _token, id) => {
        finished.push(id);
      },
    };
    const start = new Date('2026-12-02T12:00:00Z');
    const deps = (f: StepFinisher, now: Date): WorkflowStepDeps => ({
      db,
      keyRing,
      finisher: f,
      logger: createLogger({ level: 'error' }),
      now: () => now,
    });

    const firstPass = finishWaitingSteps(deps(slowFinisher, start));
    // The first pass holds its claim and waits on Slack; a minute later its claim has run out.
    const failFirstCall = await firstCall;
    const later = new Date(start.getTime() + 60_000);
    expect(await finishWaitingSteps(deps(finisher, later))).toBe(1);
    expect(finished).toEqual(['Fx1']);

    failFirstCall(new ChatRefusal('not_found', 'invalid_workflow_execution'));
    expect(await firstPass).toBe(0);
    const [run] = await db.select().from(workflowStepRuns).where(eq(workflowStepRuns.functionExecutionId, 'Fx1'));
    expect(run).toMatchObject({ status: 'finished', outcome: 'placed', token: null });
  });
});
