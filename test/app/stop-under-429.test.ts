// Stopping under pressure: with every order answered 429 (and a 60 s reset announced), stopping the
// app ends every wait at once (the rate budget's waits, backoffs, recipient mapping): the sends are
// given back untouched, none failed. Without that, stopping would wait for the reset, far past the
// grace the test gives; no duration is measured here, the test's own timeout is the bound.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { kudos } from '../../src/db/schema/index.js';
import { eventually, useAppPerTest } from '../support/app.js';
import { pendingKudosValues } from '../support/kudos-row.js';

describe('stopping under a storm of 429s', () => {
  const e2e = useAppPerTest({
    emulatorEnv: { EMULATOR_RATE_WINDOW_S: '60' },
    app: { tuning: { shutdownGraceMs: 60_000 } },
  });

  it('ends every wait at once: the sends are released as they were, none failed', { timeout: 30_000 }, async () => {
    await e2e.emulator.faults({ path: '^/api/v1/orders/choice-cards$', status: 429, count: 10_000 });
    await e2e.db.insert(kudos).values(Array.from({ length: 20 }, () => pendingKudosValues()));
    e2e.stack.app.worker.wake();
    // The storm has begun: the shared budget counted 429s and is blocked until the announced reset.
    const budget = await eventually(async () => {
      const row = await e2e.stack.app.rateBudgets.read('env:production-client');
      return row && row.rateLimited > 0 ? row : undefined;
    });
    expect(budget.blockedUntil!.getTime()).toBeGreaterThan(Date.now());

    await e2e.stack.app.close();

    const rows = await e2e.db.select().from(kudos);
    expect(rows.map((r) => r.status)).toEqual(rows.map(() => 'pending'));
    expect(
      rows.filter((r) => r.claimedBy !== null && r.claimedUntil !== null && r.claimedUntil.getTime() > Date.now()),
    ).toEqual([]);
    const [one] = await e2e.db.select().from(kudos).where(eq(kudos.id, rows[0]!.id));
    expect(one!.orderId).toBeNull();
  });
});
