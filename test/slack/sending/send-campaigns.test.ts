// The send form with campaigns and e-mail templates, end to end through the Slack simulator: picking a
// campaign fills its design, amount and template (views.update) and keeps what the sender entered;
// the amount is held to the campaign's range inline; the order carries the template, sender name and
// subject; an archived campaign, a design removed from the catalog and a deleted template each stop
// the send with a plain message, nothing ordered.
import { describe, expect, it } from 'vitest';

import { kudos } from '../../../src/db/schema/index.js';
import { archiveCampaign, type CampaignInput, createCampaign } from '../../../src/domain/finance/campaigns.js';
import { apiClient, getToken } from '../../emulator/helpers.js';
import { eventually, revealInSendForm, sendModalValues, useAppPerTest } from '../../support/app.js';

const t = useAppPerTest({
  env: { KUDOS_APPROVAL_THRESHOLD: '1000', KUDOS_ADMINS: 'U_ADMIN', KUDOS_ADMIN_CHANNEL: 'C_ADMIN' },
  app: { tuning: { financeSweepMs: 0 } },
});
const WS = { teamId: 'T0KUDOS', enterpriseId: null };

async function campaign(overrides: Partial<CampaignInput> = {}) {
  const input: CampaignInput = {
    name: 'Q4 spot awards',
    productId: 'CC-CONGRATS',
    designName: 'Congratulations',
    minCents: 2500,
    maxCents: 10000,
    defaultCents: 5000,
    templateId: null,
    templateName: null,
    senderName: 'The People Team',
    subject: 'A Q4 spot award for you',
    ...overrides,
  };
  const deps = { db: t.db, rewards: t.stack.app.rewards, now: () => new Date(), timeoutMs: 5000 };
  const outcome = await createCampaign(deps, WS, 'U_ADMIN', input, `setup-${Math.random()}`);
  if (outcome.kind !== 'saved') throw new Error(`campaign not created: ${outcome.kind}`);
  return outcome.row;
}

/** The send form with More options pressed: campaign, e-mail template and refund shown. */
async function openForm(userId = 'U_MANAGER') {
  await t.stack.sim.slashCommand(userId, '', 'C_GENERAL');
  const opened = await t.stack.sim.waitFor(() =>
    t.stack.sim.openViews(userId).find((v) => v.callback_id === 'kudos_send'),
  );
  expect(JSON.stringify(opened.blocks)).not.toContain('send_campaign');
  return revealInSendForm(t.stack.sim, opened.id, userId, 'more');
}

type Block = {
  block_id?: string;
  type: string;
  element?: { initial_option?: { value: string }; initial_value?: string };
  elements?: Array<{ text: string }>;
};

/** Picks the campaign in the open form as the sender would (block_actions), and returns the form once Slack shows it filled in. */
async function pickCampaign(viewId: string, campaignId: string, userId = 'U_MANAGER') {
  const before = t.stack.sim.openViews(userId).find((v) => v.id === viewId)!.hash;
  await t.stack.sim.clickButton({ viewId }, 'campaign', userId, campaignId);
  return t.stack.sim.waitFor(() => t.stack.sim.openViews(userId).find((v) => v.id === viewId && v.hash !== before));
}

const blockOf = (view: { blocks: unknown[] }, prefix: string) =>
  (view.blocks as Block[]).find((b) => b.block_id?.startsWith(prefix))!;

/** The send form's values with the campaign's filled blocks under their current ids. */
function filledValues(
  view: { blocks: unknown[] },
  input: Parameters<typeof sendModalValues>[0] & { campaign?: string; template?: string },
) {
  const values = sendModalValues(input);
  const design = values.send_design!;
  const amount = values.send_amount!;
  delete values.send_design;
  delete values.send_amount;
  values[blockOf(view, 'send_design').block_id!] = design;
  values[blockOf(view, 'send_amount').block_id!] = amount;
  if (input.campaign)
    values.send_campaign = {
      campaign: {
        type: 'external_select',
        selected_option: { text: { type: 'plain_text', text: 'c' }, value: input.campaign },
      },
    };
  if (input.template)
    values[blockOf(view, 'send_template').block_id!] = {
      email_template: {
        type: 'external_select',
        selected_option: { text: { type: 'plain_text', text: 't' }, value: input.template },
      },
    };
  return values;
}

const orders = () => t.stack.app.rewards.orders.list({ pageSize: 100 }).all();

describe('the send form with campaigns and e-mail templates', () => {
  it('picking a campaign fills design, amount and template and keeps the rest; its range is checked inline; the order carries its e-mail', async () => {
    const template = await t.stack.app.rewards.templates.create({
      name: 'Q4 look',
      senderName: 'People Team',
      buttonColor: '#112233',
    });
    const row = await campaign({ templateId: template.templateId, templateName: 'Q4 look' });
    const view = await openForm();
    // The sender has picked people and typed a message before choosing the campaign.
    view.state = {
      values: {
        send_recipients: { recipients: { type: 'multi_users_select', selected_users: ['U_EMP1'] } },
        send_message: { message: { type: 'plain_text_input', value: 'Thanks for the Q4 push' } },
      },
    };
    const filled = await pickCampaign(view.id, row.id);
    expect(blockOf(filled, 'send_design').element!.initial_option!.value).toBe('CC-CONGRATS');
    expect(blockOf(filled, 'send_amount').element!.initial_value).toBe('50');
    expect(blockOf(filled, 'send_template').element!.initial_option!.value).toBe(template.templateId);
    expect(JSON.stringify(filled.blocks)).toMatch(
      /Congratulations · \$25–\$100 \(default \$50\) per person · template \*Q4 look\*/,
    );
    // Slack keeps what was entered where the block stays: the people and the message.
    expect(filled.state.values.send_recipients).toEqual({
      recipients: { type: 'multi_users_select', selected_users: ['U_EMP1'] },
    });
    expect(filled.state.values.send_message).toEqual({
      message: { type: 'plain_text_input', value: 'Thanks for the Q4 push' },
    });

    const base = {
      users: ['U_EMP1'],
      design: 'CC-CONGRATS',
      message: 'Thanks for the Q4 push',
      campaign: row.id,
      template: template.templateId,
    };
    for (const [amount, error] of [
      ['150', /The campaign “Q4 spot awards” takes \$25 to \$100 per person/],
      ['10', /takes \$25 to \$100/],
      ['30.50', /whole dollars only/],
    ] as const) {
      await t.stack.sim.submitView(filled.id, filledValues(filled, { ...base, amount }), 'U_MANAGER');
      expect(t.stack.sim.viewErrors(filled.id)[blockOf(filled, 'send_amount').block_id!]).toMatch(error);
    }
    expect(await t.db.select().from(kudos)).toHaveLength(0);

    await t.stack.sim.submitView(filled.id, filledValues(filled, { ...base, amount: '75' }), 'U_MANAGER');
    expect(t.stack.sim.viewErrors(filled.id)).toEqual({});
    const [sent] = await eventually(async () => {
      const rows = await t.db.select().from(kudos);
      return rows[0]?.orderId ? rows : undefined;
    });
    expect(sent).toMatchObject({
      campaignId: row.id,
      emailTemplateId: template.templateId,
      emailSenderName: 'The People Team',
      emailSubject: 'A Q4 spot award for you',
      amountCents: 7500,
      productId: 'CC-CONGRATS',
    });
    const order = await t.stack.app.rewards.orders.get(sent!.orderId!);
    expect(order).toMatchObject({
      emailSetting: {
        templateId: template.templateId,
        senderName: 'The People Team',
        subject: 'A Q4 spot award for you',
        message: 'Thanks for the Q4 push',
      },
    });
  });

  it('a template picked without a campaign goes into the order; none leaves the account default', async () => {
    const template = await t.stack.app.rewards.templates.create({ name: 'Plain thanks', senderName: 'Kudos' });
    const view = await openForm();
    await t.stack.sim.submitView(
      view.id,
      filledValues(view, { users: ['U_EMP2'], design: 'CC-THANK-YOU', amount: '20', template: template.templateId }),
      'U_MANAGER',
    );
    expect(t.stack.sim.viewErrors(view.id)).toEqual({});
    const [sent] = await eventually(async () => {
      const rows = await t.db.select().from(kudos);
      return rows[0]?.orderId ? rows : undefined;
    });
    expect(sent).toMatchObject({ campaignId: null, emailTemplateId: template.templateId, emailSenderName: null });
    const order = await t.stack.app.rewards.orders.get(sent!.orderId!);
    expect(order).toMatchObject({
      emailSetting: {
        templateId: template.templateId,
        senderName: 'Maya Manager',
        subject: 'Maya Manager sent you kudos',
      },
    });
  });

  it('a campaign archived while the form is open: refused inline at submit, nothing sent', async () => {
    const row = await campaign();
    const view = await openForm();
    const filled = await pickCampaign(view.id, row.id);
    await archiveCampaign(
      { db: t.db, rewards: t.stack.app.rewards, now: () => new Date(), timeoutMs: 5000 },
      WS,
      'U_ADMIN',
      row.id,
    );
    await t.stack.sim.submitView(
      filled.id,
      filledValues(filled, { users: ['U_EMP1'], design: 'CC-CONGRATS', amount: '50', campaign: row.id }),
      'U_MANAGER',
    );
    expect(t.stack.sim.viewErrors(filled.id).send_campaign).toMatch(/That campaign was archived/);
    // Picked again, the form says so too.
    const again = await pickCampaign(filled.id, row.id);
    expect(JSON.stringify(again.blocks)).toMatch(/That campaign was archived/);
    expect(await t.db.select().from(kudos)).toHaveLength(0);
    expect(await orders()).toHaveLength(0);
  });

  it('a campaign whose design was removed from the catalog: the form says so when picked, and the send is refused, nothing ordered', async () => {
    const row = await campaign({ productId: 'CC-HOLIDAY', designName: 'Happy Holidays' });
    // The catalog is cached for 5 minutes: the design is in it when the removal happens.
    await t.stack.app.rewards.catalog.listChoiceCards().all();
    await t.emulator.removeDesign('CC-HOLIDAY');
    const view = await openForm();
    const filled = await pickCampaign(view.id, row.id);
    expect(JSON.stringify(filled.blocks)).toMatch(
      /design “Happy Holidays” was removed from the Rewards catalog, so nothing can be sent with it/,
    );
    // The design the form had (the workspace's starting design) stays; the removed one is not offered.
    expect(blockOf(filled, 'send_design').element?.initial_option?.value).not.toBe('CC-HOLIDAY');
    // A form that still names the design (opened before, or crafted) is refused.
    await t.stack.sim.submitView(
      filled.id,
      filledValues(filled, { users: ['U_EMP1'], design: 'CC-HOLIDAY', amount: '50', campaign: row.id }),
      'U_MANAGER',
    );
    expect(t.stack.sim.viewErrors(filled.id)[blockOf(filled, 'send_design').block_id!]).toMatch(
      /“Happy Holidays” was removed from the Rewards catalog, so nothing was sent/,
    );
    expect(await t.db.select().from(kudos)).toHaveLength(0);
    expect(await orders()).toHaveLength(0);
  });

  it('a template deleted in the portal while the form is open: refused inline under the template, nothing sent', async () => {
    const template = await t.stack.app.rewards.templates.create({ name: 'Short-lived', senderName: 'Kudos' });
    const view = await openForm();
    const portal = apiClient(t.emulator.url, await getToken(t.emulator.url, 'production'));
    expect((await portal.del(`/templates/${template.templateId}`)).status).toBe(204);
    await t.stack.sim.submitView(
      view.id,
      filledValues(view, { users: ['U_EMP1'], design: 'CC-THANK-YOU', amount: '20', template: template.templateId }),
      'U_MANAGER',
    );
    expect(t.stack.sim.viewErrors(view.id).send_template).toMatch(/no longer in the Rewards account/);
    expect(await t.db.select().from(kudos)).toHaveLength(0);
    expect(await orders()).toHaveLength(0);
  });

  it('the campaign and template selects list active campaigns and the account’s templates', async () => {
    const row = await campaign();
    const archived = await campaign({ name: 'Old one' });
    await archiveCampaign(
      { db: t.db, rewards: t.stack.app.rewards, now: () => new Date(), timeoutMs: 5000 },
      WS,
      'U_ADMIN',
      archived.id,
    );
    const view = await openForm();
    const campaigns = await t.stack.sim.loadOptions(view.id, 'campaign', 'send_campaign', '', 'U_MANAGER');
    expect(campaigns.body).toEqual({
      options: [{ text: { type: 'plain_text', text: 'Q4 spot awards ($25–$100)', emoji: true }, value: row.id }],
    });
    const templates = await t.stack.sim.loadOptions(view.id, 'email_template', 'send_template', '', 'U_MANAGER');
    expect(JSON.stringify(templates.body)).toMatch(/None: the account’s default template.*"Default".*TP-DEFAULT/);
  });

  it('spend per campaign: /kudos campaigns shows it, and /kudos audit csv has a campaign column', async () => {
    const row = await campaign();
    const view = await openForm();
    await t.stack.sim.submitView(
      view.id,
      filledValues(view, { users: ['U_EMP1', 'U_EMP2'], design: 'CC-CONGRATS', amount: '30', campaign: row.id }),
      'U_MANAGER',
    );
    expect(t.stack.sim.viewErrors(view.id)).toEqual({});
    const [sent] = await eventually(async () => {
      const rows = await t.db.select().from(kudos);
      return rows[0]?.orderId ? rows : undefined;
    });
    await t.stack.sim.slashCommand('U_ADMIN', 'campaigns', 'C_ADMIN');
    const list = await t.stack.sim.waitFor(() =>
      t.stack.sim.messages('C_ADMIN').find((m) => m.ephemeral && /\*Campaigns\*/.test(JSON.stringify(m.blocks ?? []))),
    );
    expect(JSON.stringify(list.blocks)).toMatch(/Spent \$60 this month · \$60 in all, 1 send/);

    await t.stack.sim.slashCommand('U_ADMIN', 'audit csv', 'C_ADMIN');
    const dm = await t.stack.sim.waitFor(() => t.stack.sim.messages('U_ADMIN').find((m) => m.files?.length));
    const body = t.stack.sim.fileText(dm.files![0]!.id)!.text;
    expect(body).toContain('Sender,Recipients,Campaign,Face value (USD),Total (USD),Details,Reference,Value');
    expect(body).toMatch(
      new RegExp(`Order placed,Maya Manager,.*,Q4 spot awards,30\\.00,60\\.00,.*,${sent!.id.slice(0, 8)}`),
    );
    expect(body).toMatch(/Campaign created,,,Q4 spot awards,,,/);
  });
});
