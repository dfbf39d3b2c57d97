/** Timestamp formats of the spec: orders and webhook envelopes without offset, the rest UTC with Z. */
export function isoNoOffset(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19);
}

export function isoUtc(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** `YYYY-MM-DD` of the UTC day. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function utcMonth(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

export function isValidTimeZone(tz: string): boolean {
  if (!tz.includes('/') && tz !== 'UTC' && tz !== 'Etc/UTC') return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Parses a calendar date `YYYY-MM-DD` strictly (rejects 2025-02-30). */
export function parseDay(s: string): string | undefined {
  const m = DATE_RE.exec(s);
  if (!m) return undefined;
  const d = new Date(`${s}T00:00:00Z`);
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== s) return undefined;
  return s;
}
