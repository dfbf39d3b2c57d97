// A reward-link request's attempt holds its lease while a part's call is slow (the client retries a
// slow API for minutes): no sweep takes it over meanwhile. The API here is a fake whose create call
// answers only when the test says, so "slow" lasts exactly as long as the test needs.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { rewardLinkRequests } from '../../../src/db/schema/index.js';
import type { RewardsAccounts } from '../../../src/domain/accounts/rewards-accounts.js';
import { placeRewardLinkRequest } from '../../../src/domain/reward-links/reward-links.js';
import { presentNotice } from '../../../src/slack/notices/present-notice.js';
import { eventually, testLogger } from '../../support/app.js';
import { useTestDatabase } from '../../support/db.js';
import { within } from '../../support/within.js';

const testDb = useTestDatabase();

/** A Rewards API whose reward-link create waits for `answer()` (or for its call to be aborted). */
function slowRewards() {
  let answer!: () => void;
  const answered = new Promise<void>((resolve) => (answer = resolve));
  let called!: (signal: AbortSignal | undefined) => void;
  const createCalled = new Promise<AbortSignal | undefined>((resolve) => (called = resolve));
  const client = {
    balance: {
      get: async () => ({
        availableBalance: { amount: '100000.00', currency: 'USD' },
        pendingBalance: { amount: '0.00', currency: 'USD' },
      }),
    },
    orders: {
      findByClientOrderId: async () => undefined,
      async createRewardLinks(_params: unknown, options: { signal?: AbortSignal }) {
        called(options.signal);
        await new Promise<void>((resolve, reject) => {
          void answered.then(resolve);
          options.signal?.addEventListener('abort', () => reject(options.signal!.reason as Error));
        });
        return { order: { orderId: 'ORD-LINKS-1' }, recovered: false };
      },
    },
  };
  const rewards = { for: async () => client } as unknown as RewardsAccounts;
  return { rewards, answer, createCalled };
}

async function recordRequest() {
  const [row] = await testDb.db
    .insert(rewardLinkRequests)
    .values({
      teamId: 'T0KUDOS',
      enterpriseId: null,
      requesterUserId: 'U_ADMIN',
      productId: 'CC-THANK-YOU',
      designName: 'Thank You',
      quantity: 10,
      amountCents: 5000,
    })
    .returning();
  return row!;
}

const requestRow = async (id: string) =>
  (await testDb.db.select().from(rewardLinkRequests).where(eq(rewardLinkRequests.id, id)))[0]!;

function depsWith(rewards: RewardsAccounts) {
  const chat = { post: async () => ({ channel: 'D', ts: '1.0' }) };
  return { db: testDb.db, rewards, chat, present: presentNotice, logger: testLogger() } as unknown as Parameters<
    typeof placeRewardLinkRequest
  >[0];
}

describe('a reward-link attempt slower than its lease', () => {
  it('renews the lease while the part’s call runs, so nobody else takes the request; then records the part', async () => {
    const request = await recordRequest();
    const api = slowRewards();
    const attempt = placeRewardLinkRequest(depsWith(api.rewards), request.id, {
      firstCheckDelayMs: 3_600_000,
      leaseMs: 600,
    });
    await within(api.createCalled, 'the part’s create call');
    const firstLease = (await requestRow(request.id)).claimedUntil!.getTime();
    // Renewed while the call is in flight: a sweep looking for expired leases never finds this one.
    await eventually(async () => (await requestRow(request.id)).claimedUntil!.getTime() > firstLease);
    api.answer();
    expect(await attempt).toBe('placed');
    expect(await requestRow(request.id)).toMatchObject({
      status: 'placed',
      partsCreated: 1,
      orderIds: ['ORD-LINKS-1'],
    });
  });

  it('an attempt whose request was taken over meanwhile stops its call and changes nothing', async () => {
    const request = await recordRequest();
    const api = slowRewards();
    const attempt = placeRewardLinkRequest(depsWith(api.rewards), request.id, {
      firstCheckDelayMs: 3_600_000,
      leaseMs: 600,
    });
    const signal = await within(api.createCalled, 'the part’s create call');
    // Another instance claimed it (its lease had run out while this one stalled).
    await testDb.db
      .update(rewardLinkRequests)
      .set({ attempts: request.attempts + 2 })
      .where(eq(rewardLinkRequests.id, request.id));
    await within(
      new Promise((resolve) =>
        signal?.aborted ? resolve(true) : signal?.addEventListener('abort', () => resolve(true)),
      ),
      'the call aborted',
    );
    expect(await attempt).toBe('skipped');
    expect(await requestRow(request.id)).toMatchObject({ status: 'pending', partsCreated: 0, orderIds: [] });
  });
});
