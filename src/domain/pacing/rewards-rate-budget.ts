// One Rewards API rate budget per account, shared by every instance through the database
// (rewards_rate_budgets, one row per account): the client asks it before each request (its
// `rateGate` option) and shows it every answer.
//
// - Learned, never configured: the limit is the last X-RateLimit-Limit, the window the longest
//   X-RateLimit-Reset seen; until the API has answered once, one request at a time probes it
//   (100 ms apart), the others wait without booking a slot.
// - A schedule of send slots (GCRA): each request atomically takes the next free slot, `interval` =
//   window / (limit x share) after the previous one, and sleeps until it. One UPDATE per request, on
//   the database's clock, so instances interleave in the order they asked (nobody starves) and a
//   fixed window never sees more than `share` of its limit from the app: no 429 in steady state.
//   The share is 95%, less on a short window, so that the headroom always absorbs half a second of
//   event-loop lag (requests sent late, then others on time): 90% on a 5 s window, 75% on 2 s.
// - A 429 (or an answer with nothing left) blocks the budget until the reset it announced
//   (Retry-After, else X-RateLimit-Reset); the slots after it are spaced one interval apart as
//   always, so waiting work resumes in the order it asked, never all at once at the window start.
//   The client retries a 429 through the gate; it never fails a kudos.
// - One budget for foreground and background: work run through `inBackgroundLane` (completion
//   checks, the order poller) takes a slot only when the schedule is free (no foreground queue, no
//   block), or once it has waited `backgroundMaxWaitMs`; sends placed from Slack come first.
// - Workspaces in turn inside one account: the slots a process booked go, as they come due, to its
//   waiting requests workspace by workspace, round robin (workspace-turns.ts; the workspace is named
//   by `asWorkspace`), not each to the request that booked it; a workspace that had nothing waiting
//   goes first. And a backlog books the schedule only `backlogAheadMs` ahead: a request of a
//   workspace that already has a request waiting in this process books no slot itself; the process
//   books slots for such requests (several in one statement) only while the schedule ends within
//   `backlogAheadMs` of now, and looks again when it will. So the schedule is never booked far
//   ahead by a backlog spread over several instances, and another workspace's single kudos, on
//   whichever instance, books a slot at most about `backlogAheadMs` away (or takes its instance's
//   next one, whichever comes first). The backlog still keeps the schedule full.
// - Every wait follows the caller's signal. If the database cannot be reached, the gate falls back to
//   what this instance last learned (a 429's reset), so a database outage does not stop the calls.
import { AsyncLocalStorage } from 'node:async_hooks';
import { setTimeout as delay } from 'node:timers/promises';

import { sql } from 'drizzle-orm';

import { type Database, rowsOf } from '../../db/client.js';
import { parseRateLimitReset, parseRetryAfter, type RateGate, RewardsAbortError } from '../../rewards/index.js';
import { createWorkspaceTurns, currentWorkspace, type WorkspaceTurns } from './workspace-turns.js';

const lane = new AsyncLocalStorage<'background'>();

/** Runs `work` so that its Rewards requests yield to foreground ones (see above). */
export function inBackgroundLane<T>(work: () => Promise<T>): Promise<T> {
  return lane.run('background', work);
}

export interface RateBudgetOptions {
  /**
   * Share of the announced limit the app uses at most (the rest is headroom for timing jitter). Default
   * 0.95; less on a short window, so that the headroom always covers `lagAllowanceMs` of requests.
   */
  share?: number;
  /** Event-loop lag (requests sent late, then on time) the headroom absorbs in any window. Default 500 ms. */
  lagAllowanceMs?: number;
  /** Background work waits at most this long for a free schedule, then takes its turn anyway. Default 30 s. */
  backgroundMaxWaitMs?: number;
  /** Spacing of the probing requests before the API has announced its limit (one at a time). Default 100 ms. */
  unknownSpacingMs?: number;
  /** How often a waiting background request looks again. Default 500 ms. */
  backgroundRecheckMs?: number;
  /** Once the app is stopping, a send's wait for a slot this close still completes (the worker's grace bounds it). Default 1000. */
  stopAllowanceMs?: number;
  /** This process's booked slots go to its requests workspace by workspace (default), or each to the request that booked it. */
  workspaceTurns?: boolean;
  /**
   * With workspace turns: how far ahead of now the requests of a workspace that already has one
   * waiting (a backlog) may book the schedule. Default 500 ms; Infinity books any distance ahead.
   */
  backlogAheadMs?: number;
  /** Answers with this share of the limit left or less block until the reset. Default 0.02. */
  lowWaterFraction?: number;
  onError?: (error: unknown) => void;
}

export interface RateBudgetState {
  account: string;
  limitPerWindow: number | null;
  windowMs: number | null;
  intervalMs: number | null;
  nextAt: Date;
  blockedUntil: Date | null;
  rateLimited: number;
}

export interface RateBudgets {
  /** The gate of one account: `env:<clientId>` in single mode, the connection id in distribution. */
  gate(account: string): RateGate;
  /**
   * The app is stopping: every long wait for a slot (and every backoff of a client built with a gate)
   * ends at once with RewardsAbortError; a send's slot due within `stopAllowanceMs` is still given, so
   * an order already being placed finishes inside the worker's grace. Requests already sent finish.
   */
  stop(): void;
  read(account: string): Promise<RateBudgetState | undefined>;
}

async function sleepFor(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) throw new RewardsAbortError(undefined, { cause: signal.reason });
  if (ms <= 0) return;
  try {
    await delay(ms, undefined, signal ? { signal } : undefined);
  } catch (error) {
    throw new RewardsAbortError(undefined, { cause: error });
  }
}

/** The options with their defaults filled in. */
interface BudgetSettings {
  share: number;
  lagAllowanceMs: number;
  backgroundMaxWaitMs: number;
  recheckMs: number;
  unknownSpacingMs: number;
  unknownRecheckMs: number;
  lowWater: number;
  stopAllowanceMs: number;
  workspaceTurns: boolean;
  backlogAheadMs: number;
  onError: ((error: unknown) => void) | undefined;
}

function budgetSettings(opts: RateBudgetOptions): BudgetSettings {
  const unknownSpacingMs = opts.unknownSpacingMs ?? 100;
  return {
    share: opts.share ?? 0.95,
    lagAllowanceMs: opts.lagAllowanceMs ?? 500,
    backgroundMaxWaitMs: opts.backgroundMaxWaitMs ?? 30_000,
    recheckMs: opts.backgroundRecheckMs ?? 500,
    unknownSpacingMs,
    unknownRecheckMs: Math.max(10, Math.floor(unknownSpacingMs / 4)),
    lowWater: opts.lowWaterFraction ?? 0.02,
    stopAllowanceMs: opts.stopAllowanceMs ?? 1000,
    workspaceTurns: opts.workspaceTurns ?? true,
    backlogAheadMs: opts.backlogAheadMs ?? 500,
    onError: opts.onError,
  };
}

/** What this instance learned of an account's budget: the fallback when the database cannot be reached. */
interface LearnedBudget {
  limit: number | undefined;
  windowMs: number;
  blockedUntil: number;
}

/** The budgets of one app: shared by every account's gate. */
interface Budgets {
  db: Database;
  settings: BudgetSettings;
  known: Map<string, LearnedBudget>;
  /** Aborted when the app stops. */
  stopping: AbortController;
  /** Aborted `stopAllowanceMs` after the stop: waiting for a turn ends then (a turn due by then still goes). */
  turnsClosed: AbortController;
}

export function createRateBudgets(db: Database, opts: RateBudgetOptions = {}): RateBudgets {
  const settings = budgetSettings(opts);
  const gates = new Map<string, RateGate>();
  const stopping = new AbortController();
  // Waiting for a turn ends `stopAllowanceMs` after the stop (a turn due by then still goes).
  const turnsClosed = new AbortController();
  stopping.signal.addEventListener(
    'abort',
    () => setTimeout(() => turnsClosed.abort(stopping.signal.reason), settings.stopAllowanceMs).unref(),
    { once: true },
  );
  const budgets: Budgets = { db, settings, known: new Map(), stopping, turnsClosed };
  return {
    gate(account) {
      const existing = gates.get(account);
      if (existing) return existing;
      const created = createGate(budgets, account);
      gates.set(account, created);
      return created;
    },
    stop: () => stopping.abort(new Error('the app is stopping')),
    read: (account) => readBudget(db, account),
  };
}

function learned(budgets: Budgets, account: string): LearnedBudget {
  let k = budgets.known.get(account);
  if (!k) budgets.known.set(account, (k = { limit: undefined, windowMs: 0, blockedUntil: 0 }));
  return k;
}

/** The share used on a window: 0.95 on the emulator's 10 s, 0.9 on 5 s, never under a half. */
const shareOn = (settings: BudgetSettings, window: ReturnType<typeof sql>) =>
  sql`greatest(0.5, least(${settings.share}::float8, 1 - ${settings.lagAllowanceMs}::float8 / (${window})::float8))`;

/** Takes the next slot; undefined when `onlyIfFree` and the schedule is busy. */
async function takeSlot(
  db: Database,
  settings: BudgetSettings,
  account: string,
  onlyIfFree: boolean,
): Promise<number | undefined> {
  // Until the API has announced its limit, one request at a time probes it, `unknownSpacingMs`
  // apart: the others wait (not booking slots they would keep once the real rate is known).
  const result = await db.execute(sql`
      insert into rewards_rate_budgets as b (account, next_at) values (${account}, now() + ${settings.unknownSpacingMs}::float8 * interval '1 millisecond')
      on conflict (account) do update set
        next_at = greatest(b.next_at, now(), coalesce(b.blocked_until, now())) + coalesce(b.interval_ms, ${settings.unknownSpacingMs}::float8) * interval '1 millisecond'
      where ((${!onlyIfFree}::boolean and b.interval_ms is not null) or greatest(b.next_at, coalesce(b.blocked_until, now())) <= now())
      returning greatest(0, extract(epoch from (b.next_at - coalesce(b.interval_ms, ${settings.unknownSpacingMs}::float8) * interval '1 millisecond') - now()) * 1000)::float8 as wait_ms`);
  const [row] = rowsOf<{ wait_ms: number | string }>(result);
  return row ? Number(row.wait_ms) : undefined;
}

/**
 * Books up to `wanted` slots for a backlog, only those due within `backlogAheadMs` (one statement):
 * how many it booked, the first one's time (ms from now, on the database's clock) and their spacing.
 * Before the limit is known, one slot when the schedule is free. Undefined: no row yet.
 */
async function bookAhead(
  db: Database,
  settings: BudgetSettings,
  account: string,
  wanted: number,
): Promise<{ booked: number; firstInMs: number; stepMs: number; probing: boolean } | undefined> {
  // The row is locked first (its latest version), so the update below books from what it read.
  const result = await db.execute(sql`
      with current_budget as (
        select account, greatest(next_at, now(), coalesce(blocked_until, now())) as free_at,
          coalesce(interval_ms, ${settings.unknownSpacingMs}::float8) as step_ms, interval_ms is null as probing
        from rewards_rate_budgets where account = ${account} for update
      ), taken as (
        select account, free_at, step_ms, probing,
          case when probing then (case when free_at <= now() then 1 else 0 end)
            else least(${wanted}::int, greatest(0, floor((extract(epoch from (now() - free_at)) * 1000 + ${settings.backlogAheadMs}::float8) / step_ms)::int + 1)) end as booked
        from current_budget
      ), booking as (
        update rewards_rate_budgets b set next_at = taken.free_at + taken.booked * taken.step_ms * interval '1 millisecond'
        from taken where b.account = taken.account and taken.booked > 0
        returning b.account
      )
      select booked, (extract(epoch from (free_at - now())) * 1000)::float8 as first_in_ms, step_ms::float8 as step_ms, probing from taken`);
  const [row] = rowsOf<{
    booked: number | string;
    first_in_ms: number | string;
    step_ms: number | string;
    probing: boolean;
  }>(result);
  return row
    ? {
        booked: Number(row.booked),
        firstInMs: Number(row.first_in_ms),
        stepMs: Number(row.step_ms),
        probing: row.probing,
      }
    : undefined;
}

interface AnswerFigures {
  limit: number | undefined;
  windowMs: number | undefined;
  blockMs: number | undefined;
  rateLimited: boolean;
}

async function recordFigures(
  db: Database,
  settings: BudgetSettings,
  account: string,
  figures: AnswerFigures,
): Promise<void> {
  const windowMs = figures.windowMs ?? null;
  const limit = figures.limit ?? null;
  const blockMs = figures.blockMs ?? null;
  await db.execute(sql`
      insert into rewards_rate_budgets as b (account, limit_per_window, window_ms, interval_ms, blocked_until, next_at, rate_limited)
      values (${account}, ${limit}::int, ${windowMs}::int,
        case when ${limit}::int is null or ${windowMs}::int is null then null else ${windowMs}::int / (${limit}::int * ${shareOn(settings, sql`${windowMs}::int`)}) end,
        now() + coalesce(${blockMs}::float8, 0) * interval '1 millisecond', now() + coalesce(${blockMs}::float8, 0) * interval '1 millisecond',
        ${figures.rateLimited ? 1 : 0})
      on conflict (account) do update set
        limit_per_window = coalesce(excluded.limit_per_window, b.limit_per_window),
        window_ms = nullif(greatest(coalesce(b.window_ms, 0), coalesce(excluded.window_ms, 0)), 0),
        interval_ms = case when coalesce(excluded.limit_per_window, b.limit_per_window) is null or greatest(coalesce(b.window_ms, 0), coalesce(excluded.window_ms, 0)) = 0 then b.interval_ms
          else greatest(coalesce(b.window_ms, 0), coalesce(excluded.window_ms, 0)) / (coalesce(excluded.limit_per_window, b.limit_per_window) * ${shareOn(settings, sql`greatest(coalesce(b.window_ms, 0), coalesce(excluded.window_ms, 0))`)}) end,
        blocked_until = case when ${blockMs}::float8 is null then b.blocked_until else greatest(coalesce(b.blocked_until, excluded.blocked_until), excluded.blocked_until) end,
        next_at = case when ${blockMs}::float8 is null then b.next_at else greatest(b.next_at, excluded.blocked_until) end,
        rate_limited = b.rate_limited + excluded.rate_limited,
        updated_at = now()`);
}

async function readBudget(db: Database, account: string): Promise<RateBudgetState | undefined> {
  const result = await db.execute(sql`select * from rewards_rate_budgets where account = ${account}`);
  const [row] = rowsOf<Record<string, unknown>>(result);
  if (!row) return undefined;
  const date = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string));
  return {
    account,
    limitPerWindow: row.limit_per_window === null ? null : Number(row.limit_per_window),
    windowMs: row.window_ms === null ? null : Number(row.window_ms),
    intervalMs: row.interval_ms === null ? null : Number(row.interval_ms),
    nextAt: date(row.next_at)!,
    blockedUntil: date(row.blocked_until),
    rateLimited: Number(row.rate_limited),
  };
}

/** One account's gate in this process: its workspace turns and who waits for a slot. */
interface AccountGate {
  budgets: Budgets;
  account: string;
  turns: WorkspaceTurns;
  /** Requests of each workspace waiting for a slot in this process (booking it, or in their turn). */
  waitingOf: Map<string, number>;
  /** A bookForBacklog loop is running. */
  booking: boolean;
}

function createGate(budgets: Budgets, account: string): RateGate {
  const gate: AccountGate = { budgets, account, turns: createWorkspaceTurns(), waitingOf: new Map(), booking: false };
  return {
    stopSignal: budgets.stopping.signal,
    acquire: (callSignal?: AbortSignal) => acquire(gate, callSignal),
    observe: (status, headers) => observe(budgets, account, status, headers),
  };
}

const turnSignal = (budgets: Budgets, callSignal: AbortSignal | undefined) =>
  callSignal ? AbortSignal.any([callSignal, budgets.turnsClosed.signal]) : budgets.turnsClosed.signal;

const asAbort = (error: unknown) => {
  throw new RewardsAbortError(undefined, { cause: error });
};

function acquire(gate: AccountGate, callSignal?: AbortSignal): Promise<void> {
  const { settings } = gate.budgets;
  // Background work books only a free schedule (no queue): it needs no turn.
  const background = lane.getStore() === 'background';
  const workspace = currentWorkspace();
  if (background || !settings.workspaceTurns || workspace === '' || !Number.isFinite(settings.backlogAheadMs))
    return takeTurn(gate, callSignal, background, !background && settings.workspaceTurns);
  const alreadyWaiting = gate.waitingOf.get(workspace) ?? 0;
  gate.waitingOf.set(workspace, alreadyWaiting + 1);
  // A backlog (its workspace already has a request waiting here): its slot is booked for it, a
  // little ahead only, so that the schedule stays open for other workspaces' requests.
  let waiting: Promise<void>;
  if (alreadyWaiting > 0) {
    waiting = gate.turns.enqueue(workspace, turnSignal(gate.budgets, callSignal)).catch(asAbort);
    void bookForBacklog(gate);
  } else waiting = takeTurn(gate, callSignal, false, true);
  return waiting.finally(() => {
    const left = (gate.waitingOf.get(workspace) ?? 1) - 1;
    if (left > 0) gate.waitingOf.set(workspace, left);
    else gate.waitingOf.delete(workspace);
  });
}

/** Books slots for the backlog's waiters (those without a slot), `backlogAheadMs` ahead at most. */
async function bookForBacklog(gate: AccountGate): Promise<void> {
  const { budgets, account, turns } = gate;
  const { db, settings, turnsClosed } = budgets;
  if (gate.booking) return;
  gate.booking = true;
  try {
    while (turns.unslotted() > 0 && !turnsClosed.signal.aborted) {
      let pauseMs: number;
      try {
        const taken = await bookAhead(db, settings, account, turns.unslotted());
        const now = Date.now();
        if (!taken) {
          // The account's first request: it creates the row (and probes the limit).
          const wait = await takeSlot(db, settings, account, false);
          if (wait !== undefined) turns.addSlot(Date.now() + wait);
          pauseMs = wait === undefined ? settings.unknownRecheckMs : 0;
        } else if (taken.booked > 0) {
          for (let i = 0; i < taken.booked; i++) turns.addSlot(now + Math.max(0, taken.firstInMs) + i * taken.stepMs);
          pauseMs = 0;
        } else {
          pauseMs = taken.probing
            ? Math.max(settings.unknownRecheckMs, taken.firstInMs)
            : Math.max(1, taken.firstInMs - settings.backlogAheadMs);
        }
      } catch (error) {
        // The database cannot be reached: pace by what this instance learned (a 429's reset).
        settings.onError?.(error);
        const at = Math.max(Date.now(), learned(budgets, account).blockedUntil);
        for (let n = turns.unslotted(); n > 0; n--) turns.addSlot(at);
        return;
      }
      if (pauseMs > 0) await sleepFor(pauseMs, turnsClosed.signal).catch(() => undefined);
    }
  } finally {
    gate.booking = false;
  }
}

/** Takes a slot of the schedule and sleeps until it (see the notes at the top). */
async function takeTurn(
  gate: AccountGate,
  callSignal: AbortSignal | undefined,
  background: boolean,
  inWorkspaceTurn = false,
): Promise<void> {
  const { budgets, account } = gate;
  const { db, settings, stopping } = budgets;
  const signal = callSignal ? AbortSignal.any([callSignal, stopping.signal]) : stopping.signal;
  const started = Date.now();
  for (;;) {
    if (callSignal?.aborted || (background && stopping.signal.aborted))
      throw new RewardsAbortError(undefined, { cause: signal.reason });
    let wait: number | undefined;
    try {
      wait = await takeSlot(db, settings, account, background && Date.now() - started < settings.backgroundMaxWaitMs);
    } catch (error) {
      settings.onError?.(error);
      wait = Math.max(0, learned(budgets, account).blockedUntil - Date.now());
    }
    // Stopping: a send whose slot is moments away (an order being placed, its recipients being
    // mapped) still goes, inside the worker's grace; a long wait (a 429 storm's reset) ends now.
    if (wait !== undefined && inWorkspaceTurn) {
      // This process's slots go to its waiting requests workspace by workspace (workspace-turns.ts).
      return gate.turns.wait(currentWorkspace(), Date.now() + wait, turnSignal(budgets, callSignal)).catch(asAbort);
    }
    if (wait !== undefined)
      return sleepFor(wait, wait <= settings.stopAllowanceMs && !background ? callSignal : signal);
    if (stopping.signal.aborted && Date.now() - started > settings.stopAllowanceMs)
      throw new RewardsAbortError(undefined, { cause: stopping.signal.reason });
    await sleepFor(background ? settings.recheckMs : settings.unknownRecheckMs, background ? signal : callSignal);
  }
}

/** What an answer's headers say of the budget: learned here, and recorded for every instance when it changed. */
async function observe(
  budgets: Budgets,
  account: string,
  status: number,
  headers: Record<string, string>,
): Promise<void> {
  try {
    const now = Date.now();
    const k = learned(budgets, account);
    const figures = readAnswer(status, headers, k, budgets.settings.lowWater, now);
    const { limit, windowMs, blockMs } = figures;
    const changed = (limit !== undefined && limit !== k.limit) || (windowMs !== undefined && windowMs > k.windowMs);
    if (!changed && blockMs === undefined) return;
    if (limit !== undefined) k.limit = limit;
    if (windowMs !== undefined) k.windowMs = Math.max(k.windowMs, windowMs);
    if (blockMs !== undefined) k.blockedUntil = Math.max(k.blockedUntil, now + blockMs);
    await recordFigures(budgets.db, budgets.settings, account, figures);
  } catch (error) {
    budgets.settings.onError?.(error);
  }
}

/** The limit, window and block an answer announces (a 429, or nothing left: blocked until the reset). */
function readAnswer(
  status: number,
  headers: Record<string, string>,
  k: LearnedBudget,
  lowWater: number,
  now: number,
): AnswerFigures {
  const limitHeader = Number(headers['x-ratelimit-limit']);
  const limit = Number.isFinite(limitHeader) && limitHeader > 0 ? limitHeader : undefined;
  const resetAt = parseRateLimitReset(headers['x-ratelimit-reset'], now);
  const windowMs = resetAt !== undefined && resetAt > now ? Math.ceil((resetAt - now) / 1000) * 1000 : undefined;
  const remainingHeader = headers['x-ratelimit-remaining'];
  const remaining =
    remainingHeader === undefined || remainingHeader.trim() === '' ? undefined : Number(remainingHeader);
  let blockMs: number | undefined;
  if (status === 429) {
    blockMs =
      parseRetryAfter(headers['retry-after'], now) ?? (resetAt !== undefined ? Math.max(0, resetAt - now) : 1000);
  } else if (
    remaining !== undefined &&
    Number.isFinite(remaining) &&
    resetAt !== undefined &&
    remaining <= Math.floor((limit ?? k.limit ?? 0) * lowWater)
  ) {
    blockMs = Math.max(0, resetAt - now);
  }
  return { limit, windowMs, blockMs, rateLimited: status === 429 };
}
