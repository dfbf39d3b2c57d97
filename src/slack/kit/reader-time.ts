// Times as people read them: Slack's date token shows each reader the moment in their own time zone
// and their own clock format ("Nov 22, 2026 at 5:30 AM", "Today at 5:30 AM"). Where a client cannot
// render the token (notifications, old clients, the simulator), the fallback shows the same moment in
// UTC, in the one format the app's own texts use ("Sun 22 Nov 2026, 05:30 UTC").
import { formatScheduled } from '../../domain/common/zoned-time.js';

/** A moment, in the reader's own time zone. */
export function readerTime(at: Date): string {
  const unix = Math.floor(at.getTime() / 1000);
  return `<!date^${unix}^{date_short_pretty} at {time}|${formatScheduled(at, 'UTC')}>`;
}
