// The CSV writer of the admin's exports: RFC 4180 quoting, and the formula guard.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { csvCell, toCsv } from '../../../src/domain/common/csv.js';
import { detailsText } from '../../../src/domain/finance/csv-exports.js';
import { parseCsv } from '../../support/csv.js';

describe('csv', () => {
  it('quotes separators and quotes, and ends every line with CRLF', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(toCsv(['a', 'b'], [['1', 'no,\nthanks']])).toBe('a,b\r\n1,"no,\nthanks"\r\n');
  });

  it('neutralises spreadsheet formulas; plain numbers stay numbers', () => {
    expect(csvCell('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    for (const formula of ['+1+1', '-1+cmd', '@SUM(A1)', '\tx', '=1'])
      expect(csvCell(formula).replace(/^"/, '').startsWith("'")).toBe(true);
    expect(csvCell('-25.00')).toBe('-25.00');
    expect(csvCell('25.00')).toBe('25.00');
  });

  it('any cells read back as written, a formula with its guard', () => {
    const guarded = (c: string) => (/^[=+\-@\t\r]/.test(c) && !/^-?\d+(\.\d+)?$/.test(c) ? `'${c}` : c);
    fc.assert(
      fc.property(fc.array(fc.array(fc.string(), { minLength: 2, maxLength: 2 }), { maxLength: 5 }), (rows) => {
        expect(parseCsv(toCsv(['x', 'y'], rows))).toEqual([['x', 'y'], ...rows.map((r) => r.map(guarded))]);
      }),
    );
  });

  it('details in words and dollars, ids left out', () => {
    expect(
      detailsText({
        reason: 'Not now',
        totalCents: 15_000,
        orderId: 'OR-1',
        approvalThresholdCents: { from: 10_000, to: 20_000 },
      }),
    ).toBe('reason: Not now; total: 150.00; approval threshold: 100.00 to 200.00');
  });
});
