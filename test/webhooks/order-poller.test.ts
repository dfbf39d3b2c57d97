// The order poller's pace: a steady stream of sends (each one waking it) must not keep pushing the
// next poll back, or orders placed outside Slack are never learned while the stream lasts.
import { afterEach, describe, expect, it, vi } from 'vitest';

import { createLogger } from '../../src/config/logger.js';
import { createOrderPoller, type OrderPollerOptions } from '../../src/webhooks/order-poller.js';
import { useTestDatabase } from '../support/db.js';

const t = useTestDatabase();

afterEach(() => {
  vi.useRealTimers();
});

/** A poller on fake timers with no account to list: a poll is one call of `all()` and the open-orders read. */
function countingPoller(pace: OrderPollerOptions) {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  let polls = 0;
  const rewards = {
    all: async () => {
      polls += 1;
      return [];
    },
  };
  const poller = createOrderPoller(
    { db: t.db, rewards, logger: createLogger({ level: 'silent' }), onStored: () => {} },
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
});
