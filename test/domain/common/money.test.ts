import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  centsToDecimal,
  checkAmountInRange,
  formatUsd,
  parseWholeDollars,
  totalCents,
} from '../../../src/domain/common/money.js';

describe('amounts', () => {
  it('accepts whole dollars in the forms people type', () => {
    expect(parseWholeDollars('25')).toEqual({ ok: true, cents: 2500 });
    expect(parseWholeDollars(' $1,000 ')).toEqual({ ok: true, cents: 100_000 });
    expect(parseWholeDollars('25.00')).toEqual({ ok: true, cents: 2500 });
  });

  it('refuses cents, zero, negatives and text', () => {
    for (const input of ['25.50', '0', '-5', 'ten', '', '1e3', '25.']) {
      expect(parseWholeDollars(input).ok).toBe(false);
    }
    expect(parseWholeDollars('25.50')).toMatchObject({
      code: 'not_whole_dollars',
      message: expect.stringContaining('whole dollars'),
    });
    expect(parseWholeDollars('0')).toMatchObject({ code: 'amount_too_small' });
    expect(parseWholeDollars('')).toMatchObject({ code: 'amount_missing' });
    expect(parseWholeDollars('ten')).toMatchObject({ code: 'not_a_number' });
  });

  it('any whole-dollar amount inside [min, max] passes, anything outside fails (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 1, max: 2000 }),
        (a, b, dollars) => {
          const range = { minCents: Math.min(a, b) * 100, maxCents: Math.max(a, b) * 100 };
          const parsed = parseWholeDollars(String(dollars));
          expect(parsed).toEqual({ ok: true, cents: dollars * 100 });
          const inside = dollars * 100 >= range.minCents && dollars * 100 <= range.maxCents;
          expect(checkAmountInRange(dollars * 100, range)).toMatchObject(
            inside
              ? { ok: true }
              : { ok: false, code: dollars * 100 < range.minCents ? 'amount_too_small' : 'amount_too_large' },
          );
        },
      ),
    );
  });

  it('totals are exact integer cents, and print back exactly (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 500 }), fc.integer({ min: 1, max: 100 }), (dollars, people) => {
        const total = totalCents(dollars * 100, people);
        expect(Number.isInteger(total)).toBe(true);
        expect(centsToDecimal(total)).toBe(`${dollars * people}.00`);
        expect(formatUsd(total).replace(/[$,]/g, '')).toBe(String(dollars * people));
      }),
    );
    expect(formatUsd(123_456)).toBe('$1,234.56');
    expect(centsToDecimal(5)).toBe('0.05');
  });
});
