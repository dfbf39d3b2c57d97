import type { Clock } from '../clock.js';

export interface RateLimitVerdict {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets (X-RateLimit-Reset). */
  resetSeconds: number;
}

/** Fixed window per app, on the emulator clock: `limit` requests per `windowSeconds`. */
export class RateLimiter {
  private readonly windows = new Map<string, { startMs: number; count: number }>();

  constructor(
    private readonly clock: Clock,
    readonly limit: number,
    readonly windowSeconds: number,
  ) {}

  hit(key: string): RateLimitVerdict {
    const now = this.clock.nowMs();
    const windowMs = this.windowSeconds * 1000;
    let w = this.windows.get(key);
    if (!w || now >= w.startMs + windowMs) {
      w = { startMs: now, count: 0 };
      this.windows.set(key, w);
    }
    const allowed = w.count < this.limit;
    if (allowed) w.count++;
    return this.peekWindow(w, allowed, now, windowMs);
  }

  /** Headers for a response that did not count (e.g. an injected 429). */
  peek(key: string): RateLimitVerdict {
    const now = this.clock.nowMs();
    const windowMs = this.windowSeconds * 1000;
    const w = this.windows.get(key);
    if (!w || now >= w.startMs + windowMs)
      return { allowed: true, limit: this.limit, remaining: this.limit, resetSeconds: this.windowSeconds };
    return this.peekWindow(w, true, now, windowMs);
  }

  clear(): void {
    this.windows.clear();
  }

  private peekWindow(
    w: { startMs: number; count: number },
    allowed: boolean,
    now: number,
    windowMs: number,
  ): RateLimitVerdict {
    return {
      allowed,
      limit: this.limit,
      remaining: Math.max(0, this.limit - w.count),
      resetSeconds: Math.max(1, Math.ceil((w.startMs + windowMs - now) / 1000)),
    };
  }
}

export function rateLimitHeaders(v: RateLimitVerdict): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(v.limit),
    'X-RateLimit-Remaining': String(v.remaining),
    'X-RateLimit-Reset': String(v.resetSeconds),
  };
}

/** A 429's headers: the X-RateLimit-* figures and Retry-After, the same seconds until the reset. */
export function rateLimitedHeaders(v: RateLimitVerdict): Record<string, string> {
  return { ...rateLimitHeaders({ ...v, remaining: 0 }), 'Retry-After': String(v.resetSeconds) };
}
