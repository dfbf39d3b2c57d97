// /kudos campaigns end to end: signed requests from the Slack simulator into the app, the Rewards
// emulator keeping the campaigns' mirror. Admins list, create (bad amounts, min over max and a
// removed design refused inline), edit and archive; the Rewards API's refusals, lost answers and
// timeouts each get a clear answer, nothing is half-done, and one form never makes two API campaigns.
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { auditEvents, campaigns } from '../../../src/db/schema/index.js';
import { CREATE_SETTLE_MS } from '../../../src/domain/finance/campaigns.js';
import { blockActionPayload, eventually, postSignedPayload, useAppPerTest } from '../../support/app.js';

const t = useAppPerTest({
  env: { KUDOS_ADMINS: 'U_ADMIN,U_APPROVER', KUDOS_ADMIN_CHANNEL: 'C_ADMIN' },
  app: { tuning: { financeSweepMs: 0 } },
});

const text = (value: string) => ({ value: { type: 'plain_text_input', value } });
const number = (value: string) => ({ value: { type: 'number_input', value } });
const option = (actionId: string, value: string) => ({
  [actionId]: { type: 'external_select', selected_option: { text: { type: 'plain_text', text: value }, value } },
});
const blocksOf = (m: { blocks?: unknown[] | undefined; text: string }) => m.text + JSON.stringify(m.blocks ?? []);

function campaignForm(values: {
  name?: string;
  design?: string | undefined;
  min?: string;
  max?: string;
  default?: string;
  template?: string;
  sender?: string;
  subject?: string;
}) {
  return {
    campaign_name: text(values.name ?? ''),
    ...(values.design ? { campaign_design: option('campaign_design_pick', values.design) } : {}),
    campaign_min: number(values.min ?? ''),
    campaign_max: number(values.max ?? ''),
    campaign_default: number(values.default ?? ''),
    ...(values.template ? { campaign_template: option('campaign_template_pick', values.template) } : {}),
    campaign_sender: text(values.sender ?? ''),
    campaign_subject: text(values.subject ?? ''),
  };
}

async function listCampaigns(userId = 'U_ADMIN') {
  const before = t.stack.sim.messages('C_ADMIN').length;
  await t.stack.sim.slashCommand(userId, 'campaigns', 'C_ADMIN');
  return t.stack.sim.waitFor(() =>
    t.stack.sim
      .messages('C_ADMIN')
      .slice(before)
      .find((m) => m.ephemeral && /\*Campaigns\*/.test(blocksOf(m))),
  );
}

async function openNewForm() {
  const list = await listCampaigns();
  await t.stack.sim.clickButton({ channel: list.channel, ts: list.ts }, 'campaign_new', 'U_ADMIN');
  return t.stack.sim.waitFor(() => t.stack.sim.openViews('U_ADMIN').find((v) => v.callback_id === 'campaign_form'));
}

const apiCampaigns = () => t.stack.app.rewards.campaigns.list({ pageSize: 100 }).all();
const rows = () => t.db.select().from(campaigns);

const GOOD = {
  name: 'Q4 spot awards',
  design: 'CC-THANK-YOU',
  min: '25',
  max: '100',
  default: '50',
  sender: 'The People Team',
  subject: 'A Q4 spot award for you',
};

describe('/kudos campaigns', () => {
  it('admins only: others are refused, also a crafted click', async () => {
    const refused = await t.stack.sim.slashCommand('U_MANAGER', 'campaigns', 'C_GENERAL');
    expect(JSON.stringify(refused.body)).toMatch(/Only Kudos admins can manage campaigns/);
    await postSignedPayload(
      t.stack.app.url,
      blockActionPayload({ userId: 'U_MANAGER', actionId: 'campaign_new', value: 'new', channel: 'C_GENERAL' }),
    );
    await t.stack.sim.waitFor(() =>
      t.stack.sim
        .messages('C_GENERAL')
        .find((m) => m.ephemeral && m.visible_to === 'U_MANAGER' && /Only Kudos admins/.test(m.text)),
    );
    expect(t.stack.sim.openViews('U_MANAGER').filter((v) => v.callback_id === 'campaign_form')).toHaveLength(0);
    const help = await t.stack.sim.slashCommand('U_MANAGER', 'help', 'C_GENERAL');
    expect(JSON.stringify(help.body)).not.toContain('/kudos campaigns');
    const adminHelp = await t.stack.sim.slashCommand('U_ADMIN', 'help', 'C_GENERAL');
    expect(JSON.stringify(adminHelp.body)).toContain('/kudos campaigns');
  });

  it('bad amounts (cents, negative, huge), min over max, a default outside the range and a placeholder are refused inline; nothing is created', async () => {
    const view = await openNewForm();
    const errorsOf = async (values: Parameters<typeof campaignForm>[0]) => {
      await t.stack.sim.submitView(view.id, campaignForm(values), 'U_ADMIN');
      return t.stack.sim.viewErrors(view.id);
    };
    let errors = await errorsOf({ ...GOOD, name: '', min: '12.50', max: '-5', default: '1000000' });
    expect(errors.campaign_name).toMatch(/name/);
    expect(errors.campaign_min).toMatch(/whole dollars only/);
    expect(errors.campaign_max).toMatch(/whole dollars/);
    expect(errors.campaign_default).toMatch(/\$5 to \$500/);
    errors = await errorsOf({ ...GOOD, min: '200', max: '100' });
    expect(errors.campaign_max).toMatch(/at least the least \(\$200\)/);
    errors = await errorsOf({ ...GOOD, min: '25', max: '100', default: '150', subject: 'Hi {{first_name}}' });
    expect(errors.campaign_default).toMatch(/between \$25 and \$100/);
    expect(errors.campaign_subject).toMatch(/placeholder/);
    errors = await errorsOf({ ...GOOD, design: undefined });
    expect(errors.campaign_design).toMatch(/Pick the campaign’s card design/);
    expect(await rows()).toHaveLength(0);
    expect(await apiCampaigns()).toHaveLength(0);
  });

  it('a good form creates the campaign once, in Kudos and in the Rewards account, listed with its details; a second campaign of the same name is refused', async () => {
    const template = await t.stack.app.rewards.templates.create({ name: 'Q4 look', senderName: 'People Team' });
    const view = await openNewForm();
    // Campaigns carry choice cards only: the form says so where the design is picked.
    expect(JSON.stringify(view.blocks)).toContain('Campaigns send choice cards (the recipient picks the brand)');
    await t.stack.sim.submitView(view.id, campaignForm({ ...GOOD, template: template.templateId }), 'U_ADMIN');
    expect(t.stack.sim.viewErrors(view.id)).toEqual({});
    const [row] = await rows();
    expect(row).toMatchObject({
      name: 'Q4 spot awards',
      status: 'active',
      productId: 'CC-THANK-YOU',
      designName: 'Thank You',
      minCents: 2500,
      maxCents: 10000,
      defaultCents: 5000,
      templateId: template.templateId,
      templateName: 'Q4 look',
    });
    const api = await apiCampaigns();
    expect(api).toHaveLength(1);
    expect(api[0]).toMatchObject({
      campaignId: row!.apiCampaignId,
      productId: 'CC-THANK-YOU',
      templateId: template.templateId,
      senderName: 'The People Team',
      subject: 'A Q4 spot award for you',
    });
    expect(api[0]!.name).toMatch(/^Q4 spot awards \(Kudos [0-9a-f]{12}\)$/);
    expect(Number(api[0]!.amount)).toBe(50);
    await t.stack.sim.waitFor(() =>
      t.stack.sim.messages('U_ADMIN').find((m) => /Campaign \*Q4 spot awards\* saved/.test(m.text)),
    );
    const shown = blocksOf(await listCampaigns());
    expect(shown).toContain('Q4 spot awards');
    expect(shown).toMatch(/\$25–\$100 \(default \$50\)/);
    expect(shown).toContain('Q4 look');
    expect(shown).toContain('Nothing sent under it yet');
    const [audit] = await t.db.select().from(auditEvents).where(eq(auditEvents.action, 'campaign.created'));
    expect(audit).toMatchObject({ actorUserId: 'U_ADMIN', subjectId: row!.id });

    const again = await openNewForm();
    await t.stack.sim.submitView(again.id, campaignForm({ ...GOOD, name: 'q4 SPOT awards' }), 'U_ADMIN');
    expect(t.stack.sim.viewErrors(again.id).campaign_name).toMatch(/already exists/);
    expect(await rows()).toHaveLength(1);
    expect(await apiCampaigns()).toHaveLength(1);
  });

  it('Edit changes Kudos and the Rewards account; Archive deletes it there and takes it off the list', async () => {
    const view = await openNewForm();
    await t.stack.sim.submitView(view.id, campaignForm(GOOD), 'U_ADMIN');
    const [row] = await eventually(async () => ((await rows())[0]?.status === 'active' ? rows() : undefined));
    const list = await listCampaigns();
    await t.stack.sim.clickButton({ channel: list.channel, ts: list.ts }, 'campaign_edit', 'U_ADMIN', row!.id);
    const edit = await t.stack.sim.waitFor(() =>
      t.stack.sim.openViews('U_ADMIN').find((v) => v.callback_id === 'campaign_form' && v.id !== view.id),
    );
    expect(JSON.stringify(edit.blocks)).toContain('Q4 spot awards');
    await t.stack.sim.submitView(
      edit.id,
      campaignForm({
        ...GOOD,
        name: 'Q4 spot awards (EMEA)',
        design: 'CC-CONGRATS',
        min: '10',
        max: '40',
        default: '',
      }),
      'U_ADMIN',
    );
    expect(t.stack.sim.viewErrors(edit.id)).toEqual({});
    const [changed] = await rows();
    expect(changed).toMatchObject({
      id: row!.id,
      name: 'Q4 spot awards (EMEA)',
      productId: 'CC-CONGRATS',
      minCents: 1000,
      maxCents: 4000,
      defaultCents: 1000,
      updatedBy: 'U_ADMIN',
    });
    const [api] = await apiCampaigns();
    expect(api).toMatchObject({ campaignId: row!.apiCampaignId, productId: 'CC-CONGRATS' });
    expect(api!.name).toMatch(/^Q4 spot awards \(EMEA\) \(Kudos /);
    expect(Number(api!.amount)).toBe(10);

    const current = await listCampaigns();
    await t.stack.sim.clickButton({ channel: current.channel, ts: current.ts }, 'campaign_archive', 'U_ADMIN', row!.id);
    await t.stack.sim.waitFor(() =>
      t.stack.sim
        .messages('C_ADMIN')
        .find((m) => m.ephemeral && /archived: deleted from the Rewards account/.test(blocksOf(m))),
    );
    expect(await apiCampaigns()).toHaveLength(0);
    expect((await rows())[0]).toMatchObject({ status: 'archived', archivedBy: 'U_ADMIN' });
    expect(blocksOf(await listCampaigns())).toContain('No campaigns yet');
  });

  it('a campaign whose design was removed from the catalog: the list and the edit form say so plainly, and saving it unchanged is refused inline', async () => {
    const view = await openNewForm();
    await t.stack.sim.submitView(view.id, campaignForm({ ...GOOD, design: 'CC-HOLIDAY' }), 'U_ADMIN');
    const [row] = await eventually(async () => ((await rows())[0]?.status === 'active' ? rows() : undefined));
    await t.emulator.removeDesign('CC-HOLIDAY');
    const list = await listCampaigns();
    expect(blocksOf(list)).toMatch(/design \*Happy Holidays\* was removed from the Rewards catalog/);
    await t.stack.sim.clickButton({ channel: list.channel, ts: list.ts }, 'campaign_edit', 'U_ADMIN', row!.id);
    const edit = await t.stack.sim.waitFor(() =>
      t.stack.sim.openViews('U_ADMIN').find((v) => v.callback_id === 'campaign_form' && v.id !== view.id),
    );
    expect(JSON.stringify(edit.blocks)).toMatch(
      /design “Happy Holidays” is no longer in the Rewards catalog; pick another/,
    );
    await t.stack.sim.submitView(edit.id, campaignForm({ ...GOOD, design: 'CC-HOLIDAY' }), 'U_ADMIN');
    expect(t.stack.sim.viewErrors(edit.id).campaign_design).toMatch(
      /“Happy Holidays” is no longer in the Rewards catalog/,
    );
    expect((await rows())[0]).toMatchObject({ productId: 'CC-HOLIDAY' });
  });

  it('the Rewards API refuses the create: said inline, nothing saved anywhere', async () => {
    const view = await openNewForm();
    await t.emulator.faults({ method: 'POST', path: '^/api/v1/campaigns$', status: 400, count: 1 });
    await t.stack.sim.submitView(view.id, campaignForm(GOOD), 'U_ADMIN');
    expect(t.stack.sim.viewErrors(view.id).campaign_name).toMatch(
      /Could not create the campaign in the Rewards account.*Nothing was saved/,
    );
    expect(await rows()).toHaveLength(0);
    expect(await apiCampaigns()).toHaveLength(0);
  });

  it('the answer is lost after the API took the create: the campaign is found by its tag, never created twice', async () => {
    const view = await openNewForm();
    await t.emulator.faults({ method: 'POST', path: '^/api/v1/campaigns$', drop: true, count: 1 });
    await t.stack.sim.submitView(view.id, campaignForm(GOOD), 'U_ADMIN');
    expect(t.stack.sim.viewErrors(view.id)).toEqual({});
    expect(await apiCampaigns()).toHaveLength(1);
    expect((await rows())[0]).toMatchObject({ status: 'active', apiCampaignId: (await apiCampaigns())[0]!.campaignId });
  });

  it('a timeout: the form says Kudos does not know yet; pressing Save again once the API has it finishes it, one API campaign', async () => {
    const view = await openNewForm();
    await t.emulator.faults({ method: 'POST', path: '^/api/v1/campaigns$', delayMs: 3500, count: 1 });
    await t.stack.sim.submitView(view.id, campaignForm(GOOD), 'U_ADMIN');
    expect(t.stack.sim.viewErrors(view.id).campaign_name).toMatch(/did not answer in time.*will not create it twice/);
    expect((await rows())[0]).toMatchObject({ status: 'creating' });
    // Not offered while unknown; the late request lands (3.5 s after it was sent: the emulator's latency).
    await eventually(async () => (await apiCampaigns()).length === 1 || undefined, 30_000);
    await t.stack.sim.submitView(view.id, campaignForm(GOOD), 'U_ADMIN');
    expect(t.stack.sim.viewErrors(view.id)).toEqual({});
    expect((await rows())[0]).toMatchObject({ status: 'active' });
    expect(await apiCampaigns()).toHaveLength(1);
  });

  it('a 503 on create: unknown until the settle time has passed, then created once; the list finishes it too', async () => {
    const view = await openNewForm();
    await t.emulator.faults({ method: 'POST', path: '^/api/v1/campaigns$', status: 503, count: 1 });
    await t.stack.sim.submitView(view.id, campaignForm(GOOD), 'U_ADMIN');
    expect(t.stack.sim.viewErrors(view.id).campaign_name).toMatch(/does not know yet/);
    expect(blocksOf(await listCampaigns())).toMatch(/Being created in the Rewards account/);
    expect(await apiCampaigns()).toHaveLength(0);
    // The settle time (two minutes) passes: the last create call is moved back past it.
    await t.db
      .update(campaigns)
      .set({ apiAttemptAt: new Date(Date.now() - CREATE_SETTLE_MS - 1000) })
      .where(eq(campaigns.status, 'creating'));
    expect(blocksOf(await listCampaigns())).not.toMatch(/Being created/);
    expect((await rows())[0]).toMatchObject({ status: 'active' });
    expect(await apiCampaigns()).toHaveLength(1);
    // The form pressed again now finds it done: still one.
    await t.stack.sim.submitView(view.id, campaignForm(GOOD), 'U_ADMIN');
    expect(await apiCampaigns()).toHaveLength(1);
  });

  it('edit and archive when the Rewards API fails: a clear answer, nothing changed in Kudos', async () => {
    const view = await openNewForm();
    await t.stack.sim.submitView(view.id, campaignForm(GOOD), 'U_ADMIN');
    const [row] = await eventually(async () => ((await rows())[0]?.status === 'active' ? rows() : undefined));
    const list = await listCampaigns();
    await t.stack.sim.clickButton({ channel: list.channel, ts: list.ts }, 'campaign_edit', 'U_ADMIN', row!.id);
    const edit = await t.stack.sim.waitFor(() =>
      t.stack.sim.openViews('U_ADMIN').find((v) => v.callback_id === 'campaign_form' && v.id !== view.id),
    );
    await t.emulator.faults({ method: 'PUT', path: '^/api/v1/campaigns/', delayMs: 3500, count: 1 });
    await t.stack.sim.submitView(edit.id, campaignForm({ ...GOOD, name: 'Renamed' }), 'U_ADMIN');
    expect(t.stack.sim.viewErrors(edit.id).campaign_name).toMatch(
      /did not answer in time. Nothing was changed in Kudos; press Save again/,
    );
    expect((await rows())[0]).toMatchObject({ name: 'Q4 spot awards' });
    await t.emulator.faults({ method: 'PUT', path: '^/api/v1/campaigns/', status: 400, count: 1 });
    await t.stack.sim.submitView(edit.id, campaignForm({ ...GOOD, name: 'Renamed' }), 'U_ADMIN');
    expect(t.stack.sim.viewErrors(edit.id).campaign_name).toMatch(/Could not change the campaign.*Nothing was changed/);
    expect((await rows())[0]).toMatchObject({ name: 'Q4 spot awards' });

    await t.emulator.faults({ method: 'DELETE', path: '^/api/v1/campaigns/', status: 500, count: 10 });
    await t.stack.sim.clickButton({ channel: list.channel, ts: list.ts }, 'campaign_archive', 'U_ADMIN', row!.id);
    await t.stack.sim.waitFor(() =>
      t.stack.sim
        .messages('C_ADMIN')
        .find((m) => m.ephemeral && /Could not archive the campaign.*Nothing was changed/.test(m.text)),
    );
    expect(
      await t.db
        .select()
        .from(campaigns)
        .where(and(eq(campaigns.id, row!.id), eq(campaigns.status, 'active'))),
    ).toHaveLength(1);
    expect(await apiCampaigns()).toHaveLength(1);
  });
});
