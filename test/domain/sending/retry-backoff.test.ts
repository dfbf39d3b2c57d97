// The worker's back-off grows with order calls that failed, not with claims: restarts, killed
// instances, lost leases and stops each claim a row again, and must not push its next try minutes out.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { kudos } from '../../../src/db/schema/index.js';
import { eventually, useAppPerTest } from '../../support/app.js';
import { pendingKudosValues } from '../../support/kudos-row.js';

const e2e = useAppPerTest({ startEach: false });

describe('retry back-off', () => {
  it('a send claimed five times before (restarts) waits as after its first failed call, and counts that call', async () => {
    const askedFor: number[] = [];
    await e2e.start({ app: { tuning: { worker: { backoffMs: (n) => (askedFor.push(n), 3_600_000) } } } });
    await e2e.emulator.faults({ method: 'POST', path: '/api/v1/orders/choice-cards', status: 503, count: 4 });
    // Five earlier claims that ended without a call failing (a stop, a kill, a lease lost).
    const [row] = await e2e.db
      .insert(kudos)
      .values(pendingKudosValues({ attempts: 5 }))
      .returning();
    e2e.stack.app.worker.wake();

    const retried = await eventually(async () => {
      const [r] = await e2e.db.select().from(kudos).where(eq(kudos.id, row!.id));
      return r?.errorCode ? r : undefined;
    }, 30_000);
    expect(retried).toMatchObject({ status: 'pending', attempts: 6, failedCalls: 1 });
    expect(askedFor).toEqual([1]);
  });
});
