// People's countries without a database: a country as people write it, which brands suit whom, the
// inline error naming who a brand does not suit, and the countries CSV checked row by row.
import fc from 'fast-check';
import countries from 'i18n-iso-countries';
import { describe, expect, it } from 'vitest';

import {
  brandSuitsCountry,
  countryInWords,
  countryMismatch,
  parseCountry,
} from '../../../src/domain/workspaces/people-countries.js';
import { MAX_COUNTRIES_CSV_ROWS, parseCountriesCsv } from '../../../src/domain/workspaces/people-countries-csv.js';

const ALPHA3 = Object.keys(countries.getAlpha3Codes());
const anyCase = (text: string, flips: boolean[]) =>
  [...text].map((c, i) => (flips[i % flips.length] ? c.toLowerCase() : c.toUpperCase())).join('');

describe('parseCountry', () => {
  it('every ISO country, written as alpha-3 or alpha-2 in any case or by its English name, is stored as upper-case alpha-3', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ALPHA3), fc.array(fc.boolean(), { minLength: 1, maxLength: 3 }), (code, flips) => {
        expect(parseCountry(anyCase(code, flips))).toEqual({ ok: true, code });
        expect(parseCountry(` ${anyCase(countries.alpha3ToAlpha2(code)!, flips)} `)).toEqual({ ok: true, code });
        expect(parseCountry(countries.getName(code, 'en')!)).toEqual({ ok: true, code });
      }),
    );
  });

  it('knows common English names and aliases', () => {
    expect(parseCountry('United Kingdom')).toEqual({ ok: true, code: 'GBR' });
    expect(parseCountry('united kingdom')).toEqual({ ok: true, code: 'GBR' });
    expect(parseCountry('UK')).toEqual({ ok: true, code: 'GBR' });
    expect(parseCountry('United States')).toEqual({ ok: true, code: 'USA' });
    expect(parseCountry('Germany')).toEqual({ ok: true, code: 'DEU' });
  });

  it('refuses what is not a country with a plain reason', () => {
    expect(parseCountry('Atlantis')).toEqual({
      ok: false,
      reason: '"Atlantis" is not a country; write its name in English (Germany) or its ISO code (DE or DEU)',
    });
    expect(parseCountry('XX')).toMatchObject({ ok: false });
    expect(parseCountry('GLOBAL')).toMatchObject({ ok: false });
    expect(parseCountry('  ')).toEqual({ ok: false, reason: 'no country given' });
  });
});

describe('brandSuitsCountry', () => {
  const code = fc.constantFrom(...ALPHA3);
  it('GLOBAL and unspecified brands suit everyone; a person of no known country is offered every brand', () => {
    fc.assert(
      fc.property(fc.option(code, { nil: undefined }), fc.option(code, { nil: null }), (person, brand) => {
        expect(brandSuitsCountry('GLOBAL', person)).toBe(true);
        expect(brandSuitsCountry(null, person)).toBe(true);
        expect(brandSuitsCountry(brand, undefined)).toBe(true);
      }),
    );
  });

  it('otherwise a brand suits exactly the people of its country', () => {
    fc.assert(
      fc.property(code, code, (brand, person) => {
        expect(brandSuitsCountry(brand, person)).toBe(brand === person);
        expect(brandSuitsCountry(brand.toLowerCase(), person)).toBe(brand === person);
      }),
    );
  });
});

describe('countryMismatch', () => {
  const tesco = { name: 'Tesco Gift Card', countryCode: 'GBR' };
  it('names the recipients the brand does not suit, and the brand’s country in words', () => {
    const mismatch = countryMismatch(tesco, [
      { userId: 'U1', name: 'Ada', country: 'GBR' },
      { userId: 'U2', name: 'Eli', country: 'DEU' },
      { userId: 'U3', name: 'Noor', country: undefined },
    ]);
    expect(mismatch?.unsuited.map((r) => r.userId)).toEqual(['U2']);
    expect(mismatch?.message).toBe(
      'Tesco Gift Card is for the United Kingdom; Eli (Germany) cannot use it. Pick a brand for everyone, or a choice card.',
    );
  });

  it('lists two with "and", and more than three as a count', () => {
    const person = (name: string, country: string) => ({ userId: name, name, country });
    expect(countryMismatch(tesco, [person('Eli', 'DEU'), person('Sam', 'FRA')])?.message).toContain(
      'Eli (Germany) and Sam (France) cannot use it',
    );
    const five = ['A', 'B', 'C', 'D', 'E'].map((n) => person(n, 'JPN'));
    expect(countryMismatch(tesco, five)?.message).toContain('A (Japan), B (Japan), C (Japan) and 2 others cannot');
  });

  it('is undefined when the brand suits everyone', () => {
    expect(countryMismatch(tesco, [{ userId: 'U1', name: 'Ada', country: 'GBR' }])).toBeUndefined();
    expect(
      countryMismatch({ name: 'Amazon', countryCode: 'GLOBAL' }, [{ userId: 'U', name: 'E', country: 'DEU' }]),
    ).toBeUndefined();
  });

  it('says "the" before names that take it', () => {
    expect(countryInWords('USA')).toBe('the United States of America');
    expect(countryInWords('NLD')).toBe('the Netherlands');
    expect(countryInWords('FRA')).toBe('France');
  });
});

describe('parseCountriesCsv', () => {
  it('checks each row on its own: person by e-mail or Slack ID, country by name or code', () => {
    const parsed = parseCountriesCsv(
      [
        'email,country',
        'Ada@Example.com,United Kingdom',
        'U0ELI,de',
        'not-a-person,FRA',
        'sam@example.com,Atlantis',
        'ada@example.com,GBR',
        'noor@example.com,NLD,extra',
      ].join('\n'),
    );
    expect(parsed).toEqual({
      ok: true,
      rows: [
        { line: 2, person: { email: 'ada@example.com' }, countryCode: 'GBR' },
        { line: 3, person: { slackUserId: 'U0ELI' }, countryCode: 'DEU' },
      ],
      rejected: [
        { line: 4, person: 'not-a-person', reason: '"not-a-person" is neither an e-mail address nor a Slack user ID' },
        {
          line: 5,
          person: 'sam@example.com',
          reason: '"Atlantis" is not a country; write its name in English (Germany) or its ISO code (DE or DEU)',
        },
        { line: 6, person: 'ada@example.com', reason: 'duplicate of line 2' },
        { line: 7, person: 'noor@example.com', reason: '3 fields; expected 2' },
      ],
    });
  });

  it('accepts the slack_user_id header and a BOM', () => {
    expect(parseCountriesCsv('\uFEFFslack_user_id,country\nU0ADA,GB\n')).toMatchObject({ ok: true, rows: [{}] });
  });

  it('refuses a whole file without the header, without rows, with too many rows or too large', () => {
    expect(parseCountriesCsv('person,land\nada@example.com,GB')).toMatchObject({ ok: false, code: 'bad_header' });
    expect(parseCountriesCsv('email,country\n')).toMatchObject({ ok: false, code: 'no_rows' });
    const many = ['email,country', ...Array.from({ length: MAX_COUNTRIES_CSV_ROWS + 1 }, (_, i) => `p${i}@x.co,GB`)];
    expect(parseCountriesCsv(many.join('\n'))).toMatchObject({ ok: false, code: 'too_many_rows' });
    expect(parseCountriesCsv('email,country\n' + 'x'.repeat(600 * 1024))).toMatchObject({
      ok: false,
      code: 'too_large',
    });
    expect(parseCountriesCsv('email,country\n"ada@example.com,GB')).toMatchObject({ ok: false, code: 'not_csv' });
  });
});
