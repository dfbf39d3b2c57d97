// How fast background polling (order completion checks, the order list in polling mode) may call
// the Rewards API: a token bucket whose rate is a small share of the limit the API announces
// (X-RateLimit-Limit over its window, the window being the longest X-RateLimit-Reset seen), never
// above a fixed ceiling, and nothing at all while the announced budget left is under half (sends
// placed from Slack get the rest). Polling is never why the app meets a 429.
import type { RateLimitStatus } from '../rewards/index.js';

export interface PollBudgetOptions {
  /** The client's latest announced figures (`rewards.rateLimit()`). */
  rateLimit: () => RateLimitStatus | undefined;
  /** Share of the announced rate polling may use. Default 0.1. */
  share?: number;
  /** Ceiling in requests per second, and the rate before anything is announced. Default 5 and 2. */
  maxPerSecond?: number;
  unknownPerSecond?: number;
  /** Requests allowed at once after an idle spell. Default 2. */
  burst?: number;
  now?: () => number;
}

export interface PollBudget {
  /** Milliseconds to wait before the next request may be sent (0: now); takes the token when 0. */
  tryTake(): number;
  /** Waits for a token (or the signal). */
  take(signal?: AbortSignal): Promise<void>;
  /** Requests per second currently allowed. */
  ratePerSecond(): number;
}

export function createPollBudget(opts: PollBudgetOptions): PollBudget {
  const now = opts.now ?? Date.now;
  const share = opts.share ?? 0.1;
  const maxPerSecond = opts.maxPerSecond ?? 5;
  const unknownPerSecond = Math.min(opts.unknownPerSecond ?? 2, maxPerSecond);
  const burst = opts.burst ?? 2;
  let windowSeconds = 0;
  let tokens = burst;
  let refilledAt = now();

  function status(): { rate: number; pausedUntil?: number } {
    const s = opts.rateLimit();
    if (!s || !s.limit) return { rate: unknownPerSecond };
    const resetInSeconds = Math.max(0, (s.resetAt.getTime() - now()) / 1000);
    windowSeconds = Math.max(windowSeconds, Math.ceil(resetInSeconds));
    if (s.remaining < s.limit / 2) return { rate: 0, pausedUntil: s.resetAt.getTime() };
    return { rate: Math.min(maxPerSecond, (share * s.limit) / Math.max(1, windowSeconds)) };
  }

  function tryTake(): number {
    const { rate, pausedUntil } = status();
    const t = now();
    if (rate <= 0) return Math.max(1, (pausedUntil ?? t + 1000) - t);
    tokens = Math.min(burst, tokens + ((t - refilledAt) / 1000) * rate);
    refilledAt = t;
    if (tokens >= 1) {
      tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - tokens) / rate) * 1000);
  }

  return {
    tryTake,
    ratePerSecond: () => status().rate,
    async take(signal) {
      for (;;) {
        if (signal?.aborted) throw signal.reason ?? new Error('aborted');
        const wait = tryTake();
        if (wait === 0) return;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, Math.min(wait, 5000));
          function done() {
            clearTimeout(timer);
            signal?.removeEventListener('abort', done);
            resolve();
          }
          signal?.addEventListener('abort', done, { once: true });
        });
      }
    },
  };
}
