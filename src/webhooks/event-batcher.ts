// Group commit for arriving events: while one INSERT is in flight, events that arrive meanwhile
// wait and go together in the next one (one round trip and one commit for many events). An idle
// receiver inserts at once, so batching adds no latency; under load it removes most of the
// per-event commits that would otherwise queue up. Each caller still learns whether ITS event was
// new (stored) or a redelivery.
import type { Database } from '../db/client.js';
import { webhookEvents } from '../db/schema/index.js';
import { eventValues, type IncomingEvent } from './event-store.js';

interface Waiting {
  event: IncomingEvent;
  resolve(result: { stored: boolean }): void;
  reject(error: unknown): void;
}

export interface EventBatcher {
  store(event: IncomingEvent): Promise<{ stored: boolean }>;
}

export function createEventBatcher(db: Database, opts: { maxBatch?: number; maxInFlight?: number } = {}): EventBatcher {
  const maxBatch = opts.maxBatch ?? 200;
  // One insert at a time: arrivals meanwhile make the next batch bigger (on PGlite, which runs one
  // query at a time anyway, a second insert in flight would only make both batches smaller).
  const maxInFlight = opts.maxInFlight ?? 1;
  const queue: Waiting[] = [];
  let inFlight = 0;

  async function flush(batch: Waiting[]): Promise<void> {
    // The first arrival of an eventId in the batch is the candidate; later copies are redeliveries.
    const firsts = new Map<string, Waiting>();
    for (const w of batch) if (!firsts.has(w.event.eventId)) firsts.set(w.event.eventId, w);
    try {
      const inserted = await db
        .insert(webhookEvents)
        .values([...firsts.values()].map(({ event }) => eventValues(event)))
        .onConflictDoNothing({ target: webhookEvents.eventId })
        .returning({ eventId: webhookEvents.eventId });
      const stored = new Set(inserted.map((row) => row.eventId));
      for (const w of batch) w.resolve({ stored: firsts.get(w.event.eventId) === w && stored.has(w.event.eventId) });
    } catch (error) {
      // One bad event must not fail its neighbours: retry them one by one.
      if (firsts.size > 1) {
        for (const first of firsts.values()) {
          const copies = batch.filter((w) => w.event.eventId === first.event.eventId);
          await flush(copies);
        }
        return;
      }
      for (const w of batch) w.reject(error);
    }
  }

  function pump(): void {
    while (inFlight < maxInFlight && queue.length > 0) {
      const batch = queue.splice(0, maxBatch);
      inFlight++;
      void flush(batch).finally(() => {
        inFlight--;
        pump();
      });
    }
  }

  return {
    store(event) {
      return new Promise((resolve, reject) => {
        queue.push({ event, resolve, reject });
        pump();
      });
    },
  };
}
