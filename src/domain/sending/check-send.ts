// A submitted send form becomes either field errors (shown inline in the modal) or a row to record.
// Everything here must finish inside Slack's 3-second window: Slack lookups and one catalog read;
// address-book mapping happens later, in the worker.
import type { Database } from '../../db/client.js';
import type { CampaignRow, CardRecipients, CompanyValueRow, NewKudosRow } from '../../db/schema/index.js';
import type { KudosRecipientSnapshot } from '../../db/schema/index.js';
import {
  RewardsBadRequestError,
  type RewardsClient,
  RewardsNotFoundError,
  RewardsRequestValidationError,
} from '../../rewards/index.js';
import type { Design, DesignCatalog } from '../accounts/design-catalog.js';
import { readDesignNow } from '../accounts/design-catalog.js';
import { listTemplates } from '../accounts/email-templates.js';
import type { RewardsAccounts } from '../accounts/rewards-accounts.js';
import type { BrandCatalog } from '../branded/brand-catalog.js';
import { checkBrandedCard, type CheckedBrandedCard, unknownCostReason } from '../branded/branded-card.js';
import { checkAmountInRange, formatUsd, parseWholeDollars, REFUND_WINDOWS, totalCents } from '../common/money.js';
import { displayNameOf, isChatRefusal, type UserDirectory, type WorkspaceUser } from '../common/ports.js';
import { type FormErrors, type FormRefused, formRefused } from '../common/refusal.js';
import type { Workspace } from '../common/workspace.js';
import { type ResolvedSchedule, resolveSchedule } from '../common/zoned-time.js';
import { checkPickedValue, type PickedValue } from '../workspaces/company-values.js';
import { brandMismatch } from '../workspaces/people-countries.js';
import { messageProblem } from './message-text.js';
import { checkSlackRecipients, dedupeByEmail, expandAddressBookGroup, leftOutNote } from './recipients.js';
import type { PolicyReader, SendPolicy, SendRoute } from './send-policy.js';

export type SendField =
  | 'recipients'
  | 'group'
  | 'campaign'
  | 'design'
  | 'amount'
  | 'template'
  | 'message'
  | 'value'
  | 'refund'
  | 'date'
  | 'time';

export interface SendForm {
  userIds: string[];
  /** `{ kind, id }` of the chosen group, if any. */
  group: { kind: 'slack' | 'addressBook'; id: string; label?: string } | undefined;
  productId: string | undefined;
  /**
   * `BRANDED_CARD`: `productId` is a brand and `amount` is typed in the brand's own currency. Default:
   * a choice card (a design, whole dollars).
   */
  cardType?: 'CHOICE_CARD' | 'BRANDED_CARD' | undefined;
  /** As submitted: a string from Slack's number input (anything else is refused inline). */
  amount: unknown;
  message: string;
  refundDays: number | undefined;
  schedule: { date: string | undefined; time: string | undefined } | undefined;
  /** The campaign picked in the form (its id), if any. */
  campaignId?: string | undefined;
  /** The e-mail template picked: an id, null for "none" (the account's default), undefined: not chosen (the campaign's, if any). */
  template?: string | null | undefined;
  /** The company value picked in the form (its id and the revision the form showed), if any. */
  value?: PickedValue | undefined;
}

export interface SendContext {
  workspace: Workspace;
  sender: WorkspaceUser;
  originChannelId: string | undefined;
  sourceViewId: string | undefined;
  /** Permalink of the Slack message this kudos is for (message shortcut); checked by the caller. */
  sourceMessageUrl?: string | undefined;
  now: Date;
  botUserId?: string | undefined;
  /** The workspace's setting: who receives cards (default: full members only). */
  cardRecipients?: CardRecipients | undefined;
  /** The workspace's setting: a send from the form must name a company value (when there are any). */
  valuesRequired?: boolean | undefined;
  /** The workspace's setting: a person's send must say why (a message); automations are not asked. */
  requireMessage?: boolean | undefined;
}

export interface SendRequestDeps {
  users: UserDirectory;
  rewards: RewardsAccounts;
  /** The catalog of the sending workspace's account. */
  catalog: DesignCatalog;
  policy: SendPolicy;
  /** Reads a campaign of the workspace (the send modal; automations and workflow steps send without one). */
  campaign?: (teamId: string, id: string) => Promise<CampaignRow | undefined>;
  /** The workspace's company values (the send modal; automations and workflow steps send without one). */
  values?: (teamId: string) => Promise<CompanyValueRow[]>;
  /** Branded cards: the workspace's brand catalog and the database of learned exchange rates. */
  branded?: { db: Database; brands: BrandCatalog };
}

export type PreparedSend =
  /** `route` is `send`, or `needs_approval` (the approvals issue records such sends for approvers). */
  | {
      ok: true;
      values: NewKudosRow;
      route: Exclude<SendRoute, { kind: 'refuse' }>;
      /** The policy's decision again, read through the recording transaction (budgets: see record-send.ts). */
      recheck?: (db: PolicyReader) => Promise<SendRoute>;
      /** What the sender should know about the send as recorded (a group's members left out), one sentence each. */
      notes: string[];
    }
  | FormRefused<SendField>;

/** People picked one by one in the form (the multi-select), as since the first version. */
export const MAX_PICKED_PEOPLE = 100;
/**
 * People in one send, a group's members included: placed in orders of RECIPIENTS_PER_ORDER
 * (kudos-parts.ts), 20 at most. 2,000 covers a department-sized user group while keeping one send's
 * work bounded: its recipients row (about 200 KB of JSON), a first send's address-book creations (one
 * Rewards request each, paced by the rate budget: under half a minute at the emulator's limit) and the
 * sender's ability to check what they are about to pay for.
 */
export const MAX_SEND_RECIPIENTS = 2000;
/** Groups bigger than this are checked against the workspace's cached people (users.list), not one users.info each. */
const CHECK_ONE_BY_ONE = 50;

/** The workspace asks every sender for a message (settings `requireMessage`). */
export const MESSAGE_REQUIRED = 'Say why in a message: this workspace asks for one with every kudos.';

const GONE_GROUP = 'That group no longer exists (or is not one this form offered); pick another.';

/** A user group's members, or why the group cannot be used (unknown ids, however they look, are the user's to fix, not a retry). */
async function usergroupMembersOrProblem(
  users: SendRequestDeps['users'],
  ws: Workspace,
  id: string,
): Promise<string[] | string> {
  try {
    return await users.usergroupMembers(ws, id);
  } catch (error) {
    if (isChatRefusal(error, 'not_found')) return GONE_GROUP;
    throw error;
  }
}

async function addressBookMembersOrProblem(
  rewards: RewardsClient,
  id: string,
): Promise<KudosRecipientSnapshot[] | string> {
  try {
    return await expandAddressBookGroup(rewards, id);
  } catch (error) {
    if (
      error instanceof RewardsNotFoundError ||
      error instanceof RewardsRequestValidationError ||
      error instanceof RewardsBadRequestError
    )
      return GONE_GROUP;
    throw error;
  }
}

function tooMany(count: number): string {
  return `At most ${MAX_SEND_RECIPIENTS.toLocaleString('en-US')} people per send (this one has ${count.toLocaleString('en-US')}); pick a smaller group, or send in several goes.`;
}

/**
 * Who checks the people of a send: users.info one by one for a few, the workspace's people read in
 * pages and cached (UserDirectory.everyone) for a big group, with users.info only for anyone not in it
 * (someone who joined since it was read).
 */
async function directoryFor(
  users: UserDirectory,
  ws: Workspace,
  count: number,
): Promise<Pick<UserDirectory, 'userInfo'>> {
  if (count <= CHECK_ONE_BY_ONE || !users.everyone) return users;
  const byId = new Map((await users.everyone(ws)).map((u) => [u.id, u]));
  return { userInfo: async (w, id) => byId.get(id) ?? users.userInfo(w, id) };
}

export async function prepareSend(deps: SendRequestDeps, ctx: SendContext, form: SendForm): Promise<PreparedSend> {
  // The checks run in the form's order, each adding its fields' errors; every field is checked.
  const errors: FormErrors<SendField> = {};
  const campaign = await checkCampaign(deps, ctx, form, errors);
  const { design, amountCents, templateId, branded } =
    form.cardType === 'BRANDED_CARD'
      ? await checkBrandedPick(deps, ctx, form, campaign, errors)
      : { ...(await checkCard(deps, ctx, form, campaign, errors)), branded: undefined };
  const badMessage = messageProblem(form.message);
  if (badMessage) errors.message = badMessage;
  else if (ctx.requireMessage && form.message.trim() === '') errors.message = MESSAGE_REQUIRED;
  const value = await checkValue(deps, ctx, form, errors);
  if (form.refundDays !== undefined && !(REFUND_WINDOWS as readonly number[]).includes(form.refundDays)) {
    errors.refund = 'Pick 30, 60 or 90 days, or no refund.';
  }
  const schedule = checkSchedule(ctx, form, errors);
  const { recipients, notes } = await checkRecipients(deps, ctx, form, errors);

  if (branded && deps.branded && !errors.design && !errors.recipients && !errors.group) {
    const mismatch = await brandMismatch(deps.branded.db, ctx.workspace, branded.brand, recipients);
    if (mismatch) errors.design = mismatch.message;
  }
  if (Object.keys(errors).length > 0 || !design || amountCents === undefined) return formRefused(errors);

  const total = totalCents(amountCents, recipients.length);
  const draft = {
    teamId: ctx.workspace.teamId,
    senderUserId: ctx.sender.id,
    amountCents,
    recipientCount: recipients.length,
    totalCents: total,
    recipientEmails: recipients.map((r) => r.email),
    ...(branded?.basis === 'learned' ? { estimated: true } : {}),
  };
  const decided = await deps.policy.route(draft);
  if (decided.kind === 'refuse') return formRefused<SendField>({ amount: decided.message });
  // A card whose USD cost cannot be judged before ordering always waits for an approver, told why.
  const route: typeof decided =
    branded?.basis === 'unknown'
      ? { kind: 'needs_approval', reason: unknownCostReason(branded.brand.currency) }
      : decided;

  return {
    ok: true,
    route,
    notes,
    ...(deps.policy.recheck ? { recheck: (db: PolicyReader) => deps.policy.recheck!(db, draft) } : {}),
    values: kudosValues(ctx, form, {
      recipients,
      design,
      amountCents,
      totalCents: total,
      campaign,
      templateId,
      schedule,
      value,
      branded,
    }),
  };
}

/** The company value picked, if it is still what the form showed; required when the workspace says so. */
async function checkValue(
  deps: SendRequestDeps,
  ctx: SendContext,
  form: SendForm,
  errors: FormErrors<SendField>,
): Promise<CompanyValueRow | undefined> {
  if (!form.value && !ctx.valuesRequired) return undefined;
  const values = deps.values ? await deps.values(ctx.workspace.teamId) : [];
  const checked = checkPickedValue(values, form.value, ctx.valuesRequired ?? false);
  if (checked.problem) errors.value = checked.problem;
  return checked.value;
}

/** The campaign picked, if it is still active. */
async function checkCampaign(
  deps: SendRequestDeps,
  ctx: SendContext,
  form: SendForm,
  errors: FormErrors<SendField>,
): Promise<CampaignRow | undefined> {
  if (!form.campaignId) return undefined;
  const campaign = deps.campaign ? await deps.campaign(ctx.workspace.teamId, form.campaignId) : undefined;
  if (campaign?.status !== 'active') {
    errors.campaign = 'That campaign was archived (or is no longer offered); pick another, or send without one.';
    return undefined;
  }
  return campaign;
}

/**
 * Design, amount and e-mail template. A campaign's design is read from the API now (the cached catalog
 * could still list a design the provider removed): nothing is sent with a removed design.
 */
async function checkCard(
  deps: SendRequestDeps,
  ctx: SendContext,
  form: SendForm,
  campaign: CampaignRow | undefined,
  errors: FormErrors<SendField>,
): Promise<{ design: Design | undefined; amountCents: number | undefined; templateId: string | undefined }> {
  const templateId = form.template === null ? undefined : (form.template ?? campaign?.templateId ?? undefined);
  const campaignDesign = campaign !== undefined && form.productId === campaign.productId;
  const [cached, templates] = await Promise.all([
    form.productId ? deps.catalog.get(form.productId) : undefined,
    templateId ? (async () => listTemplates(await deps.rewards.for(ctx.workspace), { timeoutMs: 1200 }))() : undefined,
  ]);
  let design = cached;
  if (campaignDesign)
    design = await readDesignNow(await deps.rewards.for(ctx.workspace), campaign.productId, { timeoutMs: 1200 });
  if (!design) {
    errors.design = campaignDesign
      ? `The campaign’s design “${campaign.designName}” was removed from the Rewards catalog, so nothing was sent. Pick another design, and ask a Kudos admin to edit the campaign.`
      : form.productId
        ? 'That design is no longer available; pick another.'
        : 'Pick a card design.';
  }
  const amountCents = checkAmount(form.amount, design, campaign, errors);
  if (templateId && templates && !templates.some((t) => t.templateId === templateId)) {
    errors.template =
      'That e-mail template is no longer in the Rewards account (deleted); pick another, or none for the account’s default.';
  }
  return { design, amountCents, templateId };
}

/** The amount per person in cents, when it is whole dollars within the design's range and the campaign's. */
function checkAmount(
  amount: unknown,
  design: Design | undefined,
  campaign: CampaignRow | undefined,
  errors: FormErrors<SendField>,
): number | undefined {
  const parsed = parseWholeDollars(amount);
  if (!parsed.ok) {
    errors.amount = parsed.message;
    return undefined;
  }
  if (!design) return undefined;
  const inRange = checkAmountInRange(parsed.cents, design);
  const inCampaign = campaign
    ? checkAmountInRange(parsed.cents, { minCents: campaign.minCents, maxCents: campaign.maxCents })
    : inRange;
  if (!inRange.ok) errors.amount = inRange.message;
  else if (!inCampaign.ok)
    errors.amount = `The campaign “${campaign!.name}” takes ${formatUsd(campaign!.minCents)} to ${formatUsd(campaign!.maxCents)} per person.`;
  else return inRange.cents;
  return undefined;
}

/** When: now (no schedule), or a date and time read in the sender's zone. */
function checkSchedule(ctx: SendContext, form: SendForm, errors: FormErrors<SendField>): ResolvedSchedule | undefined {
  if (!form.schedule) return undefined;
  const resolved = resolveSchedule({ ...form.schedule, timezone: ctx.sender.tz ?? 'UTC', now: ctx.now });
  if (resolved.ok) return resolved.schedule;
  errors[resolved.field] = resolved.message;
  return undefined;
}

/** What the recipient checks gather: lists to merge, notes for the sender, whether a group held the sender. */
interface FoundRecipients {
  lists: KudosRecipientSnapshot[][];
  notes: string[];
  groupHadSender: boolean;
}

/**
 * Who. The sender is never a recipient: picked by name, it is refused; inside a group, left out (the
 * form says so), by Slack id and by e-mail address.
 */
async function checkRecipients(
  deps: SendRequestDeps,
  ctx: SendContext,
  form: SendForm,
  errors: FormErrors<SendField>,
): Promise<{ recipients: KudosRecipientSnapshot[]; notes: string[] }> {
  const recipientField: SendField = form.userIds.length > 0 || !form.group ? 'recipients' : 'group';
  const found: FoundRecipients = { lists: [], notes: [], groupHadSender: false };
  if (form.userIds.includes(ctx.sender.id)) {
    errors.recipients = 'You cannot send kudos to yourself; remove yourself from the people.';
  } else if (form.userIds.length === 0 && !form.group) {
    errors.recipients = 'Choose at least one person, or a group.';
  } else {
    const { slackUserIds, groupMembers } =
      form.group?.kind === 'slack'
        ? await addSlackGroup(deps, ctx, form.userIds, form.group.id, errors, found)
        : { slackUserIds: [...form.userIds], groupMembers: undefined };
    if (form.userIds.length > MAX_PICKED_PEOPLE) {
      errors.recipients = `At most ${MAX_PICKED_PEOPLE} people picked one by one; for more, choose a group.`;
    } else if (slackUserIds.length > MAX_SEND_RECIPIENTS) {
      errors[recipientField] = tooMany(slackUserIds.length);
    } else if (slackUserIds.length > 0) {
      await checkSlackPeople(deps, ctx, { slackUserIds, groupMembers, recipientField }, errors, found);
    }
    if (form.group?.kind === 'addressBook') await addAddressBookGroup(deps, ctx, form.group.id, errors, found);
  }
  const recipients = dedupeByEmail(found.lists).filter((r) => r.slackUserId !== ctx.sender.id);
  if (recipients.length === 0 && found.groupHadSender && !errors.recipients && !errors.group)
    errors.group = 'You are the only person in that group, and you cannot send kudos to yourself.';
  if (recipients.length > MAX_SEND_RECIPIENTS && !errors[recipientField])
    errors[recipientField] = tooMany(recipients.length);
  return { recipients, notes: found.notes };
}

/** The people picked plus a Slack user group's members (the sender left out). */
async function addSlackGroup(
  deps: SendRequestDeps,
  ctx: SendContext,
  pickedIds: string[],
  groupId: string,
  errors: FormErrors<SendField>,
  found: FoundRecipients,
): Promise<{ slackUserIds: string[]; groupMembers: ReadonlySet<string> | undefined }> {
  const members = await usergroupMembersOrProblem(deps.users, ctx.workspace, groupId);
  if (typeof members === 'string') errors.group = members;
  else if (members.length === 0) errors.group = 'That user group has no members.';
  else {
    found.groupHadSender = members.includes(ctx.sender.id);
    return {
      slackUserIds: [...new Set([...pickedIds, ...members.filter((id) => id !== ctx.sender.id)])],
      groupMembers: new Set(members.filter((id) => !pickedIds.includes(id))),
    };
  }
  return { slackUserIds: [...pickedIds], groupMembers: undefined };
}

/** Checks the Slack people of the send (who may receive a card), and says who of a group was left out. */
async function checkSlackPeople(
  deps: SendRequestDeps,
  ctx: SendContext,
  people: { slackUserIds: string[]; groupMembers: ReadonlySet<string> | undefined; recipientField: SendField },
  errors: FormErrors<SendField>,
  found: FoundRecipients,
): Promise<void> {
  const { slackUserIds, groupMembers, recipientField } = people;
  const allowed = ctx.cardRecipients ?? 'members';
  const checked = await checkSlackRecipients(
    await directoryFor(deps.users, ctx.workspace, slackUserIds.length),
    ctx.workspace,
    slackUserIds,
    {
      botUserId: ctx.botUserId,
      cardRecipients: allowed,
      ...(groupMembers ? { fromGroup: groupMembers } : {}),
    },
  );
  if (!checked.ok) {
    errors[recipientField] = checked.message;
    return;
  }
  found.lists.push(checked.recipients);
  const note = leftOutNote(checked.leftOut, allowed);
  if (note && checked.recipients.length === 0 && !errors.group)
    errors.group = `Nobody in that group can receive a card. ${note}`;
  else if (note) found.notes.push(note);
}

/** An address-book group's members, the sender (by e-mail address) left out. */
async function addAddressBookGroup(
  deps: SendRequestDeps,
  ctx: SendContext,
  groupId: string,
  errors: FormErrors<SendField>,
  found: FoundRecipients,
): Promise<void> {
  const members = await addressBookMembersOrProblem(await deps.rewards.for(ctx.workspace), groupId);
  if (typeof members === 'string') errors.group = members;
  else if (members.length === 0) errors.group = 'That address-book group has no members.';
  else {
    const senderEmail = ctx.sender.email?.toLowerCase();
    const others = members.filter((m) => m.email.toLowerCase() !== senderEmail);
    found.groupHadSender ||= others.length < members.length;
    found.lists.push(others);
  }
}

/** The kudos row to record, from the checked form. */
function kudosValues(
  ctx: SendContext,
  form: SendForm,
  checked: {
    recipients: KudosRecipientSnapshot[];
    design: Design;
    amountCents: number;
    totalCents: number;
    campaign: CampaignRow | undefined;
    templateId: string | undefined;
    schedule: ResolvedSchedule | undefined;
    value: CompanyValueRow | undefined;
    branded: CheckedBrandedCard | undefined;
  },
): NewKudosRow {
  const { recipients, design, campaign, schedule, value } = checked;
  return {
    teamId: ctx.workspace.teamId,
    enterpriseId: ctx.workspace.enterpriseId ?? null,
    senderUserId: ctx.sender.id,
    senderName: ctx.sender.realName || displayNameOf(ctx.sender),
    originChannelId: ctx.originChannelId ?? null,
    sourceViewId: ctx.sourceViewId ?? null,
    recipients,
    recipientCount: recipients.length,
    slackUsergroupId: form.group?.kind === 'slack' ? form.group.id : null,
    recipientGroupId: form.group?.kind === 'addressBook' ? form.group.id : null,
    recipientGroupName: form.group?.label ?? null,
    productId: design.productId,
    designName: design.name,
    amountCents: checked.amountCents,
    totalCents: checked.totalCents,
    ...brandedColumns(checked.branded),
    message: form.message.trim(),
    sourceMessageUrl: ctx.sourceMessageUrl ?? null,
    refundOptionDays: form.refundDays ?? null,
    campaignId: campaign?.id ?? null,
    valueId: value?.id ?? null,
    valueName: value?.name ?? null,
    valueEmoji: value?.emoji ?? null,
    emailTemplateId: checked.templateId ?? null,
    emailSenderName: campaign?.senderName ?? null,
    emailSubject: campaign?.subject ?? null,
    scheduledAt: schedule?.instant ?? null,
    scheduleTimezone: schedule?.timezone ?? null,
    scheduleLocal: schedule?.wallTimeWithOffset ?? null,
    status: 'pending',
  };
}

/** A branded card's columns of the kudos row (a choice card keeps the defaults). */
export function brandedColumns(branded: CheckedBrandedCard | undefined): Partial<NewKudosRow> {
  if (!branded) return {};
  return {
    cardType: 'BRANDED_CARD',
    faceCurrency: branded.brand.currency,
    faceCents: branded.faceCents,
    usdBasis: branded.basis,
  };
}

/**
 * A brand and an amount in its currency. Campaigns send choice cards only (the API's rule), so a brand
 * with a campaign is refused. The row's amount is the judged USD cost of one card (0 when unknown).
 */
async function checkBrandedPick(
  deps: SendRequestDeps,
  ctx: SendContext,
  form: SendForm,
  campaign: CampaignRow | undefined,
  errors: FormErrors<SendField>,
): Promise<{
  design: Design | undefined;
  amountCents: number | undefined;
  templateId: string | undefined;
  branded: CheckedBrandedCard | undefined;
}> {
  const templateId = form.template ?? undefined;
  const none = { design: undefined, amountCents: undefined, templateId, branded: undefined };
  if (campaign) {
    errors.campaign = 'Campaigns send choice cards only; pick a choice card, or send the brand without a campaign.';
    return none;
  }
  if (!deps.branded) {
    errors.design = 'Branded cards cannot be sent from here; pick a choice card.';
    return none;
  }
  if (!form.productId) {
    errors.design = 'Pick a brand.';
    return none;
  }
  const amount = typeof form.amount === 'string' || typeof form.amount === 'number' ? String(form.amount) : '';
  // Read from the API now: a form stays open a while, and a product removed meanwhile is never sent.
  const checked = await checkBrandedCard(
    deps.branded,
    ctx.workspace,
    { productId: form.productId, amount },
    { fresh: true, now: ctx.now },
  );
  if (!checked.ok) {
    errors[checked.field] = checked.message;
    return none;
  }
  const { brand, judgedCents } = checked.card;
  return {
    design: { productId: brand.productId, name: brand.name, minCents: 0, maxCents: 0 },
    amountCents: judgedCents,
    templateId,
    branded: checked.card,
  };
}
