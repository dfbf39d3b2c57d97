// Completion checks in batches (src/domain/orders/order-checks.ts, runOrderChecks): due checks are answered by
// one page of the orders list instead of one GET per order; only what the list cannot say (the
// addresses of a bounce) costs a GET. Requests are counted, not timed.
import { isNotNull, sql } from 'drizzle-orm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { kudos, orderChecks } from '../../../src/db/schema/index.js';
import { singleRewardsAccount } from '../../../src/domain/accounts/rewards-accounts.js';
import {
  checkSlotStartMs,
  claimDueChecks,
  dueChecksReady,
  runOrderChecks,
} from '../../../src/domain/orders/order-checks.js';
import { type CallInfo, createRewardsClient } from '../../../src/rewards/index.js';
import { presentNotice } from '../../../src/slack/notices/present-notice.js';
import { eventually, useAppPerTest } from '../../support/app.js';
import { pendingKudosValues } from '../../support/kudos-row.js';

// This test runs the checks itself: the app's checks are first due in an hour, and its checker is
// stopped before they are made due (it answers on a 4 s grid of instants: once one passed, it would
// claim some of them between the test's update and its claim, the more likely the slower the machine).
const e2e = useAppPerTest({
  env: { KUDOS_NOTIFY_CHANNEL: 'C_KUDOS' },
  app: { tuning: { webhooks: { checkDelaysMs: [3600_000], sweepIntervalMs: 3600_000 } } },
  emulatorEnv: { EMULATOR_BACKGROUND: 'off' },
});

describe('completion checks in batches', () => {
  it('12 finished orders cost one list request, plus one GET for the one with a bounce', async () => {
    const values = Array.from({ length: 12 }, (_, i) =>
      pendingKudosValues(
        i === 0
          ? { recipients: [{ slackUserId: null, recipientId: null, email: 'gone@bounce.test', name: 'Gone' }] }
          : {},
      ),
    );
    await e2e.db.insert(kudos).values(values);
    e2e.stack.app.worker.wake();
    await eventually(async () => (await e2e.db.select().from(orderChecks)).length === 12 || undefined, 30_000);
    await eventually(
      async () => (await e2e.db.select().from(kudos).where(isNotNull(kudos.notifiedAt))).length === 12 || undefined,
      30_000,
    );
    await e2e.emulator.advance(120); // every order goes out and completes
    await e2e.stack.app.background.stop();
    await e2e.db.update(orderChecks).set({ nextCheckAt: sql`now()` });

    const calls: CallInfo[] = [];
    const client = createRewardsClient({
      baseUrl: e2e.emulator.url,
      clientId: 'production-client',
      clientSecret: 'production-secret',
      onCall: (info) => calls.push(info),
    });
    try {
      const app = e2e.stack.app;
      const deps = {
        db: e2e.db,
        rewards: singleRewardsAccount(client),
        chat: app.slack,
        present: presentNotice,
        notifyChannelOf: async () => 'C_KUDOS',
        logger: app.logger,
      };
      const checks = await claimDueChecks(e2e.db, 'test-checker', 60_000, 50);
      expect(checks).toHaveLength(12);
      const outcomes = await runOrderChecks(deps, checks);
      expect(outcomes).toEqual(checks.map(() => 'complete'));
    } finally {
      await client.close();
    }
    const api = calls.filter((c) => c.endpoint.startsWith('/api/'));
    expect(api.filter((c) => c.endpoint === '/api/v1/orders')).toHaveLength(1);
    expect(api.filter((c) => c.endpoint === '/api/v1/orders/{orderId}')).toHaveLength(1);
    expect(api).toHaveLength(2);
    const done = await e2e.db.select().from(orderChecks).where(isNotNull(orderChecks.doneAt));
    expect(done).toHaveLength(12);
    // Every kudos is recorded complete, the bounced one told from its own GET (its address).
    const rows = await e2e.db.select().from(kudos);
    expect(rows.map((k) => k.orderStatus)).toEqual(rows.map(() => 'COMPLETE'));
  });
});

describe('when a batch of checks is worth a list request (all instances together)', () => {
  async function dueAt(count: number, at: Date): Promise<void> {
    await e2e.db.insert(orderChecks).values(
      Array.from({ length: count }, () => ({
        orderId: `O-${crypto.randomUUID()}`,
        source: 'kudos' as const,
        teamId: 'T0KUDOS',
        nextCheckAt: at,
        watchFrom: at,
      })),
    );
  }

  it('not while the checks due fell due after the last grid instant; once one fell due before it, or a batch is full', async () => {
    await e2e.stack.close(); // its own checker would claim them
    const slotMs = 600_000;
    // Away from a grid instant, so that none passes while the test runs.
    await eventually(() => Date.now() - checkSlotStartMs(Date.now(), slotMs) > 2_000 || undefined, 5_000);
    const lastInstant = checkSlotStartMs(Date.now(), slotMs);
    await e2e.db.delete(orderChecks);
    await dueAt(3, new Date(lastInstant + 1_000));
    expect(await dueChecksReady(e2e.db, slotMs, 50)).toBe(false);
    // Due a moment before the instant: it waited through it (however short that wait was).
    await dueAt(1, new Date(lastInstant - 1));
    expect(await dueChecksReady(e2e.db, slotMs, 50)).toBe(true);
    // Another instance claimed them all: nothing left waiting.
    await claimDueChecks(e2e.db, 'other-instance', 60_000, 50);
    expect(await dueChecksReady(e2e.db, slotMs, 50)).toBe(false);
    await dueAt(50, new Date(lastInstant + 1_000));
    expect(await dueChecksReady(e2e.db, slotMs, 50)).toBe(true);
  });
});

describe('the grid of check instants', () => {
  it('is the last multiple of the step at or before the time: the same instant for every time inside one step', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 4_000_000_000_000 }),
        fc.integer({ min: 1, max: 3_600_000 }),
        (now, slot) => {
          const start = checkSlotStartMs(now, slot);
          return (
            start <= now &&
            now - start < slot &&
            start % slot === 0 &&
            checkSlotStartMs(start + slot - 1, slot) === start &&
            checkSlotStartMs(start + slot, slot) === start + slot
          );
        },
      ),
    );
  });
});
