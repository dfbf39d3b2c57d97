// Campaigns: admins create, edit and archive them; senders pick one in the send form, which
// fills its design, amount and e-mail template; spend is counted by campaign.
//
// How they map onto the Rewards API's campaigns (spec 2.5, 4.4): the API's campaign has one fixed
// amount, is sent immediately only and is executed with POST /campaigns/{id}/orders, while a Kudos send
// may be scheduled, may need approval and picks an amount in a range. So Kudos' own row (per workspace)
// is the campaign senders pick and spend is counted by; sends under it keep going through the money-safe
// choice-card order path (worker, idempotency keys, approvals, limits) with the campaign's design,
// template and texts, tagged with the campaign. A mirror is kept in the Rewards account (POST, PUT on
// edit, DELETE on archive) with the default amount, so that it shows in the provider's portal.
//
// Exactly once: the API's create has no idempotency key. The row is recorded first, with the name the
// API campaign will carry (the name plus a tag unique to the row); an answer lost after the API took
// the request is found by searching for the tag, never by creating again. A search that finds nothing
// is believed only `settleMs` after the last create call (a request still on its way could land later);
// until then the row stays `creating` and is offered to nobody.
import { randomUUID } from 'node:crypto';

import { and, asc, desc, eq, ilike, inArray, ne, sql } from 'drizzle-orm';

import type { Database } from '../../db/client.js';
import { type CampaignRow, campaigns, type CampaignStatus, kudos } from '../../db/schema/index.js';
import {
  type Campaign,
  type CampaignParams,
  type RewardsClient,
  RewardsNotFoundError,
  type Template,
} from '../../rewards/index.js';
import { type Design, readDesignNow } from '../accounts/design-catalog.js';
import { findPlaceholder, listTemplates } from '../accounts/email-templates.js';
import { describeForUser, mayHaveReachedApi } from '../accounts/rewards-failures.js';
import { centsToDecimal, checkAmountInRange, formatUsd, parseWholeDollars } from '../common/money.js';
import { type FormErrors, type FormRefused, formRefused, type Refused, refused } from '../common/refusal.js';
import { moveGuard, type StatusTransitions } from '../common/status-transitions.js';
import type { Workspace } from '../common/workspace.js';
import { recordAudit } from '../workspaces/audit-trail.js';

/**
 * Every status a campaign may be written with, from each status (common/status-transitions.ts): active
 * once the Rewards API is known to have it; archived from either (a creating one once it is known
 * whether the API created it).
 */
export const CAMPAIGN_STATUS_TRANSITIONS = {
  creating: ['active', 'archived'],
  active: ['archived'],
  archived: [],
} as const satisfies StatusTransitions<CampaignStatus>;

export const CAMPAIGN_NAME_MAX = 80;
export const CAMPAIGN_SENDER_MAX = 100;
export const CAMPAIGN_SUBJECT_MAX = 200;
/** How long after a create call whose answer was lost a search finding nothing is taken as "not created". */
export const CREATE_SETTLE_MS = 120_000;
/** The API campaign requires a sender name and subject (spec 2.5); Kudos' sends use the sender's own unless the campaign names one. */
export const API_DEFAULT_SENDER = 'Kudos';
export const API_DEFAULT_SUBJECT = 'You received kudos';

export type CampaignField = 'name' | 'design' | 'min' | 'max' | 'default' | 'template' | 'senderName' | 'subject';

export interface CampaignForm {
  name: string;
  productId: string | undefined;
  /** As submitted (strings from Slack's number inputs); anything else is refused inline. */
  min: unknown;
  max: unknown;
  default: unknown;
  templateId: string | undefined;
  senderName: string;
  subject: string;
}

export interface CampaignInput {
  name: string;
  productId: string;
  designName: string;
  minCents: number;
  maxCents: number;
  defaultCents: number;
  templateId: string | null;
  templateName: string | null;
  senderName: string | null;
  subject: string | null;
}

export type CheckedCampaign = { ok: true; input: CampaignInput } | FormRefused<CampaignField>;

export function designGoneMessage(designName: string): string {
  return `The design “${designName}” is no longer in the Rewards catalog; pick another.`;
}

/** The form's rules, given the design and template as the API has them now (undefined: not there). */
export function checkCampaignForm(
  form: CampaignForm,
  found: { design: Design | undefined; template: Template | undefined; formerDesignName?: string | undefined },
): CheckedCampaign {
  const errors: FormErrors<CampaignField> = {};
  const name = form.name.trim();
  if (!name) errors.name = 'Give the campaign a name, e.g. “Q4 spot awards”.';
  else if (name.length > CAMPAIGN_NAME_MAX) errors.name = `At most ${CAMPAIGN_NAME_MAX} characters.`;

  const design = found.design;
  if (!form.productId) errors.design = 'Pick the campaign’s card design.';
  else if (!design) errors.design = designGoneMessage(found.formerDesignName ?? form.productId);

  const amounts: Partial<Record<'min' | 'max' | 'default', number>> = {};
  for (const field of ['min', 'max', 'default'] as const) {
    const raw = form[field];
    if (field === 'default' && (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')))
      continue;
    const parsed = parseWholeDollars(raw);
    if (!parsed.ok) errors[field] = parsed.message;
    else if (design) {
      const inRange = checkAmountInRange(parsed.cents, design);
      if (!inRange.ok) errors[field] = inRange.message;
      else amounts[field] = parsed.cents;
    } else amounts[field] = parsed.cents;
  }
  const { min, max } = amounts;
  if (min !== undefined && max !== undefined && min > max)
    errors.max = `The most must be at least the least (${formatUsd(min)}).`;
  const defaultCents = amounts.default ?? min;
  if (
    amounts.default !== undefined &&
    min !== undefined &&
    max !== undefined &&
    min <= max &&
    (amounts.default < min || amounts.default > max)
  ) {
    errors.default = `The default must lie between ${formatUsd(min)} and ${formatUsd(max)}.`;
  }

  if (form.templateId && !found.template)
    errors.template = 'That e-mail template is no longer in the Rewards account; pick another, or none.';

  const senderName = form.senderName.trim();
  const subject = form.subject.trim();
  if (senderName.length > CAMPAIGN_SENDER_MAX) errors.senderName = `At most ${CAMPAIGN_SENDER_MAX} characters.`;
  if (subject.length > CAMPAIGN_SUBJECT_MAX) errors.subject = `At most ${CAMPAIGN_SUBJECT_MAX} characters.`;
  for (const [field, text] of [
    ['name', name],
    ['senderName', senderName],
    ['subject', subject],
  ] as const) {
    const placeholder = findPlaceholder(text);
    if (placeholder && !errors[field])
      errors[field] =
        `“${placeholder.slice(0, 40)}” looks like a placeholder; the Rewards API documents none, so it would reach recipients as typed.`;
  }

  if (Object.keys(errors).length > 0 || !design || min === undefined || max === undefined || defaultCents === undefined)
    return formRefused(errors);
  return {
    ok: true,
    input: {
      name,
      productId: design.productId,
      designName: design.name,
      minCents: min,
      maxCents: max,
      defaultCents,
      templateId: found.template?.templateId ?? null,
      templateName: found.template ? (found.template.name ?? found.template.templateId) : null,
      senderName: senderName || null,
      subject: subject || null,
    },
  };
}

/** Reads what the form names (the design now, not from the cache; the template list) and checks it. */
export async function prepareCampaign(
  rewards: Pick<RewardsClient, 'catalog' | 'templates'>,
  form: CampaignForm,
  opts: { timeoutMs: number; formerDesignName?: string | undefined },
): Promise<CheckedCampaign> {
  const [design, templates] = await Promise.all([
    form.productId ? readDesignNow(rewards, form.productId, { timeoutMs: opts.timeoutMs }) : undefined,
    form.templateId ? listTemplates(rewards, { timeoutMs: opts.timeoutMs }) : [],
  ]);
  const template = form.templateId ? templates.find((t) => t.templateId === form.templateId) : undefined;
  return checkCampaignForm(form, { design, template, formerDesignName: opts.formerDesignName });
}

// --- reading ---------------------------------------------------------------------------------------

export async function listCampaigns(db: Database, teamId: string): Promise<CampaignRow[]> {
  return db
    .select()
    .from(campaigns)
    .where(and(eq(campaigns.teamId, teamId), ne(campaigns.status, 'archived')))
    .orderBy(asc(sql`lower(${campaigns.name})`));
}

export async function getCampaign(db: Database, teamId: string, id: string): Promise<CampaignRow | undefined> {
  const [row] = await db
    .select()
    .from(campaigns)
    .where(and(eq(campaigns.teamId, teamId), eq(campaigns.id, id)));
  return row;
}

/** Active campaigns whose name contains the query (the send form's campaign select), at most `limit`. */
export async function searchActiveCampaigns(
  db: Database,
  teamId: string,
  query: string,
  limit = 100,
): Promise<CampaignRow[]> {
  const q = query.trim();
  return db
    .select()
    .from(campaigns)
    .where(
      and(
        eq(campaigns.teamId, teamId),
        eq(campaigns.status, 'active'),
        q ? ilike(campaigns.name, `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`) : undefined,
      ),
    )
    .orderBy(asc(sql`lower(${campaigns.name})`))
    .limit(limit);
}

export interface CampaignSpend {
  /** All time. */
  sends: number;
  totalCents: number;
  /** Of the month asked for (placed in it). */
  monthSends: number;
  monthCents: number;
}

/**
 * What was spent under each campaign: sends placed or booked (their cost), all time and in one UTC month
 * (by when they were placed). The one count of campaign spend: `/kudos campaigns` and `/kudos stats` both read it.
 */
async function spendByCampaign(
  db: Database,
  teamId: string,
  month: { from: Date; to: Date },
): Promise<Map<string, CampaignSpend>> {
  const cost = sql`coalesce(${kudos.costCents}, ${kudos.totalCents})`;
  const inMonth = sql`${kudos.placedAt} >= ${month.from.toISOString()}::timestamptz and ${kudos.placedAt} < ${month.to.toISOString()}::timestamptz`;
  const rows = await db
    .select({
      campaignId: kudos.campaignId,
      sends: sql<number>`count(*)::int`,
      totalCents: sql<number>`coalesce(sum(${cost}), 0)::bigint`,
      monthSends: sql<number>`(count(*) filter (where ${inMonth}))::int`,
      monthCents: sql<number>`coalesce(sum(${cost}) filter (where ${inMonth}), 0)::bigint`,
    })
    .from(kudos)
    .where(
      and(
        eq(kudos.teamId, teamId),
        sql`${kudos.campaignId} is not null`,
        inArray(kudos.status, ['placed', 'scheduled']),
      ),
    )
    .groupBy(kudos.campaignId);
  return new Map(
    rows.map((r) => [
      r.campaignId!,
      {
        sends: Number(r.sends),
        totalCents: Number(r.totalCents),
        monthSends: Number(r.monthSends),
        monthCents: Number(r.monthCents),
      },
    ]),
  );
}

/** Spend per campaign, all time and this UTC month (the campaign list). */
export async function campaignSpend(db: Database, teamId: string, now: Date): Promise<Map<string, CampaignSpend>> {
  return spendByCampaign(db, teamId, {
    from: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)),
    to: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)),
  });
}

export interface MonthCampaignSpend {
  campaignId: string;
  name: string;
  archived: boolean;
  sends: number;
  cents: number;
}

/** The campaigns with sends placed in one UTC month (archived ones too: the money was spent), most spent first. */
export async function campaignSpendInMonth(
  db: Database,
  teamId: string,
  month: { from: Date; to: Date },
): Promise<MonthCampaignSpend[]> {
  const spend = [...(await spendByCampaign(db, teamId, month))].filter(([, s]) => s.monthSends > 0);
  if (spend.length === 0) return [];
  const rows = await db
    .select({ id: campaigns.id, name: campaigns.name, status: campaigns.status })
    .from(campaigns)
    .where(
      and(
        eq(campaigns.teamId, teamId),
        inArray(
          campaigns.id,
          spend.map(([id]) => id),
        ),
      ),
    );
  const byId = new Map(rows.map((r) => [r.id, r]));
  return spend
    .flatMap(([id, s]) => {
      const row = byId.get(id);
      return row
        ? [
            {
              campaignId: id,
              name: row.name,
              archived: row.status === 'archived',
              sends: s.monthSends,
              cents: s.monthCents,
            },
          ]
        : [];
    })
    .sort((a, b) => b.cents - a.cents || a.name.localeCompare(b.name));
}

// --- the Rewards API's mirror ------------------------------------------------------------------------

/** The tag that makes the API campaign's name unique to the row. */
function tagOf(id: string): string {
  return `(Kudos ${id.replace(/-/g, '').slice(0, 12)})`;
}

export function apiNameOf(name: string, id: string): string {
  return `${name} ${tagOf(id)}`;
}

export function apiParamsOf(
  row: Pick<CampaignRow, 'apiName' | 'productId' | 'defaultCents' | 'templateId' | 'senderName' | 'subject'>,
): CampaignParams {
  return {
    name: row.apiName,
    cardType: 'CHOICE_CARD',
    productId: row.productId,
    amount: centsToDecimal(row.defaultCents),
    subject: row.subject ?? API_DEFAULT_SUBJECT,
    senderName: row.senderName ?? API_DEFAULT_SENDER,
    ...(row.templateId ? { templateId: row.templateId } : {}),
  };
}

/** The API campaign carrying the row's tag, if the Rewards account has one. */
async function findApiCampaign(
  rewards: Pick<RewardsClient, 'campaigns'>,
  row: CampaignRow,
  timeoutMs: number,
): Promise<Campaign | undefined> {
  const tag = tagOf(row.id);
  for await (const c of rewards.campaigns.list({ search: tag, pageSize: 100 }, { timeoutMs })) {
    if (c.name?.endsWith(tag)) return c;
  }
  return undefined;
}

export interface CampaignDeps {
  db: Database;
  rewards: Pick<RewardsClient, 'campaigns'>;
  now: () => Date;
  /** Per API call, at most: a view submission has 3 s in all. */
  timeoutMs: number;
  /** When the caller must answer (epoch ms): each call gets what is left, at least 250 ms. */
  deadline?: number;
  settleMs?: number;
}

function timeoutOf(deps: Pick<CampaignDeps, 'timeoutMs' | 'deadline'>): number {
  return deps.deadline === undefined
    ? deps.timeoutMs
    : Math.max(250, Math.min(deps.timeoutMs, deps.deadline - Date.now()));
}

export type SaveOutcome =
  | { kind: 'saved'; row: CampaignRow }
  /** The form's own problem (a name taken): nothing saved. */
  | { kind: 'invalid'; errors: FormErrors<CampaignField> }
  /** The API refused, or certainly did not take it: nothing saved, nothing half-done. */
  | { kind: 'refused'; message: string }
  /** The answer was lost: Kudos does not know yet whether the API has it; the row stays `creating`. */
  | { kind: 'unknown'; row: CampaignRow; message: string };

const UNKNOWN_CREATE =
  'The Rewards API did not answer in time, so Kudos does not know yet whether it created the campaign. Kudos will not create it twice: press Save again in a minute (or look in `/kudos campaigns`), and it will be finished.';

function nameTaken(name: string): FormErrors<CampaignField> {
  return {
    name: `A campaign named “${name}” already exists; pick another name, or edit that one from \`/kudos campaigns\`.`,
  };
}

/** Records the campaign, then creates it in the Rewards account (exactly once; see the top of the file). */
export async function createCampaign(
  deps: CampaignDeps,
  ws: Workspace,
  actor: string,
  input: CampaignInput,
  sourceViewId: string,
): Promise<SaveOutcome> {
  const id = randomUUID();
  const [inserted] = await deps.db
    .insert(campaigns)
    .values({
      id,
      teamId: ws.teamId,
      enterpriseId: ws.enterpriseId ?? null,
      ...input,
      status: 'creating',
      apiName: apiNameOf(input.name, id),
      apiAttemptAt: deps.now(),
      sourceViewId,
      createdBy: actor,
    })
    .onConflictDoNothing()
    .returning();
  if (inserted) return postCreate(deps, inserted, actor);

  const [again] = await deps.db
    .select()
    .from(campaigns)
    .where(and(eq(campaigns.teamId, ws.teamId), eq(campaigns.sourceViewId, sourceViewId)));
  if (!again) return { kind: 'invalid', errors: nameTaken(input.name) };
  if (again.status !== 'creating') return { kind: 'saved', row: again };
  // The same form again (its first answer was lost, or the API's was): the latest values stand, and
  // what the first call may have created is looked for before anything is created.
  const [updated] = await deps.db
    .update(campaigns)
    .set({ ...input, apiName: apiNameOf(input.name, again.id), updatedAt: deps.now() })
    .where(and(eq(campaigns.id, again.id), eq(campaigns.status, 'creating')))
    .returning()
    .catch((error: unknown) => {
      if (isUniqueViolation(error)) return [];
      throw error;
    });
  if (!updated) return { kind: 'invalid', errors: nameTaken(input.name) };
  return resolveCreating(deps, updated, actor);
}

async function postCreate(deps: CampaignDeps, row: CampaignRow, actor: string): Promise<SaveOutcome> {
  try {
    const created = await deps.rewards.campaigns.create(apiParamsOf(row), { timeoutMs: timeoutOf(deps) });
    return { kind: 'saved', row: await activate(deps, row, created.campaignId, actor) };
  } catch (error) {
    if (!mayHaveReachedApi(error)) {
      await deps.db.delete(campaigns).where(and(eq(campaigns.id, row.id), eq(campaigns.status, 'creating')));
      return {
        kind: 'refused',
        message: describeForUser(error, 'create the campaign in the Rewards account') + ' Nothing was saved.',
      };
    }
    const found = await findApiCampaign(deps.rewards, row, timeoutOf(deps)).catch(() => undefined);
    if (found) return { kind: 'saved', row: await activate(deps, row, found.campaignId, actor) };
    return { kind: 'unknown', row, message: UNKNOWN_CREATE };
  }
}

/**
 * A row still `creating`: the API campaign carrying its tag is looked for; found, it is brought to the
 * row's values and the row is active; not found once the settle time has passed since the last call,
 * the create is sent again (one instance: the attempt time is claimed with a conditional update).
 */
export async function resolveCreating(deps: CampaignDeps, row: CampaignRow, actor: string): Promise<SaveOutcome> {
  let found: Campaign | undefined;
  try {
    found = await findApiCampaign(deps.rewards, row, timeoutOf(deps));
  } catch {
    return { kind: 'unknown', row, message: UNKNOWN_CREATE };
  }
  if (found) {
    try {
      if (!sameAsApi(row, found))
        await deps.rewards.campaigns.update(found.campaignId, apiParamsOf(row), { timeoutMs: timeoutOf(deps) });
    } catch {
      return { kind: 'unknown', row, message: UNKNOWN_CREATE };
    }
    return { kind: 'saved', row: await activate(deps, row, found.campaignId, actor) };
  }
  const settleMs = deps.settleMs ?? CREATE_SETTLE_MS;
  const lastCall = row.apiAttemptAt?.getTime() ?? 0;
  if (deps.now().getTime() - lastCall < settleMs) return { kind: 'unknown', row, message: UNKNOWN_CREATE };
  const [claimed] = await deps.db
    .update(campaigns)
    .set({ apiAttemptAt: deps.now() })
    .where(
      and(
        eq(campaigns.id, row.id),
        eq(campaigns.status, 'creating'),
        row.apiAttemptAt ? eq(campaigns.apiAttemptAt, row.apiAttemptAt) : sql`${campaigns.apiAttemptAt} is null`,
      ),
    )
    .returning();
  if (!claimed) return { kind: 'unknown', row, message: UNKNOWN_CREATE };
  return postCreate(deps, claimed, actor);
}

function sameAsApi(row: CampaignRow, api: Campaign): boolean {
  const params = apiParamsOf(row);
  return (
    api.name === params.name &&
    api.productId === params.productId &&
    api.amount !== undefined &&
    Number(api.amount) === Number(params.amount) &&
    (api.templateId ?? undefined) === params.templateId &&
    api.senderName === params.senderName &&
    api.subject === params.subject
  );
}

async function activate(
  deps: CampaignDeps,
  row: CampaignRow,
  apiCampaignId: string,
  actor: string,
): Promise<CampaignRow> {
  return deps.db.transaction(async (tx) => {
    const [active] = await tx
      .update(campaigns)
      .set({ status: 'active', apiCampaignId, updatedAt: deps.now() })
      .where(
        and(eq(campaigns.id, row.id), moveGuard(campaigns.status, CAMPAIGN_STATUS_TRANSITIONS, 'active', ['creating'])),
      )
      .returning();
    if (!active) {
      const [current] = await tx.select().from(campaigns).where(eq(campaigns.id, row.id));
      return current ?? row;
    }
    await recordAudit(tx, {
      teamId: active.teamId,
      enterpriseId: active.enterpriseId,
      actorUserId: actor,
      action: 'campaign.created',
      subjectType: 'campaign',
      subjectId: active.id,
      details: auditDetails(active),
    });
    return active;
  });
}

function auditDetails(row: CampaignRow): Record<string, unknown> {
  return {
    name: row.name,
    productId: row.productId,
    minCents: row.minCents,
    maxCents: row.maxCents,
    defaultCents: row.defaultCents,
    templateId: row.templateId,
    apiCampaignId: row.apiCampaignId,
  };
}

/** Changes an active campaign: the API's copy first (PUT replaces all of it, so saving twice is harmless), then Kudos'. */
export async function updateCampaign(
  deps: CampaignDeps,
  ws: Workspace,
  actor: string,
  id: string,
  input: CampaignInput,
): Promise<SaveOutcome> {
  const row = await getCampaign(deps.db, ws.teamId, id);
  if (!row || row.status === 'archived')
    return { kind: 'refused', message: 'This campaign was archived meanwhile; nothing was changed.' };
  if (row.status === 'creating' || !row.apiCampaignId)
    return {
      kind: 'refused',
      message: 'This campaign is still being created in the Rewards account; try again in a minute.',
    };
  const [clash] = await deps.db
    .select({ id: campaigns.id })
    .from(campaigns)
    .where(
      and(
        eq(campaigns.teamId, ws.teamId),
        ne(campaigns.id, id),
        ne(campaigns.status, 'archived'),
        sql`lower(${campaigns.name}) = lower(${input.name})`,
      ),
    );
  if (clash) return { kind: 'invalid', errors: nameTaken(input.name) };
  const next = { ...row, ...input, apiName: apiNameOf(input.name, row.id) };
  try {
    await deps.rewards.campaigns.update(row.apiCampaignId, apiParamsOf(next), { timeoutMs: timeoutOf(deps) });
  } catch (error) {
    if (error instanceof RewardsNotFoundError)
      return {
        kind: 'refused',
        message:
          'The Rewards account no longer has this campaign (deleted in the portal?), or no longer has its design or template. Nothing was changed; archive it and create a new one if needed.',
      };
    if (mayHaveReachedApi(error))
      return {
        kind: 'refused',
        message:
          'The Rewards API did not answer in time. Nothing was changed in Kudos; press Save again (saving twice is harmless).',
      };
    return {
      kind: 'refused',
      message: `${describeForUser(error, 'change the campaign in the Rewards account')} Nothing was changed.`,
    };
  }
  return deps.db.transaction(async (tx) => {
    const [updated] = await tx
      .update(campaigns)
      .set({ ...input, apiName: next.apiName, updatedBy: actor, updatedAt: deps.now() })
      .where(and(eq(campaigns.id, id), eq(campaigns.status, 'active')))
      .returning();
    if (!updated)
      return { kind: 'refused' as const, message: 'This campaign was archived meanwhile; nothing was changed.' };
    await recordAudit(tx, {
      teamId: updated.teamId,
      enterpriseId: updated.enterpriseId,
      actorUserId: actor,
      action: 'campaign.updated',
      subjectType: 'campaign',
      subjectId: updated.id,
      details: auditDetails(updated),
    });
    return { kind: 'saved' as const, row: updated };
  });
}

export type ArchiveOutcome =
  | { ok: true; row: CampaignRow }
  | Refused<'not_found' | 'already_archived' | 'rewards_unreachable' | 'creation_unsettled' | 'rewards_delete_failed'>;

/** Deletes the API's copy (a delete already done, or done in the portal, is fine), then archives Kudos' row. */
export async function archiveCampaign(
  deps: CampaignDeps,
  ws: Workspace,
  actor: string,
  id: string,
): Promise<ArchiveOutcome> {
  const row = await getCampaign(deps.db, ws.teamId, id);
  if (!row) return refused('not_found', 'That campaign does not exist in this workspace.');
  if (row.status === 'archived') return refused('already_archived', `*${row.name}* is archived already.`);
  let apiCampaignId = row.apiCampaignId;
  if (row.status === 'creating') {
    // Never leave an API campaign behind: find out first whether the create went through.
    const found = await findApiCampaign(deps.rewards, row, timeoutOf(deps)).catch(() => 'failed' as const);
    if (found === 'failed')
      return refused(
        'rewards_unreachable',
        'The Rewards API did not answer; nothing was changed. Try again in a moment.',
      );
    const settled = deps.now().getTime() - (row.apiAttemptAt?.getTime() ?? 0) >= (deps.settleMs ?? CREATE_SETTLE_MS);
    if (!found && !settled)
      return refused(
        'creation_unsettled',
        'Kudos is still finding out whether the Rewards API created this campaign; try again in a minute.',
      );
    apiCampaignId = found?.campaignId ?? null;
  }
  if (apiCampaignId) {
    try {
      await deps.rewards.campaigns.delete(apiCampaignId, { timeoutMs: timeoutOf(deps) });
    } catch (error) {
      if (!(error instanceof RewardsNotFoundError))
        return refused(
          'rewards_delete_failed',
          `${describeForUser(error, 'archive the campaign in the Rewards account')} Nothing was changed.`,
        );
    }
  }
  return deps.db.transaction(async (tx): Promise<ArchiveOutcome> => {
    const [archived] = await tx
      .update(campaigns)
      .set({ status: 'archived', apiCampaignId, archivedBy: actor, archivedAt: deps.now(), updatedAt: deps.now() })
      .where(and(eq(campaigns.id, id), ne(campaigns.status, 'archived')))
      .returning();
    if (!archived) return refused('already_archived', 'That campaign was archived meanwhile.');
    await recordAudit(tx, {
      teamId: archived.teamId,
      enterpriseId: archived.enterpriseId,
      actorUserId: actor,
      action: 'campaign.archived',
      subjectType: 'campaign',
      subjectId: archived.id,
      details: { name: archived.name },
    });
    return { ok: true, row: archived };
  });
}

/** Rows still `creating` (an answer lost): each is looked up, finished, or sent again once settled. Run before listing. */
export async function finishCreating(deps: CampaignDeps, teamId: string): Promise<void> {
  const pending = await deps.db
    .select()
    .from(campaigns)
    .where(and(eq(campaigns.teamId, teamId), eq(campaigns.status, 'creating')))
    .orderBy(desc(campaigns.createdAt))
    .limit(5);
  for (const row of pending) await resolveCreating(deps, row, row.createdBy);
}

function isUniqueViolation(error: unknown): boolean {
  const code =
    (error as { code?: string; cause?: { code?: string } }).code ??
    (error as { cause?: { code?: string } }).cause?.code;
  return code === '23505';
}
