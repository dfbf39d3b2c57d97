// Runs automations: a periodic pass on every instance plans the next 30 days of occurrences (one row
// per run, unique by key, so planning twice or on two instances inserts each once), then claims the
// due ones (FOR UPDATE SKIP LOCKED + a lease) and sends each through sendAutomated with the source
// key `auto:<key>`: even two instances holding the same occurrence record one kudos. A run whose
// time passed while every instance was down is sent late, once, up to LATE_LIMIT_MS after its time.
import { and, asc, eq, gte, inArray, isNotNull, isNull, lt, lte, or, sql } from 'drizzle-orm';

import type { Logger } from '../../config/logger.js';
import type { Database } from '../../db/client.js';
import {
  automationOccurrences,
  celebrationDates,
  type CelebrationKind,
  celebrationPreferences,
  type CelebrationRuleRow,
  celebrationRules,
  kudos,
  type KudosRow,
  type OccurrenceRow,
  type OccurrenceStatus,
  recurringSeries,
  type RecurringSeriesRow,
  type SeriesStatus,
} from '../../db/schema/index.js';
import { createPeriodicJob, type PeriodicJob } from '../../lib/periodic-job.js';
import { toCents } from '../../rewards/index.js';
import { estimateUsdCents } from '../branded/exchange-rates.js';
import { formatUsd } from '../common/money.js';
import type { ProfileDirectory } from '../common/ports.js';
import { displayNameOf, isChatRefusal } from '../common/ports.js';
import { moveGuard, type StatusTransitions } from '../common/status-transitions.js';
import type { Workspace } from '../common/workspace.js';
import { checkSendAgainstLimits } from '../finance/spending-limits.js';
import type { NoticePresenter } from '../notices/notices.js';
import { type NoticeDeps, postOnce } from '../notices/outbox.js';
import { NO_ANNOUNCEMENT } from '../sending/announce.js';
import type { PreparedSend } from '../sending/check-send.js';
import { kudosPartKey } from '../sending/kudos-parts.js';
import { KUDOS_STATUS_TRANSITIONS, promoteFoundKudosOrder } from '../sending/kudos-store.js';
import {
  type RecordedSend,
  recordPreparedSend,
  type SendOrigin,
  SendRefusedOnRecord,
  startRecordedSend,
} from '../sending/record-send.js';
import { recordFailedOrders } from '../workspaces/audit-trail.js';
import { type CountrySyncMemo, syncMappedCountries } from '../workspaces/people-countries-profile.js';
import { type AutomatedSendDeps, type AutomatedSendRequest, prepareAutomated } from './automated-send.js';
import { celebrationDateIn, celebrationRuns, fillTemplate, recurrenceRuns } from './automation-dates.js';
import { syncProfileDates } from './celebration-profile.js';
import { finishWaitingSteps, type WorkflowStepDeps } from './workflow-steps.js';

/** The outbox kind of the DM telling an automation's owner that a run was refused or given up (once per run). */
export const AUTOMATION_REFUSED_KIND = 'automation.refused';
/** The outbox kind of the DM telling an automation's owner that a run waits and is tried again (once per run). */
export const AUTOMATION_WAITING_KIND = 'automation.waiting';
/** How long a run that could not go out for a passing reason (the API down, balance, limits) waits before its next try. */
export const RETRY_MS = 15 * 60_000;

export const PLAN_AHEAD_MS = 30 * 86_400_000;
/** A run missed by more than this (every instance down for a week) is recorded as missed, not sent. */
export const LATE_LIMIT_MS = 7 * 86_400_000;
/** How far back planning looks, so that a run due while every instance was down is still planned. */
const PLAN_BEHIND_MS = 2 * 86_400_000;
const LEASE_MS = 120_000;
const BATCH = 20;

/**
 * Every status a series may be written with, from each status (common/status-transitions.ts): paused
 * and resumed by its sender or an admin, deleted for good.
 */
export const SERIES_STATUS_TRANSITIONS = {
  active: ['paused', 'deleted'],
  paused: ['active', 'deleted'],
  deleted: [],
} as const satisfies StatusTransitions<SeriesStatus>;

/**
 * Every status an occurrence may be written with, from each status (common/status-transitions.ts). A
 * claimed planned run is sent, stopped (skipped, canceled), refused or missed; a person skips a planned
 * run; a sent run whose kudos the API refused is retrying or failed, and a retrying one is sent again,
 * stopped or given up (failed). Pausing a series cancels its planned and retrying runs; resuming plans
 * the cancelled runs still ahead again.
 */
export const OCCURRENCE_STATUS_TRANSITIONS = {
  planned: ['skipped', 'sent', 'refused', 'canceled', 'missed'],
  skipped: [],
  sent: ['retrying', 'failed'],
  retrying: ['skipped', 'sent', 'failed', 'canceled'],
  failed: [],
  refused: [],
  canceled: ['planned'],
  missed: [],
} as const satisfies StatusTransitions<OccurrenceStatus>;

export interface AutomationDeps extends AutomatedSendDeps {
  logger: Logger;
  /** Tells an automation's owner (the series' sender; the admin who last saved a rule) of a refused run. */
  notices?: NoticeDeps & { present: NoticePresenter };
  /** Custom profile fields, for rules whose dates an admin mapped to one (celebration-profile.ts). */
  profiles?: ProfileDirectory;
  /** Workflow steps waiting for their send's outcome (workflow-steps.ts); absent without a key ring. */
  workflowSteps?: WorkflowStepDeps;
}

/** How often a workspace's mapped profile fields are read again (a changed mapping is read at once). */
export const PROFILE_SYNC_MS = 86_400_000;
/** Per instance: teamId -> the mapping last read and when. */
export type ProfileSyncMemo = Map<string, { mapping: string; at: number }>;

/** Reads the profile dates of each workspace with a mapped, enabled rule, when due; failures are logged. */
export async function syncMappedProfiles(
  deps: AutomationDeps,
  now: Date,
  memo: ProfileSyncMemo,
  stopping: () => boolean = () => false,
): Promise<number> {
  if (!deps.profiles) return 0;
  const rules = (await deps.db.select().from(celebrationRules).where(eq(celebrationRules.enabled, true))).filter(
    (r) => r.profileFieldId,
  );
  const byTeam = new Map<string, CelebrationRuleRow[]>();
  for (const r of rules) byTeam.set(r.teamId, [...(byTeam.get(r.teamId) ?? []), r]);
  let synced = 0;
  for (const [teamId, teamRules] of byTeam) {
    const mapping = teamRules
      .map((r) => `${r.kind}=${r.profileFieldId}`)
      .sort()
      .join(',');
    const last = memo.get(teamId);
    if (last && last.mapping === mapping && now.getTime() - last.at < PROFILE_SYNC_MS) continue;
    const ws = { teamId, enterpriseId: teamRules[0]!.enterpriseId };
    try {
      if (stopping()) break;
      const report = await syncProfileDates(
        { db: deps.db, profiles: deps.profiles },
        ws,
        teamRules,
        now.toISOString().slice(0, 10),
        stopping,
      );
      memo.set(teamId, { mapping, at: now.getTime() });
      deps.logger.info('celebration dates read from profiles', { teamId, ...report });
      synced++;
    } catch (error) {
      deps.logger.warn('reading celebration dates from profiles failed', { teamId, error });
    }
  }
  return synced;
}

export interface AutomationReport {
  planned: number;
  sent: number;
  skipped: number;
  refused: number;
  canceled: number;
  missed: number;
  /** Not sent yet for a passing reason (the API down, a known limit, the balance); tried again. */
  waiting: number;
  /** Kudos the Rewards API refused for good (or after 7 days of trying). */
  failed: number;
  /** Refused kudos sent again after their reason went away (a top-up, a higher limit). */
  retried: number;
}

const iso = (d: Date) => sql`${d.toISOString()}::timestamptz`;

/** Inserts the occurrences due in [now - PLAN_BEHIND, now + PLAN_AHEAD); existing keys are left alone. */
export async function planOccurrences(deps: AutomationDeps, now: Date): Promise<number> {
  const rules = await deps.db.select().from(celebrationRules).where(eq(celebrationRules.enabled, true));
  const seriesRows = await deps.db.select().from(recurringSeries).where(eq(recurringSeries.status, 'active'));
  const rows: Array<typeof automationOccurrences.$inferInsert> = [];
  const to = new Date(now.getTime() + PLAN_AHEAD_MS);

  for (const rule of rules) {
    // Nothing before the rule was (last) switched on: enabling it does not send last week's birthdays.
    const from = new Date(Math.max(now.getTime() - PLAN_BEHIND_MS, rule.updatedAt.getTime()));
    const people = await deps.db.select().from(celebrationDates).where(eq(celebrationDates.teamId, rule.teamId));
    for (const person of people) {
      const date = rule.kind === 'birthday' ? person.birthday : person.startDate;
      if (!date || !mayFallWithin(date, from, to)) continue;
      // A workspace the app is no longer installed in (distribution mode) plans nothing, and asks Slack nothing more.
      const user = await deps.users
        .userInfo(rule, person.slackUserId)
        .catch((error: unknown) => (isChatRefusal(error, 'refused') ? undefined : Promise.reject(error)));
      if (!user || user.deleted) continue;
      for (const run of celebrationRuns({ kind: rule.kind, date, zone: user.tz ?? 'UTC', from, to })) {
        rows.push({
          teamId: rule.teamId,
          enterpriseId: rule.enterpriseId,
          key: `${rule.kind}:${person.slackUserId}:${run.localDate}`,
          source: rule.kind,
          subjectUserId: person.slackUserId,
          localDate: run.localDate,
          dueAt: run.dueAt,
          years: run.years ?? null,
        });
      }
    }
  }
  for (const series of seriesRows) {
    const from = new Date(now.getTime() - PLAN_BEHIND_MS);
    for (const run of recurrenceRuns(series, from, to)) {
      rows.push({
        teamId: series.teamId,
        enterpriseId: series.enterpriseId,
        key: `series:${series.id}:${run.localDate}`,
        source: 'recurring',
        seriesId: series.id,
        localDate: run.localDate,
        dueAt: run.dueAt,
      });
    }
  }
  if (rows.length === 0) return 0;
  const inserted = await deps.db
    .insert(automationOccurrences)
    .values(rows)
    .onConflictDoNothing({ target: [automationOccurrences.teamId, automationOccurrences.key] })
    .returning({ id: automationOccurrences.id });
  return inserted.length;
}

/** Cheap pre-filter before a Slack lookup: could this month-day fall within the window (± a day)? */
function mayFallWithin(date: string, from: Date, to: Date): boolean {
  const md = date.slice(-5);
  for (let t = from.getTime() - 86_400_000; t <= to.getTime() + 86_400_000; t += 86_400_000) {
    const here = new Date(t).toISOString().slice(5, 10);
    if (here === md || (md === '02-29' && here === '02-28')) return true;
  }
  return false;
}

/**
 * Claims due occurrences (oldest first) for this instance, skipping rows others hold: `planned` ones to
 * send, `retrying` ones to send again. A row waiting to be tried again has `claimed_until` at that time.
 */
export async function claimDueOccurrences(
  db: Database,
  workerId: string,
  now: Date,
  limit = BATCH,
  status: 'planned' | 'retrying' = 'planned',
): Promise<OccurrenceRow[]> {
  const due = db
    .select({ id: automationOccurrences.id })
    .from(automationOccurrences)
    .where(
      and(
        eq(automationOccurrences.status, status),
        lte(automationOccurrences.dueAt, iso(now)),
        or(isNull(automationOccurrences.claimedUntil), lte(automationOccurrences.claimedUntil, iso(now))),
      ),
    )
    .orderBy(asc(automationOccurrences.dueAt))
    .limit(limit)
    .for('update', { skipLocked: true });
  return db
    .update(automationOccurrences)
    .set({ claimedUntil: iso(new Date(now.getTime() + LEASE_MS)), claimedBy: workerId, updatedAt: sql`now()` })
    .where(inArray(automationOccurrences.id, due))
    .returning();
}

/**
 * Writes a claimed occurrence's outcome, fenced on the claim: a row a person changed meanwhile (a
 * skip, a paused series) or another instance re-claimed is left as it is. False when fenced out.
 */
async function settle(
  db: Database,
  occ: OccurrenceRow,
  set: Partial<typeof automationOccurrences.$inferInsert>,
): Promise<boolean> {
  const updated = await db
    .update(automationOccurrences)
    .set({ claimedUntil: null, claimedBy: null, ...set, updatedAt: sql`now()` })
    .where(
      and(
        eq(automationOccurrences.id, occ.id),
        eq(automationOccurrences.status, occ.status),
        occ.claimedBy ? eq(automationOccurrences.claimedBy, occ.claimedBy) : undefined,
      ),
    )
    .returning({ id: automationOccurrences.id });
  return updated.length === 1;
}

/** The claim let go until `at` (claimDueOccurrences takes it again then), with why it waits. */
function waitUntil(db: Database, occ: OccurrenceRow, at: Date, why: string): Promise<boolean> {
  return settle(db, occ, { claimedUntil: at, error: why });
}

type Outcome = 'sent' | 'skipped' | 'refused' | 'canceled' | 'missed' | 'waiting' | 'failed' | 'yielded';
type Stop = { stop: 'skipped' | 'canceled'; why: string };

const untilOf = (occ: OccurrenceRow) => new Date(occ.dueAt.getTime() + LATE_LIMIT_MS).toISOString().slice(0, 10);

/** Sends one claimed occurrence (or records why not). */
export async function dispatchOccurrence(deps: AutomationDeps, occ: OccurrenceRow, now: Date): Promise<Outcome> {
  const log = deps.logger.child({ occurrence: occ.key, teamId: occ.teamId });
  if (now.getTime() - occ.dueAt.getTime() > LATE_LIMIT_MS) {
    // A run that waited (the API down, a limit) and ran out of days: its owner hears that Kudos stopped.
    const waited = occ.error;
    if (
      !(await settle(deps.db, occ, {
        status: 'missed',
        error: waited ?? 'Its time passed more than 7 days ago while Kudos was not running.',
      }))
    )
      return 'yielded';
    if (waited)
      await tellOwner(deps, occ, AUTOMATION_REFUSED_KIND, { reason: waited, next: 'given_up', until: untilOf(occ) });
    return 'missed';
  }
  const ws: Workspace = { teamId: occ.teamId, enterpriseId: occ.enterpriseId };
  const request =
    occ.source === 'recurring' ? await recurringRequest(deps.db, occ) : await celebrationRequest(deps, occ);
  if ('stop' in request) return (await settle(deps.db, occ, stopValues(occ, request))) ? request.stop : 'yielded';
  const { owner, currency, ...send } = request;
  // Kudos' known spending limits: a run over one waits (and is tried again) rather than being ordered.
  const over = await checkSendAgainstLimits(
    deps.db,
    ws,
    await usdCentsOf(deps, ws, send, currency),
    deps.now(),
    'This run',
  );
  if (!over.ok) {
    if (!(await waitUntil(deps.db, occ, new Date(now.getTime() + RETRY_MS), over.message))) return 'yielded';
    await tellOwner(
      deps,
      occ,
      AUTOMATION_WAITING_KIND,
      { reason: over.message, next: 'retrying', until: untilOf(occ) },
      owner,
      send.recipientUserIds,
    );
    return 'waiting';
  }
  const refuseOccurrence = async (message: string): Promise<Outcome> => {
    if (!(await settle(deps.db, occ, { status: 'refused', error: message }))) return 'yielded';
    await tellOwner(
      deps,
      occ,
      AUTOMATION_REFUSED_KIND,
      { reason: message, next: 'not_retried' },
      owner,
      send.recipientUserIds,
    );
    return 'refused';
  };
  const checked = await prepareAutomated(deps, { workspace: ws, sourceKey: `auto:${occ.key}`, ...send });
  if (!checked.ok) {
    if (checked.transient) {
      // The API could not be asked (a 503, a timeout): nothing is settled, the run is tried again.
      log.warn('automated send could not be checked; trying again', { code: checked.code, reason: checked.message });
      return (await waitUntil(deps.db, occ, new Date(now.getTime() + RETRY_MS), checked.message))
        ? 'waiting'
        : 'yielded';
    }
    log.warn('automated send refused', { code: checked.code, reason: checked.message });
    return refuseOccurrence(checked.message);
  }
  let held: Awaited<ReturnType<typeof recordIfStillDue>>;
  try {
    held = await recordIfStillDue(deps.db, occ, checked.prepared, send.origin);
  } catch (error) {
    // Over the sender's allowance once counted under the lock: refused like any refused check.
    if (!(error instanceof SendRefusedOnRecord)) throw error;
    log.warn('automated send refused on record', { reason: error.message });
    return refuseOccurrence(error.message);
  }
  if ('outcome' in held) return held.outcome;
  await startRecordedSend(deps, held.recorded);
  return 'sent';
}

/**
 * What a run counts against Kudos' known spending limits, in USD cents: a branded card's judged cost
 * (its learned rate plus the safety margin; 0 when it cannot be judged, and then it waits for an
 * approver), else its amount.
 */
async function usdCentsOf(
  deps: AutomationDeps,
  ws: Workspace,
  send: Pick<AutomatedSendRequest, 'amount' | 'card' | 'recipientUserIds'>,
  currency: string,
): Promise<number> {
  const cents = Math.round(send.amount * 100);
  if (send.card !== 'BRANDED_CARD') return cents * send.recipientUserIds.length;
  const estimate = await estimateUsdCents(deps.db, ws, currency, cents, deps.now());
  return estimate.basis === 'unknown' ? 0 : estimate.judgedCents * send.recipientUserIds.length;
}

function stopValues(occ: OccurrenceRow, stop: Stop): Partial<typeof automationOccurrences.$inferInsert> {
  return { status: stop.stop, error: stop.why, ...(stop.stop === 'skipped' ? { skippedBy: occ.subjectUserId } : {}) };
}

/** Inside the transaction that holds the occurrence: settles it stopped (skip, opt-out, date moved, series paused) and says how, or undefined when it is still due. */
async function settleIfStopped(
  tx: Parameters<typeof stopNow>[0],
  occ: OccurrenceRow,
): Promise<NonNullable<Awaited<ReturnType<typeof stopNow>>>['stop'] | undefined> {
  const stop = await stopNow(tx, occ);
  if (!stop) return undefined;
  await tx
    .update(automationOccurrences)
    .set({ ...stopValues(occ, stop), claimedUntil: null, claimedBy: null, updatedAt: sql`now()` })
    .where(eq(automationOccurrences.id, occ.id));
  return stop.stop;
}

/**
 * Records the send and marks the occurrence `sent` in one transaction, with the occurrence locked and
 * still planned under this claim, and the person's date, opt-out or the series held as they are now:
 * a skip, a pause or a corrected date that lands first means nothing is recorded (nor ordered); one
 * that lands after finds the occurrence `sent`.
 */
async function recordIfStillDue(
  db: Database,
  occ: OccurrenceRow,
  prepared: Extract<PreparedSend, { ok: true }>,
  origin: SendOrigin,
): Promise<{ recorded: RecordedSend } | { outcome: Outcome }> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(automationOccurrences)
      .where(eq(automationOccurrences.id, occ.id))
      .for('update');
    if (!row || row.status !== 'planned' || row.claimedBy !== occ.claimedBy) {
      return { outcome: row?.status === 'skipped' || row?.status === 'canceled' ? row.status : 'yielded' };
    }
    const stopped = await settleIfStopped(tx, occ);
    if (stopped) return { outcome: stopped };
    const recorded = await recordPreparedSend(tx, prepared, origin);
    await tx
      .update(automationOccurrences)
      .set({
        status: 'sent',
        kudosId: recorded.row.id,
        error: null,
        claimedUntil: null,
        claimedBy: null,
        updatedAt: sql`now()`,
      })
      .where(eq(automationOccurrences.id, occ.id));
    return { recorded };
  });
}

/**
 * Why an occurrence must not be sent now, read under share locks (inside the recording transaction a
 * CSV import or profile read waits for it): its series is no longer active; its rule is off; the
 * person's date no longer falls on this day (corrected or removed), or they opted out.
 */
async function stopNow(db: Database, occ: OccurrenceRow): Promise<Stop | undefined> {
  if (occ.source === 'recurring') {
    const [series] = await db
      .select({ status: recurringSeries.status })
      .from(recurringSeries)
      .where(and(eq(recurringSeries.id, occ.seriesId!), eq(recurringSeries.teamId, occ.teamId)))
      .for('share');
    return !series || series.status !== 'active'
      ? { stop: 'canceled', why: `The series is ${series?.status ?? 'deleted'}.` }
      : undefined;
  }
  const kind = occ.source;
  const [rule] = await db
    .select({ enabled: celebrationRules.enabled })
    .from(celebrationRules)
    .where(and(eq(celebrationRules.teamId, occ.teamId), eq(celebrationRules.kind, kind)))
    .for('share');
  if (!rule?.enabled) return { stop: 'canceled', why: `The ${kind} rule is off.` };
  const subject = occ.subjectUserId!;
  const [dates] = await db
    .select()
    .from(celebrationDates)
    .where(and(eq(celebrationDates.teamId, occ.teamId), eq(celebrationDates.slackUserId, subject)))
    .for('share');
  const date = kind === 'birthday' ? dates?.birthday : dates?.startDate;
  const label = kind === 'birthday' ? 'birthday' : 'start date';
  if (!date) return { stop: 'canceled', why: `Their ${label} was removed.` };
  if (celebrationRunOn(kind, date, occ.localDate) === undefined)
    return { stop: 'canceled', why: `Their ${label} is now ${date}; that day is celebrated instead.` };
  const [prefs] = await db
    .select({ optOut: celebrationPreferences.optOut })
    .from(celebrationPreferences)
    .where(and(eq(celebrationPreferences.teamId, occ.teamId), eq(celebrationPreferences.slackUserId, subject)))
    .for('share');
  if (prefs?.optOut) return { stop: 'skipped', why: 'They opted out of celebrations.' };
  return undefined;
}

/** Does a person's date (birthday `MM-DD`, start `YYYY-MM-DD`) fall on `localDate`? Its years since the start, if so. */
function celebrationRunOn(kind: CelebrationKind, date: string, localDate: string): { years?: number } | undefined {
  const year = Number(localDate.slice(0, 4));
  if (celebrationDateIn(kind === 'birthday' ? date.slice(-5) : date.slice(5), year) !== localDate) return undefined;
  if (kind === 'birthday') return {};
  const years = year - Number(date.slice(0, 4));
  return years >= 1 ? { years } : undefined;
}

type OwnerNotice = { reason: string; next: 'not_retried' | 'retrying' | 'given_up'; until?: string };

/**
 * An automation's owner hears of a run that did not go out, once per run and kind of notice (the
 * notice outbox, keyed by the occurrence): refused for good, waiting to be tried again, given up. Not
 * told: the run is still recorded with its reason.
 */
async function tellOwner(
  deps: AutomationDeps,
  occ: OccurrenceRow,
  kind: string,
  notice: OwnerNotice,
  owner?: string,
  recipientUserIds?: string[],
): Promise<void> {
  if (!deps.notices) return;
  try {
    const who = owner && recipientUserIds ? { owner, recipientUserIds } : await ownerOf(deps.db, occ);
    if (!who) return;
    await postOnce(
      deps.notices,
      { kind, subject: occ.id, teamId: occ.teamId, enterpriseId: occ.enterpriseId },
      {
        to: { userId: who.owner },
        message: deps.notices.present({
          type: 'automation.refused',
          source: occ.source,
          localDate: occ.localDate,
          recipientUserIds: who.recipientUserIds,
          ...notice,
        }),
      },
    );
  } catch (error) {
    // Recorded in the outbox before posting: a failed post is resumed by the worker's sweep.
    deps.logger.warn('telling the owner of an automation failed', { occurrence: occ.key, kind, error });
  }
}

/** Who answers for a run: a recurring kudos' sender; for a celebration the admin who last saved the rule. */
async function ownerOf(
  db: Database,
  occ: OccurrenceRow,
): Promise<{ owner: string; recipientUserIds: string[] } | undefined> {
  if (occ.source === 'recurring') {
    const [series] = await db.select().from(recurringSeries).where(eq(recurringSeries.id, occ.seriesId!));
    return series ? { owner: series.senderUserId, recipientUserIds: series.recipientUserIds } : undefined;
  }
  const [rule] = await db
    .select()
    .from(celebrationRules)
    .where(and(eq(celebrationRules.teamId, occ.teamId), eq(celebrationRules.kind, occ.source)));
  return rule ? { owner: rule.updatedBy ?? rule.senderUserId, recipientUserIds: [occ.subjectUserId!] } : undefined;
}

type RequestOrStop =
  | (Omit<AutomatedSendRequest, 'workspace' | 'sourceKey'> & {
      owner: string;
      /** The currency of `amount` (a branded card's; USD for a choice card). */
      currency: string;
    })
  | Stop;

async function recurringRequest(db: Database, occ: OccurrenceRow): Promise<RequestOrStop> {
  const [series] = await db
    .select()
    .from(recurringSeries)
    .where(and(eq(recurringSeries.id, occ.seriesId!), eq(recurringSeries.teamId, occ.teamId)));
  if (!series || series.status !== 'active')
    return { stop: 'canceled', why: `The series is ${series?.status ?? 'deleted'}.` };
  return {
    senderUserId: series.senderUserId,
    recipientUserIds: series.recipientUserIds,
    // In cents of the series' currency for a brand: 2000 is £20.
    amount: series.amountCents / 100,
    card: series.cardType,
    currency: series.currency,
    message: series.message,
    productId: series.productId,
    origin: { kind: 'recurring', seriesId: series.id, occurrenceKey: occ.key },
    owner: series.senderUserId,
  };
}

async function celebrationRequest(deps: AutomationDeps, occ: OccurrenceRow): Promise<RequestOrStop> {
  // Held against the person's date and choices as they are now (checked again when recording).
  const stop = await stopNow(deps.db, occ);
  if (stop) return stop;
  const kind = occ.source as CelebrationKind;
  const [rule] = await deps.db
    .select()
    .from(celebrationRules)
    .where(and(eq(celebrationRules.teamId, occ.teamId), eq(celebrationRules.kind, kind)));
  if (!rule) return { stop: 'canceled', why: `The ${kind} rule is off.` };
  const subject = occ.subjectUserId!;
  const [[prefs], [dates]] = await Promise.all([
    deps.db
      .select()
      .from(celebrationPreferences)
      .where(and(eq(celebrationPreferences.teamId, occ.teamId), eq(celebrationPreferences.slackUserId, subject))),
    deps.db
      .select()
      .from(celebrationDates)
      .where(and(eq(celebrationDates.teamId, occ.teamId), eq(celebrationDates.slackUserId, subject))),
  ]);
  // The years of the start date as it is now (a corrected start year keeps the day, and the key).
  const years =
    kind === 'anniversary' && dates?.startDate
      ? celebrationRunOn(kind, dates.startDate, occ.localDate)?.years
      : undefined;
  const user = await deps.users.userInfo(occ, subject);
  const name = user ? user.firstName || displayNameOf(user) : subject;
  return {
    senderUserId: rule.senderUserId,
    recipientUserIds: [subject],
    amount: rule.amountCents / 100,
    card: rule.cardType,
    currency: rule.currency,
    message: fillTemplate(rule.messageTemplate, { name, years: years ?? occ.years ?? undefined }),
    productId: rule.productId,
    origin: { kind: 'celebration', celebration: kind, occurrenceKey: occ.key },
    announceTo: prefs?.noPublicPost ? NO_ANNOUNCEMENT : (rule.channelId ?? undefined),
    // The admin who set the rule up can change it; the sender shown may not be an admin.
    owner: rule.updatedBy ?? rule.senderUserId,
  };
}

// ---- An occurrence follows its kudos ------------------------------------------------------------

/** Refusals that pass once an admin acts (a top-up, a higher limit) or the day changes. */
const FIXABLE_REFUSALS = new Set(['INSUFFICIENT_BALANCE', 'DAILY_LIMIT_EXCEEDED', 'MONTHLY_LIMIT_EXCEEDED']);

/**
 * Occurrences whose kudos the Rewards API refused (the worker has told its sender): for a fixable
 * reason within the run's 7 days, `retrying` (tried again from RETRY_MS on); otherwise `failed`.
 * Either way the owner hears which run and what happens next, once.
 */
export async function followFailedSends(
  deps: AutomationDeps,
  now: Date,
): Promise<{ retrying: number; failed: number }> {
  const rows = await deps.db
    .select({ occ: automationOccurrences, send: kudos })
    .from(automationOccurrences)
    .innerJoin(kudos, eq(kudos.id, automationOccurrences.kudosId))
    .where(and(eq(automationOccurrences.status, 'sent'), eq(kudos.status, 'failed'), isNotNull(kudos.notifiedAt)))
    .limit(100);
  const counts = { retrying: 0, failed: 0 };
  for (const { occ, send } of rows) {
    const reason = `The Rewards API refused the order: ${send.errorMessage ?? send.errorCode ?? 'no reason given'}`;
    const recipientUserIds = send.recipients.map((r) => r.slackUserId).filter((id): id is string => Boolean(id));
    const retry = FIXABLE_REFUSALS.has(send.errorCode ?? '') && now.getTime() - occ.dueAt.getTime() <= LATE_LIMIT_MS;
    const set = retry
      ? { status: 'retrying' as const, claimedUntil: new Date(now.getTime() + RETRY_MS) }
      : { status: 'failed' as const };
    const [moved] = await deps.db
      .update(automationOccurrences)
      .set({ ...set, error: reason, updatedAt: sql`now()` })
      .where(
        and(
          eq(automationOccurrences.id, occ.id),
          moveGuard(automationOccurrences.status, OCCURRENCE_STATUS_TRANSITIONS, set.status, ['sent']),
          eq(automationOccurrences.kudosId, send.id),
        ),
      )
      .returning();
    if (!moved) continue;
    const owner = await ownerOf(deps.db, occ);
    if (retry)
      await tellOwner(
        deps,
        occ,
        AUTOMATION_WAITING_KIND,
        { reason, next: 'retrying', until: untilOf(occ) },
        owner?.owner,
        recipientUserIds,
      );
    else
      await tellOwner(
        deps,
        occ,
        AUTOMATION_REFUSED_KIND,
        { reason, next: 'not_retried' },
        owner?.owner,
        recipientUserIds,
      );
    counts[set.status]++;
  }
  return counts;
}

/** Why a refused send would be refused again now (balance, known limits), or undefined. */
async function stillRefused(deps: AutomationDeps, send: KudosRow): Promise<string | undefined> {
  if (send.errorCode === 'INSUFFICIENT_BALANCE') {
    const balance = await (await deps.rewards.for(send)).balance.get();
    const available = toCents(balance.availableBalance.amount, { rounding: 'half-up' });
    if (available < send.totalCents)
      return `The Rewards balance (${formatUsd(available)}) does not cover ${formatUsd(send.totalCents)} yet.`;
    return undefined;
  }
  const limits = await checkSendAgainstLimits(deps.db, send, send.totalCents, deps.now(), 'This run');
  return limits.ok ? undefined : limits.message;
}

/**
 * Tries a `retrying` occurrence's kudos again: still within its 7 days, still due (date, opt-out,
 * series), and no longer refused for its reason. The old key is looked up first: an order found
 * there lands on the kudos (nothing is sent again); only when none exists does the same kudos row go
 * back to the worker with a fresh key.
 */
async function retryFailedSend(deps: AutomationDeps, occ: OccurrenceRow, now: Date): Promise<Outcome> {
  const [send] = occ.kudosId ? await deps.db.select().from(kudos).where(eq(kudos.id, occ.kudosId)) : [];
  if (!send || send.status !== 'failed') {
    // The kudos moved on by itself (an order found for it): the occurrence follows it.
    return (await settle(deps.db, occ, { status: 'sent', error: null })) ? 'sent' : 'yielded';
  }
  if (now.getTime() - occ.dueAt.getTime() > LATE_LIMIT_MS) {
    if (!(await settle(deps.db, occ, { status: 'failed' }))) return 'yielded';
    await tellOwner(deps, occ, AUTOMATION_REFUSED_KIND, {
      reason: occ.error ?? 'The Rewards API refused the order.',
      next: 'given_up',
      until: untilOf(occ),
    });
    return 'failed';
  }
  const stop = await stopNow(deps.db, occ);
  if (stop) return (await settle(deps.db, occ, stopValues(occ, stop))) ? stop.stop : 'yielded';
  const why = await stillRefused(deps, send);
  if (why) return (await waitUntil(deps.db, occ, new Date(now.getTime() + RETRY_MS), why)) ? 'waiting' : 'yielded';

  const key = kudosPartKey(send, send.partsPlaced);
  const found = (await (await deps.rewards.for(send)).orders.list({ clientOrderId: key })).data[0];
  if (found) {
    deps.logger.warn('an order exists for the refused automated send; recorded, not sent again', {
      occurrence: occ.key,
      kudosId: send.id,
      orderId: found.orderId,
    });
    await promoteFoundKudosOrder(deps.db, send, key, found);
    deps.wakeWorker(send.id);
    return (await settle(deps.db, occ, { status: 'sent', error: null })) ? 'sent' : 'yielded';
  }
  const outcome = await deps.db.transaction(async (tx): Promise<Outcome> => {
    const [row] = await tx
      .select()
      .from(automationOccurrences)
      .where(eq(automationOccurrences.id, occ.id))
      .for('update');
    if (!row || row.status !== 'retrying' || row.claimedBy !== occ.claimedBy) return 'yielded';
    const stopped = await settleIfStopped(tx, occ);
    if (stopped) return stopped;
    await recordFailedOrders(tx, { teamId: send.teamId, kudosId: send.id });
    // A fresh key: the API refused the old one outright and no order exists for it (looked up above).
    const [again] = await tx
      .update(kudos)
      .set({
        status: 'pending',
        idempotencyKey: sql`gen_random_uuid()`,
        attempts: 0,
        failedCalls: 0,
        errorCode: null,
        errorMessage: null,
        notifiedAt: null,
        claimedUntil: null,
        claimedBy: null,
        nextAttemptAt: sql`now()`,
        updatedAt: sql`now()`,
      })
      .where(
        and(
          eq(kudos.id, send.id),
          moveGuard(kudos.status, KUDOS_STATUS_TRANSITIONS, 'pending', ['failed']),
          eq(kudos.idempotencyKey, send.idempotencyKey),
          isNotNull(kudos.notifiedAt),
        ),
      )
      .returning({ id: kudos.id });
    if (!again) return 'yielded';
    await tx
      .update(automationOccurrences)
      .set({ status: 'sent', error: null, claimedUntil: null, claimedBy: null, updatedAt: sql`now()` })
      .where(eq(automationOccurrences.id, occ.id));
    return 'sent';
  });
  if (outcome === 'sent') deps.wakeWorker(send.id);
  return outcome;
}

/** One pass: plan, then send everything due (in batches). `now` is injectable for tests. */
export async function runAutomations(deps: AutomationDeps, workerId: string, now: Date): Promise<AutomationReport> {
  if (deps.workflowSteps)
    await finishWaitingSteps(deps.workflowSteps).catch((error: unknown) =>
      deps.logger.warn('finishing waiting workflow steps failed', { error }),
    );
  const report: AutomationReport = {
    planned: await planOccurrences(deps, now),
    sent: 0,
    skipped: 0,
    refused: 0,
    canceled: 0,
    missed: 0,
    waiting: 0,
    failed: 0,
    retried: 0,
  };
  const followed = await followFailedSends(deps, now);
  report.failed += followed.failed;
  for (;;) {
    const batch = await claimDueOccurrences(deps.db, workerId, now, BATCH, 'retrying');
    for (const occ of batch) {
      try {
        const outcome = await retryFailedSend(deps, occ, now);
        if (outcome === 'sent') report.retried++;
        else if (outcome !== 'yielded') report[outcome]++;
      } catch (error) {
        // Left claimed: tried again after the lease by any instance.
        deps.logger.error('retrying an automated send failed', { occurrence: occ.key, error });
      }
    }
    if (batch.length < BATCH) break;
  }
  for (;;) {
    const batch = await claimDueOccurrences(deps.db, workerId, now);
    if (batch.length === 0) return report;
    for (const occ of batch) {
      try {
        const outcome = await dispatchOccurrence(deps, occ, now);
        if (outcome !== 'yielded') report[outcome]++;
      } catch (error) {
        // Left claimed: retried after the lease by any instance, with the same source key.
        deps.logger.error('running an automation failed', { occurrence: occ.key, error });
      }
    }
    if (batch.length < BATCH) return report;
  }
}

export interface AutomationService {
  tick(now?: Date): Promise<AutomationReport>;
  start(intervalMs?: number): void;
  stop(): Promise<void>;
}

export function createAutomationService(deps: AutomationDeps, workerId: string): AutomationService {
  let passes: PeriodicJob<unknown> | undefined;
  let running: Promise<unknown> | undefined;
  let stopped = false;
  const profileMemo: ProfileSyncMemo = new Map();
  const countryMemo: CountrySyncMemo = new Map();
  // Reading profiles can take long in a big workspace (users.profile.get per person): one read at a
  // time, beside the passes, which plan from the dates already read rather than wait for it.
  let profileSync: Promise<unknown> | undefined;
  const syncProfiles = (now: Date): Promise<unknown> => {
    // People's countries (a field mapped in the settings) are read in the same turn, after the dates.
    profileSync ??= syncMappedProfiles(deps, now, profileMemo, () => stopped)
      .then(() =>
        deps.profiles ? syncMappedCountries({ ...deps, profiles: deps.profiles }, now, countryMemo, () => stopped) : 0,
      )
      .catch((error: unknown) => deps.logger.warn('reading profile dates failed', { error }))
      .finally(() => {
        profileSync = undefined;
      });
    return profileSync;
  };
  const service: AutomationService = {
    // An explicit pass (tests, a rule just saved) reads the mapped profiles first.
    tick: async (now = deps.now()) => {
      await syncProfiles(now);
      return runAutomations(deps, workerId, now);
    },
    start(intervalMs = 60_000) {
      if (passes) return;
      passes = createPeriodicJob({
        name: 'automations pass',
        logger: deps.logger,
        periodMs: intervalMs,
        firstDelayMs: 0,
        step: () => {
          if (running) return Promise.resolve();
          void syncProfiles(deps.now());
          running = runAutomations(deps, workerId, deps.now()).finally(() => {
            running = undefined;
          });
          return running;
        },
      });
      passes.start();
    },
    async stop() {
      stopped = true;
      const stopping = passes?.stop();
      passes = undefined;
      await stopping;
      await running?.catch(() => {});
      await profileSync;
    },
  };
  return service;
}

// ---- What admins and people see and change ------------------------------------------------------

/** Celebrations planned for the next 30 days, soonest first. */
export async function upcomingCelebrations(db: Database, ws: Workspace, now: Date): Promise<OccurrenceRow[]> {
  return db
    .select()
    .from(automationOccurrences)
    .where(
      and(
        eq(automationOccurrences.teamId, ws.teamId),
        inArray(automationOccurrences.source, ['birthday', 'anniversary']),
        inArray(automationOccurrences.status, ['planned', 'skipped']),
        gte(automationOccurrences.dueAt, iso(now)),
        lt(automationOccurrences.dueAt, iso(new Date(now.getTime() + PLAN_AHEAD_MS))),
      ),
    )
    .orderBy(asc(automationOccurrences.dueAt))
    .limit(100);
}

/**
 * Skips a planned occurrence (never one already sent). A pass may hold it: its send is recorded only
 * while the occurrence is still planned, so a skip that lands first means nothing is sent, and one
 * that lands after finds it `sent` (false). True when it was skipped by this call. With
 * `seriesSenderUserId`, only an occurrence of that sender's own series (a sender skipping one run).
 */
export async function skipOccurrence(
  db: Database,
  ws: Workspace,
  occurrenceId: string,
  actorUserId: string,
  seriesSenderUserId?: string,
): Promise<boolean> {
  const ownSeries = seriesSenderUserId
    ? inArray(
        automationOccurrences.seriesId,
        db
          .select({ id: recurringSeries.id })
          .from(recurringSeries)
          .where(and(eq(recurringSeries.teamId, ws.teamId), eq(recurringSeries.senderUserId, seriesSenderUserId))),
      )
    : undefined;
  const updated = await db
    .update(automationOccurrences)
    .set({ status: 'skipped', skippedBy: actorUserId, error: null, updatedAt: sql`now()` })
    .where(
      and(
        eq(automationOccurrences.id, occurrenceId),
        eq(automationOccurrences.teamId, ws.teamId),
        moveGuard(automationOccurrences.status, OCCURRENCE_STATUS_TRANSITIONS, 'skipped', ['planned']),
        ownSeries,
      ),
    )
    .returning({ id: automationOccurrences.id });
  return updated.length === 1;
}

export type CelebrationRuleInput = Pick<
  CelebrationRuleRow,
  'enabled' | 'amountCents' | 'productId' | 'messageTemplate' | 'senderUserId' | 'channelId' | 'profileFieldId'
> &
  /** A brand (`amountCents` in cents of `currency`); a choice card when absent. */
  Partial<Pick<CelebrationRuleRow, 'cardType' | 'currency'>>;

export async function saveCelebrationRule(
  db: Database,
  ws: Workspace,
  kind: CelebrationKind,
  input: CelebrationRuleInput,
  actorUserId: string,
): Promise<CelebrationRuleRow> {
  // Saved whole: a rule changed from a brand back to a design is a choice card in USD again.
  input = { ...input, cardType: input.cardType ?? 'CHOICE_CARD', currency: input.currency ?? 'USD' };
  const values = { ...ws, kind, ...input, updatedBy: actorUserId, updatedAt: new Date() };
  const [row] = await db
    .insert(celebrationRules)
    .values(values)
    .onConflictDoUpdate({
      target: [celebrationRules.teamId, celebrationRules.kind],
      set: { ...input, updatedBy: actorUserId, updatedAt: sql`now()` },
    })
    .returning();
  return row!;
}

export async function celebrationRulesOf(db: Database, ws: Workspace): Promise<CelebrationRuleRow[]> {
  return db
    .select()
    .from(celebrationRules)
    .where(eq(celebrationRules.teamId, ws.teamId))
    .orderBy(asc(celebrationRules.kind));
}

export async function setCelebrationPreference(
  db: Database,
  ws: Workspace,
  userId: string,
  prefs: { optOut?: boolean; noPublicPost?: boolean },
): Promise<void> {
  await db
    .insert(celebrationPreferences)
    .values({ ...ws, slackUserId: userId, optOut: prefs.optOut ?? false, noPublicPost: prefs.noPublicPost ?? false })
    .onConflictDoUpdate({
      target: [celebrationPreferences.teamId, celebrationPreferences.slackUserId],
      set: {
        ...(prefs.optOut !== undefined ? { optOut: prefs.optOut } : {}),
        ...(prefs.noPublicPost !== undefined ? { noPublicPost: prefs.noPublicPost } : {}),
        updatedAt: sql`now()`,
      },
    });
}

export async function celebrationPreferenceOf(
  db: Database,
  ws: Workspace,
  userId: string,
): Promise<{ optOut: boolean; noPublicPost: boolean }> {
  const [row] = await db
    .select()
    .from(celebrationPreferences)
    .where(and(eq(celebrationPreferences.teamId, ws.teamId), eq(celebrationPreferences.slackUserId, userId)));
  return { optOut: row?.optOut ?? false, noPublicPost: row?.noPublicPost ?? false };
}

// ---- Recurring kudos -----------------------------------------------------------------------------

/** Records a series as given (no caps): for set-ups and imports; a person's form goes through createSeriesWithinCaps. */
export async function createSeries(
  db: Database,
  values: typeof recurringSeries.$inferInsert,
): Promise<RecurringSeriesRow> {
  const [row] = await db.insert(recurringSeries).values(values).returning();
  return row!;
}

export interface SeriesCaps {
  /** Series (active or paused) one person may have. */
  perPerson: number;
  /** Series (active or paused) the workspace may have. */
  perWorkspace: number;
}

export type CreateSeriesOutcome =
  | { outcome: 'created'; series: RecurringSeriesRow }
  /** The same form (its Slack view) was saved already: Slack sent it again, or it was submitted twice. */
  | { outcome: 'already_saved'; series: RecurringSeriesRow }
  | { outcome: 'at_cap'; cap: 'person' | 'workspace'; limit: number };

/**
 * Records a series unless its form was saved already or a cap is reached. A workspace's series are
 * created one at a time (a transaction-scoped advisory lock), so that concurrent submissions count
 * each other and a cap holds exactly.
 */
export async function createSeriesWithinCaps(
  db: Database,
  values: typeof recurringSeries.$inferInsert,
  caps: SeriesCaps,
): Promise<CreateSeriesOutcome> {
  // Read first without the lock: a form saved already, or a cap reached, is answered without queueing
  // behind the workspace's other submissions (a burst at the cap stays quick).
  const refused = await savedOrAtCap(db, values, caps);
  if (refused) return refused;
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`recurring_series:${values.teamId}`}))`);
    const stopped = await savedOrAtCap(tx, values, caps);
    if (stopped) return stopped;
    const [row] = await tx.insert(recurringSeries).values(values).returning();
    return { outcome: 'created', series: row! };
  });
}

async function savedOrAtCap(
  reader: Pick<Database, 'select'>,
  values: typeof recurringSeries.$inferInsert,
  caps: SeriesCaps,
): Promise<Exclude<CreateSeriesOutcome, { outcome: 'created' }> | undefined> {
  const [[saved], [counts]] = await Promise.all([
    values.sourceViewId
      ? reader
          .select()
          .from(recurringSeries)
          .where(and(eq(recurringSeries.teamId, values.teamId), eq(recurringSeries.sourceViewId, values.sourceViewId)))
      : Promise.resolve([]),
    reader
      .select({
        all: sql<number>`count(*)::int`,
        own: sql<number>`(count(*) filter (where ${recurringSeries.senderUserId} = ${values.senderUserId}))::int`,
      })
      .from(recurringSeries)
      .where(and(eq(recurringSeries.teamId, values.teamId), inArray(recurringSeries.status, ['active', 'paused']))),
  ]);
  if (saved) return { outcome: 'already_saved', series: saved };
  if ((counts?.own ?? 0) >= caps.perPerson) return { outcome: 'at_cap', cap: 'person', limit: caps.perPerson };
  if ((counts?.all ?? 0) >= caps.perWorkspace) return { outcome: 'at_cap', cap: 'workspace', limit: caps.perWorkspace };
  return undefined;
}

/** Plans one series' runs of the next 30 days (what the periodic pass does for every series), for a series just created. */
export async function planSeries(db: Database, series: RecurringSeriesRow, now: Date): Promise<number> {
  const rows = recurrenceRuns(
    series,
    new Date(now.getTime() - PLAN_BEHIND_MS),
    new Date(now.getTime() + PLAN_AHEAD_MS),
  ).map((run) => ({
    teamId: series.teamId,
    enterpriseId: series.enterpriseId,
    key: `series:${series.id}:${run.localDate}`,
    source: 'recurring' as const,
    seriesId: series.id,
    localDate: run.localDate,
    dueAt: run.dueAt,
  }));
  if (rows.length === 0) return 0;
  const inserted = await db
    .insert(automationOccurrences)
    .values(rows)
    .onConflictDoNothing({ target: [automationOccurrences.teamId, automationOccurrences.key] })
    .returning({ id: automationOccurrences.id });
  return inserted.length;
}

/** One page of a workspace's series (or one sender's), oldest first, and how many there are in all. */
export async function listSeries(
  db: Database,
  ws: Workspace,
  opts: { senderUserId?: string | undefined; offset: number; limit: number },
): Promise<{ series: RecurringSeriesRow[]; total: number }> {
  const where = and(
    eq(recurringSeries.teamId, ws.teamId),
    inArray(recurringSeries.status, ['active', 'paused']),
    opts.senderUserId ? eq(recurringSeries.senderUserId, opts.senderUserId) : undefined,
  );
  const [series, [count]] = await Promise.all([
    db
      .select()
      .from(recurringSeries)
      .where(where)
      .orderBy(asc(recurringSeries.createdAt), asc(recurringSeries.id))
      .offset(opts.offset)
      .limit(opts.limit),
    db
      .select({ n: sql<number>`count(*)::int` })
      .from(recurringSeries)
      .where(where),
  ]);
  return { series, total: count?.n ?? 0 };
}

/** The next `perSeries` planned runs of each of `seriesIds`, in one query (to skip one). */
export async function upcomingOfSeriesList(
  db: Database,
  ws: Workspace,
  seriesIds: string[],
  now: Date,
  perSeries: number,
): Promise<Map<string, OccurrenceRow[]>> {
  const bySeries = new Map<string, OccurrenceRow[]>(seriesIds.map((id) => [id, []]));
  if (seriesIds.length === 0) return bySeries;
  const ranked = db
    .select({
      id: automationOccurrences.id,
      rank: sql<number>`row_number() over (partition by ${automationOccurrences.seriesId} order by ${automationOccurrences.dueAt})`.as(
        'rank',
      ),
    })
    .from(automationOccurrences)
    .where(
      and(
        eq(automationOccurrences.teamId, ws.teamId),
        inArray(automationOccurrences.seriesId, seriesIds),
        eq(automationOccurrences.status, 'planned'),
        gte(automationOccurrences.dueAt, iso(now)),
      ),
    )
    .as('ranked');
  const rows = await db
    .select()
    .from(automationOccurrences)
    .innerJoin(ranked, eq(ranked.id, automationOccurrences.id))
    .where(lte(ranked.rank, perSeries))
    .orderBy(asc(automationOccurrences.dueAt));
  for (const { automation_occurrences: occ } of rows) bySeries.get(occ.seriesId!)?.push(occ);
  return bySeries;
}

/**
 * Pauses, resumes or deletes a series (its sender or an admin). Pausing or deleting cancels its
 * planned occurrences at once; resuming plans again from now on (missed runs are not sent).
 */
export async function setSeriesStatus(
  db: Database,
  ws: Workspace,
  seriesId: string,
  status: SeriesStatus,
  actor: { userId: string; isAdmin: boolean },
  now: Date,
): Promise<RecurringSeriesRow | undefined> {
  return db.transaction(async (tx) => {
    const [updated] = await tx
      .update(recurringSeries)
      .set({ status, updatedAt: sql`now()`, ...(status === 'active' ? { startsAt: now } : {}) })
      .where(
        and(
          eq(recurringSeries.id, seriesId),
          eq(recurringSeries.teamId, ws.teamId),
          moveGuard(recurringSeries.status, SERIES_STATUS_TRANSITIONS, status),
          actor.isAdmin ? undefined : eq(recurringSeries.senderUserId, actor.userId),
        ),
      )
      .returning();
    if (updated && status === 'active') {
      // Runs still ahead that the pause cancelled go back to the plan (their keys stay unique).
      await tx
        .update(automationOccurrences)
        .set({ status: 'planned', error: null, updatedAt: sql`now()` })
        .where(
          and(
            eq(automationOccurrences.teamId, ws.teamId),
            eq(automationOccurrences.seriesId, seriesId),
            moveGuard(automationOccurrences.status, OCCURRENCE_STATUS_TRANSITIONS, 'planned', ['canceled']),
            gte(automationOccurrences.dueAt, iso(now)),
          ),
        );
    }
    if (updated && status !== 'active') {
      await tx
        .update(automationOccurrences)
        .set({ status: 'canceled', error: `The series was ${status} by ${actor.userId}.`, updatedAt: sql`now()` })
        // A run a pass holds is cancelled too: its send is recorded only while it is still planned.
        .where(
          and(
            eq(automationOccurrences.teamId, ws.teamId),
            eq(automationOccurrences.seriesId, seriesId),
            moveGuard(automationOccurrences.status, OCCURRENCE_STATUS_TRANSITIONS, 'canceled', ['planned', 'retrying']),
          ),
        );
    }
    return updated;
  });
}
