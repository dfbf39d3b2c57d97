// Scheduled sends: a date and time picked in the SENDER's Slack time zone become one instant.
// The API receives that wall time with its UTC offset plus the IANA zone, so that reading
// `scheduledAt` either as an instant or as a wall time in `timezone` gives the same moment.
import { formatInTimeZone, fromZonedTime } from '../../lib/date-fns-tz.js';
import type { Refused } from './refusal.js';

/** A scheduled send must stay cancellable: the API allows cancelling until 10 minutes before. */
export const MIN_SCHEDULE_LEAD_MS = 10 * 60 * 1000;
/** And should not be absurdly far ahead. */
export const MAX_SCHEDULE_AHEAD_MS = 365 * 24 * 60 * 60 * 1000;

export interface ResolvedSchedule {
  instant: Date;
  timezone: string;
  /** e.g. 2027-03-14T03:30:00-04:00 */
  wallTimeWithOffset: string;
}

/** A refused schedule names the picker to fix, `date` or `time`. */
type ScheduleRefusal = Refused<
  'date_missing' | 'not_a_date' | 'time_missing' | 'not_a_time' | 'time_skipped' | 'too_soon' | 'too_far_ahead'
> & { field: 'date' | 'time' };

export type ScheduleResult = { ok: true; schedule: ResolvedSchedule } | ScheduleRefusal;

function refuse(code: ScheduleRefusal['code'], field: ScheduleRefusal['field'], message: string): ScheduleRefusal {
  return { ok: false, code, message, field };
}

export function isValidTimeZone(zone: string): boolean {
  // Building an Intl.DateTimeFormat costs ~0.1 ms and every /kudos asks (bench: 6% of its CPU);
  // the answer for a zone name never changes. Bounded: zone names come from Slack profiles.
  const known = validZones.get(zone);
  if (known !== undefined) return known;
  let valid: boolean;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    valid = true;
  } catch {
    valid = false;
  }
  if (validZones.size > 1000) validZones.clear();
  validZones.set(zone, valid);
  return valid;
}
const validZones = new Map<string, boolean>();

/**
 * Interprets `date` (YYYY-MM-DD) and `time` (HH:mm) as a wall time in `timezone`.
 * A wall time that does not exist (skipped by a spring-forward clock change) is refused;
 * an ambiguous one (repeated by a fall-back change) is read as its first occurrence.
 */
export function resolveSchedule(input: {
  date: string | null | undefined;
  time: string | null | undefined;
  timezone: string;
  now: Date;
}): ScheduleResult {
  const { date, time, timezone, now } = input;
  if (!date) return refuse('date_missing', 'date', 'Pick the date to send on.');
  if (!isCalendarDate(date))
    return refuse('not_a_date', 'date', 'That is not a date on the calendar; pick the date again.');
  if (!time) return refuse('time_missing', 'time', 'Pick the time to send at.');
  if (!/^([01]\d|2[0-3]):[0-5]\d$/.test(time))
    return refuse('not_a_time', 'time', 'That is not a time of day; pick the time again.');
  const zone = isValidTimeZone(timezone) ? timezone : 'UTC';
  const local = `${date}T${time}:00`;
  const instant = earliestInstantFor(local, zone);
  if (!instant) {
    return refuse(
      'time_skipped',
      'time',
      `${time} does not exist on ${date} in ${zone} (the clocks change); pick another time.`,
    );
  }
  const lead = instant.getTime() - now.getTime();
  if (lead < MIN_SCHEDULE_LEAD_MS) {
    return refuse(
      'too_soon',
      'time',
      `Pick a time at least 10 minutes from now (it is ${formatInTimeZone(now, zone, 'HH:mm')} in ${zone}).`,
    );
  }
  if (lead > MAX_SCHEDULE_AHEAD_MS) return refuse('too_far_ahead', 'date', 'Pick a date within the next year.');
  return {
    ok: true,
    schedule: {
      instant,
      timezone: zone,
      wallTimeWithOffset: formatInTimeZone(instant, zone, "yyyy-MM-dd'T'HH:mm:ssXXX"),
    },
  };
}

/** YYYY-MM-DD naming a day that exists (no 31 February). */
function isCalendarDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const parsed = new Date(Date.UTC(year, month - 1, day));
  return parsed.getUTCFullYear() === year && parsed.getUTCMonth() === month - 1 && parsed.getUTCDate() === day;
}

/** The earliest instant whose wall time in `zone` is `local` (YYYY-MM-DDTHH:mm:ss), or null if none. */
function earliestInstantFor(local: string, zone: string): Date | null {
  const candidate = fromZonedTime(local, zone);
  // Try the offsets in force an hour either side: covers both readings of an ambiguous time.
  const matches = [-3, -2, -1, 0, 1, 2, 3]
    .map((hours) => new Date(candidate.getTime() + hours * 3_600_000))
    .filter((instant) => formatInTimeZone(instant, zone, "yyyy-MM-dd'T'HH:mm:ss") === local);
  if (matches.length === 0) return null;
  return matches.reduce((a, b) => (a.getTime() <= b.getTime() ? a : b));
}

/** "Tue 14 Mar 2027, 03:30 EDT" in the given zone, for messages. */
export function formatScheduled(instant: Date, timezone: string): string {
  return formatInTimeZone(instant, timezone, 'EEE d MMM yyyy, HH:mm zzz');
}

/** Today's date (YYYY-MM-DD) in a zone, to prefill the date picker. */
export function todayIn(timezone: string, now: Date): string {
  return formatInTimeZone(now, isValidTimeZone(timezone) ? timezone : 'UTC', 'yyyy-MM-dd');
}

/** "2026-11-22 05:30 UTC". */
export function formatUtc(at: Date): string {
  return `${formatInTimeZone(at, 'UTC', 'yyyy-MM-dd HH:mm')} UTC`;
}
