// "Has this inbound event been handled already?" answered once across every instance: the first
// insert of (workspace, event id) wins. Used for Slack Events API deliveries, which Slack redelivers
// (same event_id) when an attempt seemed to fail, over HTTP and Socket Mode alike.
import { lt } from 'drizzle-orm';

import type { Database } from '../../db/client.js';
import { eventReceipts } from '../../db/schema/index.js';

const KEEP_MS = 24 * 60 * 60 * 1000;
const PRUNE_EVERY_MS = 60 * 60 * 1000;

export function createEventReceipts(db: Database, now: () => Date = () => new Date()) {
  let lastPrune = 0;
  return {
    /** True for the first receipt of this event in this workspace, false for every redelivery. */
    async first(key: { teamId: string; eventId: string }): Promise<boolean> {
      const at = now();
      if (at.getTime() - lastPrune > PRUNE_EVERY_MS) {
        lastPrune = at.getTime();
        await db.delete(eventReceipts).where(lt(eventReceipts.receivedAt, new Date(at.getTime() - KEEP_MS)));
      }
      const inserted = await db
        .insert(eventReceipts)
        .values({ teamId: key.teamId, eventId: key.eventId, receivedAt: at })
        .onConflictDoNothing()
        .returning({ eventId: eventReceipts.eventId });
      return inserted.length > 0;
    },
  };
}

export type EventReceipts = ReturnType<typeof createEventReceipts>;
