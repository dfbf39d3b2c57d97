// Completion checks run by the test instead of the app's checker, which answers on a grid of instants
// with back-off (5 s, then 15 s, ...): a test that waited for it would wait on time and race it.
import { isNull, sql } from 'drizzle-orm';

import type { RunningApp } from '../../src/app.js';
import { orderChecks } from '../../src/db/schema/index.js';
import { type CheckOutcome, claimDueChecks, runOrderChecks } from '../../src/domain/orders/order-checks.js';
import { presentNotice } from '../../src/slack/notices/present-notice.js';

/**
 * An app whose completion checks wait for the test: none falls due by itself, and the sweep that
 * would re-schedule them waits as long.
 */
export const CHECKS_RUN_BY_THE_TEST = { checkDelaysMs: [3_600_000], sweepIntervalMs: 3_600_000 };

/**
 * Stops the app's background processing, makes every open check due now and runs them once with the
 * app's own Rewards accounts and Slack: what the checker does at its next instant.
 */
export async function runOrderChecksNow(app: RunningApp, notifyChannel: string): Promise<CheckOutcome[]> {
  await app.background.stop();
  await app.db
    .update(orderChecks)
    .set({ nextCheckAt: sql`now()` })
    .where(isNull(orderChecks.doneAt));
  const checks = await claimDueChecks(app.db, 'test-checker', 60_000, 100);
  const deps = {
    db: app.db,
    rewards: app.rewardsAccounts,
    chat: app.slack,
    present: presentNotice,
    notifyChannelOf: async () => notifyChannel,
    logger: app.logger,
  };
  return runOrderChecks(deps, checks);
}
