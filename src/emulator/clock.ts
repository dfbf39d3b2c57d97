/**
 * The emulator's clock. It follows real time plus an offset that only grows through `advance`
 * (and `setTo`, used by the job runner to stamp work at its due time). Every timestamp the
 * emulator produces comes from here, so tests can move time instead of sleeping.
 */
export interface Clock {
  /** Current emulator time in epoch milliseconds. */
  nowMs(): number;
  now(): Date;
  /** Moves the clock forward by `seconds` (>= 0). */
  advance(seconds: number): void;
  /** Moves the clock forward to `ms` if that is later than now; never backwards. */
  moveTo(ms: number): void;
  /** Back to real time. */
  reset(): void;
}

export function createClock(realNow: () => number = Date.now): Clock {
  let offsetMs = 0;
  // The emulator clock never goes backwards, even when it was advanced and real time catches up.
  let lastMs = 0;
  const nowMs = (): number => {
    const t = realNow() + offsetMs;
    if (t > lastMs) lastMs = t;
    return lastMs;
  };
  return {
    nowMs,
    now: () => new Date(nowMs()),
    advance(seconds) {
      if (!(seconds >= 0)) throw new RangeError('seconds must be >= 0');
      offsetMs += Math.round(seconds * 1000);
    },
    moveTo(ms) {
      const current = nowMs();
      if (ms > current) offsetMs += ms - current;
    },
    reset() {
      offsetMs = 0;
      lastMs = 0;
    },
  };
}
