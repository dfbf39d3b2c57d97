// Completion checks as the app's own checker runs them (src/webhooks/processing.ts): the checks of a
// stream of orders are claimed a list page at a time (100), so a page of due checks costs one list
// request, where batches of 50 cost two. Requests are counted from the app's metrics, never timed.
import { eq, isNull, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { kudos, notifications, orderChecks } from '../../../src/db/schema/index.js';
import { parseExposition, sumOf } from '../../../src/observability/exposition.js';
import { eventually, useAppPerTest } from '../../support/app.js';
import { pendingKudosValues } from '../../support/kudos-row.js';

// Checks an hour away until the test makes them due; Slack's limits out of the way, the simulator's and
// the app's own pacing (this is about the Rewards API).
const e2e = useAppPerTest({
  env: { KUDOS_NOTIFY_CHANNEL: 'C_KUDOS' },
  slackRateLimits: false,
  app: { tuning: { webhooks: { checkDelaysMs: [3600_000], sweepIntervalMs: 3600_000 }, slackPacing: { scale: 100 } } },
  emulatorEnv: { EMULATOR_BACKGROUND: 'off' },
});

const ORDERS = 80;

/** The app's requests asking about orders: list pages and single GETs. */
async function orderReads(): Promise<{ lists: number; gets: number }> {
  const samples = parseExposition(await (await fetch(`${e2e.stack.app.metricsUrl}/metrics`)).text());
  return {
    lists: sumOf(samples, 'kudos_rewards_api_calls_total', { endpoint: '/api/v1/orders', method: 'GET' }),
    gets: sumOf(samples, 'kudos_rewards_api_calls_total', { endpoint: '/api/v1/orders/{orderId}', method: 'GET' }),
  };
}

describe('the completion checker under a stream of orders', () => {
  it(
    `${ORDERS} finished orders whose checks fell due one every 200 ms: one list request for all, each told once`,
    { timeout: 180_000 },
    async () => {
      await e2e.db.insert(kudos).values(Array.from({ length: ORDERS }, () => pendingKudosValues()));
      e2e.stack.app.worker.wake();
      await eventually(
        async () =>
          ((await e2e.db.select().from(kudos).where(isNull(kudos.notifiedAt))).length === 0 &&
            (await e2e.db.select().from(orderChecks)).length === ORDERS) ||
          undefined,
        90_000,
      );
      await e2e.emulator.advance(120); // every order goes out and completes
      const before = await orderReads();

      // Due as a stream's checks fall due, in the order the orders were placed: one every 200 ms until now.
      await e2e.db.execute(sql`
      with stream as (select order_id, row_number() over (order by created_at, order_id) as n from order_checks)
      update order_checks c set next_check_at = now() - ${`${ORDERS * 200} milliseconds`}::interval + stream.n * interval '200 milliseconds'
      from stream where stream.order_id = c.order_id`);
      await eventually(
        async () =>
          (await e2e.db.select().from(orderChecks).where(isNull(orderChecks.doneAt))).length === 0 || undefined,
        90_000,
      );

      const after = await orderReads();
      expect({ lists: after.lists - before.lists, gets: after.gets - before.gets }).toEqual({ lists: 1, gets: 0 });
      // Every order told once: its kudos recorded complete, one completion notice each.
      const rows = await e2e.db.select().from(kudos);
      expect(rows.map((k) => k.orderStatus)).toEqual(rows.map(() => 'COMPLETE'));
      const told = await e2e.db
        .select({ subject: notifications.subject })
        .from(notifications)
        .where(eq(notifications.kind, 'order.completed'));
      expect(new Set(told.map((t) => t.subject)).size).toBe(ORDERS);
      expect(told).toHaveLength(ORDERS);
    },
  );
});
