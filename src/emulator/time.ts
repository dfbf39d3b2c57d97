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

/** The UTC day or month holding `ms`, as [fromMs, toMs): what spending limits add up, compared as numbers. */
export function utcPeriodBounds(ms: number, period: 'day' | 'month'): { fromMs: number; toMs: number } {
  const at = new Date(ms);
  const [y, m, d] = [at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()];
  return period === 'day'
    ? { fromMs: Date.UTC(y, m, d), toMs: Date.UTC(y, m, d + 1) }
    : { fromMs: Date.UTC(y, m, 1), toMs: Date.UTC(y, m + 1, 1) };
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
