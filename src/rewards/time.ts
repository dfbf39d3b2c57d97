// Timestamps of the Rewards API.
//
// The spec says order and webhook timestamps are "ISO-8601 without offset" (e.g. "2026-11-22T04:40:00"),
// and funding/ledger timestamps are UTC. A timestamp without offset is read as UTC: that is what the
// service means by its other "ISO-8601 UTC" fields, and reading it in the local zone would make the
// result depend on the machine running the app. A timestamp with `Z` or an offset is read as given.

const HAS_OFFSET = /(?:Z|[+-]\d{2}(?::?\d{2})?)$/i;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?/;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** Parses an API timestamp to a Date; no offset means UTC. Returns undefined if unparseable. */
export function tryParseApiTimestamp(value: string): Date | undefined {
  const text = value.trim();
  let iso: string;
  if (DATE_ONLY.test(text)) iso = `${text}T00:00:00Z`;
  else if (DATE_TIME.test(text)) iso = HAS_OFFSET.test(text) ? text.replace(' ', 'T') : `${text.replace(' ', 'T')}Z`;
  else return undefined;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** Parses an API timestamp to a Date; no offset means UTC. Throws a RangeError if unparseable. */
export function parseApiTimestamp(value: string): Date {
  const date = tryParseApiTimestamp(value);
  if (!date) throw new RangeError(`Not an ISO-8601 timestamp: ${JSON.stringify(value)}`);
  return date;
}

/** `YYYY-MM-DD` (UTC calendar day) for date filters such as `startDate`; strings pass through. */
export function toApiDate(value: Date | string): string {
  return typeof value === 'string' ? value : value.toISOString().slice(0, 10);
}
