import { formatInTimeZone } from 'date-fns-tz';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { resolveSchedule } from '../../../src/domain/common/zoned-time.js';

const NOW = new Date('2027-01-01T12:00:00Z');

describe('resolveSchedule', () => {
  it('reads the wall time in the sender’s zone and keeps the offset for the API', () => {
    const r = resolveSchedule({ date: '2027-02-01', time: '09:00', timezone: 'Asia/Tokyo', now: NOW });
    expect(r).toMatchObject({
      ok: true,
      schedule: { timezone: 'Asia/Tokyo', wallTimeWithOffset: '2027-02-01T09:00:00+09:00' },
    });
    if (r.ok) expect(r.schedule.instant.toISOString()).toBe('2027-02-01T00:00:00.000Z');
  });

  it('handles the spring-forward day in New York: 01:59 is EST, 03:00 is EDT, 02:30 does not exist', () => {
    const at = (time: string) => resolveSchedule({ date: '2027-03-14', time, timezone: 'America/New_York', now: NOW });
    const before = at('01:59');
    const after = at('03:00');
    expect(before.ok && before.schedule.wallTimeWithOffset).toBe('2027-03-14T01:59:00-05:00');
    expect(after.ok && after.schedule.wallTimeWithOffset).toBe('2027-03-14T03:00:00-04:00');
    expect(after.ok && after.schedule.instant.toISOString()).toBe('2027-03-14T07:00:00.000Z');
    expect(at('02:30')).toMatchObject({
      ok: false,
      code: 'time_skipped',
      field: 'time',
      message: expect.stringContaining('does not exist'),
    });
  });

  it('reads a repeated fall-back hour as its first occurrence', () => {
    const r = resolveSchedule({ date: '2027-11-07', time: '01:30', timezone: 'America/New_York', now: NOW });
    expect(r.ok && r.schedule.wallTimeWithOffset).toBe('2027-11-07T01:30:00-04:00');
    expect(r.ok && r.schedule.instant.toISOString()).toBe('2027-11-07T05:30:00.000Z');
  });

  it('refuses times less than 10 minutes ahead, and missing pickers', () => {
    const nineMinutes = new Date(NOW.getTime() + 9 * 60_000);
    const date = formatInTimeZone(nineMinutes, 'Europe/Berlin', 'yyyy-MM-dd');
    const time = formatInTimeZone(nineMinutes, 'Europe/Berlin', 'HH:mm');
    expect(resolveSchedule({ date, time, timezone: 'Europe/Berlin', now: NOW })).toMatchObject({
      ok: false,
      code: 'too_soon',
      field: 'time',
    });
    expect(resolveSchedule({ date: undefined, time: '09:00', timezone: 'UTC', now: NOW })).toMatchObject({
      ok: false,
      code: 'date_missing',
      field: 'date',
    });
    expect(resolveSchedule({ date: '2027-02-01', time: null, timezone: 'UTC', now: NOW })).toMatchObject({
      ok: false,
      code: 'time_missing',
      field: 'time',
    });
  });

  it('round-trips: the instant shows the picked wall time in the zone, and the offset string denotes the same instant (property)', () => {
    const zones = [
      'America/New_York',
      'Europe/London',
      'Asia/Tokyo',
      'Australia/Sydney',
      'Asia/Kolkata',
      'America/Los_Angeles',
      'Pacific/Chatham',
      'UTC',
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.integer({ min: 1, max: 360 }),
        fc.integer({ min: 0, max: 23 }),
        fc.integer({ min: 0, max: 59 }),
        (zone, dayOffset, hour, minute) => {
          const day = new Date(NOW.getTime() + dayOffset * 86_400_000);
          const date = formatInTimeZone(day, zone, 'yyyy-MM-dd');
          const time = `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}`;
          const r = resolveSchedule({ date, time, timezone: zone, now: NOW });
          if (!r.ok) {
            // Only a wall time skipped by a clock change may be refused.
            expect(r.message).toContain('does not exist');
            return;
          }
          expect(formatInTimeZone(r.schedule.instant, zone, "yyyy-MM-dd'T'HH:mm")).toBe(`${date}T${time}`);
          expect(new Date(r.schedule.wallTimeWithOffset).getTime()).toBe(r.schedule.instant.getTime());
        },
      ),
      { numRuns: 300 },
    );
  });
});
