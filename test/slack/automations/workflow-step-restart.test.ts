// The Send kudos step survives the instance that received it: the handler records the send and keeps
// the step (its workflow token sealed) before waiting; stopped before the order is placed, another
// instance places the send and finishes the step, once, through real signed function_executed events.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { kudos, workflowStepRuns } from '../../../src/db/schema/index.js';
import { generateKey } from '../../../src/secrets/key-ring.js';
import { eventually, useAppPerTest } from '../../support/app.js';

// The first instance never places anything (its worker is off) and stops waiting at once: as if it
// stopped right after recording the send.
const env = useAppPerTest({
  env: { KUDOS_ENCRYPTION_KEY: generateKey('k1'), KUDOS_NOTIFY_CHANNEL: 'C_KUDOS' },
  app: { tuning: { worker: { enabled: false }, workflowStepWaitMs: 0, automationsMs: 0 } },
});

describe('a workflow step whose instance stops before the send is placed', () => {
  it('is finished by another instance with the kudos id and status, once; its token is kept sealed and erased after', async () => {
    const { sim } = env.stack;
    const { run, answer } = await sim.runWorkflowStep({
      callbackId: 'send_kudos',
      inputs: { sender: 'U_MANAGER', recipients: ['U_EMP1'], amount: 15, design: 'CC-THANK-YOU' },
      requiredOutputs: ['kudos_id', 'status'],
    });
    expect(answer.status).toBe(200);
    const kept = await eventually(async () => (await env.db.select().from(workflowStepRuns))[0]);
    expect(kept).toMatchObject({ functionExecutionId: run.functionExecutionId, status: 'waiting' });
    expect(kept.token).toBeTruthy();
    expect(kept.token).not.toContain(run.token);
    expect(sim.workflowStep(run.functionExecutionId)!.state).toBe('running');
    const [pending] = await env.db.select().from(kudos);
    expect(pending!.status).toBe('pending');

    // The instance goes away; another one (worker on) places the send and its automations pass finishes the step.
    await env.stack.app.close();
    const second = await env.stack.startAnotherApp({ tuning: { worker: { enabled: true, pollIntervalMs: 100 } } });
    await eventually(async () => (await env.db.select().from(kudos))[0]!.status === 'placed');
    await second.automations.tick();
    const done = sim.workflowStep(run.functionExecutionId)!;
    expect(done.state).toBe('completed');
    expect(done.outputs).toEqual({ kudos_id: pending!.id, status: 'placed' });
    const [after] = await env.db
      .select()
      .from(workflowStepRuns)
      .where(eq(workflowStepRuns.functionExecutionId, run.functionExecutionId));
    expect(after).toMatchObject({ status: 'finished', outcome: 'placed', token: null });
    // Another pass (or another instance) finishes nothing more; one order in all.
    await second.automations.tick();
    expect(sim.calls.filter((c) => c.method === 'functions.completeSuccess' && c.ok)).toHaveLength(1);
    expect((await second.rewards.orders.list({ pageSize: 10 })).data).toHaveLength(1);
  });

  it('a send refused after the handler stopped waiting fails the step with the reason', async () => {
    const { sim } = env.stack;
    const { run } = await sim.runWorkflowStep({
      callbackId: 'send_kudos',
      inputs: { sender: 'U_MANAGER', recipients: ['U_EMP2'], amount: 15, design: 'CC-THANK-YOU' },
      requiredOutputs: ['kudos_id', 'status'],
    });
    await eventually(async () => (await env.db.select().from(workflowStepRuns)).length === 1);
    // Not finished while the send has no outcome.
    await env.stack.app.automations.tick();
    expect(sim.workflowStep(run.functionExecutionId)!.state).toBe('running');
    await env.db
      .update(kudos)
      .set({ status: 'failed', errorMessage: 'The Rewards API refused the order: not enough balance.' });
    await env.stack.app.automations.tick();
    const done = sim.workflowStep(run.functionExecutionId)!;
    expect(done.state).toBe('failed');
    expect(done.error).toBe('Send kudos: The Rewards API refused the order: not enough balance.');
    expect((await env.db.select().from(workflowStepRuns))[0]).toMatchObject({ status: 'finished', token: null });
  });
});
