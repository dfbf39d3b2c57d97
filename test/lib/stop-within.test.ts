import { afterEach, describe, expect, it, vi } from 'vitest';

import { stopWithin } from '../../src/lib/stop-within.js';

describe('stopWithin', () => {
  afterEach(() => vi.useRealTimers());

  it('returns once the part has stopped, without calling it late', async () => {
    const onLate = vi.fn();
    await stopWithin(Promise.resolve(), 1000, onLate);
    await stopWithin(Promise.reject(new Error('the pass failed while stopping')), 1000, onLate);
    await stopWithin(undefined, 1000, onLate);
    expect(onLate).not.toHaveBeenCalled();
  });

  it('returns at the bound when the part never stops, and says it was late', async () => {
    vi.useFakeTimers();
    const onLate = vi.fn();
    let returned = false;
    const waiting = stopWithin(new Promise(() => {}), 6000, onLate).then(() => (returned = true));
    await vi.advanceTimersByTimeAsync(5999);
    expect(returned).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await waiting;
    expect(onLate).toHaveBeenCalledOnce();
  });
});
