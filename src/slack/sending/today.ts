// Today's date in a zone for prefilling the send form's date picker, computed once per zone per
// minute: formatting through date-fns-tz costs ~50 µs (Intl parts, offset parsing), paid by every
// `/kudos` otherwise (~5% of the app's CPU under `/kudos` load). Exact: every zone in use today is
// offset from UTC by whole minutes, so a local date only changes at the start of a UTC minute.
import { LRUCache } from 'lru-cache';

import { todayIn } from '../../domain/common/zoned-time.js';

const MINUTE_MS = 60_000;
// Zone names come from Slack profiles: bounded anyway.
const byZone = new LRUCache<string, { day: string; minute: number }>({ max: 1000 });

export function todayInCached(timezone: string, now: Date): string {
  const minute = Math.floor(now.getTime() / MINUTE_MS);
  const hit = byZone.get(timezone);
  if (hit && hit.minute === minute) return hit.day;
  const day = todayIn(timezone, now);
  byZone.set(timezone, { day, minute });
  return day;
}
