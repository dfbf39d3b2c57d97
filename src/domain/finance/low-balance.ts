// Low-balance alerts: once per crossing, however many orders and instances see the balance low.
//
// The balance is read after each order (coalesced: one read in flight per workspace and process,
// plus one more if orders were placed meanwhile) and periodically. The workspace's finance_state row
// holds 'above' or 'below'; only the check whose conditional UPDATE flips it from 'above' to 'below'
// alerts, so concurrent orders on any number of instances make one alert. It flips back once a read
// sees the balance at or above the threshold again, arming the next alert. Reads are ordered by when
// they were asked: each is recorded at that time and never over a read asked later, so an answer that
// arrives after a newer read's (a slow answer, another instance) changes nothing; it would re-arm the
// alert with a balance already spent. A send refused for lack of funds (402) alerts at once, whatever
// the state; the refusals that follow it before any order goes through (a batch refused send after
// send) share its alert.
//
// Not a GET /balance per order: after an order the balance is read only when the workspace has a
// threshold and either the last read is over a minute old, or that read minus what the workspace's
// orders cost since (kudos.cost_cents) is under the threshold while the state is still 'above'. So a
// crossing caused by our own orders is caught by the order that makes it, one caused elsewhere (other
// workspaces on the account, the provider's portal) within a minute of orders, or by the sweep. A
// workspace's first check takes this process's read of the same account from the last 30 s when it
// is at least twice the threshold (50 workspaces on one account read it once, not 50 times).
//
// Single-workspace mode: every workspace is on the one account, so the account's latest read (by any
// workspace, on any instance: finance_state) stands for each workspace whose own is older, less what
// that workspace spent since (the others' orders are "elsewhere", caught by the next read within the
// minute). The minute's read is then one per account (one per instance at most, read in
// flight shared by the process's workspaces), not one per workspace: 50 workspaces in a steady stream
// read the balance about once a minute, not 50 times.
//
// The decision after an order runs at most once a second per workspace in a process: orders placed
// meanwhile (a backlog places dozens a second) are decided together by one more run after that
// second, so a crossing is caught within about a second, and a backlog does not sum its last minute
// of orders once per order.
//
// A read is a background request nobody waits on: it has 15 s per attempt, and when it fails (a slow
// or failing API) the checks after orders leave the account alone for 30 s instead of reading again
// after every order. A read in flight in this process, or one of the last 5 s, asked after the
// orders a check follows, is shared by the checks of the account's workspaces (the sweep's too).
import { setTimeout as delay } from 'node:timers/promises';

import { and, eq, isNotNull, isNull, lte, or, sql } from 'drizzle-orm';

import type { Logger } from '../../config/logger.js';
import { type Database, rowsOf } from '../../db/client.js';
import { financeState, type FinanceStateRow, type KudosRow, workspaceSettings } from '../../db/schema/index.js';
import { type RewardsClient, toCents } from '../../rewards/index.js';
import { isRewardsNotConnected, type RewardsAccounts } from '../accounts/rewards-accounts.js';
import type { Workspace } from '../common/workspace.js';
import type { SettingsStore } from '../workspaces/settings.js';
import type { FinanceNotifier } from './finance-notices.js';
import { orderSpendSince } from './ledger.js';

export interface LowBalanceDeps {
  db: Database;
  rewards: Pick<RewardsAccounts, 'for'> & Partial<Pick<RewardsAccounts, 'mode'>>;
  settings: Pick<SettingsStore, 'get'>;
  notifier: FinanceNotifier;
  logger: Logger;
  now(): Date;
  /** Aborted when the app stops: reads in flight end at once instead of holding the stop up to their timeout. */
  signal?: AbortSignal | undefined;
}

const DAY_MS = 86_400_000;
/**
 * A balance read of the low-balance check: nobody waits on it (it runs after the order, beside the
 * worker), so it is given the time a loaded server needs: at 5 s a slow answer was a timeout, sent
 * again up to 3 times (each attempt a request of the account's budget), and nothing recorded.
 */
const BALANCE_TIMEOUT_MS = 15_000;
/** After a failed read, the checks after orders leave the account alone this long (the sweep and a 402 still read). */
export const BALANCE_FAILURE_PAUSE_MS = 30_000;
/** A read of the account this recent stands for a new one in this process (the sweep's workspaces on one account, checks at the same moment). */
export const BALANCE_SHARED_MS = 5_000;
/** After an order, a balance read older than this is read again whatever the estimate says. */
export const BALANCE_RECHECK_MS = 60_000;
/** A workspace's decisions after orders start at least this far apart (in one process). */
const DECISION_GAP_MS = 1000;

/** A balance or ledger read's options: its timeout, and the stop signal when there is one. */
function readOptions(deps: Pick<LowBalanceDeps, 'signal'>): { timeoutMs: number; signal?: AbortSignal } {
  return deps.signal ? { timeoutMs: BALANCE_TIMEOUT_MS, signal: deps.signal } : { timeoutMs: BALANCE_TIMEOUT_MS };
}

/**
 * After an order: whether the balance must be read now (see the notes at the top). 'first': the
 * workspace has no read of its own yet, and a recent read of its account by this process will do.
 * A read (single mode): the account's latest read, newer than the workspace's own, says the balance is
 * above its threshold: recorded for the workspace without a request (it re-arms an alert after a top-up).
 */
export async function balanceReadNeeded(
  deps: Pick<LowBalanceDeps, 'db' | 'settings' | 'now' | 'rewards'>,
  ws: Workspace,
): Promise<boolean | 'first' | BalanceRead> {
  const settings = await deps.settings.get(ws);
  const thresholdCents = settings.lowBalanceThresholdCents;
  if (thresholdCents === null) return false;
  const single = deps.rewards.mode === 'single';
  const reads = await decisionReads(deps.db, ws.teamId, single);
  if (single) return accountReadNeeded(deps, reads, thresholdCents);
  const own = reads.own;
  if (!own || own.balanceCents === null || own.checkedAtMs === null) return 'first';
  if (deps.now().getTime() - own.checkedAtMs >= BALANCE_RECHECK_MS) return true;
  if (own.state === 'below') return false; // alerted already; only a top-up lifts it (the sweep sees it)
  return own.balanceCents - reads.spentCents < thresholdCents;
}

interface DecisionReads {
  /** The workspace's own finance_state. */
  own: { state: string; balanceCents: number | null; checkedAtMs: number | null } | undefined;
  /** Single mode: the account's latest read (any workspace's). */
  latest: { balanceCents: number; readAtMs: number } | undefined;
  /** What the workspace's orders cost since the read the decision is on (the latest's in single mode, its own otherwise). */
  spentCents: number;
}

/** Everything the decision after an order reads, in one statement (it runs after every order of a stream). */
async function decisionReads(db: Database, teamId: string, single: boolean): Promise<DecisionReads> {
  const since = single ? sql`latest.read_at` : sql`own.last_checked_at`;
  const result = await db.execute(sql`
    with own as (
      select balance_state, last_balance_cents, last_checked_at from finance_state where team_id = ${teamId}
    ), latest as (
      select last_balance_cents as balance_cents, last_checked_at as read_at from finance_state
      where ${single}::boolean and last_balance_cents is not null and last_checked_at is not null
      order by last_checked_at desc limit 1
    )
    select own.balance_state, own.last_balance_cents, (extract(epoch from date_trunc('milliseconds', own.last_checked_at)) * 1000)::float8 as own_checked_ms,
      latest.balance_cents, (extract(epoch from date_trunc('milliseconds', latest.read_at)) * 1000)::float8 as latest_read_ms,
      (select coalesce(sum(coalesce(cost_cents, total_cents)), 0)::float8 from kudos where team_id = ${teamId} and ${since} is not null and placed_at >= ${since}) as spent
    from (select 1) as one left join own on true left join latest on true`);
  const [row] = rowsOf<{
    balance_state: string | null;
    last_balance_cents: number | string | null;
    own_checked_ms: number | string | null;
    balance_cents: number | string | null;
    latest_read_ms: number | string | null;
    spent: number | string | null;
  }>(result);
  const num = (v: number | string | null | undefined) => (v === null || v === undefined ? null : Number(v));
  // Times to the millisecond, as Dates hold them: a read recorded from another's (its Date) is then
  // the same instant as that read, and the workspace's own is found to be the latest.
  const msOf = (v: number | string | null | undefined) =>
    v === null || v === undefined ? null : Math.round(Number(v));
  return {
    own: row?.balance_state
      ? { state: row.balance_state, balanceCents: num(row.last_balance_cents), checkedAtMs: msOf(row.own_checked_ms) }
      : undefined,
    latest:
      row && num(row.balance_cents) !== null && msOf(row.latest_read_ms) !== null
        ? { balanceCents: num(row.balance_cents)!, readAtMs: msOf(row.latest_read_ms)! }
        : undefined,
    spentCents: num(row?.spent) ?? 0,
  };
}

/**
 * Single mode: the same rule, on the account's latest read when it is newer than the workspace's own
 * (any workspace's, any instance's), less what this workspace spent since. A crossing caused by the
 * other workspaces is caught, as one caused elsewhere always was, by a read within the minute.
 */
function accountReadNeeded(
  deps: Pick<LowBalanceDeps, 'now'>,
  reads: DecisionReads,
  thresholdCents: number,
): boolean | BalanceRead {
  const { own, latest } = reads;
  if (!latest) return true;
  if (deps.now().getTime() - latest.readAtMs >= BALANCE_RECHECK_MS) return true;
  const ownIsLatest = own?.checkedAtMs !== undefined && own.checkedAtMs !== null && own.checkedAtMs >= latest.readAtMs;
  if (ownIsLatest && own.state === 'below') return false; // alerted already; only a top-up lifts it
  if (latest.balanceCents - reads.spentCents < thresholdCents) return true;
  // Above the threshold: the account's read is recorded for the workspace (re-arming its alert after a
  // top-up) without a request. The currency is only told in an alert, which this never makes.
  return ownIsLatest
    ? false
    : { balanceCents: latest.balanceCents, currency: 'USD', readAt: new Date(latest.readAtMs) };
}

export async function ensureFinanceState(db: Database, ws: Workspace): Promise<FinanceStateRow> {
  await db
    .insert(financeState)
    .values({ teamId: ws.teamId, enterpriseId: ws.enterpriseId ?? null })
    .onConflictDoNothing({ target: financeState.teamId });
  const [row] = await db.select().from(financeState).where(eq(financeState.teamId, ws.teamId));
  return row!;
}

export interface LowBalanceCheck {
  balanceCents: number;
  currency: string;
  thresholdCents: number | null;
  below: boolean;
  /** This check sent the alert of a new crossing. */
  alerted: boolean;
}

/** Days a balance lasts at the last 30 days' rate (whole days, rounded down); undefined when nothing was spent. */
export function daysLeftAtRate(balanceCents: number, spend30dCents: number | undefined): number | undefined {
  if (spend30dCents === undefined || spend30dCents <= 0) return undefined;
  return Math.max(0, Math.floor((balanceCents * 30) / spend30dCents));
}

/** A balance this process read from an account, and when. */
export interface BalanceRead {
  balanceCents: number;
  currency: string;
  readAt: Date;
}

/**
 * Checks the workspace's balance against its threshold. `known`: a read of the same account moments
 * ago (another workspace's, see afterOrder) stands for a new GET; it is recorded as read at its time.
 * Undefined: the read was asked before the one already recorded, and changes nothing.
 */
export async function checkLowBalance(
  deps: LowBalanceDeps,
  ws: Workspace,
  known?: BalanceRead,
  readBalance: (rewards: RewardsClient) => Promise<BalanceRead> = (rewards) => readBalanceOnce(deps, rewards),
): Promise<LowBalanceCheck | undefined> {
  const settings = await deps.settings.get(ws);
  const thresholdCents = settings.lowBalanceThresholdCents;
  const rewards = await deps.rewards.for(ws);
  const read: BalanceRead = known ?? (await readBalance(rewards));
  const { balanceCents, currency } = read;
  // Every read is recorded at the time it was asked (the next estimate subtracts what was spent
  // since then), and only over a read asked no later: an answer that took longer than a newer read's
  // (another instance's, the sweep's) is older news, and must neither replace it nor re-arm the alert.
  const checkedAt = sql`${read.readAt.toISOString()}::timestamptz`;
  const notNewer = and(
    eq(financeState.teamId, ws.teamId),
    or(isNull(financeState.lastCheckedAt), lte(financeState.lastCheckedAt, checkedAt)),
  );
  await ensureFinanceState(deps.db, ws);
  if (thresholdCents === null) {
    const [recorded] = await deps.db
      .update(financeState)
      .set({ lastBalanceCents: balanceCents, lastCheckedAt: checkedAt })
      .where(notNewer)
      .returning({ teamId: financeState.teamId });
    return recorded ? { balanceCents, currency, thresholdCents, below: false, alerted: false } : undefined;
  }
  const below = balanceCents < thresholdCents;
  if (!below) {
    const [recorded] = await deps.db
      .update(financeState)
      .set({ balanceState: 'above', lastBalanceCents: balanceCents, lastCheckedAt: checkedAt, updatedAt: sql`now()` })
      .where(notNewer)
      .returning({ teamId: financeState.teamId });
    if (!recorded)
      deps.logger.info('balance read answered after a newer one; not recorded', {
        teamId: ws.teamId,
        askedAt: read.readAt,
      });
    return recorded ? { balanceCents, currency, thresholdCents, below, alerted: false } : undefined;
  }
  const [flipped] = await deps.db
    .update(financeState)
    .set({
      balanceState: 'below',
      crossings: sql`${financeState.crossings} + 1`,
      lastBalanceCents: balanceCents,
      lastCheckedAt: checkedAt,
      updatedAt: sql`now()`,
    })
    .where(and(notNewer, eq(financeState.balanceState, 'above')))
    .returning({ crossings: financeState.crossings });
  if (!flipped) {
    const [recorded] = await deps.db
      .update(financeState)
      .set({ lastBalanceCents: balanceCents, lastCheckedAt: checkedAt })
      .where(notNewer)
      .returning({ teamId: financeState.teamId });
    return recorded ? { balanceCents, currency, thresholdCents, below, alerted: false } : undefined;
  }
  const now = deps.now();
  const spend30dCents = await orderSpendSince(
    rewards,
    new Date(now.getTime() - 30 * DAY_MS),
    now,
    readOptions(deps),
  ).catch((error: unknown) => {
    deps.logger.warn('reading the last 30 days of the ledger failed; alerting without the spend', { error });
    return undefined;
  });
  await deps.notifier.toAdmins(ws, `low_balance:${flipped.crossings}`, {
    kind: 'low_balance',
    balanceCents,
    currency,
    thresholdCents,
    spend30dCents,
    daysLeft: daysLeftAtRate(balanceCents, spend30dCents),
  });
  deps.logger.info('low balance alert sent', {
    teamId: ws.teamId,
    balanceCents,
    thresholdCents,
    crossing: flipped.crossings,
  });
  return { balanceCents, currency, thresholdCents, below, alerted: true };
}

/** One GET /balance, as a read of when it was asked. */
async function readBalanceOnce(
  deps: Pick<LowBalanceDeps, 'now' | 'signal'>,
  rewards: RewardsClient,
): Promise<BalanceRead> {
  const asked = deps.now();
  const balance = await rewards.balance.get(readOptions(deps));
  return {
    balanceCents: toCents(balance.availableBalance.amount, { rounding: 'half-up' }),
    currency: balance.availableBalance.currency,
    readAt: asked,
  };
}

export interface LowBalanceMonitor {
  /** An order was placed: check soon when the estimate asks for it (balanceReadNeeded; coalesced per workspace). Never throws. */
  afterOrder(ws: Workspace): Promise<void>;
  /**
   * The worker's hook for a refused order: a 402 alerts the admins at once (once per send) and
   * checks the balance. Returns false: the sender is still told by the worker.
   */
  onOrderFailed(row: KudosRow): Promise<false>;
  /** One periodic pass over every workspace with a threshold. */
  sweep(): Promise<void>;
  /** Ends the balance reads in flight and waits for the checks to finish. */
  stop(): Promise<void>;
}

/** A monitor's state: its deps (their signal ends with the monitor), what it read, what runs. */
interface Monitor {
  deps: LowBalanceDeps;
  log: Logger;
  stopping: AbortController;
  checks: ReturnType<typeof coalescedPerWorkspace>;
  afterOrderRuns: ReturnType<typeof coalescedPerWorkspace>;
  /**
   * The last balance this process read of each account (by client): several workspaces on one account
   * (single mode, or a shared connection) need not each read it for their first order.
   */
  lastReads: WeakMap<object, BalanceRead>;
  /**
   * One read of an account in flight in this process (by client), whoever asks: workspaces on one
   * account (single mode) whose decisions ran at the same moment, a sweep and a 402 share it.
   */
  readsInFlight: WeakMap<object, { askedMs: number; reading: Promise<BalanceRead> }>;
  /**
   * When a read of the account last failed: the checks after orders leave it alone for a while
   * instead of asking again after every order while the API is slow or down.
   */
  failedAt: WeakMap<object, number>;
  /**
   * Single mode: this process's read of the one account in flight. Orders of other workspaces that
   * find a read needed meanwhile wait for it and decide again on what it recorded.
   */
  accountReading: Promise<void> | undefined;
  sweeping: Promise<void> | undefined;
}

export function createLowBalanceMonitor(given: LowBalanceDeps): LowBalanceMonitor {
  // Stopping ends the reads in flight (each allowed BALANCE_TIMEOUT_MS): the app's stop must not wait for a slow API.
  const stopping = new AbortController();
  const deps: LowBalanceDeps = {
    ...given,
    signal: given.signal ? AbortSignal.any([given.signal, stopping.signal]) : stopping.signal,
  };
  const monitor: Monitor = {
    deps,
    log: deps.logger.child({ part: 'low-balance' }),
    stopping,
    checks: coalescedPerWorkspace(),
    lastReads: new WeakMap(),
    afterOrderRuns: coalescedPerWorkspace({ minGapMs: DECISION_GAP_MS, stopping: stopping.signal }),
    readsInFlight: new WeakMap(),
    failedAt: new WeakMap(),
    accountReading: undefined,
    sweeping: undefined,
  };
  return {
    afterOrder(ws) {
      // Coalesced per workspace: one decision in flight, and one more if orders were placed meanwhile.
      return monitor.afterOrderRuns.run(ws.teamId, () => afterOrderOnce(monitor, ws));
    },
    onOrderFailed: (row) => alertRefusedSend(monitor, row),
    async sweep() {
      while (monitor.sweeping) await monitor.sweeping.catch(() => {});
      monitor.sweeping = sweepOnce(monitor).finally(() => {
        monitor.sweeping = undefined;
      });
      return monitor.sweeping;
    },
    async stop() {
      stopping.abort();
      await monitor.sweeping?.catch(() => {});
      await Promise.allSettled([monitor.afterOrderRuns.settled(), monitor.checks.settled()]);
    },
  };
}

/**
 * A read of the account asked at `notBeforeMs` or later (so it sees every order placed before then):
 * the one in flight in this process, or one made in the last BALANCE_SHARED_MS, else a new one.
 */
function sharedRead(monitor: Monitor, rewards: RewardsClient, notBeforeMs: number): Promise<BalanceRead> {
  const { deps, readsInFlight, lastReads, failedAt } = monitor;
  const inFlight = readsInFlight.get(rewards);
  if (inFlight && inFlight.askedMs >= notBeforeMs) return inFlight.reading;
  const recent = lastReads.get(rewards);
  if (
    recent &&
    recent.readAt.getTime() >= notBeforeMs &&
    deps.now().getTime() - recent.readAt.getTime() < BALANCE_SHARED_MS
  )
    return Promise.resolve(recent);
  const askedMs = deps.now().getTime();
  const reading = readBalanceOnce(deps, rewards).then(
    (read) => {
      lastReads.set(rewards, read);
      failedAt.delete(rewards);
      return read;
    },
    (error: unknown) => {
      failedAt.set(rewards, deps.now().getTime());
      throw error;
    },
  );
  const entry = { askedMs, reading };
  readsInFlight.set(rewards, entry);
  void reading
    .catch(() => undefined)
    .finally(() => {
      if (readsInFlight.get(rewards) === entry) readsInFlight.delete(rewards);
    });
  return reading;
}

async function pausedAfterFailure(monitor: Monitor, ws: Workspace): Promise<boolean> {
  const { deps } = monitor;
  const failed = monitor.failedAt.get(await deps.rewards.for(ws));
  return failed !== undefined && deps.now().getTime() - failed < BALANCE_FAILURE_PAUSE_MS;
}

async function recentReadOfAccount(monitor: Monitor, ws: Workspace): Promise<BalanceRead | undefined> {
  const { deps } = monitor;
  const read = monitor.lastReads.get(await deps.rewards.for(ws));
  if (!read || deps.now().getTime() - read.readAt.getTime() >= BALANCE_RECHECK_MS / 2) return undefined;
  const { lowBalanceThresholdCents } = await deps.settings.get(ws);
  // Near or under the threshold, the alert deserves a fresh read.
  return lowBalanceThresholdCents === null || read.balanceCents >= 2 * lowBalanceThresholdCents ? read : undefined;
}

/** Not worth a warning: a workspace with no Rewards account yet (distribution mode), or a read ended by stopping. */
const expected = (monitor: Monitor, error: unknown) => isRewardsNotConnected(error) || monitor.stopping.signal.aborted;

async function afterOrderOnce(monitor: Monitor, ws: Workspace, mayWait = true): Promise<void> {
  const { deps, log } = monitor;
  const needed = await balanceReadNeeded(deps, ws).catch((error: unknown) => {
    log.warn('deciding whether to read the balance failed; reading it', { teamId: ws.teamId, error });
    return true;
  });
  if (!needed) return;
  // A read of the account failed moments ago: the next one waits (the sweep, or an order after the pause).
  if ((needed === true || needed === 'first') && (await pausedAfterFailure(monitor, ws).catch(() => false))) return;
  if (needed === true && monitor.accountReading && mayWait) {
    await monitor.accountReading;
    return afterOrderOnce(monitor, ws, false);
  }
  const known =
    needed === 'first'
      ? await recentReadOfAccount(monitor, ws).catch(() => undefined)
      : needed === true
        ? undefined
        : needed;
  if (known) {
    await checkLowBalance(deps, ws, known).catch((error: unknown) =>
      expected(monitor, error) ? undefined : log.warn('low balance check failed', { teamId: ws.teamId, error }),
    );
    return;
  }
  // The orders this check follows were placed before it starts: a read asked from then on sees them.
  const reading = checkCoalesced(monitor, ws);
  if (deps.rewards.mode !== 'single') return reading;
  monitor.accountReading = reading;
  await reading;
  if (monitor.accountReading === reading) monitor.accountReading = undefined;
}

/**
 * A check of the workspace, on a read of its account asked at `sinceMs` or later (default: when the
 * check starts). A check run again for calls that came meanwhile takes a read from its own start.
 */
function checkCoalesced(monitor: Monitor, ws: Workspace, sinceMs?: number): Promise<void> {
  const { deps, log } = monitor;
  let firstRun = true;
  // A workspace with no Rewards account yet (distribution mode) has no balance to watch.
  return monitor.checks.run(ws.teamId, async () => {
    const since = firstRun && sinceMs !== undefined ? sinceMs : deps.now().getTime();
    firstRun = false;
    await checkLowBalance(deps, ws, undefined, (rewards) => sharedRead(monitor, rewards, since)).catch(
      (error: unknown) =>
        expected(monitor, error) ? undefined : log.warn('low balance check failed', { teamId: ws.teamId, error }),
    );
  });
}

async function sweepOnce(monitor: Monitor): Promise<void> {
  const { deps } = monitor;
  const rows = await deps.db
    .select({ teamId: workspaceSettings.teamId, enterpriseId: workspaceSettings.enterpriseId })
    .from(workspaceSettings)
    .where(isNotNull(workspaceSettings.lowBalanceThresholdCents));
  // Workspaces on one account (single mode) share a read made since the sweep began.
  const since = deps.now().getTime();
  for (const ws of rows) {
    if (monitor.stopping.signal.aborted) return;
    await checkCoalesced(monitor, ws, since);
  }
}

/** A send refused for lack of funds (402): the admins are alerted once per run of refusals, and the balance checked. */
async function alertRefusedSend(monitor: Monitor, row: KudosRow): Promise<false> {
  const { deps, log } = monitor;
  if (row.errorCode !== 'INSUFFICIENT_BALANCE') return false;
  const ws = { teamId: row.teamId, enterpriseId: row.enterpriseId };
  const run = await refusalRun(deps.db, ws.teamId).catch((error: unknown) => {
    log.warn('finding the refusals run failed; alerting for this send alone', { kudosId: row.id, error });
    return `send:${row.id}`;
  });
  const balance = await deps.rewards
    .for(ws)
    .then((rewards) => rewards.balance.get(readOptions(deps)))
    .catch(() => undefined);
  await deps.notifier
    .toAdmins(ws, `insufficient:${run}`, {
      kind: 'insufficient_funds',
      kudosId: row.id,
      senderUserId: row.senderUserId,
      totalCents: row.totalCents,
      balanceCents: balance ? toCents(balance.availableBalance.amount, { rounding: 'half-up' }) : undefined,
      currency: balance?.availableBalance.currency ?? 'USD',
    })
    .catch((error: unknown) => log.warn('alerting admins of a refused send failed', { kudosId: row.id, error }));
  await checkCoalesced(monitor, ws);
  return false;
}

/**
 * Which run of refusals for lack of funds a refusal belongs to: every refusal since the workspace's
 * last order that went through (or top-up completed) is in one run, and makes one alert: a batch
 * refused send after send is one thing for the admins to fix. The next run starts once money moved again.
 */
async function refusalRun(db: Database, teamId: string): Promise<string> {
  const result = await db.execute(sql`
    select (extract(epoch from greatest(
      (select max(placed_at) from kudos where team_id = ${teamId} and placed_at is not null),
      (select max(updated_at) from top_up_requests where team_id = ${teamId} and status = 'completed')
    )) * 1000000)::bigint::text as since_us`);
  const [row] = rowsOf<{ since_us: string | null }>(result);
  return `since:${row?.since_us ?? 'start'}`;
}

/**
 * One run per workspace at a time; a call while one runs asks for one more run after it (however many
 * calls came), and waits for that. With `minGapMs`, runs start at least that far apart: a call within
 * it of the last run's start also asks for one more run, made once the gap is over (not held once
 * `stopping` fires). The first caller waits for its own run only.
 */
function coalescedPerWorkspace(opts: { minGapMs?: number; stopping?: AbortSignal } = {}) {
  const runs = new Map<string, { run: Promise<void>; again: boolean }>();
  return {
    run(teamId: string, once: () => Promise<void>): Promise<void> {
      const current = runs.get(teamId);
      if (current) {
        current.again = true;
        return current.run;
      }
      const entry = { run: Promise.resolve(), again: false };
      let first: Promise<void> | undefined;
      entry.run = (async () => {
        do {
          entry.again = false;
          const startedAt = Date.now();
          const run = once();
          first ??= run;
          await run;
          if (opts.minGapMs) await holdUntil(startedAt + opts.minGapMs, opts.stopping);
        } while (entry.again);
      })().finally(() => runs.delete(teamId));
      // A failure reaches the callers (the first through its own run); the loop's own is theirs too.
      entry.run.catch(() => undefined);
      runs.set(teamId, entry);
      return first!;
    },
    async settled(): Promise<void> {
      await Promise.allSettled([...runs.values()].map((e) => e.run));
    },
  };
}

/** Sleeps until `atMs` (not keeping the process up), or until `stopping` fires. */
async function holdUntil(atMs: number, stopping: AbortSignal | undefined): Promise<void> {
  const ms = atMs - Date.now();
  if (ms <= 0 || stopping?.aborted) return;
  await delay(ms, undefined, { ref: false, ...(stopping && { signal: stopping }) }).catch(() => undefined);
}
