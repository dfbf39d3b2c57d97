// Slack delivers `function_executed` again for a step it thinks was lost (another event id, the same
// execution). Whatever the step's state (still waiting for its send, already finished, settled at
// once), the redelivery completes nothing a second time and never makes a finished step `abandoned`.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { kudos, workflowStepRuns } from '../../../src/db/schema/index.js';
import { generateKey } from '../../../src/secrets/key-ring.js';
import { eventually, useAppPerTest } from '../../support/app.js';

const env = useAppPerTest({
  env: {
    KUDOS_ENCRYPTION_KEY: generateKey('k1'),
    KUDOS_NOTIFY_CHANNEL: 'C_KUDOS',
    KUDOS_APPROVAL_THRESHOLD: '100',
    KUDOS_APPROVAL_CHANNEL: 'C_APPROVALS',
    KUDOS_APPROVERS: 'U_APPROVER',
  },
  app: { tuning: { automationsMs: 0, approvalsSweepMs: 0, financeSweepMs: 0, home: { enabled: false } } },
});

const REQUIRED_OUTPUTS = ['kudos_id', 'status'];

function deliver(inputs: Record<string, unknown>, functionExecutionId?: string) {
  return env.stack.sim.runWorkflowStep({
    callbackId: 'send_kudos',
    inputs,
    requiredOutputs: REQUIRED_OUTPUTS,
    ...(functionExecutionId ? { functionExecutionId } : {}),
  });
}

const stepRun = async (id: string) =>
  (await env.db.select().from(workflowStepRuns).where(eq(workflowStepRuns.functionExecutionId, id)))[0];
const completions = () =>
  env.stack.sim.calls.filter((c) => c.method === 'functions.completeSuccess' || c.method === 'functions.completeError');

describe('a redelivered function_executed event', () => {
  it('for a step still waiting after its send was placed: the step is completed once and recorded finished', async () => {
    // The receiving instance stops waiting at once and places nothing (its worker is off).
    const first = await env.stack.startAnotherApp({ tuning: { worker: { enabled: false }, workflowStepWaitMs: 0 } });
    env.stack.sim.setAppUrl(first.url);
    const { run } = await deliver({ sender: 'U_MANAGER', recipients: ['U_EMP1'], amount: 15, design: 'CC-THANK-YOU' });
    await eventually(async () => (await stepRun(run.functionExecutionId))?.status === 'waiting');
    // The worker of another instance places the send.
    const [row] = await eventually(async () => {
      const rows = await env.db.select().from(kudos);
      return rows[0]?.status === 'placed' ? rows : undefined;
    });

    // Slack redelivers the event; then the automations pass looks for waiting steps.
    await deliver(run.inputs, run.functionExecutionId);
    const done = await env.stack.sim.waitFor(() => {
      const now = env.stack.sim.workflowStep(run.functionExecutionId);
      return now && now.state !== 'running' ? now : undefined;
    });
    expect(done.state).toBe('completed');
    expect(done.outputs).toEqual({ kudos_id: row!.id, status: 'placed' });
    await first.close();
    await env.stack.app.automations.tick();

    expect(await stepRun(run.functionExecutionId)).toMatchObject({
      status: 'finished',
      outcome: 'placed',
      token: null,
    });
    expect(completions().map((c) => c.ok)).toEqual([true]);
    expect((await env.stack.app.rewards.orders.list({ pageSize: 10 })).data).toHaveLength(1);
  });

  it('for a step already finished: nothing is completed again', async () => {
    const { run } = await deliver({ sender: 'U_MANAGER', recipients: ['U_EMP2'], amount: 20, design: 'CC-THANK-YOU' });
    const finished = await eventually(async () => {
      const kept = await stepRun(run.functionExecutionId);
      return kept?.status === 'finished' ? kept : undefined;
    });
    expect(finished.outcome).toBe('placed');
    expect(env.stack.sim.workflowStep(run.functionExecutionId)!.state).toBe('completed');

    // Redelivered to another instance; closing it waits for the redelivery's handler to end.
    const other = await env.stack.startAnotherApp();
    env.stack.sim.setAppUrl(other.url);
    await deliver(run.inputs, run.functionExecutionId);
    await other.close();

    expect(completions().map((c) => c.ok)).toEqual([true]);
    expect(await stepRun(run.functionExecutionId)).toMatchObject({ status: 'finished', outcome: 'placed' });
    expect(await env.db.select().from(kudos)).toHaveLength(1);
    expect((await env.stack.app.rewards.orders.list({ pageSize: 10 })).data).toHaveLength(1);
  });

  it('for a step whose send went to approval at once: completed once as awaiting_approval, the redelivery completes nothing', async () => {
    const { run } = await deliver({
      sender: 'U_MANAGER',
      recipients: ['U_EMP1', 'U_EMP2', 'U_EMP3'],
      amount: 50,
      design: 'CC-THANK-YOU',
    });
    const done = await env.stack.sim.waitFor(() => {
      const now = env.stack.sim.workflowStep(run.functionExecutionId);
      return now && now.state !== 'running' ? now : undefined;
    });
    expect(done.outputs?.status).toBe('awaiting_approval');

    const other = await env.stack.startAnotherApp();
    env.stack.sim.setAppUrl(other.url);
    await deliver(run.inputs, run.functionExecutionId);
    await other.close();

    expect(completions().map((c) => c.ok)).toEqual([true]);
    expect(await env.db.select().from(kudos)).toHaveLength(1);
    expect((await env.stack.app.rewards.orders.list({ pageSize: 10 })).data).toHaveLength(0);
  });
});
