// /kudos templates end to end: signed requests from the Slack simulator into the app, the Rewards
// emulator holding the templates and "sending" the test e-mails. Admins list, create (with inline
// errors for bad input and placeholders), edit as new, and send themselves a test e-mail with the
// daily count shown and the daily limit reported plainly.
import { describe, expect, it } from 'vitest';

import { blockActionPayload, eventually, postSignedPayload, useAppPerTest } from '../../support/app.js';

const t = useAppPerTest({
  env: { KUDOS_ADMINS: 'U_ADMIN,U_APPROVER', KUDOS_ADMIN_CHANNEL: 'C_ADMIN' },
  app: { tuning: { financeSweepMs: 0 } },
});

const text = (value: string) => ({ value: { type: 'plain_text_input', value } });
const blocksOf = (m: { blocks?: unknown[] | undefined; text: string }) => m.text + JSON.stringify(m.blocks ?? []);

function form(values: Partial<Record<'name' | 'sender' | 'message' | 'border' | 'button' | 'font', string>>) {
  return {
    template_name: text(values.name ?? ''),
    template_sender: text(values.sender ?? ''),
    template_message: text(values.message ?? ''),
    template_border: text(values.border ?? ''),
    template_button: text(values.button ?? ''),
    template_button_font: text(values.font ?? ''),
  };
}

async function listTemplates(userId = 'U_ADMIN') {
  const before = t.stack.sim.messages('C_ADMIN').length;
  await t.stack.sim.slashCommand(userId, 'templates', 'C_ADMIN');
  return t.stack.sim.waitFor(() =>
    t.stack.sim
      .messages('C_ADMIN')
      .slice(before)
      .find((m) => m.ephemeral && /E-mail templates/.test(blocksOf(m))),
  );
}

async function apiTemplates() {
  return t.stack.app.rewards.templates.list({ pageSize: 100 }).all();
}

describe('/kudos templates', () => {
  it('admins see the account’s templates with New, Edit as new and test e-mail buttons; others are refused', async () => {
    const list = await listTemplates();
    const shown = blocksOf(list);
    expect(shown).toContain('(default)');
    expect(shown).toContain('template_new');
    expect(shown).toContain('template_edit');
    expect(shown).toContain('template_test_email');
    expect(shown).toMatch(/documents no placeholders/);
    const refused = await t.stack.sim.slashCommand('U_MANAGER', 'templates', 'C_GENERAL');
    expect(JSON.stringify(refused.body)).toMatch(/Only Kudos admins/);
  });

  it('a new template: bad input and placeholders are refused inline, nothing created; good input is created once and listed', async () => {
    const before = (await apiTemplates()).length;
    const list = await listTemplates();
    await t.stack.sim.clickButton({ channel: list.channel, ts: list.ts }, 'template_new', 'U_ADMIN');
    const view = await t.stack.sim.waitFor(() =>
      t.stack.sim.openViews('U_ADMIN').find((v) => v.callback_id === 'template_form'),
    );

    await t.stack.sim.submitView(
      view.id,
      form({ name: '', sender: '', border: 'red', message: 'Hi {{first_name}}, thanks!' }),
      'U_ADMIN',
    );
    const errors = t.stack.sim.viewErrors(view.id);
    expect(errors.template_name).toMatch(/name/);
    expect(errors.template_sender).toMatch(/required/);
    expect(errors.template_border).toMatch(/#RRGGBB/);
    expect(errors.template_message).toMatch(/\{\{first_name\}\}.*placeholder/);
    expect(await apiTemplates()).toHaveLength(before);

    await t.stack.sim.submitView(
      view.id,
      form({
        name: 'Q4 spot awards',
        sender: 'The People Team',
        message: 'Thank you for all you did this quarter.',
        border: '4a154b',
        button: '#007A5A',
        font: '#ffffff',
      }),
      'U_ADMIN',
    );
    const created = await eventually(async () => (await apiTemplates()).find((x) => x.name === 'Q4 spot awards'));
    expect(created).toMatchObject({
      senderName: 'The People Team',
      borderColor: '#4A154B',
      buttonColor: '#007A5A',
      buttonFontColor: '#FFFFFF',
    });
    expect(await apiTemplates()).toHaveLength(before + 1);
    await t.stack.sim.waitFor(() => t.stack.sim.messages('U_ADMIN').find((m) => /Q4 spot awards.*saved/.test(m.text)));
    expect(blocksOf(await listTemplates())).toContain('Q4 spot awards');
  });

  it('Edit as new opens the form filled from the template; saving makes a new template and leaves the old one', async () => {
    const base = await t.stack.app.rewards.templates.create({
      name: 'Thanks',
      senderName: 'Kudos',
      message: 'Well done',
      buttonColor: '#112233',
    });
    const list = await listTemplates();
    await t.stack.sim.clickButton({ channel: list.channel, ts: list.ts }, 'template_edit', 'U_ADMIN', base.templateId);
    const view = await t.stack.sim.waitFor(() =>
      t.stack.sim.openViews('U_ADMIN').find((v) => v.callback_id === 'template_form'),
    );
    const shown = JSON.stringify(view.blocks);
    expect(shown).toContain('Well done');
    expect(shown).toContain('#112233');
    expect(shown).toMatch(/saving makes a new one/);
    await t.stack.sim.submitView(
      view.id,
      form({ name: 'Thanks v2', sender: 'Kudos', message: 'Well done, really', button: '#112233' }),
      'U_ADMIN',
    );
    const names = await eventually(async () => {
      const all = (await apiTemplates()).map((x) => x.name);
      return all.includes('Thanks v2') ? all : undefined;
    });
    expect(names).toContain('Thanks');
  });

  it('Send me a test e-mail: to the admin’s own address with the template, not charged, the count left shown; the daily limit is said plainly', async () => {
    const balance = (await t.stack.app.rewards.balance.get()).availableBalance.amount;
    const template = await t.stack.app.rewards.templates.create({ name: 'Preview me', senderName: 'People Team' });
    const list = await listTemplates();
    const click = () =>
      t.stack.sim.clickButton(
        { channel: list.channel, ts: list.ts },
        'template_test_email',
        'U_ADMIN',
        template.templateId,
      );
    await click();
    const answer = await t.stack.sim.waitFor(() =>
      t.stack.sim.messages('C_ADMIN').find((m) => m.ephemeral && /Test e-mail sent/.test(m.text)),
    );
    expect(answer.text).toContain('ada@example.com');
    expect(answer.text).toMatch(/9 of 10 test e-mails left today/);
    const emails = (await t.emulator.emails()) as Array<{
      kind: string;
      to: string;
      templateId: string | null;
      senderName: string;
    }>;
    const test = emails.filter((e) => e.kind === 'test');
    expect(test).toHaveLength(1);
    expect(test[0]).toMatchObject({
      to: 'ada@example.com',
      templateId: template.templateId,
      senderName: 'People Team',
    });
    expect((await t.stack.app.rewards.balance.get()).availableBalance.amount).toBe(balance);

    for (let i = 0; i < 9; i++) await click();
    await eventually(
      async () =>
        ((await t.emulator.emails()) as Array<{ kind: string }>).filter((e) => e.kind === 'test').length === 10 ||
        undefined,
    );
    await click();
    await t.stack.sim.waitFor(() =>
      t.stack.sim.messages('C_ADMIN').find((m) => m.ephemeral && /daily limit of test e-mails/.test(m.text)),
    );
    expect(((await t.emulator.emails()) as Array<{ kind: string }>).filter((e) => e.kind === 'test')).toHaveLength(10);
  });

  it('API errors: a failed list, save and test e-mail each get a clear answer; nothing is half-done', async () => {
    await t.emulator.faults({ method: 'GET', path: '^/api/v1/templates$', status: 400, count: 1 });
    await t.stack.sim.slashCommand('U_ADMIN', 'templates', 'C_ADMIN');
    await t.stack.sim.waitFor(() =>
      t.stack.sim.messages('C_ADMIN').find((m) => m.ephemeral && /Could not list the e-mail templates/.test(m.text)),
    );

    const list = await listTemplates();
    await t.stack.sim.clickButton({ channel: list.channel, ts: list.ts }, 'template_new', 'U_ADMIN');
    const view = await t.stack.sim.waitFor(() =>
      t.stack.sim.openViews('U_ADMIN').find((v) => v.callback_id === 'template_form'),
    );
    const before = (await apiTemplates()).length;
    await t.emulator.faults({ method: 'POST', path: '^/api/v1/templates$', status: 400, count: 1 });
    await t.stack.sim.submitView(view.id, form({ name: 'Will fail', sender: 'People Team' }), 'U_ADMIN');
    expect(t.stack.sim.viewErrors(view.id).template_name).toMatch(/Could not save the template/);
    expect(await apiTemplates()).toHaveLength(before);

    await t.emulator.faults({ method: 'POST', path: '^/api/v1/orders/test-email$', status: 400, count: 1 });
    const templateId = (await apiTemplates())[0]!.templateId;
    await t.stack.sim.clickButton({ channel: list.channel, ts: list.ts }, 'template_test_email', 'U_ADMIN', templateId);
    await t.stack.sim.waitFor(() =>
      t.stack.sim.messages('C_ADMIN').find((m) => m.ephemeral && /Could not send the test e-mail/.test(m.text)),
    );
    expect(((await t.emulator.emails()) as Array<{ kind: string }>).filter((e) => e.kind === 'test')).toHaveLength(0);
  });

  it('a non-admin’s click (a forwarded or crafted payload) changes nothing and is told why', async () => {
    const templateId = (await apiTemplates())[0]!.templateId;
    for (const actionId of ['template_test_email', 'template_edit', 'template_new'])
      await postSignedPayload(
        t.stack.app.url,
        blockActionPayload({ userId: 'U_MANAGER', actionId, value: templateId, channel: 'C_GENERAL' }),
      );
    await t.stack.sim.waitFor(
      () =>
        t.stack.sim
          .messages('C_GENERAL')
          .filter((m) => m.ephemeral && m.visible_to === 'U_MANAGER' && /Only Kudos admins/.test(m.text)).length ===
          3 || undefined,
    );
    expect(((await t.emulator.emails()) as Array<{ kind: string }>).filter((e) => e.kind === 'test')).toHaveLength(0);
    expect(t.stack.sim.openViews('U_MANAGER').filter((v) => v.callback_id === 'template_form')).toHaveLength(0);
  });
});
