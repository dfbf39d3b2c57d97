import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { fromCents, normalizeDecimal, parseApiTimestamp, toApiDate, toCents } from '../../src/rewards/index.js';

describe('money', () => {
  it('converts decimal strings and JSON numbers to cents without float drift', () => {
    expect(toCents('25.10')).toBe(2510);
    expect(toCents(25.1)).toBe(2510);
    expect(toCents(0.29)).toBe(29); // 0.29 * 100 = 28.999999999999996 in floats
    expect(toCents('-3')).toBe(-300);
    expect(toCents(' 7.5 ')).toBe(750);
    expect(toCents('-0.00')).toBe(0);
  });

  it('refuses sub-cent precision unless asked to round half up', () => {
    expect(() => toCents('12.345')).toThrow(RangeError);
    expect(toCents('12.345', { rounding: 'half-up' })).toBe(1235);
    expect(toCents('12.344', { rounding: 'half-up' })).toBe(1234);
    expect(toCents('-12.345', { rounding: 'half-up' })).toBe(-1235);
    expect(toCents('12.3400')).toBe(1234);
  });

  it('refuses what is not an amount', () => {
    for (const bad of ['', 'abc', '1,5', '1e3', Number.NaN, Number.POSITIVE_INFINITY, 1e21]) {
      expect(() => toCents(bad)).toThrow(RangeError);
    }
  });

  it('formats cents exactly', () => {
    expect(fromCents(2510)).toBe('25.10');
    expect(fromCents(5)).toBe('0.05');
    expect(fromCents(-5)).toBe('-0.05');
    expect(fromCents(0)).toBe('0.00');
    expect(() => fromCents(1.5)).toThrow(RangeError);
  });

  it('normalises decimals to at least two places, keeping any extra precision', () => {
    expect(normalizeDecimal(25)).toBe('25.00');
    expect(normalizeDecimal('7.5')).toBe('7.50');
    expect(normalizeDecimal(12.345)).toBe('12.345');
    expect(normalizeDecimal('007.100')).toBe('7.10');
    expect(normalizeDecimal('-0')).toBe('0.00');
  });

  it('property: cents -> decimal string -> cents is the identity', () => {
    fc.assert(fc.property(fc.integer({ min: -1e13, max: 1e13 }), (cents) => toCents(fromCents(cents)) === cents));
  });

  it('property: a JSON number the API sends for an amount of whole cents converts exactly', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e11 }), (cents) => {
        const wire = JSON.parse(JSON.stringify(Number(fromCents(cents)))) as number; // as the API would send it
        return toCents(wire) === cents;
      }),
    );
  });

  it('property: summing in cents equals the decimal total', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 50_000 }), { maxLength: 50 }), (amounts) => {
        const total = amounts.reduce((sum, cents) => sum + toCents(fromCents(cents)), 0);
        return fromCents(total) === fromCents(amounts.reduce((a, b) => a + b, 0));
      }),
    );
  });
});

describe('timestamps', () => {
  it('reads a timestamp without offset as UTC, one with an offset as given', () => {
    expect(parseApiTimestamp('2026-11-22T04:40:00').toISOString()).toBe('2026-11-22T04:40:00.000Z');
    expect(parseApiTimestamp('2026-11-22T04:40:00.123').toISOString()).toBe('2026-11-22T04:40:00.123Z');
    expect(parseApiTimestamp('2026-11-22T04:40:00Z').toISOString()).toBe('2026-11-22T04:40:00.000Z');
    expect(parseApiTimestamp('2026-11-22T04:40:00-05:00').toISOString()).toBe('2026-11-22T09:40:00.000Z');
    expect(parseApiTimestamp('2026-11-22').toISOString()).toBe('2026-11-22T00:00:00.000Z');
    expect(() => parseApiTimestamp('yesterday')).toThrow(RangeError);
  });

  it('formats API dates as UTC days', () => {
    expect(toApiDate(new Date('2026-11-22T23:59:59Z'))).toBe('2026-11-22');
    expect(toApiDate('2026-01-02')).toBe('2026-01-02');
  });
});
