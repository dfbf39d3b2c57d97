// Slack's Retry-After, run out by the test: after a 429 the app's schedule of that method stays
// blocked (slack_call_schedules.blocked_until) for Slack's Retry-After, a span of wall time. A test
// that means "once Slack has room again" ends the block instead of waiting that long.
import { sql } from 'drizzle-orm';

import { type Database, rowsOf } from '../../src/db/client.js';

/** Ends the 429 blocks of `method` (every workspace) now, as if Slack's Retry-After had passed; returns how many were blocked. */
export async function slackRetryAfterPassed(db: Database, method: string): Promise<number> {
  const ended = rowsOf<{ key: string }>(
    await db.execute(
      sql`update slack_call_schedules set blocked_until = now() where key = ${method} and blocked_until > now() returning key`,
    ),
  );
  return ended.length;
}
