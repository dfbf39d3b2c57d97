// Brands in the automations' forms and in the Workflow Builder step, through real signed requests: the
// celebration rule and the recurring form search brands as one types and take an amount in the
// brand's currency (checked inline on its price rules); the `send_kudos` step takes a branded product
// id as its design and its amount in that product's currency, failing with one readable line when the
// product does not offer it.
import { describe, expect, it } from 'vitest';

import { celebrationRules, kudos, recurringSeries } from '../../../src/db/schema/index.js';
import { learnRate } from '../../../src/domain/branded/exchange-rates.js';
import { eventually, useAppPerTest } from '../../support/app.js';

const env = useAppPerTest({ env: { KUDOS_ADMINS: 'U_ADMIN' }, app: { tuning: { automationsMs: 0 } } });

const select = (value: string) => ({
  type: 'static_select',
  selected_option: { text: { type: 'plain_text', text: value }, value },
});
const searched = (value: string) => ({
  type: 'external_select',
  selected_option: { text: { type: 'plain_text', text: value }, value },
});

async function lastAnswer(userId: string, channel = 'C_GENERAL') {
  return env.stack.sim.waitFor(() =>
    env.stack.sim
      .messages(channel)
      .filter((m) => m.ephemeral && m.visible_to === userId)
      .at(-1),
  );
}

async function runStep(inputs: Record<string, unknown>) {
  const { run, answer } = await env.stack.sim.runWorkflowStep({
    callbackId: 'send_kudos',
    inputs,
    requiredOutputs: ['kudos_id', 'status'],
  });
  expect(answer.status).toBe(200);
  return env.stack.sim.waitFor(() => {
    const now = env.stack.sim.workflowStep(run.functionExecutionId);
    return now && now.state !== 'running' ? now : undefined;
  }, 20_000);
}

describe('a brand in the automations’ forms', () => {
  it('the birthday rule takes a brand searched by name and an amount in its currency, refused inline when not offered', async () => {
    const { sim } = env.stack;
    await sim.slashCommand('U_ADMIN', 'celebrations', 'C_GENERAL');
    const overview = await lastAnswer('U_ADMIN');
    await sim.clickButton({ channel: 'C_GENERAL', ts: overview.ts }, 'celebration_rule_birthday', 'U_ADMIN');
    const modal = await sim.waitFor(() => sim.openViews('U_ADMIN').find((v) => v.callback_id === 'celebration_rule'));
    const found = await sim.loadOptions(modal.id, 'automation_brand', 'rule_brand', 'tesco', 'U_ADMIN');
    const options = (found.body as { options: Array<{ value: string; text: { text: string } }> }).options;
    expect(options.map((o) => [o.value, o.text.text])).toEqual([['BR-TESCO', 'Tesco (£10, £20, or £50)']]);

    const values = (amount: string) => ({
      rule_enabled: { enabled: select('on') },
      rule_amount: { amount: { type: 'number_input', value: amount } },
      rule_brand: { automation_brand: searched('BR-TESCO') },
      rule_sender: { sender: { type: 'users_select', selected_user: 'U_MANAGER' } },
    });
    await sim.submitView(modal.id, values('25'), 'U_ADMIN');
    expect(sim.viewErrors(modal.id).rule_amount).toBe('£25 is not offered; pick £10, £20, or £50.');
    expect(await env.db.select().from(celebrationRules)).toHaveLength(0);
    await sim.submitView(modal.id, values('20'), 'U_ADMIN');
    expect(sim.openViews('U_ADMIN').some((v) => v.id === modal.id)).toBe(false);
    expect(await env.db.select().from(celebrationRules)).toMatchObject([
      { kind: 'birthday', productId: 'BR-TESCO', cardType: 'BRANDED_CARD', currency: 'GBP', amountCents: 2000 },
    ]);
    await sim.slashCommand('U_ADMIN', 'celebrations', 'C_GENERAL');
    expect(JSON.stringify((await lastAnswer('U_ADMIN')).blocks)).toContain('a £20 branded card');
  });

  it('a recurring series takes a brand with an amount on its price step; off the step it is refused inline', async () => {
    const { sim } = env.stack;
    await sim.slashCommand('U_MANAGER', 'recurring new', 'C_GENERAL');
    const modal = await sim.waitFor(() => sim.openViews('U_MANAGER').find((v) => v.callback_id === 'recurring_new'));
    const values = (amount: string) => ({
      rec_recipients: { recipients: { type: 'multi_users_select', selected_users: ['U_EMP1'] } },
      rec_brand: { automation_brand: searched('BR-ZALANDO') },
      rec_amount: { amount: { type: 'number_input', value: amount } },
      rec_cadence: { cadence: select('weekly') },
      rec_weekday: { weekday: select('5') },
      rec_time: { time: { type: 'timepicker', selected_time: '16:00' } },
    });
    await sim.submitView(modal.id, values('10.25'), 'U_MANAGER');
    expect(sim.viewErrors(modal.id).rec_amount).toMatch(/^€10.25 is not on the price step: pick €10 or €10.50/);
    await sim.submitView(modal.id, values('10.50'), 'U_MANAGER');
    expect(await env.db.select().from(recurringSeries)).toMatchObject([
      { productId: 'BR-ZALANDO', cardType: 'BRANDED_CARD', currency: 'EUR', amountCents: 1050 },
    ]);
    await sim.slashCommand('U_MANAGER', 'recurring', 'C_GENERAL');
    expect(JSON.stringify((await lastAnswer('U_MANAGER')).blocks)).toContain('a €10.50 branded card to <@U_EMP1>');
  });
});

describe('the Send kudos step with a branded product', () => {
  it('takes a branded product id as its design and the amount in its currency, and places a branded order', async () => {
    await learnRate(
      env.db,
      { teamId: 'T0KUDOS', enterpriseId: null },
      { currency: 'GBP', faceCents: 10_000, costCents: 12_700, learnedAt: new Date() },
    );
    const done = await runStep({ sender: 'U_MANAGER', recipients: ['U_EMP1'], amount: 20, design: 'BR-TESCO' });
    expect(done.state).toBe('completed');
    const [row] = await env.db.select().from(kudos);
    expect(done.outputs).toEqual({ kudos_id: row!.id, status: 'placed' });
    expect(row).toMatchObject({ cardType: 'BRANDED_CARD', faceCurrency: 'GBP', faceCents: 2000, amountCents: 2667 });
    const placed = await eventually(async () => (await env.db.select().from(kudos)).find((r) => r.orderId));
    const order = await env.stack.app.rewards.orders.get(placed.orderId!);
    expect(order).toMatchObject({ cardType: 'BRANDED_CARD', totalCost: { amount: '25.40', currency: 'USD' } });
  });

  it('an amount the product does not offer fails the step with one readable line; nothing is sent', async () => {
    const done = await runStep({ sender: 'U_MANAGER', recipients: ['U_EMP1'], amount: 25, design: 'BR-TESCO' });
    expect(done.state).toBe('failed');
    expect(done.error).toBe('Send kudos: amount: £25 is not offered; pick £10, £20, or £50.');
    const tooFine = await runStep({ sender: 'U_MANAGER', recipients: ['U_EMP1'], amount: 10.555, design: 'BR-TESCO' });
    expect(tooFine.error).toBe('Send kudos: amount: GBP amounts have at most 2 decimals, e.g. £25.50.');
    expect(await env.db.select().from(kudos)).toHaveLength(0);
    expect((await env.stack.app.rewards.orders.list({ pageSize: 10 })).data).toHaveLength(0);
  });
});
