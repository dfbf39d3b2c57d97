// The order poller's pace: a steady stream of sends (each one waking it) must not keep pushing the
// next poll back, or orders placed outside Slack are never learned while the stream lasts.
import { afterEach, describe, expect, it, vi } from 'vitest';

import { createLogger } from '../../src/config/logger.js';
import type { Database } from '../../src/db/client.js';
import { createOrderPoller, type OrderPollerOptions } from '../../src/webhooks/order-poller.js';

afterEach(() => {
  vi.useRealTimers();
});

/**
 * Reads that find no row, answered at once: no order is open. A real database's reads take real time
 * that the fake clock runs past (on PostgreSQL, a poll would span many of the stream's wakes).
 */
const nothingOpen = {
  select: () => ({ from: () => ({ where: () => ({ limit: async () => [] }) }) }),
} as unknown as Database;

/** A poller on fake timers with no account to list: a poll is one call of `all()` and the open-orders read. */
function countingPoller(pace: OrderPollerOptions, listing: () => Promise<void> = async () => {}) {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  let polls = 0;
  const rewards = {
    all: async () => {
      polls += 1;
      await listing();
      return [];
    },
  };
  const poller = createOrderPoller(
    { db: nothingOpen, rewards, logger: createLogger({ level: 'silent' }), onStored: () => {} },
    pace,
  );
  return { poller, polls: () => polls };
}

describe('order poller', () => {
  it('polls at its active pace while sends keep waking it', async () => {
    const { poller, polls } = countingPoller({ activeMs: 1000, idleMaxMs: 4000, firstDelayMs: 1000 });
    poller.start();
    // A send placed every 200 ms for 10 s.
    for (let i = 0; i < 50; i++) {
      poller.wake();
      await vi.advanceTimersByTimeAsync(200);
    }
    await poller.stop();
    // At the active pace (1 s) that is about 10 polls; pushed back by every wake, none.
    expect(polls()).toBeGreaterThanOrEqual(5);
  });

  it('a wake brings a slow idle poll forward to the active pace', async () => {
    const { poller, polls } = countingPoller({ activeMs: 1000, idleMaxMs: 60_000, firstDelayMs: 30_000 });
    poller.start();
    await vi.advanceTimersByTimeAsync(500);
    poller.wake();
    await vi.advanceTimersByTimeAsync(1500);
    await poller.stop();
    expect(polls()).toBe(1);
  });

  it('a wake while a poll is reading brings another poll after it, at the active pace', async () => {
    let release: (() => void) | undefined;
    const reading = new Promise<void>((resolve) => (release = resolve));
    const { poller, polls } = countingPoller({ activeMs: 1000, idleMaxMs: 60_000 }, () => reading);
    poller.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(polls()).toBe(1);
    poller.wake(); // an order placed while the list is read: it may not be in it
    release?.();
    // Idle, the next poll would come 2 s after this one; woken, 1 s after the wake.
    await vi.advanceTimersByTimeAsync(999);
    expect(polls()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(polls()).toBe(2);
    await poller.stop();
  });
});
