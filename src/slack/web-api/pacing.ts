// The app meets Slack's rate limits instead of bouncing off them (Slack's rate-limit tiers): each
// workspace's posts go at most about one a second per channel (a burst of 2) and 270 a minute in all
// (90% of "several hundred", taken as 300), and the methods called in bulk keep to 90% of their tier's
// floor per minute (a quarter at once, then spread; users.list half at once: its pages are read
// together, at most once per 10 minutes per workspace, so a workspace of 2,000 is read in one burst).
// The schedules live in the database (src/domain/pacing/slack-call-schedules.ts), so every instance counts
// against the same budget.
//
// A post that cannot go within POST_MAX_WAIT_MS is not sent: it is refused here as `rate_limited`
// with the time to come back, and the notice outbox posts it then (its own schedule, shared by every
// instance); nothing waits in memory past its lease. A method call waits for its slot (following the
// stop signal); one made while a request's answer is due (src/slack/listening/deadline.ts: a modal's submission
// inside Slack's 3 s) books only a slot it can use in time, and is otherwise refused as `rate_limited`
// with when to come back. A 429 that still happens blocks the schedule for Slack's Retry-After; a method call
// (all of the paced ones are reads or idempotent) is then made again through the schedule, a post is
// handed back to the outbox.
import { ChatRefusal } from '../../domain/common/ports.js';
import type { CallSchedules, PaceRule } from '../../domain/pacing/slack-call-schedules.js';
import { slotWaitLeft } from '../listening/deadline.js';

/** Per minute per workspace, Slack's floor of each tier ("Tier 2: 20+ per minute"). */
const TIER_FLOOR = { 2: 20, 3: 50, 4: 100 } as const;

/** The app uses this share of a limit; the rest absorbs clock and timer jitter. */
const SHARE = 0.9;

/**
 * A rule for `limit` calls a minute: a burst of `burstShare` of it (at least 1) and the rest of 90% a
 * minute, so that no minute sees more than 90% of the limit.
 */
export function perMinute(limit: number, scale = 1, burstShare = 0.25): PaceRule {
  const scaled = limit * scale;
  return { intervalMs: 60_000 / (scaled * (SHARE - burstShare)), burst: Math.max(1, Math.floor(scaled * burstShare)) };
}

/** The methods the app calls in bulk, by tier (big groups, celebrations, Home, DMs). */
export const PACED_METHODS = {
  'conversations.open': 3,
  'users.info': 4,
  'users.profile.get': 4,
  'usergroups.users.list': 2,
  'users.list': 2,
  'views.publish': 4,
} as const satisfies Record<string, keyof typeof TIER_FLOOR>;
export type PacedMethod = keyof typeof PACED_METHODS;

/** The share of a method's limit that goes at once, where a quarter is not right. */
const BURST_SHARE: Partial<Record<PacedMethod, number>> = { 'users.list': 0.5 };

/** A post is sent now or within this long; further away, the outbox posts it at its time. */
export const POST_MAX_WAIT_MS = 1000;
/** A method call tried again this many times after a 429 (through the schedule). */
const METHOD_RETRIES = 2;

export interface SlackPacingOptions {
  /** Multiplies every limit the app paces to (a bench against a simulator scaled the same). Default 1. */
  scale?: number;
}

export interface SlackPacer {
  /**
   * Runs a call of a paced method at its slot; a 429 blocks the schedule and the call is made again.
   * With `maxWaitMs`, or inside answerBy (deadline.ts) with less time left, a slot further away is
   * not booked: ChatRefusal `rate_limited` names when to come back (a DM channel the notice outbox
   * opens: the notice is recorded and opened later; a modal's submission: the person is told).
   * `onWait` learns how long the call waits for its slot.
   */
  method<T>(
    method: PacedMethod,
    call: () => Promise<T>,
    opts?: { maxWaitMs?: number; onWait?: (waitMs: number) => void },
  ): Promise<T>;
  /**
   * Runs a chat.postMessage at the channel's and the workspace's slots, when they are at most
   * POST_MAX_WAIT_MS away; otherwise (and when the app stops meanwhile, or Slack answers 429)
   * rejects with ChatRefusal `rate_limited` naming when to come back. Nothing was posted then.
   */
  post<T>(channel: string, call: () => Promise<T>): Promise<T>;
}

/** Slack's 429, as WebClient (rejectRateLimitedCalls) and the direct client throw it: its Retry-After in seconds. */
function retryAfterOf(error: unknown): number | undefined {
  const e = error as { code?: unknown; retryAfter?: unknown } | null;
  if (e?.code !== 'slack_webapi_rate_limited_error') return undefined;
  const seconds = Number(e.retryAfter);
  return Number.isFinite(seconds) && seconds > 0 ? seconds : 1;
}

interface PaceRules {
  channelRule: PaceRule;
  workspaceRule: PaceRule;
  methodRules: Record<PacedMethod, PaceRule>;
}

/** The rules depend on the scale alone: one set per scale, shared by every workspace's pacer (memory per workspace). */
const RULES_BY_SCALE = new Map<number, PaceRules>();
function rulesAt(scale: number): PaceRules {
  let rules = RULES_BY_SCALE.get(scale);
  if (!rules) {
    rules = {
      // A burst of 2, two below the simulator's 4 (Slack's own is not published): a post reaches Slack
      // later than its slot (the slot's answer, the timer, the request), and a slot is counted from when
      // it was booked, so each second of that lag needs a post of headroom. With 3, a lag over a second
      // on a loaded machine drew a 429 (30 posts to one channel at once, test/slack/web-api/rate-limits.test.ts).
      channelRule: { intervalMs: 1000 / scale, burst: 2 },
      workspaceRule: perMinute(300, scale),
      methodRules: Object.fromEntries(
        Object.entries(PACED_METHODS).map(([m, tier]) => [
          m,
          perMinute(TIER_FLOOR[tier], scale, BURST_SHARE[m as PacedMethod]),
        ]),
      ) as Record<PacedMethod, PaceRule>,
    };
    RULES_BY_SCALE.set(scale, rules);
  }
  return rules;
}

/** A refusal naming when to come back: nothing was sent. */
const later = (seconds: number, detail = 'paced') =>
  new ChatRefusal('rate_limited', detail, { retryAfterSeconds: Math.max(0.001, seconds) });

/** Books the slots at most POST_MAX_WAIT_MS away and sleeps until the last, or refuses with when to come back. */
async function slot(
  schedules: CallSchedules,
  team: string,
  slots: Array<{ key: string; rule: PaceRule }>,
): Promise<void> {
  const answer = await schedules.takeAll(team, slots, { maxWaitMs: POST_MAX_WAIT_MS });
  if (!answer.booked) throw later(answer.notBeforeMs / 1000);
  try {
    await schedules.sleep(answer.waitMs);
  } catch (error) {
    // Stopping: nothing was sent; the outbox posts it (this instance's successor, or another one).
    throw later(1, 'stopping');
  }
}

/**
 * One workspace's pacer: a class, so that the one kept per workspace (src/slack/web-api/workspace-gateways.ts) holds
 * three fields and its methods live once on the prototype (memory per workspace).
 */
class WorkspacePacer implements SlackPacer {
  constructor(
    private readonly schedules: CallSchedules,
    private readonly teamId: string | (() => Promise<string>),
    private readonly rules: PaceRules,
  ) {}

  async method<T>(
    method: PacedMethod,
    call: () => Promise<T>,
    o: { maxWaitMs?: number; onWait?: (waitMs: number) => void } = {},
  ): Promise<T> {
    const { schedules } = this;
    const team = typeof this.teamId === 'string' ? this.teamId : await this.teamId();
    for (let attempt = 0; ; attempt++) {
      const left = slotWaitLeft();
      const maxWaitMs =
        o.maxWaitMs === undefined ? left : left === undefined ? o.maxWaitMs : Math.min(o.maxWaitMs, left);
      const answer = await schedules.take(
        team,
        method,
        this.rules.methodRules[method],
        maxWaitMs === undefined ? {} : { maxWaitMs },
      );
      if (!answer.booked) throw later(answer.notBeforeMs / 1000);
      o.onWait?.(answer.waitMs);
      await schedules.sleep(answer.waitMs);
      try {
        return await call();
      } catch (error) {
        const retryAfter = retryAfterOf(error);
        if (retryAfter === undefined || attempt >= METHOD_RETRIES) throw error;
        await schedules.block(team, method, retryAfter * 1000);
      }
    }
  }

  async post<T>(channel: string, call: () => Promise<T>): Promise<T> {
    const { schedules } = this;
    const team = typeof this.teamId === 'string' ? this.teamId : await this.teamId();
    // The channel's slot and the workspace's, in one statement: both, or neither (a post refused
    // for the workspace's budget leaves its channel's slot to the next post).
    await slot(schedules, team, [
      { key: `post:${channel}`, rule: this.rules.channelRule },
      { key: 'post', rule: this.rules.workspaceRule },
    ]);
    try {
      return await call();
    } catch (error) {
      const retryAfter = retryAfterOf(error);
      if (retryAfter !== undefined) await schedules.block(team, `post:${channel}`, retryAfter * 1000);
      throw error;
    }
  }
}

/** The pacer of one workspace (`teamId` names it; single-workspace mode: the bot token's, from auth.test, asked at each call). */
export function createSlackPacer(
  schedules: CallSchedules,
  teamId: string | (() => Promise<string>),
  opts: SlackPacingOptions = {},
): SlackPacer {
  return new WorkspacePacer(schedules, teamId, rulesAt(opts.scale ?? 1));
}

/** No pacing (a unit test of something else, a bench against a simulator without limits). */
export const UNPACED: SlackPacer = { method: (_m, call) => call(), post: (_c, call) => call() };
