// The point after which nothing more is posted about what happened so far: every stored webhook event
// processed, every notice recorded in the outbox posted (or refused for good) and, with `checks`,
// every completion check closed. A test that counts messages ("posted once", "nothing more") counts
// them after this, instead of after a pause. Each part happens promptly once its cause did (the
// outbox's paced notices at their turn), so the bound is only a hang guard.
import type { Database } from '../../src/db/client.js';
import { notifications, orderChecks, webhookEvents } from '../../src/db/schema/index.js';
import { eventually } from './app.js';

export async function noticesSettled(db: Database, opts: { checks?: boolean; timeoutMs?: number } = {}): Promise<void> {
  await eventually(async () => {
    const [events, notices, checks] = await Promise.all([
      db.select().from(webhookEvents),
      db.select().from(notifications),
      opts.checks ? db.select().from(orderChecks) : [],
    ]);
    const open = {
      events: events.filter((e) => !e.processedAt).length,
      notices: notices.filter((n) => !n.postedAt && !n.failedAt).length,
      checks: checks.filter((c) => !c.doneAt).length,
    };
    if (open.events + open.notices + open.checks === 0) return true;
    throw new Error(`still open: ${JSON.stringify(open)}`);
  }, opts.timeoutMs ?? 30_000);
}
