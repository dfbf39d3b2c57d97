// Group commit of arriving events: many concurrent arrivals, with redeliveries mixed in (even inside
// one batch), store each event once and tell exactly one caller per eventId that it was new.
import { randomUUID } from 'node:crypto';

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { webhookEvents } from '../../src/db/schema/index.js';
import { createEventBatcher } from '../../src/webhooks/event-batcher.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

let testDb: TestDatabase;
beforeAll(async () => {
  testDb = await createTestDatabase();
});
afterAll(async () => {
  await testDb?.close();
});

describe('event batcher', () => {
  it('stores each eventId once and reports "new" to exactly one caller per id', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 15 }), { minLength: 1, maxLength: 120 }),
        fc.integer({ min: 1, max: 20 }),
        async (picks, maxBatch) => {
          await testDb.truncateAll();
          const ids = Array.from({ length: 16 }, () => randomUUID());
          const batcher = createEventBatcher(testDb.db, { maxBatch });
          const results = await Promise.all(
            picks.map((p) =>
              batcher
                .store({ eventId: ids[p]!, eventType: 'order.created', createdAt: null, body: { p } })
                .then((r) => ({ p, ...r })),
            ),
          );
          const distinct = new Set(picks);
          for (const p of distinct) expect(results.filter((r) => r.p === p && r.stored)).toHaveLength(1);
          const rows = await testDb.db.select().from(webhookEvents);
          expect(rows.map((r) => r.eventId).sort()).toEqual([...distinct].map((p) => ids[p]!).sort());
        },
      ),
      { numRuns: 15 },
    );
  });

  it('an event the database refuses fails only its own callers, not its batch neighbours', async () => {
    await testDb.truncateAll();
    const batcher = createEventBatcher(testDb.db);
    const good = Array.from({ length: 5 }, () => randomUUID());
    const results = await Promise.allSettled([
      ...good
        .slice(0, 2)
        .map((eventId) => batcher.store({ eventId, eventType: 'order.created', createdAt: null, body: {} })),
      batcher.store({
        eventId: 'bad',
        eventType: 'order.created',
        createdAt: null,
        body: { text: 'nul \u0000 inside' },
      }),
      ...good
        .slice(2)
        .map((eventId) => batcher.store({ eventId, eventType: 'order.created', createdAt: null, body: {} })),
    ]);
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
    const rows = await testDb.db.select().from(webhookEvents);
    expect(rows.map((r) => r.eventId).sort()).toEqual([...good].sort());
  });
});
