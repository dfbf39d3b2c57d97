// Keeps every App Home current. `publish` renders one person's Home now (app_home_opened, a click on
// Home). A poll reads the kudos, bounces, health warnings, top-ups and limit requests changed since the
// last pass (webhooks, the worker, approvals, cancels, the finance sweep, any instance) and
// re-publishes the Homes that show them, only for people who have opened Home. A money change drops
// the workspace's cached money section, so the admins' Homes are rendered from one fresh read.
// Re-publishes are held under views.publish's rate limit (Tier 4: 100+ per minute per workspace).
// Every publish is coalesced per person (one render in flight, at most one more waiting, which takes
// the newest ask) and bounded per instance (a few renders at once, on a share of the database pool
// that leaves connections for acknowledgements and /healthz): a burst of opens ends in at most two
// publishes per person, and nothing of it runs on afterwards.
import { LRUCache } from 'lru-cache';

import type { Logger } from '../../config/logger.js';
import type { Database } from '../../db/client.js';
import type { HomePages } from '../../db/schema/index.js';
import type { RewardsAccounts } from '../../domain/accounts/rewards-accounts.js';
import type { RewardsSetup } from '../../domain/accounts/rewards-connections.js';
import { describeForUser } from '../../domain/accounts/rewards-failures.js';
import type { ApprovalService } from '../../domain/approvals/approval-service.js';
import { isChatRefusal } from '../../domain/common/ports.js';
import type { Workspace } from '../../domain/common/workspace.js';
import type { FinanceService } from '../../domain/finance/finance-service.js';
import {
  changesSince,
  getHomeVisit,
  homeVisitorsForTeams,
  loadHome,
  recordHomeVisit,
  shownFlash,
} from '../../domain/home/home-data.js';
import type { SettingsStore } from '../../domain/workspaces/settings.js';
import { createPeriodicJob } from '../../lib/periodic-job.js';
import { createSlots } from '../../lib/slots.js';
import { toCents } from '../../rewards/index.js';
import type { Block } from '../kit/mrkdwn.js';
import { section } from '../kit/mrkdwn.js';
import type { SlackWorkspaces } from '../web-api/workspace-gateways.js';
import { notConnectedText, rewardsHomeSection } from '../workspaces/rewards-connect-blocks.js';
import { homeAutomationsSection } from './automations-section.js';
import { buildHome, type HomeBalance } from './home-blocks.js';
import { homeMoneySection } from './money-section.js';
import { homeStatsSection } from './stats-section.js';

export interface HomePublisherDeps {
  db: Database;
  slack: Pick<SlackWorkspaces, 'for'>;
  rewards: Pick<RewardsAccounts, 'for'>;
  /** Distribution mode: the workspace's Rewards connection (admins connect it from Home). */
  rewardsSetup?: Pick<RewardsSetup, 'summary'> | undefined;
  settings: SettingsStore;
  approvals: Pick<ApprovalService, 'isAdmin' | 'isApprover'> & Partial<Pick<ApprovalService, 'allowance'>>;
  /** Admins' money section (balance, top-ups, limits); without it Home shows only the balance line. */
  finance?: Pick<FinanceService, 'overview'> | undefined;
  logger: Logger;
  now(): Date;
}

export interface HomePublisherOptions {
  /** How often changes are looked for. Default 1 s. */
  pollIntervalMs?: number;
  /** Re-publishes per workspace per minute (views.publish is Tier 4: 100+). Default 90. */
  publishesPerMinute?: number;
  /** How long an admin's balance is reused between publishes. Default 30 s. */
  balanceTtlMs?: number;
  /** Homes rendered at once by this instance (each render runs a few queries side by side). Default 2. */
  concurrentRenders?: number;
}

export interface HomePublisher {
  /**
   * Renders and publishes one person's Home, after that person's publish in flight. Asks that come
   * while one waits are joined to it (the newest page, the newest line) and settle with it.
   * `flash` shows on top for the next 30 s, in every instance's re-publish too.
   */
  publish(ws: Workspace, userId: string, opts?: PublishOptions): Promise<void>;
  /** Resolves once no publish is in flight or waiting on this instance. */
  idle(): Promise<void>;
  /** Queues re-publishes (coalesced, rate-limited). */
  refresh(ws: Workspace, userIds: string[]): void;
  /** One pass: read changes, queue the Homes that show them, publish what the rate allows. */
  pollOnce(): Promise<void>;
  start(): void;
  stop(): Promise<void>;
}

type PublishOptions = { flash?: string; pages?: HomePages; opened?: boolean };

/** One person's publishes: the one in flight, and the one waiting for it (every ask since, joined). */
interface PersonPublishes {
  waiting?:
    | {
        ws: Workspace;
        opts: PublishOptions;
        done: Promise<void>;
        resolve: () => void;
        reject: (error: unknown) => void;
      }
    | undefined;
}

/** Two asks as one: the later's line and page win (opening Home starts at the newest pages; a page button moves one list). */
function joined(earlier: PublishOptions, later: PublishOptions): PublishOptions {
  const flash = later.flash ?? earlier.flash;
  const place = later.opened || later.pages ? later : earlier;
  return {
    ...(flash !== undefined ? { flash } : {}),
    ...(place.opened ? { opened: true } : place.pages ? { pages: place.pages } : {}),
  };
}

const FLASH_MS = 30_000;
/** Re-read this far back: a transaction that took its timestamp earlier may commit after the last pass. */
const OVERLAP_MS = 5_000;
const BALANCE_TIMEOUT_MS = 2_000;
/** Workspaces whose balance and money section are kept. */
const BALANCES_MAX = 10_000;

/** A publisher's state: who is being published, what is cached, what waits for a re-publish. */
interface Publisher {
  deps: HomePublisherDeps;
  log: Logger;
  perMinute: number;
  /** teamId:userId -> that person's publishes (none in flight: the entry is gone). */
  people: Map<string, PersonPublishes>;
  idleWaiters: Array<() => void>;
  renderSlots: ReturnType<typeof createSlots>;
  balances: LRUCache<string, Promise<HomeBalance>>;
  moneySections: LRUCache<string, Promise<Block[]>>;
  /** teamId -> users waiting for a re-publish (with their enterprise). */
  queued: Map<string, { enterpriseId: string | null; users: Set<string> }>;
  /** teamId -> times of recent publishes, for the rate limit. */
  recent: Map<string, number[]>;
  /** Row versions already handled (key -> when seen), for the overlapping reads. */
  seen: Map<string, number>;
  cursor: Date;
  /** The pass in flight. */
  running: Promise<void> | undefined;
}

export function createHomePublisher(deps: HomePublisherDeps, opts: HomePublisherOptions = {}): HomePublisher {
  const balanceTtl = opts.balanceTtlMs ?? 30_000;
  // The promise is kept, from the read's start: concurrent renders share one read. (lru-cache reads a
  // ttl of 0 as none.)
  const cacheOptions = { max: BALANCES_MAX, ttl: Math.max(1, balanceTtl) };
  const publisher: Publisher = {
    deps,
    log: deps.logger.child({ part: 'home' }),
    perMinute: opts.publishesPerMinute ?? 90,
    people: new Map(),
    idleWaiters: [],
    renderSlots: createSlots(opts.concurrentRenders ?? 2),
    balances: new LRUCache<string, Promise<HomeBalance>>(cacheOptions),
    moneySections: new LRUCache<string, Promise<Block[]>>(cacheOptions),
    queued: new Map(),
    recent: new Map(),
    seen: new Map(),
    cursor: new Date(Date.now() - OVERLAP_MS),
    running: undefined,
  };
  const pollOnce = () => poll(publisher);
  const passes = createPeriodicJob({
    name: 'Home refresh pass',
    logger: publisher.log,
    failureLevel: 'warn',
    periodMs: opts.pollIntervalMs ?? 1000,
    step: pollOnce,
  });
  const { people, idleWaiters } = publisher;
  return {
    publish: (ws, userId, o) => publish(publisher, ws, userId, o),
    idle: () => (people.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve))),
    refresh: (ws, userIds) => refresh(publisher, ws, userIds),
    pollOnce,
    start() {
      passes.start();
    },
    async stop() {
      await passes.stop();
      await publisher.running?.catch(() => {});
    },
  };
}

function balanceFor(publisher: Publisher, ws: Workspace): Promise<HomeBalance> {
  const teamId = ws.teamId;
  const cached = publisher.balances.get(teamId);
  if (cached) return cached;
  const value = publisher.deps.rewards
    .for(ws)
    .then((rewards) => rewards.balance.get({ timeoutMs: BALANCE_TIMEOUT_MS }))
    .then((b): HomeBalance => ({
      availableCents: toCents(b.availableBalance.amount, { rounding: 'half-up' }),
      pendingCents: toCents(b.pendingBalance.amount, { rounding: 'half-up' }),
      currency: b.availableBalance.currency,
    }))
    .catch((error: unknown): HomeBalance => ({ error: describeForUser(error, 'get the balance') }));
  publisher.balances.set(teamId, value);
  return value;
}

/** The admins' money section, reused as the balance is; left out when the API does not answer. */
function moneyFor(publisher: Publisher, ws: Workspace): Promise<Block[]> {
  const finance = publisher.deps.finance;
  if (!finance) return Promise.resolve([]);
  const cached = publisher.moneySections.get(ws.teamId);
  if (cached) return cached;
  const value = homeMoneySection(finance, ws).catch((error: unknown): Block[] => {
    publisher.log.warn('money section of Home failed', { error });
    return [];
  });
  publisher.moneySections.set(ws.teamId, value);
  return value;
}

/**
 * One person's publishes run one after another, in the order asked. views.publish keeps the last
 * view it got: a re-publish that started before a click (no line on top yet) and reached Slack
 * after the click's must not wipe the click's outcome. What is asked meanwhile is rendered once,
 * after it, with the newest ask.
 */
function publish(publisher: Publisher, ws: Workspace, userId: string, o: PublishOptions = {}): Promise<void> {
  const key = `${ws.teamId}:${userId}`;
  const person = publisher.people.get(key);
  publisher.log.debug('Home publish asked', { user: userId, joined: person !== undefined });
  if (person) {
    if (person.waiting) {
      person.waiting.ws = ws;
      person.waiting.opts = joined(person.waiting.opts, o);
      return person.waiting.done;
    }
    let resolve!: () => void;
    let reject!: (error: unknown) => void;
    const done = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
    done.catch(() => {}); // its callers may have stopped listening; their failure is logged where asked
    person.waiting = { ws, opts: o, done, resolve, reject };
    return done;
  }
  const entry: PersonPublishes = {};
  publisher.people.set(key, entry);
  const first = publisher.renderSlots.run(() => render(publisher, ws, userId, o));
  void publishInTurn(publisher, key, userId, entry, first);
  return first;
}

/** After `current`, the person's waiting publish (if any), and so on; then the person is done. */
async function publishInTurn(
  publisher: Publisher,
  key: string,
  userId: string,
  entry: PersonPublishes,
  current: Promise<void>,
): Promise<void> {
  for (;;) {
    await current.catch(() => {});
    const next = entry.waiting;
    if (!next) break;
    entry.waiting = undefined;
    current = publisher.renderSlots.run(() => render(publisher, next.ws, userId, next.opts));
    current.then(next.resolve, next.reject);
  }
  publisher.people.delete(key);
  if (publisher.people.size === 0) for (const wake of publisher.idleWaiters.splice(0)) wake();
}

async function render(publisher: Publisher, ws: Workspace, userId: string, o: PublishOptions): Promise<void> {
  const { deps } = publisher;
  const [settings, admin, approver, visit, allowance] = await Promise.all([
    deps.settings.get(ws),
    deps.approvals.isAdmin(ws, userId),
    deps.approvals.isApprover(ws, userId),
    o.flash && (o.pages || o.opened) ? Promise.resolve(undefined) : getHomeVisit(deps.db, ws.teamId, userId),
    // A user group's allowance needs Slack's answer: without it, Home shows the default.
    deps.approvals.allowance?.(ws, userId).catch(() => undefined),
  ]);
  // Stored with the visit, so that a re-publish by any instance keeps it on top for its time.
  const flash = o.flash ? { text: o.flash, until: new Date(Date.now() + FLASH_MS) } : shownFlash(visit, new Date());
  // Opening Home starts at the newest page of every list; a page button moves one list.
  const pages = o.opened ? {} : (o.pages ?? visit?.pages ?? {});
  const roles = { admin, approver };
  const connection = deps.rewardsSetup ? await deps.rewardsSetup.summary(ws) : undefined;
  const unconnected = deps.rewardsSetup !== undefined && connection === undefined;
  const rewardsAccount = deps.rewardsSetup
    ? admin
      ? rewardsHomeSection(connection)
      : unconnected
        ? [section(notConnectedText(false, settings.adminUserIds ?? undefined))]
        : []
    : [];
  const [data, balance, stats, money, automations] = await Promise.all([
    loadHome(deps.db, {
      teamId: ws.teamId,
      userId,
      roles,
      pages,
      now: deps.now(),
      monthlyBudgetCents: settings.monthlyBudgetCents,
      ...(allowance ? { senderAllowanceCents: allowance.allowanceCents } : {}),
      approvalThresholdCents: settings.approvalThresholdCents,
    }),
    admin && !unconnected ? balanceFor(publisher, ws) : Promise.resolve(undefined),
    homeStatsSection(deps.db, { teamId: ws.teamId, userId, now: deps.now(), amounts: settings.leaderboardAmounts }),
    admin && !unconnected ? moneyFor(publisher, ws) : Promise.resolve([]),
    homeAutomationsSection(deps.db, { ws, userId, admin, now: deps.now() }),
  ]);
  const view = buildHome(data, {
    ...(flash ? { flash: flash.text } : {}),
    ...(balance ? { balance } : {}),
    rewardsAccount,
    stats,
    money,
    automations,
  });
  await deps.slack.for(ws).publishHome(userId, view);
  await recordHomeVisit(deps.db, {
    teamId: ws.teamId,
    enterpriseId: ws.enterpriseId ?? null,
    userId,
    roles,
    pages,
    ...(o.flash && flash ? { flash } : {}),
  });
}

function refresh(publisher: Publisher, ws: Workspace, userIds: string[]): void {
  if (userIds.length === 0) return;
  const { queued } = publisher;
  const entry = queued.get(ws.teamId) ?? { enterpriseId: ws.enterpriseId ?? null, users: new Set<string>() };
  for (const u of userIds) entry.users.add(u);
  queued.set(ws.teamId, entry);
}

/** One pass at a time: what changed since the last one, then the re-publishes the rate allows. */
async function poll(publisher: Publisher): Promise<void> {
  while (publisher.running) await publisher.running.catch(() => {});
  const pass = (async () => {
    await readChanges(publisher);
    await drain(publisher);
  })();
  publisher.running = pass;
  try {
    await pass;
  } finally {
    publisher.running = undefined;
  }
}

async function readChanges(publisher: Publisher): Promise<void> {
  const { deps, seen } = publisher;
  const changes = await changesSince(deps.db, new Date(publisher.cursor.getTime() - OVERLAP_MS));
  const fresh = changes.filter((c) => !seen.has(c.key));
  const nowMs = Date.now();
  for (const c of fresh) seen.set(c.key, nowMs);
  for (const [k, at] of seen) if (nowMs - at > OVERLAP_MS * 4) seen.delete(k);
  for (const c of changes) if (c.updatedAt > publisher.cursor) publisher.cursor = c.updatedAt;
  const byTeam = new Map<string, { userIds: Set<string>; concernsApprovers: boolean; concernsMoney: boolean }>();
  for (const c of fresh) {
    const t = byTeam.get(c.teamId) ?? { userIds: new Set<string>(), concernsApprovers: false, concernsMoney: false };
    for (const u of c.userIds) t.userIds.add(u);
    t.concernsApprovers ||= c.concernsApprovers;
    t.concernsMoney ||= c.concernsMoney === true;
    byTeam.set(c.teamId, t);
  }
  for (const [teamId, t] of byTeam) {
    // Read again at the next publish (once for all the workspace's admins: the promise is shared).
    if (t.concernsMoney) {
      publisher.moneySections.delete(teamId);
      publisher.balances.delete(teamId);
    }
  }
  // Every workspace's visitors in one statement.
  const visitorsOf = await homeVisitorsForTeams(
    deps.db,
    new Map(
      [...byTeam].map(([teamId, t]) => [teamId, { userIds: [...t.userIds], concernsApprovers: t.concernsApprovers }]),
    ),
  );
  for (const [teamId, visitors] of visitorsOf) {
    if (visitors.length > 0)
      refresh(
        publisher,
        { teamId, enterpriseId: visitors[0]!.enterpriseId },
        visitors.map((v) => v.userId),
      );
  }
}

async function drain(publisher: Publisher): Promise<void> {
  const { queued, recent, log } = publisher;
  const nowMs = Date.now();
  for (const [teamId, entry] of queued) {
    const times = (recent.get(teamId) ?? []).filter((t) => nowMs - t < 60_000);
    const allowed = Math.max(0, publisher.perMinute - times.length);
    const batch = [...entry.users].slice(0, allowed);
    for (const u of batch) entry.users.delete(u);
    if (entry.users.size === 0) queued.delete(teamId);
    recent.set(teamId, [...times, ...batch.map(() => nowMs)]);
    // A few at a time: Slack answers each in tens of milliseconds.
    for (let i = 0; i < batch.length; i += 4) {
      await Promise.all(
        batch.slice(i, i + 4).map((userId) =>
          publish(publisher, { teamId, enterpriseId: entry.enterpriseId }, userId).catch((error: unknown) =>
            // An uninstalled workspace (distribution mode): nothing to publish to, nothing to warn about.
            isChatRefusal(error, 'refused') && error.detail === 'not_installed'
              ? log.debug('Home not re-published: not installed', { teamId })
              : log.warn('re-publishing a Home failed', { user: userId, error }),
          ),
        ),
      );
    }
  }
}
