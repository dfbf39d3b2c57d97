// The USD estimate of a branded card before ordering (src/domain/branded/usd-cost.ts): the cost at the
// learned rate, rounded as the API rounds it, and the judged cost with the safety margin, rounded up,
// which covers the actual charge while the rate has not risen by more than the margin.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  costAtRate,
  estimateFromRate,
  judgedAtRate,
  SAFETY_MARGIN_PERCENT,
  usdPerUnit,
} from '../../../src/domain/branded/usd-cost.js';

const NOW = new Date('2026-12-03T12:00:00Z');
const learned = (currency: string, faceCents: number, costCents: number, hoursAgo = 2) => ({
  currency,
  faceCents,
  costCents,
  learnedAt: new Date(NOW.getTime() - hoursAgo * 3_600_000),
});

/** What the API charges: face x rate (micro-units), rounded half up to the cent once per order. */
const charged = (faceCents: number, rateMicros: bigint) =>
  Number((BigInt(faceCents) * rateMicros * 2n + 1_000_000n) / 2_000_000n);

/** A learned rate: an order of some face total charged at some true rate (micro-units). */
const rateArb = fc
  .record({
    unit: fc.constantFrom(1, 100), // GBP-like (cents) or JPY-like (whole yen)
    faceUnits: fc.integer({ min: 1, max: 100_000 }),
    rateMicros: fc.integer({ min: 1_000, max: 5_000_000 }), // 0.001 to 5 USD per unit
  })
  .map(({ unit, faceUnits, rateMicros }) => {
    const faceCents = faceUnits * unit * 100;
    return { unit, faceCents, costCents: charged(faceCents, BigInt(rateMicros)) };
  })
  .filter((r) => r.costCents > 0);

describe('the judged cost', () => {
  it('is never below the cost at the learned rate, nor below the exact conversion (property)', () => {
    fc.assert(
      fc.property(rateArb, fc.integer({ min: 0, max: 1_000_000 }), (rate, faceUnits) => {
        const face = faceUnits * rate.unit * 100;
        const estimate = costAtRate(face, rate);
        const judged = judgedAtRate(face, rate);
        expect(judged).toBeGreaterThanOrEqual(estimate);
        // judged x rate.face >= face x cost x (1 + margin): never rounded down.
        expect(BigInt(judged) * BigInt(rate.faceCents) * 100n).toBeGreaterThanOrEqual(
          BigInt(face) * BigInt(rate.costCents) * BigInt(100 + SAFETY_MARGIN_PERCENT),
        );
        // ... and by less than a cent.
        expect(BigInt(judged - 1) * BigInt(rate.faceCents) * 100n).toBeLessThan(
          BigInt(face) * BigInt(rate.costCents) * BigInt(100 + SAFETY_MARGIN_PERCENT),
        );
      }),
    );
  });

  it('covers the actual charge whenever the rate rose by at most the margin since it was learned (property)', () => {
    fc.assert(
      fc.property(
        rateArb,
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (rate, faceUnits, share) => {
          const face = faceUnits * rate.unit * 100;
          // The rate at ordering: anything from 0 up to the learned rate plus the margin (micro-units, floored).
          const ceiling =
            (BigInt(rate.costCents) * 1_000_000n * BigInt(100 + SAFETY_MARGIN_PERCENT)) /
            (BigInt(rate.faceCents) * 100n);
          const moved = BigInt(Math.floor(Number(ceiling) * share));
          expect(charged(face, moved)).toBeLessThanOrEqual(judgedAtRate(face, rate));
        },
      ),
    );
  });

  it('is rounded up to the cent, in 2-decimal currencies and in yen', () => {
    // £20 charged $25.40 (1.27): £50 costs $63.50, judged $66.675 -> $66.68.
    const gbp = learned('GBP', 2000, 2540);
    expect([costAtRate(5000, gbp), judgedAtRate(5000, gbp)]).toEqual([6350, 6668]);
    // ¥1,000 charged $6.70 (0.0067): ¥5,000 costs $33.50, judged $35.175 -> $35.18.
    const jpy = learned('JPY', 100_000, 670);
    expect([costAtRate(500_000, jpy), judgedAtRate(500_000, jpy)]).toEqual([3350, 3518]);
    // €0.50 x 1.085 = $0.5425: the estimate rounds as the API does ($0.54), the judged cost up ($0.57).
    const eur = learned('EUR', 10_000, 10_850);
    expect([costAtRate(50, eur), judgedAtRate(50, eur)]).toEqual([54, 57]);
  });
});

describe('the estimate', () => {
  it('of a USD product is its face value, exact, no margin', () => {
    expect(estimateFromRate('USD', 2500, undefined, NOW)).toEqual({
      basis: 'exact',
      estimateCents: 2500,
      judgedCents: 2500,
    });
  });

  it('of a currency with a learned rate carries the rate, its age and the judged cost', () => {
    expect(estimateFromRate('GBP', 5000, learned('GBP', 2000, 2540, 3), NOW)).toEqual({
      basis: 'learned',
      estimateCents: 6350,
      judgedCents: 6668,
      learnedAt: new Date('2026-12-03T09:00:00Z'),
      rateAgeMs: 3 * 3_600_000,
      usdPerUnit: '1.27',
    });
  });

  it('is unknown without a rate for that currency', () => {
    expect(estimateFromRate('GBP', 5000, undefined, NOW)).toEqual({ basis: 'unknown' });
    expect(estimateFromRate('EUR', 5000, learned('GBP', 2000, 2540), NOW)).toEqual({ basis: 'unknown' });
    expect(estimateFromRate('GBP', 5000, learned('GBP', 0, 2540), NOW)).toEqual({ basis: 'unknown' });
  });

  it('shows the rate as USD per unit', () => {
    expect(usdPerUnit({ faceCents: 2000, costCents: 2540 })).toBe('1.27');
    expect(usdPerUnit({ faceCents: 100_000, costCents: 670 })).toBe('0.0067');
    expect(usdPerUnit({ faceCents: 7000, costCents: 9188 })).toBe('1.312571');
    expect(usdPerUnit({ faceCents: 1000, costCents: 2000 })).toBe('2');
  });
});
