// Runs automations: a periodic pass on every instance plans the next 30 days of occurrences (one row
// per run, unique by key, so planning twice or on two instances inserts each once), then claims the
// due ones (FOR UPDATE SKIP LOCKED + a lease) and sends each through sendAutomated with the source
// key `auto:<key>`: even two instances holding the same occurrence record one kudos. A run whose
// time passed while every instance was down is sent late, once, up to LATE_LIMIT_MS after its time.
import { and, asc, eq, gte, inArray, lt, lte, or, isNull, sql } from 'drizzle-orm';
import type { Logger } from '../config/logger.js';
import type { Database } from '../db/client.js';
import {
  automationOccurrences,
  celebrationDates,
  celebrationPreferences,
  celebrationRules,
  recurringSeries,
  type CelebrationKind,
  type CelebrationRuleRow,
  type OccurrenceRow,
  type RecurringSeriesRow,
} from '../db/schema/index.js';
import { NO_ANNOUNCEMENT } from './announce.js';
import { celebrationRuns, fillTemplate, recurrenceRuns } from './automation-dates.js';
import { sendAutomated, type AutomatedSendDeps } from './automated-send.js';
import { displayNameOf, isChatRefusal } from './ports.js';
import type { NoticePresenter } from './notices.js';
import { syncProfileDates } from './celebration-profile.js';
import type { ProfileDirectory } from './ports.js';
import { finishWaitingSteps, type WorkflowStepDeps } from './workflow-steps.js';
import { postOnce, type NoticeDeps } from './notifications.js';

/** The outbox kind of the DM telling an automation's owner that a run was refused (once per run). */
export const AUTOMATION_REFUSED_KIND = 'automation.refused';

export const PLAN_AHEAD_MS = 30 * 86_400_000;
/** A run missed by more than this (every instance down for a week) is recorded as missed, not sent. */
export const LATE_LIMIT_MS = 7 * 86_400_000;
/** How far back planning looks, so that a run due while every instance was down is still planned. */
const PLAN_BEHIND_MS = 2 * 86_400_000;
const LEASE_MS = 120_000;
const BATCH = 20;

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
export async function syncMappedProfiles(deps: AutomationDeps, now: Date, memo: ProfileSyncMemo, stopping: () => boolean = () => false): Promise<number> {
  if (!deps.profiles) return 0;
  const rules = (await deps.db.select().from(celebrationRules).where(eq(celebrationRules.enabled, true))).filter((r) => r.profileFieldId);
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
      const report = await syncProfileDates({ db: deps.db, profiles: deps.profiles }, ws, teamRules, now.toISOString().slice(0, 10), stopping);
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
}

type Ws = { teamId: string; enterpriseId: string | null };
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
      const user = await deps.users.userInfo(rule, person.slackUserId).catch((error: unknown) => (isChatRefusal(error, 'refused') ? undefined : Promise.reject(error)));
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

/** Claims due planned occurrences (oldest first) for this instance, skipping rows others hold. */
export async function claimDueOccurrences(db: Database, workerId: string, now: Date, limit = BATCH): Promise<OccurrenceRow[]> {
  const due = db
    .select({ id: automationOccurrences.id })
    .from(automationOccurrences)
    .where(
      and(eq(automationOccurrences.status, 'planned'), lte(automationOccurrences.dueAt, iso(now)), or(isNull(automationOccurrences.claimedUntil), lte(automationOccurrences.claimedUntil, iso(now)))),
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

async function settle(db: Database, occ: OccurrenceRow, set: Partial<typeof automationOccurrences.$inferInsert>): Promise<void> {
  await db
    .update(automationOccurrences)
    .set({ ...set, claimedUntil: null, claimedBy: null, updatedAt: sql`now()` })
    .where(and(eq(automationOccurrences.id, occ.id), eq(automationOccurrences.status, 'planned')));
}

type Outcome = 'sent' | 'skipped' | 'refused' | 'canceled' | 'missed';

/** Sends one claimed occurrence (or records why not). */
export async function dispatchOccurrence(deps: AutomationDeps, occ: OccurrenceRow, now: Date): Promise<Outcome> {
  const log = deps.logger.child({ occurrence: occ.key, teamId: occ.teamId });
  if (now.getTime() - occ.dueAt.getTime() > LATE_LIMIT_MS) {
    await settle(deps.db, occ, { status: 'missed', error: 'Its time passed more than 7 days ago while Kudos was not running.' });
    return 'missed';
  }
  const ws: Ws = { teamId: occ.teamId, enterpriseId: occ.enterpriseId };
  const request = occ.source === 'recurring' ? await recurringRequest(deps.db, occ) : await celebrationRequest(deps, occ);
  if ('stop' in request) {
    await settle(deps.db, occ, { status: request.stop, error: request.why, ...(request.stop === 'skipped' ? { skippedBy: occ.subjectUserId } : {}) });
    return request.stop;
  }
  const { owner, ...send } = request;
  const result = await sendAutomated(deps, { workspace: ws, sourceKey: `auto:${occ.key}`, ...send });
  if (!result.ok) {
    log.warn('automated send refused', { code: result.code, reason: result.message });
    await settle(deps.db, occ, { status: 'refused', error: result.message });
    await tellOwner(deps, occ, owner, send.recipientUserIds, result.message);
    return 'refused';
  }
  await settle(deps.db, occ, { status: 'sent', kudosId: result.recorded.row.id });
  return 'sent';
}

/**
 * A refused run is not retried (the same refusal would come back): its owner hears why, once per run
 * (the notice outbox, keyed by the occurrence), so that they can fix the rule, the budget or the
 * account. Not told: the run is still recorded as refused with its reason.
 */
async function tellOwner(deps: AutomationDeps, occ: OccurrenceRow, owner: string, recipientUserIds: string[], reason: string): Promise<void> {
  if (!deps.notices) return;
  try {
    await postOnce(
      deps.notices,
      { kind: AUTOMATION_REFUSED_KIND, subject: occ.id, teamId: occ.teamId, enterpriseId: occ.enterpriseId },
      { to: { userId: owner }, message: deps.notices.present({ type: 'automation.refused', source: occ.source, localDate: occ.localDate, recipientUserIds, reason }) },
    );
  } catch (error) {
    // Recorded in the outbox before posting: a failed post is resumed by the worker's sweep.
    deps.logger.warn('telling the owner of a refused automation failed', { occurrence: occ.key, error });
  }
}

type RequestOrStop = (Omit<Parameters<typeof sendAutomated>[1], 'workspace' | 'sourceKey'> & { owner: string }) | { stop: 'skipped' | 'canceled'; why: string };

async function recurringRequest(db: Database, occ: OccurrenceRow): Promise<RequestOrStop> {
  const [series] = await db
    .select()
    .from(recurringSeries)
    .where(and(eq(recurringSeries.id, occ.seriesId!), eq(recurringSeries.teamId, occ.teamId)));
  if (!series || series.status !== 'active') return { stop: 'canceled', why: `The series is ${series?.status ?? 'deleted'}.` };
  return {
    senderUserId: series.senderUserId,
    recipientUserIds: series.recipientUserIds,
    amountDollars: series.amountCents / 100,
    message: series.message,
    productId: series.productId,
    origin: { kind: 'recurring', seriesId: series.id, occurrenceKey: occ.key },
    owner: series.senderUserId,
  };
}

async function celebrationRequest(deps: AutomationDeps, occ: OccurrenceRow): Promise<RequestOrStop> {
  const kind = occ.source as CelebrationKind;
  const [rule] = await deps.db
    .select()
    .from(celebrationRules)
    .where(and(eq(celebrationRules.teamId, occ.teamId), eq(celebrationRules.kind, kind)));
  if (!rule || !rule.enabled) return { stop: 'canceled', why: `The ${kind} rule is off.` };
  const subject = occ.subjectUserId!;
  const [prefs] = await deps.db
    .select()
    .from(celebrationPreferences)
    .where(and(eq(celebrationPreferences.teamId, occ.teamId), eq(celebrationPreferences.slackUserId, subject)));
  if (prefs?.optOut) return { stop: 'skipped', why: 'They opted out of celebrations.' };
  const user = await deps.users.userInfo(occ, subject);
  const name = user ? user.firstName || displayNameOf(user) : subject;
  return {
    senderUserId: rule.senderUserId,
    recipientUserIds: [subject],
    amountDollars: rule.amountCents / 100,
    message: fillTemplate(rule.messageTemplate, { name, years: occ.years ?? undefined }),
    productId: rule.productId,
    origin: { kind: 'celebration', celebration: kind, occurrenceKey: occ.key },
    announceTo: prefs?.noPublicPost ? NO_ANNOUNCEMENT : (rule.channelId ?? undefined),
    // The admin who set the rule up can change it; the sender shown may not be an admin.
    owner: rule.updatedBy ?? rule.senderUserId,
  };
}

/** One pass: plan, then send everything due (in batches). `now` is injectable for tests. */
export async function runAutomations(deps: AutomationDeps, workerId: string, now: Date): Promise<AutomationReport> {
  if (deps.workflowSteps) await finishWaitingSteps(deps.workflowSteps).catch((error: unknown) => deps.logger.warn('finishing waiting workflow steps failed', { error }));
  const report: AutomationReport = { planned: await planOccurrences(deps, now), sent: 0, skipped: 0, refused: 0, canceled: 0, missed: 0 };
  for (;;) {
    const batch = await claimDueOccurrences(deps.db, workerId, now);
    if (batch.length === 0) return report;
    for (const occ of batch) {
      try {
        report[await dispatchOccurrence(deps, occ, now)]++;
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
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let stopped = false;
  const profileMemo: ProfileSyncMemo = new Map();
  // Reading profiles can take long in a big workspace (users.profile.get per person): one read at a
  // time, beside the passes, which plan from the dates already read rather than wait for it.
  let profileSync: Promise<unknown> | undefined;
  const syncProfiles = (now: Date): Promise<unknown> => {
    profileSync ??= syncMappedProfiles(deps, now, profileMemo, () => stopped)
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
      const run = () => {
        if (running) return;
        void syncProfiles(deps.now());
        running = runAutomations(deps, workerId, deps.now())
          .catch((error: unknown) => deps.logger.error('automations pass failed', { error }))
          .finally(() => {
            running = undefined;
          });
      };
      timer = setInterval(run, intervalMs);
      timer.unref();
      run();
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
      await profileSync;
    },
  };
  return service;
}

// ---- What admins and people see and change ------------------------------------------------------

/** Celebrations planned for the next 30 days, soonest first. */
export async function upcomingCelebrations(db: Database, ws: Ws, now: Date): Promise<OccurrenceRow[]> {
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
 * Skips a planned occurrence (never one already sent). True when it was skipped by this call. With
 * `seriesSenderUserId`, only an occurrence of that sender's own series (a sender skipping one run).
 */
export async function skipOccurrence(db: Database, ws: Ws, occurrenceId: string, actorUserId: string, seriesSenderUserId?: string): Promise<boolean> {
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
    .where(and(eq(automationOccurrences.id, occurrenceId), eq(automationOccurrences.teamId, ws.teamId), eq(automationOccurrences.status, 'planned'), ownSeries))
    .returning({ id: automationOccurrences.id });
  return updated.length === 1;
}

export type CelebrationRuleInput = Pick<CelebrationRuleRow, 'enabled' | 'amountCents' | 'productId' | 'messageTemplate' | 'senderUserId' | 'channelId' | 'profileFieldId'>;

export async function saveCelebrationRule(db: Database, ws: Ws, kind: CelebrationKind, input: CelebrationRuleInput, actorUserId: string): Promise<CelebrationRuleRow> {
  const values = { ...ws, kind, ...input, updatedBy: actorUserId, updatedAt: new Date() };
  const [row] = await db
    .insert(celebrationRules)
    .values(values)
    .onConflictDoUpdate({ target: [celebrationRules.teamId, celebrationRules.kind], set: { ...input, updatedBy: actorUserId, updatedAt: sql`now()` } })
    .returning();
  return row!;
}

export async function celebrationRulesOf(db: Database, ws: Ws): Promise<CelebrationRuleRow[]> {
  return db.select().from(celebrationRules).where(eq(celebrationRules.teamId, ws.teamId)).orderBy(asc(celebrationRules.kind));
}

export async function setCelebrationPreference(db: Database, ws: Ws, userId: string, prefs: { optOut?: boolean; noPublicPost?: boolean }): Promise<void> {
  await db
    .insert(celebrationPreferences)
    .values({ ...ws, slackUserId: userId, optOut: prefs.optOut ?? false, noPublicPost: prefs.noPublicPost ?? false })
    .onConflictDoUpdate({
      target: [celebrationPreferences.teamId, celebrationPreferences.slackUserId],
      set: { ...(prefs.optOut !== undefined ? { optOut: prefs.optOut } : {}), ...(prefs.noPublicPost !== undefined ? { noPublicPost: prefs.noPublicPost } : {}), updatedAt: sql`now()` },
    });
}

export async function celebrationPreferenceOf(db: Database, ws: Ws, userId: string): Promise<{ optOut: boolean; noPublicPost: boolean }> {
  const [row] = await db
    .select()
    .from(celebrationPreferences)
    .where(and(eq(celebrationPreferences.teamId, ws.teamId), eq(celebrationPreferences.slackUserId, userId)));
  return { optOut: row?.optOut ?? false, noPublicPost: row?.noPublicPost ?? false };
}

// ---- Recurring kudos -----------------------------------------------------------------------------

export async function createSeries(db: Database, values: typeof recurringSeries.$inferInsert): Promise<RecurringSeriesRow> {
  const [row] = await db.insert(recurringSeries).values(values).returning();
  return row!;
}

export async function listSeries(db: Database, ws: Ws, senderUserId?: string): Promise<RecurringSeriesRow[]> {
  return db
    .select()
    .from(recurringSeries)
    .where(and(eq(recurringSeries.teamId, ws.teamId), inArray(recurringSeries.status, ['active', 'paused']), senderUserId ? eq(recurringSeries.senderUserId, senderUserId) : undefined))
    .orderBy(asc(recurringSeries.createdAt));
}

/**
 * Pauses, resumes or deletes a series (its sender or an admin). Pausing or deleting cancels its
 * planned occurrences at once; resuming plans again from now on (missed runs are not sent).
 */
export async function setSeriesStatus(
  db: Database,
  ws: Ws,
  seriesId: string,
  status: 'active' | 'paused' | 'deleted',
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
          inArray(recurringSeries.status, status === 'deleted' ? ['active', 'paused'] : status === 'paused' ? ['active'] : ['paused']),
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
          and(eq(automationOccurrences.teamId, ws.teamId), eq(automationOccurrences.seriesId, seriesId), eq(automationOccurrences.status, 'canceled'), gte(automationOccurrences.dueAt, iso(now))),
        );
    }
    if (updated && status !== 'active') {
      await tx
        .update(automationOccurrences)
        .set({ status: 'canceled', error: `The series was ${status} by ${actor.userId}.`, updatedAt: sql`now()` })
        .where(and(eq(automationOccurrences.teamId, ws.teamId), eq(automationOccurrences.seriesId, seriesId), eq(automationOccurrences.status, 'planned')));
    }
    return updated;
  });
}

/** The next planned occurrences of a series (to skip one). */
export async function upcomingOfSeries(db: Database, ws: Ws, seriesId: string, now: Date): Promise<OccurrenceRow[]> {
  return db
    .select()
    .from(automationOccurrences)
    .where(and(eq(automationOccurrences.teamId, ws.teamId), eq(automationOccurrences.seriesId, seriesId), eq(automationOccurrences.status, 'planned'), gte(automationOccurrences.dueAt, iso(now))))
    .orderBy(asc(automationOccurrences.dueAt))
    .limit(10);
}
