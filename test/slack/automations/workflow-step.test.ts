// The Workflow Builder step "Send kudos", driven end to end: the simulator sends real signed
// `function_executed` events and the app completes the step with the workflow token.
import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

import { auditEvents, kudos, workspaceSettings } from '../../../src/db/schema/index.js';
import { saveCompanyValue } from '../../../src/domain/workspaces/company-values.js';
import { SendKudosInputs } from '../../../src/slack/automations/workflow-step.js';
import { eventually, useAppPerTest } from '../../support/app.js';

const env = useAppPerTest({
  env: {
    KUDOS_NOTIFY_CHANNEL: 'C_KUDOS',
    KUDOS_APPROVAL_THRESHOLD: '100',
    KUDOS_APPROVAL_CHANNEL: 'C_APPROVALS',
    KUDOS_APPROVERS: 'U_APPROVER',
  },
});

const REQUIRED_OUTPUTS = ['kudos_id', 'status'];

async function runStep(inputs: Record<string, unknown>, functionExecutionId?: string) {
  const { run, answer } = await env.stack.sim.runWorkflowStep({
    callbackId: 'send_kudos',
    inputs,
    requiredOutputs: REQUIRED_OUTPUTS,
    ...(functionExecutionId ? { functionExecutionId } : {}),
  });
  expect(answer.status).toBe(200);
  return env.stack.sim.waitFor(() => {
    const now = env.stack.sim.workflowStep(run.functionExecutionId);
    return now && now.state !== 'running' ? now : undefined;
  }, 20_000);
}

describe('the Send kudos workflow step', () => {
  it('places the send through the usual path and completes with the kudos id and status', async () => {
    const done = await runStep({
      sender: 'U_MANAGER',
      recipients: ['U_EMP1', 'U_EMP2'],
      amount: 25,
      message: 'Quarter closed!',
      design: 'CC-THANK-YOU',
    });
    expect(done.state).toBe('completed');
    const rows = await env.db.select().from(kudos);
    expect(rows).toHaveLength(1);
    expect(done.outputs).toEqual({ kudos_id: rows[0]!.id, status: 'placed' });
    expect(rows[0]!.senderUserId).toBe('U_MANAGER');
    expect(rows[0]!.totalCents).toBe(5000);
    const orders = (await env.stack.app.rewards.orders.list({ pageSize: 10 })).data;
    expect(orders).toHaveLength(1);
    // The sender hears about it as after any send, and the audit trail names the workflow.
    await env.stack.sim.waitFor(() =>
      env.stack.sim.messages('U_MANAGER').find((m) => /^Your kudos (is on its way|was delivered)/.test(m.text)),
    );
    const audit = await env.db.select().from(auditEvents);
    const automated = audit.find((a) => a.action === 'kudos.automated');
    expect(automated?.subjectId).toBe(rows[0]!.id);
    expect(automated?.details).toMatchObject({ kind: 'workflow', functionExecutionId: done.functionExecutionId });
  });

  it('a send above the approval threshold waits for approval and the step completes as awaiting_approval', async () => {
    const done = await runStep({
      sender: 'U_MANAGER',
      recipients: ['U_EMP1', 'U_EMP2', 'U_EMP3'],
      amount: 50,
      design: 'CC-THANK-YOU',
    });
    expect(done.state).toBe('completed');
    expect(done.outputs?.status).toBe('awaiting_approval');
    const [row] = await env.db.select().from(kudos);
    expect(row!.status).toBe('awaiting_approval');
    await env.stack.sim.waitFor(() => env.stack.sim.messages('C_APPROVALS').at(-1));
    expect((await env.stack.app.rewards.orders.list({ pageSize: 10 })).data).toHaveLength(0);
  });

  it('a re-delivered event (same execution) records one send and one order', async () => {
    const first = await runStep({ sender: 'U_MANAGER', recipients: ['U_EMP1'], amount: 10, design: 'CC-THANK-YOU' });
    expect(first.state).toBe('completed');
    // Slack retries an event it thinks was lost: the step is already complete, nothing is sent twice.
    const completions = () =>
      env.stack.sim.calls.filter(
        (c) => c.method.startsWith('functions.complete') && c.args.function_execution_id === first.functionExecutionId,
      ).length;
    const before = completions();
    await env.stack.sim.runWorkflowStep({
      callbackId: 'send_kudos',
      inputs: first.inputs,
      requiredOutputs: REQUIRED_OUTPUTS,
      functionExecutionId: first.functionExecutionId,
    });
    // The retry is handled to its end (the handler answers Slack for the step again, once it knows the send).
    await eventually(() => completions() > before);
    expect(await env.db.select().from(kudos)).toHaveLength(1);
    expect((await env.stack.app.rewards.orders.list({ pageSize: 10 })).data).toHaveLength(1);
  });

  describe('fails with a readable error and sends nothing', () => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['missing recipients', { sender: 'U_MANAGER', amount: 10 }, /recipients is missing/],
      ['missing amount', { sender: 'U_MANAGER', recipients: ['U_EMP1'] }, /amount is missing/],
      ['missing sender', { recipients: ['U_EMP1'], amount: 10 }, /sender is missing/],
      [
        'an empty recipient list',
        { sender: 'U_MANAGER', recipients: [], amount: 10 },
        /recipients needs at least one person/,
      ],
      [
        'an amount that is not a number',
        { sender: 'U_MANAGER', recipients: ['U_EMP1'], amount: 'lots' },
        /amount must be a number/,
      ],
      [
        'an amount outside the design range',
        { sender: 'U_MANAGER', recipients: ['U_EMP1'], amount: 100000, design: 'CC-THANK-YOU' },
        /amount: /,
      ],
      [
        'a design that does not exist',
        { sender: 'U_MANAGER', recipients: ['U_EMP1'], amount: 10, design: 'NO-SUCH-DESIGN' },
        /design: /,
      ],
      [
        'a recipient who left the company',
        { sender: 'U_MANAGER', recipients: ['U_GONE'], amount: 10, design: 'CC-THANK-YOU' },
        /deactivated/,
      ],
      [
        'a sender who left the company',
        { sender: 'U_GONE', recipients: ['U_EMP1'], amount: 10, design: 'CC-THANK-YOU' },
        /not an active person/,
      ],
      [
        'only the sender as recipient',
        { sender: 'U_MANAGER', recipients: ['U_MANAGER'], amount: 10, design: 'CC-THANK-YOU' },
        /yourself/,
      ],
    ];
    it.each(cases)('%s', async (_name, inputs, message) => {
      const done = await runStep(inputs);
      expect(done.state).toBe('failed');
      expect(done.error).toMatch(/^Send kudos: /);
      expect(done.error).toMatch(message);
      expect(await env.db.select().from(kudos)).toHaveLength(0);
    });
  });

  it("on a fresh install, a step without a design uses the catalog's first design, recorded as the default an admin can change; a design given still wins", async () => {
    expect(await env.db.select().from(workspaceSettings)).toEqual([]);
    const done = await runStep({ sender: 'U_MANAGER', recipients: ['U_EMP1'], amount: 10 });
    expect(done.state).toBe('completed');
    expect(done.outputs?.status).toBe('placed');
    const [row] = await env.db.select().from(kudos);
    expect(row).toMatchObject({ status: 'placed', productId: 'CC-THANK-YOU' });
    expect((await env.stack.app.rewards.orders.list({ pageSize: 10 })).data).toHaveLength(1);
    const [settings] = await env.db.select().from(workspaceSettings);
    expect(settings?.defaultProductId).toBe('CC-THANK-YOU');
    const audit = await env.db.select().from(auditEvents);
    expect(audit.find((a) => a.action === 'settings.changed')).toMatchObject({
      actorUserId: 'system',
      details: { changes: { defaultProductId: { from: null, to: 'CC-THANK-YOU' } } },
    });

    // The step's own design overrides the default; an admin's default is used from then on.
    const given = await runStep({ sender: 'U_MANAGER', recipients: ['U_EMP2'], amount: 10, design: 'CC-BIRTHDAY' });
    expect(given.state).toBe('completed');
    await env.stack.app.settings.update({ teamId: 'T0KUDOS' }, 'U_ADMIN', { defaultProductId: 'CC-CONGRATS' });
    const changed = await runStep({ sender: 'U_MANAGER', recipients: ['U_EMP3'], amount: 10 });
    expect(changed.state).toBe('completed');
    const rows = await env.db.select().from(kudos);
    expect(Object.fromEntries(rows.map((r) => [r.recipients[0]!.slackUserId, r.productId]))).toEqual({
      U_EMP1: 'CC-THANK-YOU',
      U_EMP2: 'CC-BIRTHDAY',
      U_EMP3: 'CC-CONGRATS',
    });
  });

  it('a refused order (no balance) fails the step with the reason', async () => {
    await env.emulator.setBalance(0);
    const done = await runStep({ sender: 'U_MANAGER', recipients: ['U_EMP1'], amount: 10, design: 'CC-THANK-YOU' });
    expect(done.state).toBe('failed');
    expect(done.error).toMatch(/not have enough money/);
    expect((await env.stack.app.rewards.orders.list({ pageSize: 10 })).data).toHaveLength(0);
  });

  it('a workspace whose Rewards connection does not work gets a readable error', async () => {
    const misconfigured = await env.stack.startAnotherApp({
      config: { ...env.stack.config, rewardsClientSecret: 'wrong-secret' },
    });
    env.stack.sim.setAppUrl(misconfigured.url);
    const done = await runStep({ sender: 'U_MANAGER', recipients: ['U_EMP1'], amount: 10, design: 'CC-THANK-YOU' });
    expect(done.state).toBe('failed');
    expect(done.error).toMatch(/Rewards API/);
    expect(await env.db.select().from(kudos)).toHaveLength(0);
  });
});

describe('a company value in the workflow step', () => {
  const WS = { teamId: 'T0KUDOS', enterpriseId: null };
  async function addValue(name: string, emoji: string) {
    const saved = await saveCompanyValue(env.db, WS, 'U_ADMIN', undefined, { name, emoji, description: '' });
    if (!saved.ok) throw new Error(saved.message);
    return saved.row;
  }

  it('the message names it as #tag at its start or end: the kudos keeps it, the message keeps the rest; a #word inside stays words', async () => {
    await addValue('Teamwork', 'handshake');
    await addValue('Customer first', 'star');
    const done = await runStep({
      sender: 'U_MANAGER',
      recipients: ['U_EMP1'],
      amount: 10,
      message: 'Shipped the #launch on time! #customer-first',
    });
    expect(done.state).toBe('completed');
    const [row] = await env.db.select().from(kudos);
    expect(row).toMatchObject({
      valueName: 'Customer first',
      valueEmoji: 'star',
      message: 'Shipped the #launch on time!',
    });
    const announcement = await env.stack.sim.waitFor(() =>
      env.stack.sim.messages('C_KUDOS').find((m) => JSON.stringify(m.blocks ?? []).includes('sent kudos to')),
    );
    expect(JSON.stringify(announcement.blocks)).toContain('for :star: *Customer first*!');
  });

  it('above the approval threshold, the approvers see the value in the request', async () => {
    await addValue('Teamwork', 'handshake');
    const done = await runStep({
      sender: 'U_MANAGER',
      recipients: ['U_EMP1', 'U_EMP2', 'U_EMP3'],
      amount: 50,
      message: '#teamwork Quarter closed!',
    });
    expect(done.outputs?.status).toBe('awaiting_approval');
    const request = await env.stack.sim.waitFor(() =>
      env.stack.sim.messages('C_APPROVALS').find((m) => m.text.startsWith('Kudos approval request')),
    );
    expect(JSON.stringify(request.blocks![0])).toContain('for :handshake: *Teamwork*.');
    expect(JSON.stringify(request.blocks)).toContain('Quarter closed!');
  });

  it('without values, #words stay in the message as written', async () => {
    const done = await runStep({ sender: 'U_MANAGER', recipients: ['U_EMP1'], amount: 10, message: '#teamwork rocks' });
    expect(done.state).toBe('completed');
    const [row] = await env.db.select().from(kudos);
    expect(row).toMatchObject({ valueName: null, message: '#teamwork rocks' });
  });

  const refusals: Array<[string, string | undefined, boolean, RegExp]> = [
    [
      'an unknown value',
      'Thanks! #kindness',
      false,
      /value: There is no value #kindness\. The values are: #teamwork\./,
    ],
    ['two values', '#teamwork Thanks! #teamwork', false, /value: A kudos has one company value/],
    [
      'no value where the workspace requires one',
      'Thanks!',
      true,
      /value: This workspace asks each kudos to name a company value: start or end the message with one of #teamwork\./,
    ],
    ['no message at all where the workspace requires a value', undefined, true, /name a company value/],
  ];
  it.each(refusals)(
    '%s: the step fails with one readable line and nothing is sent',
    async (_n, message, required, error) => {
      await addValue('Teamwork', 'handshake');
      if (required) await env.stack.app.settings.update(WS, 'U_ADMIN', { valuesRequired: true });
      const done = await runStep({
        sender: 'U_MANAGER',
        recipients: ['U_EMP1'],
        amount: 10,
        ...(message === undefined ? {} : { message }),
      });
      expect(done.state).toBe('failed');
      expect(done.error).toMatch(/^Send kudos: value: /);
      expect(done.error).toMatch(error);
      expect(await env.db.select().from(kudos)).toHaveLength(0);
      expect((await env.stack.app.rewards.orders.list({ pageSize: 10 })).data).toHaveLength(0);
    },
  );

  it('a value required and named: the send goes', async () => {
    await addValue('Teamwork', 'handshake');
    await env.stack.app.settings.update(WS, 'U_ADMIN', { valuesRequired: true });
    const done = await runStep({
      sender: 'U_MANAGER',
      recipients: ['U_EMP1'],
      amount: 10,
      message: 'Thanks #Teamwork',
    });
    expect(done.state).toBe('completed');
    const [row] = await env.db.select().from(kudos);
    expect(row).toMatchObject({ valueName: 'Teamwork', message: 'Thanks' });
  });
});

describe('the manifest declares the step the app handles', () => {
  it('functions.send_kudos inputs are the ones the listener parses', () => {
    const manifest = parse(readFileSync(new URL('../../../manifest.yml', import.meta.url), 'utf8')) as {
      functions: Record<
        string,
        {
          input_parameters: { properties: Record<string, { type: string }>; required: string[] };
          output_parameters: { properties: Record<string, unknown>; required: string[] };
        }
      >;
      settings: { event_subscriptions: { bot_events: string[] } };
    };
    const step = manifest.functions.send_kudos!;
    expect(Object.keys(step.input_parameters.properties).sort()).toEqual(Object.keys(SendKudosInputs.shape).sort());
    expect(step.input_parameters.required.sort()).toEqual(['amount', 'recipients', 'sender']);
    expect(step.input_parameters.properties.sender!.type).toBe('slack#/types/user_id');
    expect(step.output_parameters.required.sort()).toEqual(REQUIRED_OUTPUTS);
    expect(manifest.settings.event_subscriptions.bot_events).toContain('function_executed');
  });
});
