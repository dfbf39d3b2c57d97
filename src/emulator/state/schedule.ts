import { formatInTimeZone, fromZonedTime, getTimezoneOffset } from '../../lib/date-fns-tz.js';
import { fail } from '../errors.js';
import { isValidTimeZone } from '../time.js';

const DATE_TIME_RE = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * The instant of a scheduled send. A `scheduledAt` with an offset (or Z) is that instant; one without
 * is a wall-clock time in `timezone` (IANA). Like java.time and Temporal's "compatible" rule: a wall
 * time that occurs twice (DST overlap) is the earlier instant; one that does not exist (DST gap) is
 * moved forward by the length of the gap (02:30 on a spring-forward night becomes 03:30).
 */
export function resolveSendAt(scheduledAt: string, timezone: string): number {
  if (!isValidTimeZone(timezone))
    throw fail.validation(`timezone "${timezone}" is not an IANA time zone name`, { field: 'sendTiming.timezone' });
  const m = DATE_TIME_RE.exec(scheduledAt);
  if (!m)
    throw fail.validation('sendTiming.scheduledAt must be an ISO-8601 date-time', { field: 'sendTiming.scheduledAt' });
  const [, day, time, offset] = m;
  const probe = new Date(`${day}T${time!.length === 5 ? `${time}:00` : time}Z`);
  if (Number.isNaN(probe.getTime()) || probe.toISOString().slice(0, 10) !== day) {
    throw fail.validation('sendTiming.scheduledAt is not a valid date-time', { field: 'sendTiming.scheduledAt' });
  }
  if (offset) {
    const normalized = /^[+-]\d{4}$/.test(offset) ? `${offset.slice(0, 3)}:${offset.slice(3)}` : offset.toUpperCase();
    const ms = Date.parse(`${day}T${time}${normalized}`);
    if (Number.isNaN(ms))
      throw fail.validation('sendTiming.scheduledAt is not a valid date-time', { field: 'sendTiming.scheduledAt' });
    return ms;
  }
  const wall = `${day}T${time!.length === 5 ? `${time}:00` : time}`;
  const guess = fromZonedTime(wall, timezone).getTime();
  if (formatInTimeZone(guess, timezone, "yyyy-MM-dd'T'HH:mm:ss") === wall.slice(0, 19)) return guess;
  // In a gap: read the wall time with the offset in force before the transition.
  const offsetBefore = getTimezoneOffset(timezone, new Date(guess - 6 * 3600_000));
  return Date.parse(`${wall}Z`) - offsetBefore;
}
