// What people read about a card's amount (src/domain/branded/card-amounts.ts): a choice card as
// always, a branded card by its face and brand with its USD beside it (actual, about, or known after
// ordering), per person and in all.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  brandedCardName,
  brandedFace,
  type CardAmountColumns,
  faceAmount,
  faceDecimal,
  USD_KNOWN_AFTER_ORDERING,
  usdInAll,
  valueEach,
  valueInAll,
} from '../../../src/domain/branded/card-amounts.js';
import { formatFace, minorUnitCents } from '../../../src/domain/branded/currency.js';
import { formatUsd } from '../../../src/domain/common/money.js';

const choice = (amountCents = 2500): CardAmountColumns => ({
  cardType: 'CHOICE_CARD',
  designName: 'Thank You',
  amountCents,
  faceCurrency: null,
  faceCents: null,
  costCents: null,
  usdBasis: null,
});

/** A £25 Tesco Gift Card judged at $33.34 (a learned 1.27 plus the 5% margin), not yet charged. */
const tesco = (overrides: Partial<CardAmountColumns> = {}): CardAmountColumns => ({
  cardType: 'BRANDED_CARD',
  designName: 'Tesco Gift Card',
  amountCents: 3334,
  faceCurrency: 'GBP',
  faceCents: 2500,
  costCents: null,
  usdBasis: 'learned',
  ...overrides,
});

describe('a choice card', () => {
  it('reads as today: its dollars, per person and in all', () => {
    expect(brandedFace(choice())).toBeNull();
    expect(valueEach(choice())).toBe('$25');
    expect(valueInAll(choice(), 3)).toBe('$75');
    expect(usdInAll(choice(), 3)).toBe('$75');
  });

  it('is never told apart from formatUsd, whatever the amount', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000 }), fc.integer({ min: 1, max: 1000 }), (dollars, n) => {
        expect(valueEach(choice(dollars * 100))).toBe(formatUsd(dollars * 100));
        expect(valueInAll(choice(dollars * 100), n)).toBe(formatUsd(dollars * 100 * n));
      }),
    );
  });
});

describe('a branded card', () => {
  it('names its face value and brand', () => {
    expect(brandedCardName(brandedFace(tesco())!)).toBe('£25 Tesco Gift Card');
    expect(faceAmount(brandedFace(tesco({ faceCurrency: 'JPY', faceCents: 100_000 }))!)).toBe('¥1,000');
  });

  it('before it is charged: the judged estimate, to the dollar', () => {
    expect(valueEach(tesco())).toBe('£25 (about $33)');
    expect(valueInAll(tesco(), 2)).toBe('£50 (about $67)');
    expect(usdInAll(tesco(), 2)).toBe('about $67');
  });

  it('once charged: the actual cost, to the cent', () => {
    const charged = tesco({ costCents: 6350 });
    expect(valueInAll(charged, 2)).toBe('£50 ($63.50)');
    expect(valueEach(charged, 2)).toBe('£25 ($31.75)');
    // An uneven share is not any one card's cost.
    expect(valueEach(tesco({ costCents: 9526 }), 3)).toBe('£25 (about $32)');
  });

  it('a currency never ordered: no USD figure, the cost is known after ordering', () => {
    const unknown = tesco({ usdBasis: 'unknown' });
    expect(valueEach(unknown)).toBe(`£25 (${USD_KNOWN_AFTER_ORDERING})`);
    expect(usdInAll(unknown, 4)).toBe('USD cost known after ordering');
    expect(valueInAll(tesco({ usdBasis: 'unknown', costCents: 12700 }), 4)).toBe('£100 ($127)');
  });

  it('a USD brand is its own cost: nothing beside it', () => {
    const airbnb = tesco({ designName: 'Airbnb Gift Card', faceCurrency: 'USD', faceCents: 5000, amountCents: 5000 });
    expect(valueEach(airbnb)).toBe('$50');
    expect(valueInAll(airbnb, 2)).toBe('$100');
  });

  it('a small estimate keeps its cents rather than reading "about $0"', () => {
    expect(usdInAll(tesco({ faceCurrency: 'JPY', faceCents: 10_000, amountCents: 71 }), 1)).toBe('about $0.71');
  });
});

const currencyArb = fc.constantFrom('GBP', 'EUR', 'JPY', 'CAD', 'INR');
const brandedArb = fc
  .record({
    currency: currencyArb,
    units: fc.integer({ min: 1, max: 100_000 }),
    judged: fc.integer({ min: 1, max: 10_000_000 }),
    basis: fc.constantFrom('learned', 'unknown', 'exact', null),
    cost: fc.option(fc.integer({ min: 1, max: 100_000_000 }), { nil: null }),
  })
  .map(({ currency, units, judged, basis, cost }) =>
    tesco({
      faceCurrency: currency,
      faceCents: units * minorUnitCents(currency),
      amountCents: judged,
      usdBasis: basis,
      costCents: cost,
    }),
  );

describe('properties', () => {
  it('N cards in a currency total N times the face, formatted as the currency formats it', () => {
    fc.assert(
      fc.property(brandedArb, fc.integer({ min: 1, max: 1000 }), (row, n) => {
        const total = formatFace(row.faceCents! * n, row.faceCurrency!);
        expect(faceAmount(brandedFace(row)!, n)).toBe(total);
        expect(valueInAll(row, n).startsWith(total)).toBe(true);
      }),
    );
  });

  it('never shows a USD figure while the basis is unknown and nothing is charged', () => {
    fc.assert(
      fc.property(brandedArb, fc.integer({ min: 1, max: 1000 }), (row, n) => {
        const unknown = { ...row, usdBasis: 'unknown', costCents: null };
        const faces = [
          formatFace(row.faceCents!, row.faceCurrency!),
          formatFace(row.faceCents! * n, row.faceCurrency!),
        ];
        const withoutFaces = (text: string) => faces.reduce((rest, face) => rest.replace(face, ''), text);
        for (const text of [valueEach(unknown), valueInAll(unknown, n), usdInAll(unknown, n)])
          expect(withoutFaces(text)).not.toMatch(/\$\d/);
      }),
    );
  });

  it('a charged cost is shown exactly, never as "about"', () => {
    fc.assert(
      fc.property(brandedArb, fc.integer({ min: 1, max: 1000 }), (row, n) => {
        if (row.costCents === null) return;
        expect(usdInAll(row, n)).toBe(formatUsd(row.costCents));
      }),
    );
  });

  it('an estimate is within half a dollar of the judged cost', () => {
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 100_000_000 }), (judged) => {
        const text = usdInAll(tesco({ amountCents: judged }), 1);
        const cents = Number(text.replace(/^about \$/, '').replace(/,/g, '')) * 100;
        expect(Math.abs(cents - judged)).toBeLessThanOrEqual(50);
      }),
    );
  });
});

describe('a face value in a CSV cell', () => {
  it('is a plain decimal with the currency’s decimals', () => {
    expect(faceDecimal(2500, 'GBP')).toBe('25.00');
    expect(faceDecimal(2550, 'EUR')).toBe('25.50');
    expect(faceDecimal(100_000, 'JPY')).toBe('1000');
  });
});
