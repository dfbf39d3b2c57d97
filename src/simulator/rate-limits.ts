// Slack's Web API rate limits, as the simulator enforces them (Slack's rate-limit tiers): per
// workspace (the team of the token) and per method, by tier, over a sliding minute; chat.postMessage
// about one per second per channel with a short burst, plus a workspace-wide cap. Past a limit the
// call is answered HTTP 429 with `Retry-After` (whole seconds) and `{ ok: false, error: 'ratelimited' }`.
// A refused call does not count against the limit. Every refusal is counted (by method, channel and
// workspace) so that tests and the bench can read what the app bounced off.

/** Requests per minute per workspace, Slack's floor of each tier ("Tier 2: 20+ per minute"). */
export const TIER_PER_MINUTE = { 1: 1, 2: 20, 3: 50, 4: 100 } as const;
type Tier = keyof typeof TIER_PER_MINUTE;

/**
 * The tier of each method the simulator serves, from Slack's method pages
 * (https://api.slack.com/methods/<method>). Methods of Slack's "special" tier other than
 * chat.postMessage (auth.test, chat.getPermalink, functions.complete*, api.test) and the ones without
 * a workspace token (oauth.v2.access, apps.connections.open) are not limited here.
 */
export const METHOD_TIERS: Readonly<Record<string, Tier>> = {
  'chat.postEphemeral': 4,
  'chat.update': 3,
  'chat.delete': 3,
  'conversations.open': 3,
  'conversations.info': 3,
  'conversations.join': 3,
  'conversations.history': 3,
  'conversations.replies': 3,
  'conversations.members': 4,
  'users.info': 4,
  'users.list': 2,
  'users.lookupByEmail': 3,
  'users.profile.get': 4,
  'team.info': 3,
  'team.profile.get': 3,
  'usergroups.list': 2,
  'usergroups.users.list': 2,
  'views.open': 4,
  'views.push': 4,
  'views.update': 4,
  'views.publish': 4,
  'files.info': 4,
  'files.getUploadURLExternal': 4,
  'files.completeUploadExternal': 4,
};

export interface RateLimitSettings {
  /**
   * Multiplies every limit (2: twice as many calls allowed; 0.5: half). Default 1, Slack's floors.
   * Tests about something else may turn the limits off instead (`rateLimits: false`).
   */
  scale?: number | undefined;
  /** chat.postMessage per channel: the burst a channel takes at once before 1 per second applies. Default 4. */
  postBurst?: number | undefined;
  /** chat.postMessage per workspace per minute ("several hundred"). Default 300. */
  postsPerMinute?: number | undefined;
}

type CompleteSettings = { [K in keyof RateLimitSettings]-?: NonNullable<RateLimitSettings[K]> };

export interface RateLimitCounts {
  /** 429s answered in all. */
  total: number;
  byMethod: Record<string, number>;
  /** chat.postMessage 429s by channel (the IM id for a post to a user). */
  byChannel: Record<string, number>;
  byTeam: Record<string, number>;
}

export interface StormOptions {
  /** How many calls to refuse (matching `methods`, all methods when absent). */
  count: number;
  /** The Retry-After of each refusal, whole seconds. Default 1. */
  retryAfterSeconds?: number | undefined;
  methods?: string[] | undefined;
}

const MINUTE_MS = 60_000;

/** Timestamps of the calls of the last minute, oldest first. */
class SlidingMinute {
  private readonly times: number[] = [];
  constructor(private readonly limit: number) {}

  /** Milliseconds until a call would fit (0: it fits now). */
  waitMs(now: number): number {
    while (this.times.length > 0 && this.times[0]! <= now - MINUTE_MS) this.times.shift();
    if (this.times.length < this.limit) return 0;
    return this.times[this.times.length - this.limit]! + MINUTE_MS - now;
  }

  add(now: number): void {
    this.times.push(now);
  }
}

/** A token bucket: `capacity` at once, refilled at `perSecond`. */
class Bucket {
  private tokens: number;
  private at: number;
  constructor(
    private readonly capacity: number,
    private readonly perSecond: number,
    now: number,
  ) {
    this.tokens = capacity;
    this.at = now;
  }

  waitMs(now: number): number {
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.at) / 1000) * this.perSecond);
    this.at = now;
    return this.tokens >= 1 ? 0 : ((1 - this.tokens) / this.perSecond) * 1000;
  }

  take(): void {
    this.tokens -= 1;
  }
}

export type RateDecision = { ok: true } | { ok: false; retryAfterSeconds: number };

export class SimulatorRateLimits {
  enabled: boolean;
  private settings: CompleteSettings;
  private readonly windows = new Map<string, SlidingMinute>();
  private readonly buckets = new Map<string, Bucket>();
  private storms: Array<{ count: number; retryAfterSeconds: number; methods: Set<string> | undefined }> = [];
  counts: RateLimitCounts = { total: 0, byMethod: {}, byChannel: {}, byTeam: {} };

  constructor(settings: RateLimitSettings | false = {}) {
    this.enabled = settings !== false;
    this.settings = SimulatorRateLimits.complete(settings || {});
  }

  private static complete(s: RateLimitSettings): CompleteSettings {
    const scale = s.scale ?? 1;
    if (!(scale > 0))
      throw new Error('simulator rate limits: scale must be above 0 (turn them off with rateLimits: false)');
    return { scale, postBurst: s.postBurst ?? 4, postsPerMinute: s.postsPerMinute ?? 300 };
  }

  /** New settings (or `false`: off); what was counted so far stays, the windows start over. */
  configure(settings: RateLimitSettings | false): void {
    this.enabled = settings !== false;
    if (settings !== false) this.settings = SimulatorRateLimits.complete(settings);
    this.windows.clear();
    this.buckets.clear();
  }

  /** The next `count` calls (of `methods`) are refused with 429, whatever the limits. */
  storm(opts: StormOptions): void {
    this.storms.push({
      count: opts.count,
      retryAfterSeconds: opts.retryAfterSeconds ?? 1,
      methods: opts.methods ? new Set(opts.methods) : undefined,
    });
  }

  resetCounts(): void {
    this.counts = { total: 0, byMethod: {}, byChannel: {}, byTeam: {} };
  }

  /**
   * Decides one call of `method` for workspace `team` (`channel`: where a chat.postMessage lands) and,
   * when it is allowed, counts it against the limits.
   */
  check(team: string, method: string, channel: string | undefined, now: number): RateDecision {
    const storm = this.storms.find((s) => s.count > 0 && (!s.methods || s.methods.has(method)));
    if (storm) {
      storm.count--;
      this.storms = this.storms.filter((s) => s.count > 0);
      return this.refuse(team, method, channel, storm.retryAfterSeconds * 1000);
    }
    if (!this.enabled) return { ok: true };
    const { scale } = this.settings;
    if (method === 'chat.postMessage') {
      const workspace = this.window(`post:${team}`, this.settings.postsPerMinute * scale);
      const bucket = channel ? this.bucket(`${team}:${channel}`, now) : undefined;
      const wait = Math.max(workspace.waitMs(now), bucket?.waitMs(now) ?? 0);
      if (wait > 0) return this.refuse(team, method, channel, wait);
      workspace.add(now);
      bucket?.take();
      return { ok: true };
    }
    const tier = Object.hasOwn(METHOD_TIERS, method) ? METHOD_TIERS[method] : undefined;
    if (tier === undefined) return { ok: true };
    const window = this.window(`${method}:${team}`, TIER_PER_MINUTE[tier] * scale);
    const wait = window.waitMs(now);
    if (wait > 0) return this.refuse(team, method, undefined, wait);
    window.add(now);
    return { ok: true };
  }

  private window(key: string, perMinute: number): SlidingMinute {
    let w = this.windows.get(key);
    if (!w) this.windows.set(key, (w = new SlidingMinute(Math.max(1, Math.floor(perMinute)))));
    return w;
  }

  private bucket(key: string, now: number): Bucket {
    let b = this.buckets.get(key);
    if (!b) this.buckets.set(key, (b = new Bucket(Math.max(1, this.settings.postBurst), this.settings.scale, now)));
    return b;
  }

  private refuse(team: string, method: string, channel: string | undefined, waitMs: number): RateDecision {
    const c = this.counts;
    c.total++;
    c.byMethod[method] = (c.byMethod[method] ?? 0) + 1;
    c.byTeam[team] = (c.byTeam[team] ?? 0) + 1;
    if (channel && method === 'chat.postMessage') c.byChannel[channel] = (c.byChannel[channel] ?? 0) + 1;
    // Slack's Retry-After is whole seconds, at least 1.
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }
}

/** `SIMULATOR_RATE_LIMITS` of `npm run dev`: unset, `on` or `1`: Slack's floors; `off`: none; a number: the limits times it. */
export function rateLimitSettingsFrom(value: string | undefined): RateLimitSettings | false {
  const v = value?.trim().toLowerCase();
  if (!v || v === 'on') return {};
  if (v === 'off') return false;
  const scale = Number(v);
  if (!(scale > 0)) throw new Error(`SIMULATOR_RATE_LIMITS must be on, off or a multiplier above 0 (got ${value})`);
  return { scale };
}
