import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { utcDay, utcPeriodBounds } from '../../src/emulator/time.js';

// Spending limits add up the orders of the current UTC day and month (spec: daily and monthly limits).
const instant = fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2100, 0, 1) });

describe('utcPeriodBounds', () => {
  it('holds exactly the instants of the same UTC day', () => {
    fc.assert(
      fc.property(instant, instant, (at, other) => {
        const { fromMs, toMs } = utcPeriodBounds(at, 'day');
        expect(other >= fromMs && other < toMs).toBe(utcDay(other) === utcDay(at));
      }),
    );
  });

  it('holds exactly the instants of the same UTC month, December to January included', () => {
    const nearby = instant.chain((at) =>
      fc.tuple(
        fc.constant(at),
        fc.integer({ min: -40 * 86_400_000, max: 40 * 86_400_000 }).map((d) => at + d),
      ),
    );
    fc.assert(
      fc.property(nearby, ([at, other]) => {
        const { fromMs, toMs } = utcPeriodBounds(at, 'month');
        expect(other >= fromMs && other < toMs).toBe(utcDay(other).slice(0, 7) === utcDay(at).slice(0, 7));
      }),
    );
    expect(utcPeriodBounds(Date.UTC(2026, 11, 31, 23, 59), 'month')).toEqual({
      fromMs: Date.UTC(2026, 11, 1),
      toMs: Date.UTC(2027, 0, 1),
    });
  });
});
