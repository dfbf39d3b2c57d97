// The allowance arithmetic: what is left, never shown below zero; which allowance applies (a person's
// over their groups', the most generous group, else the default); the refusal's figures.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  allowanceLeftCents,
  allowanceLine,
  allowanceStanding,
  fitsAllowance,
  nextMonthStartUtc,
  overAllowanceMessage,
  resolveAllowance,
} from '../../../src/domain/sending/allowances.js';

const cents = fc.integer({ min: 0, max: 10_000_000 });
const allowance = fc.option(cents, { nil: null });

describe('allowance arithmetic', () => {
  it('left = allowance − counted, never below zero', () => {
    fc.assert(
      fc.property(cents, cents, (a, counted) => {
        const left = allowanceLeftCents(a, counted);
        expect(left).toBeGreaterThanOrEqual(0);
        expect(left).toBe(counted <= a ? a - counted : 0);
      }),
    );
  });

  it('a send fits exactly when it is at most what is left (no allowance: always)', () => {
    fc.assert(
      fc.property(allowance, cents, fc.integer({ min: 1, max: 1_000_000 }), (a, counted, total) => {
        const fits = fitsAllowance(a, counted, total);
        if (a === null) expect(fits).toBe(true);
        else expect(fits).toBe(counted <= a && total <= allowanceLeftCents(a, counted));
      }),
    );
  });

  it("a person's override wins over any group's and the default", () => {
    fc.assert(
      fc.property(allowance, allowance, fc.array(allowance, { maxLength: 5 }), (def, person, groups) => {
        expect(resolveAllowance(def, { cents: person }, groups)).toEqual({ cents: person, source: 'person' });
      }),
    );
  });

  it('of several groups the most generous wins (no limit beats any figure), over the default', () => {
    fc.assert(
      fc.property(allowance, fc.array(allowance, { minLength: 1, maxLength: 5 }), (def, groups) => {
        const resolved = resolveAllowance(def, undefined, groups);
        expect(resolved.source).toBe('usergroup');
        if (groups.includes(null)) expect(resolved.cents).toBeNull();
        else for (const g of groups) expect(resolved.cents!).toBeGreaterThanOrEqual(g!);
        expect(groups).toContain(resolved.cents);
      }),
    );
  });

  it('with no override, the default applies; no default: no allowance', () => {
    fc.assert(
      fc.property(allowance, (def) => {
        expect(resolveAllowance(def, undefined, [])).toEqual({ cents: def, source: def === null ? 'none' : 'default' });
      }),
    );
  });

  it('the refusal says by how much, what is left and until when', () => {
    const now = new Date('2026-12-20T12:00:00Z');
    expect(overAllowanceMessage({ allowanceCents: 10_000, countedCents: 7500, totalCents: 7500, now })).toBe(
      'That is $50 over your $100 monthly allowance; $25 is left until Jan 1. Send less, or ask a Kudos admin for a higher allowance.',
    );
    expect(overAllowanceMessage({ allowanceCents: 10_000, countedCents: 12_000, totalCents: 500, now })).toContain(
      'nothing is left until Jan 1',
    );
    fc.assert(
      fc.property(cents, cents, fc.integer({ min: 1, max: 1_000_000 }), (a, counted, total) => {
        fc.pre(counted + total > a);
        const message = overAllowanceMessage({ allowanceCents: a, countedCents: counted, totalCents: total, now });
        expect(message).not.toMatch(/-\$/); // never a negative figure
      }),
    );
  });

  it('the form line shows what is left, never a negative figure; none without an allowance', () => {
    const now = new Date('2026-02-10T00:00:00Z');
    expect(allowanceLine(allowanceStanding(10_000, 2500, now))).toMatch(/^You have \$75 left this month/);
    expect(allowanceLine(allowanceStanding(null, 2500, now))).toBeUndefined();
    fc.assert(
      fc.property(cents, cents, (a, counted) => {
        expect(allowanceLine(allowanceStanding(a, counted, now))).not.toMatch(/-\$/);
      }),
    );
  });

  it('allowances start again on the 1st of the next month, UTC', () => {
    expect(nextMonthStartUtc(new Date('2026-12-31T23:59:59Z')).toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(nextMonthStartUtc(new Date('2026-03-31T23:59:59-05:00')).toISOString()).toBe('2026-05-01T00:00:00.000Z');
  });
});
