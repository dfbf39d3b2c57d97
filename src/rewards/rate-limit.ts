// Rate-limit budget and retry delays.
//
// The API announces its budget on every answer (X-RateLimit-Limit / -Remaining / -Reset; spec part 8
// leaves the unit of Reset open). We keep the latest figures and, once the remaining budget falls
// under 10% of the limit, spread the requests left evenly over the time until the reset, so a burst
// slows down BEFORE it is answered 429; with nothing left (remaining 0 on a successful answer),
// everyone waits for the reset. Between answers, each request sent counts against the last figure.

/** Reset header -> absolute time in ms. Small values are "seconds until reset"; large ones epoch s/ms. */
export function parseRateLimitReset(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const number = Number(value);
  if (!Number.isFinite(number) || number < 0) return undefined;
  if (number >= 1e12) return number; // epoch milliseconds
  if (number >= 1e9) return number * 1000; // epoch seconds (any date after 2001)
  return nowMs + number * 1000; // seconds from now
}

/** Retry-After header (seconds, or an HTTP date) -> ms to wait. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/**
 * How long the server asked us to wait before the next attempt, from Retry-After or (for a 429 or an
 * exhausted budget) X-RateLimit-Reset; undefined if it said nothing.
 */
export function serverRetryDelayMs(status: number, headers: Record<string, string>, nowMs: number): number | undefined {
  const retryAfter = parseRetryAfter(headers['retry-after'], nowMs);
  if (retryAfter !== undefined) return retryAfter;
  if (status === 429 || headers['x-ratelimit-remaining'] === '0') {
    const resetAt = parseRateLimitReset(headers['x-ratelimit-reset'], nowMs);
    if (resetAt !== undefined) return Math.max(0, resetAt - nowMs);
  }
  return undefined;
}

/** Exponential backoff with full jitter, or the server's delay (plus a little jitter) when given. */
export function retryDelayMs(
  retryIndex: number,
  serverDelayMs: number | undefined,
  config: { baseDelayMs: number; maxDelayMs: number; random: () => number },
): number {
  if (serverDelayMs !== undefined) {
    // Spread clients that were all told the same reset time over a short interval after it.
    return Math.min(config.maxDelayMs, serverDelayMs + config.random() * config.baseDelayMs);
  }
  const ceiling = Math.min(config.maxDelayMs, config.baseDelayMs * 2 ** retryIndex);
  return Math.round(ceiling / 2 + (config.random() * ceiling) / 2);
}

export interface RateLimitStatus {
  limit: number | undefined;
  remaining: number;
  resetAt: Date;
}

export class RateLimitBudget {
  private limit: number | undefined;
  private remaining: number | undefined;
  private resetAt: number | undefined;
  private nextSlotAt = 0;

  constructor(
    private readonly now: () => number,
    private readonly maxWaitMs: number,
    /** Fraction of the limit under which requests are spaced out. */
    private readonly lowWaterFraction = 0.1,
  ) {}

  /**
   * Records the figures of an answer; the server's latest count is the truth. A 429 is not recorded:
   * its own retry waits for the reset (see serverRetryDelayMs), while other calls go on and learn the
   * budget from their own answers. Otherwise one 429 (possibly from another consumer of the same
   * budget, or an injected fault) would stall every call of the process until the window resets.
   */
  update(status: number, headers: Record<string, string>): void {
    const limit = Number(headers['x-ratelimit-limit']);
    if (Number.isFinite(limit) && limit > 0) this.limit = limit;
    if (status === 429) return;
    const now = this.now();
    const resetAt = parseRateLimitReset(headers['x-ratelimit-reset'], now);
    const remaining =
      headers['x-ratelimit-remaining'] === undefined ? Number.NaN : Number(headers['x-ratelimit-remaining']);
    if (resetAt === undefined || !Number.isFinite(remaining)) return;
    const sameWindow = this.resetAt !== undefined && Math.abs(this.resetAt - resetAt) < 1500;
    if (!sameWindow) this.nextSlotAt = 0;
    this.remaining = remaining;
    this.resetAt = resetAt;
  }

  /** The last figures the API announced (remaining counts requests sent since), if still current. */
  snapshot(): RateLimitStatus | undefined {
    if (this.remaining === undefined || this.resetAt === undefined || this.now() >= this.resetAt) return undefined;
    return { limit: this.limit, remaining: Math.max(0, this.remaining), resetAt: new Date(this.resetAt) };
  }

  /** Reserves a slot for one request; returns how many ms to wait before sending it. */
  reserve(): number {
    const now = this.now();
    if (this.remaining === undefined || this.resetAt === undefined) return 0;
    if (now >= this.resetAt) {
      // The window is over; the next answer tells us the new budget.
      this.remaining = undefined;
      this.resetAt = undefined;
      return 0;
    }
    const lowWater = Math.max(1, Math.ceil((this.limit ?? 0) * this.lowWaterFraction));
    if (this.remaining > lowWater) {
      this.remaining -= 1;
      return 0;
    }
    if (this.remaining <= 0) return Math.min(this.maxWaitMs, this.resetAt - now);
    const slot = Math.max(now, this.nextSlotAt);
    this.nextSlotAt = slot + Math.max(0, this.resetAt - slot) / this.remaining;
    this.remaining -= 1;
    return Math.min(this.maxWaitMs, Math.round(slot - now));
  }
}
