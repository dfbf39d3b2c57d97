import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  celebrationDateIn,
  celebrationRuns,
  fillTemplate,
  isLeapYear,
  lastWorkingDay,
  recurrenceRuns,
} from '../../../src/domain/automations/automation-dates.js';
import { MAX_CSV_ROWS, parseBirthday, parseCelebrationCsv } from '../../../src/domain/automations/celebration-csv.js';

describe('celebration dates', () => {
  it('February 29 is the 28th outside leap years (property: always a real date of that year)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1901, max: 2399 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 31 }),
        (year, month, day) => {
          const monthDay = `${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
          const date = celebrationDateIn(monthDay, year);
          if (monthDay === '02-29') expect(date).toBe(isLeapYear(year) ? `${year}-02-29` : `${year}-02-28`);
          else expect(date).toBe(`${year}-${monthDay}`);
        },
      ),
    );
  });

  it('9:00 local: Tokyo’s is the previous evening in UTC, New York’s moves with daylight saving', () => {
    const window = { from: new Date('2027-01-01T00:00:00Z'), to: new Date('2028-01-01T00:00:00Z') };
    expect(
      celebrationRuns({ kind: 'birthday', date: '03-15', zone: 'Asia/Tokyo', ...window })[0]!.dueAt.toISOString(),
    ).toBe('2027-03-15T00:00:00.000Z');
    expect(
      celebrationRuns({ kind: 'birthday', date: '01-15', zone: 'America/New_York', ...window })[0]!.dueAt.toISOString(),
    ).toBe('2027-01-15T14:00:00.000Z');
    expect(
      celebrationRuns({ kind: 'birthday', date: '07-15', zone: 'America/New_York', ...window })[0]!.dueAt.toISOString(),
    ).toBe('2027-07-15T13:00:00.000Z');
  });

  it('anniversaries start a year after the start date and count whole years', () => {
    const runs = celebrationRuns({
      kind: 'anniversary',
      date: '2026-05-04',
      zone: 'UTC',
      from: new Date('2026-01-01T00:00:00Z'),
      to: new Date('2029-01-01T00:00:00Z'),
    });
    expect(runs.map((r) => [r.localDate, r.years])).toEqual([
      ['2027-05-04', 1],
      ['2028-05-04', 2],
    ]);
  });

  it('last working day of the month is a weekday and no weekday follows it in the month (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2000, max: 2100 }), fc.integer({ min: 1, max: 12 }), (year, month) => {
        const day = lastWorkingDay(year, month);
        const weekday = new Date(Date.UTC(year, month - 1, day)).getUTCDay();
        expect(weekday).not.toBe(0);
        expect(weekday).not.toBe(6);
        for (let d = day + 1; d <= new Date(Date.UTC(year, month, 0)).getUTCDate(); d++)
          expect([0, 6]).toContain(new Date(Date.UTC(year, month - 1, d)).getUTCDay());
      }),
    );
  });

  it('a weekly series runs once a week, at its wall time across a daylight-saving change', () => {
    const runs = recurrenceRuns(
      {
        cadence: 'weekly',
        weekday: 1,
        timeOfDay: '09:30',
        timezone: 'Europe/Berlin',
        startsAt: new Date('2027-03-01T00:00:00Z'),
      },
      new Date('2027-03-15T00:00:00Z'),
      new Date('2027-04-06T00:00:00Z'),
    );
    expect(runs.map((r) => r.dueAt.toISOString())).toEqual([
      '2027-03-15T08:30:00.000Z',
      '2027-03-22T08:30:00.000Z',
      '2027-03-29T07:30:00.000Z',
      '2027-04-05T07:30:00.000Z',
    ]);
  });

  it('templates fill {name} and {years} and leave other braces alone', () => {
    expect(fillTemplate('{years} years, {name}! {other}', { name: 'Eli', years: 3 })).toBe('3 years, Eli! {other}');
  });
});

describe('the CSV parser', () => {
  it('refuses a file of 100,000 rows whole, saying how many it may have', () => {
    const text = ['email,birthday,start_date', ...Array.from({ length: 100_000 }, (_, i) => `p${i}@x.io,01-01,`)].join(
      '\n',
    );
    const parsed = parseCelebrationCsv(text, '2026-11-25');
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.message).toMatch(/KB|at most/);
    const justOver = [
      'email,birthday,start_date',
      ...Array.from({ length: MAX_CSV_ROWS + 1 }, (_, i) => `p${i}@x.io,01-01,`),
    ].join('\n');
    const over = parseCelebrationCsv(justOver, '2026-11-25');
    expect(over).toMatchObject({ ok: false, code: 'too_many_rows' });
    expect(over.ok ? '' : over.message).toBe(
      `The file has ${MAX_CSV_ROWS + 1} rows; at most ${MAX_CSV_ROWS} per upload. Nothing was imported.`,
    );
  });

  it('needs the header, rows, and valid CSV', () => {
    expect(parseCelebrationCsv('mail,bday\na@b.co,01-01', '2026-11-25')).toMatchObject({
      ok: false,
      code: 'bad_header',
      message: expect.stringMatching(/header/),
    });
    expect(parseCelebrationCsv('email,birthday,start_date\n', '2026-11-25')).toMatchObject({
      ok: false,
      code: 'no_rows',
      message: expect.stringMatching(/no rows/),
    });
    expect(parseCelebrationCsv('email,birthday,start_date\n"a@b.co,01-01,', '2026-11-25')).toMatchObject({
      ok: false,
      code: 'not_csv',
      message: expect.stringMatching(/not valid CSV/),
    });
  });

  it('reads birthdays with or without a year, and refuses impossible ones', () => {
    expect(parseBirthday('1992-02-29')).toBe('02-29');
    expect(parseBirthday('02-29')).toBe('02-29');
    expect(parseBirthday('--12-31')).toBe('12-31');
    expect(parseBirthday('1993-02-29')).toEqual({
      error: 'birthday "1993-02-29" is not a date (1993 is not a leap year)',
    });
    expect(parseBirthday('13-01')).toMatchObject({ error: expect.stringMatching(/no month 13/) });
    expect(parseBirthday('04-31')).toMatchObject({ error: expect.stringMatching(/not a date/) });
  });
});
