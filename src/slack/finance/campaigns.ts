// `/kudos campaigns` for admins: the workspace's campaigns with their spend, New / Edit / Archive, and
// the form (inline errors for bad amounts, a removed design, a deleted template; the Rewards API's
// answer, or its silence, said plainly). Admins only, by the one admin rule (deps.isAdmin). The rules
// and the exactly-once creation in the Rewards account are in domain/finance/campaigns.ts.
import type {
  AckFn,
  App,
  RespondArguments,
  RespondFn,
  SlackActionMiddlewareArgs,
  SlackOptionsMiddlewareArgs,
  SlackViewMiddlewareArgs,
} from '@slack/bolt';
import { z } from 'zod';

import { readDesignNow } from '../../domain/accounts/design-catalog.js';
import { listTemplates } from '../../domain/accounts/email-templates.js';
import { describeForUser } from '../../domain/accounts/rewards-failures.js';
import type { FormErrors } from '../../domain/common/refusal.js';
import {
  archiveCampaign,
  type CampaignDeps,
  type CampaignField,
  type CampaignForm,
  campaignSpend,
  CREATE_SETTLE_MS,
  createCampaign,
  finishCreating,
  getCampaign,
  listCampaigns,
  prepareCampaign,
  updateCampaign,
} from '../../domain/finance/campaigns.js';
import type { RewardsClient } from '../../rewards/index.js';
import { Campaigns, NO_TEMPLATE } from '../ids.js';
import { plain } from '../kit/mrkdwn.js';
import { escapeMrkdwn } from '../kit/mrkdwn-escape.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import {
  buttonClick,
  buttonOpeningModal,
  metadataOf,
  noValue,
  optionsLoad,
  parseAtEdge,
  type SlashCommandPayload,
  type StateValues,
  textOf,
  uuidValue,
  viewSubmission,
} from '../listening/payloads.js';
import { teller } from '../listening/tell-clicker.js';
import { buildDesignOptions, searchOptions } from '../sending/design-options-blocks.js';
import { buildCampaignList, buildCampaignModal, type CampaignListItem, NO_TEMPLATE_OPTION } from './campaign-blocks.js';

const NOT_ADMIN = ':no_entry: Only Kudos admins can manage campaigns.';
/** Stay inside Slack's 3 s for a view submission: every Rewards call of a save shares this. */
const SAVE_BUDGET_MS = 2200;
const LIST_TIMEOUT_MS = 4000;

const openClick = buttonOpeningModal(noValue);
const editClick = buttonOpeningModal(uuidValue);
const archiveClick = buttonClick(uuidValue);

export function isCampaignsCommand(text: string): boolean {
  return /^campaigns?$/i.test(text.trim());
}

function campaignDeps(
  deps: ListenerDeps,
  rewards: RewardsClient,
  timing: { timeoutMs: number; deadline?: number },
): CampaignDeps {
  return {
    db: deps.db,
    rewards,
    now: () => deps.now(),
    settleMs: deps.campaignSettleMs ?? CREATE_SETTLE_MS,
    ...timing,
  };
}

/** The list as an admin sees it: campaigns still being created are looked up first; designs checked against the catalog now. */
async function campaignList(deps: ListenerDeps, ws: ReturnType<typeof workspaceOf>): Promise<CampaignListItem[]> {
  const rewards = await deps.rewards.for(ws);
  await finishCreating(campaignDeps(deps, rewards, { timeoutMs: LIST_TIMEOUT_MS }), ws.teamId).catch((error: unknown) =>
    deps.logger.warn('finishing campaigns being created failed', { error }),
  );
  const [rows, spend, catalog] = await Promise.all([
    listCampaigns(deps.db, ws.teamId),
    campaignSpend(deps.db, ws.teamId, deps.now()),
    (async () => {
      const ids = new Set<string>();
      for await (const product of rewards.catalog.listChoiceCards({ pageSize: 100 }, { timeoutMs: LIST_TIMEOUT_MS }))
        ids.add(product.productId);
      return ids;
    })().catch((error: unknown) => {
      deps.logger.warn('reading the catalog for campaigns failed', { error });
      return undefined;
    }),
  ]);
  return rows.map((row) => ({
    row,
    spend: spend.get(row.id),
    designGone: catalog !== undefined && !catalog.has(row.productId),
  }));
}

export async function handleCampaignsCommand(
  deps: ListenerDeps,
  input: { ack: AckFn<string | RespondArguments>; command: SlashCommandPayload; respond: RespondFn },
): Promise<void> {
  const { ack, command, respond } = input;
  const ws = workspaceOf(command);
  if (!(await deps.isAdmin(ws, command.user_id))) return ack({ text: NOT_ADMIN });
  await ack({ text: 'Reading the campaigns…' });
  try {
    await respond({
      response_type: 'ephemeral',
      replace_original: true,
      ...buildCampaignList(await campaignList(deps, ws)),
    });
  } catch (error) {
    deps.logger.warn('listing campaigns failed', { error });
    await respond({
      response_type: 'ephemeral',
      replace_original: true,
      text: describeForUser(error, 'list the campaigns'),
    });
  }
}

function readForm(values: StateValues): CampaignForm {
  const B = Campaigns.modal.blocks;
  const text = (block: string) => textOf(values[block]?.[Campaigns.modal.action]).trim();
  const template = values[B.template]?.[Campaigns.modal.templateAction]?.selected_option?.value ?? undefined;
  return {
    name: text(B.name),
    productId: values[B.design]?.[Campaigns.modal.designAction]?.selected_option?.value ?? undefined,
    min: values[B.min]?.[Campaigns.modal.action]?.value ?? undefined,
    max: values[B.max]?.[Campaigns.modal.action]?.value ?? undefined,
    default: values[B.default]?.[Campaigns.modal.action]?.value ?? undefined,
    templateId: template && template !== NO_TEMPLATE ? template : undefined,
    senderName: text(B.senderName),
    subject: text(B.subject),
  };
}

const FIELD_BLOCKS: Record<CampaignField, string> = Campaigns.modal.blocks;
const formMetadata = z.object({ campaignId: z.guid().optional() });

type Respond = (message: Record<string, unknown>) => Promise<unknown>;

/** What a handler reads of Bolt's args: the payload, ack, and (for clicks) respond. */
type ClickArgs = Pick<SlackActionMiddlewareArgs, 'ack' | 'body' | 'respond'>;
type OptionsArgs = Pick<SlackOptionsMiddlewareArgs<'block_suggestion'>, 'ack' | 'body'>;
type ViewArgs = Pick<SlackViewMiddlewareArgs, 'ack' | 'body'>;

export function registerCampaigns(app: App, deps: ListenerDeps): void {
  app.action(Campaigns.actions.create, (args) => onCreateClicked(deps, args));
  app.action(Campaigns.actions.edit, (args) => onEditClicked(deps, args));
  app.action(Campaigns.actions.archive, (args) => onArchiveClicked(deps, args));
  // The form's searchable selects (admins only): designs from the cached catalog, the account's templates.
  app.options(Campaigns.modal.designAction, (args) => onDesignOptions(deps, args));
  app.options(Campaigns.modal.templateAction, (args) => onTemplateOptions(deps, args));
  app.view(Campaigns.modal.callbackId, (args) => onCampaignSubmitted(deps, args));
}

async function onCreateClicked(deps: ListenerDeps, { ack, body: raw, respond }: ClickArgs): Promise<void> {
  const click = parseAtEdge(openClick, raw, Campaigns.actions.create);
  await ack();
  const ws = workspaceOf(click);
  if (!(await deps.isAdmin(ws, click.user.id))) return teller(deps, ws, click, respond)(NOT_ADMIN);
  await deps.slack.for(ws).openView(click.trigger_id, buildCampaignModal({}));
}

async function onEditClicked(deps: ListenerDeps, { ack, body: raw, respond }: ClickArgs): Promise<void> {
  const click = parseAtEdge(editClick, raw, Campaigns.actions.edit);
  await ack();
  const ws = workspaceOf(click);
  const tell = teller(deps, ws, click, respond);
  if (!(await deps.isAdmin(ws, click.user.id))) return void (await tell(NOT_ADMIN));
  const row = await getCampaign(deps.db, ws.teamId, click.actions[0].value);
  if (!row || row.status !== 'active')
    return void (await tell(
      'That campaign is archived or still being created; `/kudos campaigns` shows the current list.',
    ));
  // The trigger lives 3 s: the design is checked now, but the form opens without the check rather than not at all.
  const design = await readDesignNow(await deps.rewards.for(ws), row.productId, { timeoutMs: 1500 }).catch(
    () => 'unknown' as const,
  );
  await deps.slack.for(ws).openView(
    click.trigger_id,
    buildCampaignModal({
      campaignId: row.id,
      name: row.name,
      ...(design === undefined
        ? { designGone: row.designName }
        : { design: { productId: row.productId, name: row.designName } }),
      minDollars: row.minCents / 100,
      maxDollars: row.maxCents / 100,
      defaultDollars: row.defaultCents / 100,
      ...(row.templateId ? { template: { templateId: row.templateId, name: row.templateName ?? row.templateId } } : {}),
      ...(row.senderName ? { senderName: row.senderName } : {}),
      ...(row.subject ? { subject: row.subject } : {}),
    }),
  );
}

async function onArchiveClicked(deps: ListenerDeps, { ack, body: raw, respond }: ClickArgs): Promise<void> {
  const click = parseAtEdge(archiveClick, raw, Campaigns.actions.archive);
  await ack();
  const ws = workspaceOf(click);
  const tell = teller(deps, ws, click, respond);
  if (!(await deps.isAdmin(ws, click.user.id))) return void (await tell(NOT_ADMIN));
  try {
    const rewards = await deps.rewards.for(ws);
    const outcome = await archiveCampaign(
      campaignDeps(deps, rewards, { timeoutMs: 5000 }),
      ws,
      click.user.id,
      click.actions[0].value,
    );
    if (!outcome.ok) return void (await tell(`:no_entry: ${outcome.message}`));
    const note = `:file_cabinet: *${escapeMrkdwn(outcome.row.name)}* archived: deleted from the Rewards account and no longer offered to senders.`;
    if (click.response_url)
      await (respond as Respond)({
        response_type: 'ephemeral',
        replace_original: true,
        ...buildCampaignList(await campaignList(deps, ws), { note }),
      });
    else await tell(note);
  } catch (error) {
    deps.logger.warn('archiving a campaign failed', { error });
    await tell(`${describeForUser(error, 'archive the campaign')} Nothing was changed.`);
  }
}

async function onDesignOptions(deps: ListenerDeps, { ack, body }: OptionsArgs): Promise<void> {
  const options = parseAtEdge(optionsLoad, body, Campaigns.modal.designAction);
  const ws = workspaceOf(body);
  if (!(await deps.isAdmin(ws, options.user.id))) return ack({ options: [] });
  const designs = await deps.catalog
    .of(ws)
    .search(options.value)
    .catch((error: unknown) => {
      deps.logger.warn('loading designs for campaigns failed', { error });
      return [];
    });
  await ack(buildDesignOptions(designs));
}

async function onTemplateOptions(deps: ListenerDeps, { ack, body }: OptionsArgs): Promise<void> {
  const options = parseAtEdge(optionsLoad, body, Campaigns.modal.templateAction);
  const ws = workspaceOf(body);
  if (!(await deps.isAdmin(ws, options.user.id))) return ack({ options: [] });
  await ack((await templateOptions(deps, ws, options.value)) as never);
}

/** The form's field errors, by the block each field is in. */
function fieldErrors(errors: FormErrors<CampaignField>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [field, message] of Object.entries(errors)) out[FIELD_BLOCKS[field as CampaignField]] = message;
  return out;
}

async function onCampaignSubmitted(deps: ListenerDeps, { ack, body: raw }: ViewArgs): Promise<void> {
  const started = Date.now();
  const body = parseAtEdge(viewSubmission, raw, Campaigns.modal.callbackId);
  const ws = workspaceOf(body);
  const B = Campaigns.modal.blocks;
  if (!(await deps.isAdmin(ws, body.user.id)))
    return ack({ response_action: 'errors', errors: { [B.name]: 'Only Kudos admins can save campaigns.' } });
  const form = readForm(body.view.state.values);
  const { campaignId } = metadataOf(formMetadata, body.view.private_metadata, {});
  const log = deps.logger.child({
    view: Campaigns.modal.callbackId,
    user: body.user.id,
    viewId: body.view.id,
    ...(campaignId ? { campaignId } : {}),
  });
  try {
    const rewards = await deps.rewards.for(ws);
    const existing = campaignId ? await getCampaign(deps.db, ws.teamId, campaignId) : undefined;
    const checked = await prepareCampaign(rewards, form, {
      timeoutMs: 1200,
      formerDesignName: existing?.productId === form.productId ? existing?.designName : undefined,
    });
    if (!checked.ok) return ack({ response_action: 'errors', errors: fieldErrors(checked.errors) });
    const save = campaignDeps(deps, rewards, { timeoutMs: SAVE_BUDGET_MS, deadline: started + SAVE_BUDGET_MS });
    const outcome = campaignId
      ? await updateCampaign(save, ws, body.user.id, campaignId, checked.input)
      : await createCampaign(save, ws, body.user.id, checked.input, body.view.id);
    switch (outcome.kind) {
      case 'invalid':
        return ack({ response_action: 'errors', errors: fieldErrors(outcome.errors) });
      case 'refused':
        return ack({ response_action: 'errors', errors: { [B.name]: outcome.message } });
      case 'unknown':
        log.warn('campaign creation outcome unknown; the row stays creating', { campaignId: outcome.row.id });
        return ack({ response_action: 'errors', errors: { [B.name]: outcome.message } });
      case 'saved':
        await ack();
        log.info(campaignId ? 'campaign updated' : 'campaign saved', {
          campaignId: outcome.row.id,
          apiCampaignId: outcome.row.apiCampaignId,
        });
        await deps.slack
          .for(ws)
          .sendDirectMessage(body.user.id, {
            text: `:white_check_mark: Campaign *${escapeMrkdwn(outcome.row.name)}* ${campaignId ? 'changed' : 'saved'}: senders can pick it in the send form. \`/kudos campaigns\` lists it with its spend.`,
          })
          .catch((error: unknown) => deps.logger.warn('confirming a campaign failed', { error }));
    }
  } catch (error) {
    log.warn('saving a campaign failed', { error });
    await ack({
      response_action: 'errors',
      errors: { [B.name]: `${describeForUser(error, 'check the campaign')} Nothing was saved.` },
    });
  }
}

/** The account's e-mail templates for a select, "none" first when nothing was typed. */
export async function templateOptions(deps: ListenerDeps, ws: ReturnType<typeof workspaceOf>, query: string) {
  const templates = await listTemplates(await deps.rewards.for(ws), { timeoutMs: 2000 }).catch((error: unknown) => {
    deps.logger.warn('loading e-mail templates failed', { error });
    return [];
  });
  return searchOptions(
    query,
    NO_TEMPLATE_OPTION,
    templates.map((t) => ({
      text: plain(`${t.name ?? t.templateId}${t.isDefault && !/default/i.test(t.name ?? '') ? ' (default)' : ''}`, 75),
      value: t.templateId.slice(0, 150),
    })),
  );
}
