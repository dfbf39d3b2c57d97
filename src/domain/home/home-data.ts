// What a person's App Home shows, as plain data read from the database (src/slack/home/home-blocks.ts
// renders it). Every list is one page of a bounded size plus its total, so a workspace with
// thousands of kudos still gives a small, bounded view. Roles come from the caller.
import { and, count, desc, eq, gt, gte, inArray, ne, notInArray, or, type SQL, sql } from 'drizzle-orm';

import { type Database, rowsOf } from '../../db/client.js';
import {
  bouncedRecipients,
  type HealthWarningRow,
  type HomePages,
  type HomeVisitRow,
  homeVisits,
  kudos,
  type KudosRow,
} from '../../db/schema/index.js';
import { monthlySpendCents, monthStartUtc, UNSPENT_STATUSES } from '../approvals/approval-policy.js';
import { openHealthWarnings } from '../notices/health-warnings.js';
import { isCancellable } from '../sending/cancel-scheduled.js';

/** Items per page of each list; chosen so that the whole Home stays well under Slack's 100 blocks. */
export const HOME_PAGE_SIZE = { received: 5, sent: 5, scheduled: 5, approvals: 5 } as const;
export type HomeList = keyof typeof HOME_PAGE_SIZE;

export interface HomeRoles {
  approver: boolean;
  admin: boolean;
}

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  pageSize: number;
}

/** Where a card is, as far as the recipient can tell. */
export type DeliveryState = 'on_its_way' | 'delivered' | 'bounced';

export interface ReceivedKudos {
  row: KudosRow;
  delivery: DeliveryState;
}

export interface SentKudos {
  row: KudosRow;
  /** Open bounces of this send (the sender can fix the address and resend). */
  bounces: Array<{ id: string; email: string; name: string }>;
  /** The approver's reason, for a rejected send. */
  rejectReason: string | null;
}

export interface ScheduledKudos {
  row: KudosRow;
  cancellable: boolean;
}

export interface HomeAdminData {
  /** This calendar month (UTC), all senders, money not given back. */
  spentThisMonthCents: number;
  sendsThisMonth: number;
  approvalThresholdCents: number;
  monthlyBudgetCents: number | null;
  warnings: HealthWarningRow[];
  /** Sends the Rewards API refused or that are still being retried after an error, in the last day. */
  recentApiErrors: number;
}

export interface HomeData {
  teamId: string;
  userId: string;
  roles: HomeRoles;
  received: Page<ReceivedKudos>;
  sent: Page<SentKudos>;
  scheduled: Page<ScheduledKudos>;
  budget: { usedCents: number; budgetCents: number | null };
  approvals?: Page<KudosRow>;
  admin?: HomeAdminData;
}

export interface HomeQuery {
  teamId: string;
  userId: string;
  roles: HomeRoles;
  pages: HomePages;
  now: Date;
  monthlyBudgetCents: number | null;
  /** This person's own monthly allowance (their override, a group's, or the default); absent: the default. */
  senderAllowanceCents?: number | null;
  approvalThresholdCents: number;
}

function pageOf(pages: HomePages, list: HomeList): { page: number; limit: number; offset: number } {
  const page = Math.max(0, Math.floor(pages[list] ?? 0));
  const limit = HOME_PAGE_SIZE[list];
  return { page, limit, offset: page * limit };
}

/** Sends that someone received: placed (a scheduled one is a surprise until it goes out). */
function receivedBy(teamId: string, userId: string) {
  return and(
    eq(kudos.teamId, teamId),
    eq(kudos.status, 'placed'),
    sql`${kudos.recipients} @> ${JSON.stringify([{ slackUserId: userId }])}::jsonb`,
  );
}

export async function loadHome(db: Database, q: HomeQuery): Promise<HomeData> {
  const [received, sent, scheduled, usedCents, approvals, admin] = await Promise.all([
    receivedPage(db, q),
    sentPage(db, q),
    scheduledPage(db, q),
    monthlySpendCents(db, q.teamId, q.userId, q.now),
    q.roles.approver ? pendingApprovalsPage(db, q) : Promise.resolve(undefined),
    q.roles.admin ? adminData(db, q) : Promise.resolve(undefined),
  ]);
  return {
    teamId: q.teamId,
    userId: q.userId,
    roles: q.roles,
    received,
    sent,
    scheduled,
    budget: {
      usedCents,
      budgetCents: q.senderAllowanceCents !== undefined ? q.senderAllowanceCents : q.monthlyBudgetCents,
    },
    ...(approvals ? { approvals } : {}),
    ...(admin ? { admin } : {}),
  };
}

async function receivedPage(db: Database, q: HomeQuery): Promise<Page<ReceivedKudos>> {
  const { page, limit, offset } = pageOf(q.pages, 'received');
  const where = receivedBy(q.teamId, q.userId);
  const [rows, [total]] = await Promise.all([
    db.select().from(kudos).where(where).orderBy(desc(kudos.createdAt)).limit(limit).offset(offset),
    db.select({ n: count() }).from(kudos).where(where),
  ]);
  const bounced = rows.length
    ? await db
        .select({ kudosId: bouncedRecipients.kudosId })
        .from(bouncedRecipients)
        .where(
          and(
            inArray(
              bouncedRecipients.kudosId,
              rows.map((r) => r.id),
            ),
            eq(bouncedRecipients.slackUserId, q.userId),
            ne(bouncedRecipients.status, 'resent'),
          ),
        )
    : [];
  const bouncedIds = new Set(bounced.map((b) => b.kudosId));
  return {
    items: rows.map((row) => ({
      row,
      delivery: bouncedIds.has(row.id) ? 'bounced' : row.orderStatus === 'COMPLETE' ? 'delivered' : 'on_its_way',
    })),
    total: Number(total?.n ?? 0),
    page,
    pageSize: limit,
  };
}

async function sentPage(db: Database, q: HomeQuery): Promise<Page<SentKudos>> {
  const { page, limit, offset } = pageOf(q.pages, 'sent');
  const where = and(eq(kudos.teamId, q.teamId), eq(kudos.senderUserId, q.userId));
  const [rows, [total]] = await Promise.all([
    db
      .select({
        row: kudos,
        rejectReason: sql<
          string | null
        >`(select a.reject_reason from approval_requests a where a.kudos_id = "kudos"."id")`,
      })
      .from(kudos)
      .where(where)
      .orderBy(desc(kudos.createdAt))
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(kudos).where(where),
  ]);
  const bounces = rows.length
    ? await db
        .select({
          id: bouncedRecipients.id,
          kudosId: bouncedRecipients.kudosId,
          email: bouncedRecipients.email,
          name: bouncedRecipients.name,
        })
        .from(bouncedRecipients)
        .where(
          and(
            inArray(
              bouncedRecipients.kudosId,
              rows.map((r) => r.row.id),
            ),
            eq(bouncedRecipients.status, 'open'),
          ),
        )
    : [];
  return {
    items: rows.map(({ row, rejectReason }) => ({
      row,
      rejectReason,
      bounces: bounces.filter((b) => b.kudosId === row.id).map(({ id, email, name }) => ({ id, email, name })),
    })),
    total: Number(total?.n ?? 0),
    page,
    pageSize: limit,
  };
}

async function scheduledPage(db: Database, q: HomeQuery): Promise<Page<ScheduledKudos>> {
  const { page, limit, offset } = pageOf(q.pages, 'scheduled');
  const where = and(
    eq(kudos.teamId, q.teamId),
    eq(kudos.senderUserId, q.userId),
    eq(kudos.status, 'scheduled'),
    gt(kudos.scheduledAt, q.now),
  );
  const [rows, [total]] = await Promise.all([
    db.select().from(kudos).where(where).orderBy(kudos.scheduledAt).limit(limit).offset(offset),
    db.select({ n: count() }).from(kudos).where(where),
  ]);
  return {
    items: rows.map((row) => ({ row, cancellable: isCancellable(row, q.now) })),
    total: Number(total?.n ?? 0),
    page,
    pageSize: limit,
  };
}

/** Requests this person could decide: waiting, and not their own. */
async function pendingApprovalsPage(db: Database, q: HomeQuery): Promise<Page<KudosRow>> {
  const { page, limit, offset } = pageOf(q.pages, 'approvals');
  const where = and(
    eq(kudos.teamId, q.teamId),
    eq(kudos.status, 'awaiting_approval'),
    ne(kudos.senderUserId, q.userId),
  );
  const [rows, [total]] = await Promise.all([
    db.select().from(kudos).where(where).orderBy(kudos.createdAt).limit(limit).offset(offset),
    db.select({ n: count() }).from(kudos).where(where),
  ]);
  return { items: rows, total: Number(total?.n ?? 0), page, pageSize: limit };
}

async function adminData(db: Database, q: HomeQuery): Promise<HomeAdminData> {
  const since = new Date(q.now.getTime() - 24 * 3_600_000);
  const [[spend], warnings, [errors]] = await Promise.all([
    db
      .select({ total: sql<string | null>`coalesce(sum(${kudos.totalCents}), 0)`, n: count() })
      .from(kudos)
      .where(
        and(
          eq(kudos.teamId, q.teamId),
          gte(kudos.createdAt, monthStartUtc(q.now)),
          notInArray(kudos.status, [...UNSPENT_STATUSES]),
        ),
      ),
    openHealthWarnings(db, q.teamId),
    db
      .select({ n: count() })
      .from(kudos)
      .where(
        and(
          eq(kudos.teamId, q.teamId),
          gte(kudos.updatedAt, since),
          sql`${kudos.errorCode} is not null`,
          or(eq(kudos.status, 'failed'), eq(kudos.status, 'pending')),
        ),
      ),
  ]);
  return {
    spentThisMonthCents: Number(spend?.total ?? 0),
    sendsThisMonth: Number(spend?.n ?? 0),
    approvalThresholdCents: q.approvalThresholdCents,
    monthlyBudgetCents: q.monthlyBudgetCents,
    warnings,
    recentApiErrors: Number(errors?.n ?? 0),
  };
}

// --- Who has a Home, and what changed for them -----------------------------------------------

/** The line on top of a Home (a click's outcome) and until when it shows. */
export interface HomeFlash {
  text: string;
  until: Date;
}

/** Remembers that a person has a Home (with which roles, pages and line on top), on every publish. */
export async function recordHomeVisit(
  db: Database,
  v: {
    teamId: string;
    enterpriseId?: string | null;
    userId: string;
    roles: HomeRoles;
    pages?: HomePages;
    flash?: HomeFlash;
  },
): Promise<void> {
  // A re-publish without a flash leaves the stored one, which shows until its time is up.
  const flash = v.flash ? { flash: v.flash.text, flashUntil: v.flash.until } : {};
  await db
    .insert(homeVisits)
    .values({
      teamId: v.teamId,
      enterpriseId: v.enterpriseId ?? null,
      userId: v.userId,
      isApprover: v.roles.approver,
      isAdmin: v.roles.admin,
      pages: v.pages ?? {},
      publishedAt: sql`now()`,
      ...flash,
    })
    .onConflictDoUpdate({
      target: [homeVisits.teamId, homeVisits.userId],
      set: {
        isApprover: v.roles.approver,
        isAdmin: v.roles.admin,
        ...(v.pages ? { pages: v.pages } : {}),
        publishedAt: sql`now()`,
        ...flash,
      },
    });
}

/** The visit's flash while it still shows. */
export function shownFlash(
  visit: Pick<HomeVisitRow, 'flash' | 'flashUntil'> | undefined,
  now: Date,
): HomeFlash | undefined {
  return visit?.flash && visit.flashUntil && visit.flashUntil >= now
    ? { text: visit.flash, until: visit.flashUntil }
    : undefined;
}

export async function getHomeVisit(db: Database, teamId: string, userId: string): Promise<HomeVisitRow | undefined> {
  const [row] = await db
    .select()
    .from(homeVisits)
    .where(and(eq(homeVisits.teamId, teamId), eq(homeVisits.userId, userId)));
  return row;
}

/** One changed send (or bounce): whose Home shows it. */
export interface HomeChange {
  /** Identifies this version of the row, so that an overlapping read does not count it twice. */
  key: string;
  teamId: string;
  /** Sender and recipients (Slack users). */
  userIds: string[];
  /** A request for approvers (waiting, or decided since). */
  concernsApprovers: boolean;
  /** A top-up or limit-increase request: the admins' money section is out of date. */
  concernsMoney?: boolean;
  updatedAt: Date;
}

/** Kudos, bounces, health warnings and money requests changed at or after `since`, oldest first. */
export async function changesSince(db: Database, since: Date, limit = 500): Promise<HomeChange[]> {
  // One statement for the five lists (each instance reads them every second, changes or not): each
  // list as a JSON array, its times as epoch milliseconds.
  const at = sql`${since.toISOString()}::timestamptz`;
  const list = (query: SQL) => sql`(select coalesce(json_agg(x), '[]'::json) from (${query}) x)`;
  const ms = (column: SQL) => sql`(extract(epoch from ${column}) * 1000)::float8`;
  const result = await db.execute(sql`select
    ${list(sql`select k.id, k.team_id, k.sender_user_id, k.recipients, k.status, ${ms(sql`k.updated_at`)} as updated_ms,
        exists (select 1 from approval_requests a where a.kudos_id = k.id) as approval
      from kudos k where k.updated_at >= ${at} order by k.updated_at limit ${limit}`)} as kudos,
    ${list(sql`select b.id, b.team_id, b.sender_user_id, b.slack_user_id, ${ms(sql`b.updated_at`)} as updated_ms
      from bounced_recipients b where b.updated_at >= ${at} order by b.updated_at limit ${limit}`)} as bounces,
    ${list(sql`select h.team_id, h.kind, h.subject, ${ms(sql`greatest(h.last_at, coalesce(h.resolved_at, h.last_at))`)} as at_ms
      from health_warnings h where h.last_at >= ${at} or h.resolved_at >= ${at} limit ${limit}`)} as warnings,
    ${list(sql`select t.id, t.team_id, ${ms(sql`t.updated_at`)} as updated_ms from top_up_requests t where t.updated_at >= ${at} order by t.updated_at limit ${limit}`)} as top_ups,
    ${list(sql`select l.id, l.team_id, ${ms(sql`l.updated_at`)} as updated_ms from limit_increase_requests l where l.updated_at >= ${at} order by l.updated_at limit ${limit}`)} as limit_requests`);
  type Json<T> = T[] | string;
  const [row] = rowsOf<{
    kudos: Json<{
      id: string;
      team_id: string;
      sender_user_id: string;
      recipients: KudosRow['recipients'];
      status: string;
      updated_ms: number;
      approval: boolean;
    }>;
    bounces: Json<{
      id: string;
      team_id: string;
      sender_user_id: string | null;
      slack_user_id: string | null;
      updated_ms: number;
    }>;
    warnings: Json<{ team_id: string; kind: string; subject: string; at_ms: number }>;
    top_ups: Json<{ id: string; team_id: string; updated_ms: number }>;
    limit_requests: Json<{ id: string; team_id: string; updated_ms: number }>;
  }>(result);
  // A driver may hand json back unparsed.
  const parsed = <T>(value: Json<T> | undefined): T[] =>
    typeof value === 'string' ? (JSON.parse(value) as T[]) : (value ?? []);
  const date = (epochMs: number) => new Date(Math.floor(epochMs));
  const rows = parsed(row?.kudos).map((r) => ({
    id: r.id,
    teamId: r.team_id,
    senderUserId: r.sender_user_id,
    recipients: r.recipients,
    status: r.status,
    updatedAt: date(r.updated_ms),
    approval: r.approval,
  }));
  const bounces = parsed(row?.bounces).map((b) => ({
    id: b.id,
    teamId: b.team_id,
    senderUserId: b.sender_user_id,
    slackUserId: b.slack_user_id,
    updatedAt: date(b.updated_ms),
  }));
  const warnings = parsed(row?.warnings).map((w) => ({
    teamId: w.team_id,
    kind: w.kind,
    subject: w.subject,
    at: date(w.at_ms),
  }));
  const topUps = parsed(row?.top_ups).map((t) => ({ id: t.id, teamId: t.team_id, updatedAt: date(t.updated_ms) }));
  const limitRequests = parsed(row?.limit_requests).map((l) => ({
    id: l.id,
    teamId: l.team_id,
    updatedAt: date(l.updated_ms),
  }));
  const users = (ids: Array<string | null>) => [...new Set(ids.filter((u): u is string => Boolean(u)))];
  return [
    ...rows.map((r) => ({
      key: `k:${r.id}:${r.updatedAt.getTime()}`,
      teamId: r.teamId,
      userIds: users([r.senderUserId, ...r.recipients.map((p) => p.slackUserId)]),
      concernsApprovers: r.status === 'awaiting_approval' || Boolean(r.approval),
      updatedAt: r.updatedAt,
    })),
    ...bounces.map((b) => ({
      key: `b:${b.id}:${b.updatedAt.getTime()}`,
      teamId: b.teamId,
      userIds: users([b.senderUserId, b.slackUserId]),
      concernsApprovers: false,
      updatedAt: b.updatedAt,
    })),
    // Health concerns the admins only (homeVisitorsForTeams always includes them).
    ...warnings.map((w) => ({
      key: `h:${w.teamId}:${w.kind}:${w.subject}:${w.at.getTime()}`,
      teamId: w.teamId,
      userIds: [],
      concernsApprovers: false,
      updatedAt: w.at,
    })),
    // Top-ups (requested, decided, the API's answer, settled by the ledger) and limit requests: admins only.
    ...topUps.map((r) => ({
      key: `t:${r.id}:${r.updatedAt.getTime()}`,
      teamId: r.teamId,
      userIds: [],
      concernsApprovers: false,
      concernsMoney: true,
      updatedAt: r.updatedAt,
    })),
    ...limitRequests.map((r) => ({
      key: `l:${r.id}:${r.updatedAt.getTime()}`,
      teamId: r.teamId,
      userIds: [],
      concernsApprovers: false,
      concernsMoney: true,
      updatedAt: r.updatedAt,
    })),
  ];
}

/**
 * Who has a Home showing these changes, workspace by workspace: the people named, every admin (spend
 * and health), and the approvers when a request is concerned. Every workspace in one statement (the
 * Home poll runs every second, and a stream of sends touches many workspaces in each pass), each
 * scoped by its team id, at most 1,000 visitors each.
 */
export async function homeVisitorsForTeams(
  db: Database,
  changes: Map<string, { userIds: string[]; concernsApprovers: boolean }>,
): Promise<Map<string, HomeVisitRow[]>> {
  const byTeam = new Map<string, HomeVisitRow[]>();
  if (changes.size === 0) return byTeam;
  const perTeam = [...changes].map(([teamId, change]) => {
    const conditions = [
      change.userIds.length ? inArray(homeVisits.userId, change.userIds) : undefined,
      eq(homeVisits.isAdmin, true),
      change.concernsApprovers ? eq(homeVisits.isApprover, true) : undefined,
    ].filter((c): c is NonNullable<typeof c> => c !== undefined);
    return and(eq(homeVisits.teamId, teamId), or(...conditions));
  });
  const rows = await db
    .select()
    .from(homeVisits)
    .where(or(...perTeam))
    .limit(1000 * changes.size);
  for (const row of rows) {
    const visitors = byTeam.get(row.teamId) ?? [];
    if (visitors.length < 1000) visitors.push(row);
    byTeam.set(row.teamId, visitors);
  }
  return byTeam;
}
