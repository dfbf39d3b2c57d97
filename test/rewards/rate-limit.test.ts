import { describe, expect, it } from 'vitest';

import { parseRateLimitReset, parseRetryAfter, RateLimitBudget, retryDelayMs } from '../../src/rewards/rate-limit.js';

const now = Date.parse('2026-11-22T12:00:00Z');

describe('rate-limit headers', () => {
  it('reads X-RateLimit-Reset as seconds from now, epoch seconds or epoch milliseconds', () => {
    expect(parseRateLimitReset('10', now)).toBe(now + 10_000);
    expect(parseRateLimitReset(String(now / 1000 + 30), now)).toBe(now + 30_000);
    expect(parseRateLimitReset(String(now + 5_000), now)).toBe(now + 5_000);
    expect(parseRateLimitReset('soon', now)).toBeUndefined();
    expect(parseRateLimitReset(undefined, now)).toBeUndefined();
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('3', now)).toBe(3_000);
    expect(parseRetryAfter(new Date(now + 8_000).toUTCString(), now)).toBe(8_000);
    expect(parseRetryAfter('garbage', now)).toBeUndefined();
  });

  it('backs off exponentially with jitter, and follows the server when it gives a delay', () => {
    const config = { baseDelayMs: 100, maxDelayMs: 1_000, random: () => 1 };
    expect([0, 1, 2, 3, 4].map((i) => retryDelayMs(i, undefined, config))).toEqual([100, 200, 400, 800, 1_000]);
    expect(retryDelayMs(0, undefined, { ...config, random: () => 0 })).toBe(50);
    expect(retryDelayMs(0, 700, { ...config, random: () => 0 })).toBe(700);
    expect(retryDelayMs(0, 60_000, config)).toBe(1_000); // capped
  });
});

describe('RateLimitBudget', () => {
  it('lets requests through while the budget is healthy', () => {
    const budget = new RateLimitBudget(() => now, 60_000);
    budget.update(200, { 'x-ratelimit-limit': '1000', 'x-ratelimit-remaining': '500', 'x-ratelimit-reset': '10' });
    expect(Array.from({ length: 100 }, () => budget.reserve()).every((ms) => ms === 0)).toBe(true);
  });

  it('spreads the last requests of a window evenly until the reset', () => {
    const budget = new RateLimitBudget(() => now, 60_000);
    budget.update(200, { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '4', 'x-ratelimit-reset': '8' });
    expect([budget.reserve(), budget.reserve(), budget.reserve(), budget.reserve()]).toEqual([0, 2_000, 4_000, 6_000]);
    // Nothing left: wait for the reset.
    expect(budget.reserve()).toBe(8_000);
  });

  it('a 429 delays only its own retry: other calls keep the budget they learnt', () => {
    const budget = new RateLimitBudget(() => now, 60_000);
    budget.update(200, { 'x-ratelimit-limit': '1000', 'x-ratelimit-remaining': '900', 'x-ratelimit-reset': '5' });
    budget.update(429, { 'x-ratelimit-limit': '1000', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '5' });
    expect(budget.reserve()).toBe(0);
  });

  it('a successful answer with nothing remaining makes every caller wait for the reset', () => {
    const budget = new RateLimitBudget(() => now, 60_000);
    budget.update(200, { 'x-ratelimit-limit': '1000', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '5' });
    expect(budget.reserve()).toBe(5_000);
    expect(budget.reserve()).toBe(5_000);
  });

  it('forgets the figures once the window is over', () => {
    let clock = now;
    const budget = new RateLimitBudget(() => clock, 60_000);
    budget.update(200, { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '2' });
    clock += 2_000;
    expect(budget.reserve()).toBe(0);
  });

  it('never waits longer than the cap (a misread reset cannot stall the app)', () => {
    const budget = new RateLimitBudget(() => now, 30_000);
    budget.update(200, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '3600' });
    expect(budget.reserve()).toBe(30_000);
  });
});
