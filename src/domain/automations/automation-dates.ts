// When automations run, as pure functions of dates and IANA zones: a celebration at 9:00 in the
// celebrated person's own zone (February 29 falls on February 28 in other years), a recurring send
// weekly, monthly on a day (the month's last day when it is shorter) or on the month's last working
// day (Monday to Friday; public holidays are not known), at a wall time in the sender's zone.
import type { Cadence } from '../../db/schema/index.js';
import { formatInTimeZone, fromZonedTime } from '../../lib/date-fns-tz.js';
import { isValidTimeZone } from '../common/zoned-time.js';

export const CELEBRATION_HOUR = '09:00';
const DAY_MS = 86_400_000;

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

const pad = (n: number) => String(n).padStart(2, '0');

/** The local date (YYYY-MM-DD) of a month-day in `year`; Feb 29 is Feb 28 outside leap years. */
export function celebrationDateIn(monthDay: string, year: number): string {
  const [m, d] = monthDay.split('-').map(Number) as [number, number];
  const day = m === 2 && d === 29 && !isLeapYear(year) ? 28 : d;
  return `${year}-${pad(m)}-${pad(day)}`;
}

/** The instant of a wall time (HH:mm) on a local date in a zone (an unknown zone reads as UTC). */
export function instantAt(localDate: string, time: string, zone: string): Date {
  return fromZonedTime(`${localDate}T${time}:00`, isValidTimeZone(zone) ? zone : 'UTC');
}

export interface CelebrationRun {
  localDate: string;
  dueAt: Date;
  /** Whole years since the start date (anniversaries); undefined for birthdays. */
  years?: number;
}

/**
 * The runs of one person's celebration due within [from, to): a birthday (`MM-DD`) every year, a work
 * anniversary (`YYYY-MM-DD` start) from its first year on.
 */
export function celebrationRuns(input: {
  kind: 'birthday' | 'anniversary';
  date: string;
  zone: string;
  from: Date;
  to: Date;
}): CelebrationRun[] {
  const monthDay = input.kind === 'birthday' ? input.date.slice(-5) : input.date.slice(5);
  const startYear = input.kind === 'anniversary' ? Number(input.date.slice(0, 4)) : undefined;
  const runs: CelebrationRun[] = [];
  for (let year = input.from.getUTCFullYear() - 1; year <= input.to.getUTCFullYear() + 1; year++) {
    if (startYear !== undefined && year <= startYear) continue;
    const localDate = celebrationDateIn(monthDay, year);
    const dueAt = instantAt(localDate, CELEBRATION_HOUR, input.zone);
    if (dueAt < input.from || dueAt >= input.to) continue;
    runs.push({ localDate, dueAt, ...(startYear !== undefined ? { years: year - startYear } : {}) });
  }
  return runs;
}

export interface RecurrenceRule {
  cadence: Cadence;
  weekday?: number | null;
  dayOfMonth?: number | null;
  timeOfDay: string;
  timezone: string;
  startsAt: Date;
}

/** ISO weekday (1 = Monday … 7 = Sunday) of a YYYY-MM-DD date. */
function isoWeekday(localDate: string): number {
  const day = new Date(`${localDate}T00:00:00Z`).getUTCDay();
  return day === 0 ? 7 : day;
}

export function lastWorkingDay(year: number, month: number): number {
  let day = daysInMonth(year, month);
  while (isoWeekday(`${year}-${pad(month)}-${pad(day)}`) > 5) day--;
  return day;
}

export function matchesCadence(
  rule: Pick<RecurrenceRule, 'cadence' | 'weekday' | 'dayOfMonth'>,
  localDate: string,
): boolean {
  const [year, month, day] = localDate.split('-').map(Number) as [number, number, number];
  switch (rule.cadence) {
    case 'weekly':
      return isoWeekday(localDate) === rule.weekday;
    case 'monthly_day':
      return day === Math.min(rule.dayOfMonth ?? 1, daysInMonth(year, month));
    case 'last_working_day':
      return day === lastWorkingDay(year, month);
  }
}

/** The runs of a recurring send due within [from, to), never before the series starts. */
export function recurrenceRuns(rule: RecurrenceRule, from: Date, to: Date): CelebrationRun[] {
  const zone = isValidTimeZone(rule.timezone) ? rule.timezone : 'UTC';
  const runs: CelebrationRun[] = [];
  // Local dates a day either side of the window cover every zone offset.
  for (let t = from.getTime() - DAY_MS; t <= to.getTime() + DAY_MS; t += DAY_MS) {
    const localDate = formatInTimeZone(new Date(t), zone, 'yyyy-MM-dd');
    if (runs.some((r) => r.localDate === localDate) || !matchesCadence(rule, localDate)) continue;
    const dueAt = instantAt(localDate, rule.timeOfDay, zone);
    if (dueAt < from || dueAt >= to || dueAt < rule.startsAt) continue;
    runs.push({ localDate, dueAt });
  }
  return runs;
}

/** `{name}` and `{years}` filled in; anything else in braces is left as written. */
export function fillTemplate(template: string, values: { name: string; years?: number | undefined }): string {
  return template.replace(/\{(name|years)\}/g, (_, key: 'name' | 'years') =>
    key === 'name' ? values.name : values.years !== undefined ? String(values.years) : '',
  );
}
