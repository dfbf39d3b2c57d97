// A first part created at the API with its answer lost: the next attempt looks it up by its key
// before it reads the balance (that order is already counted there), so a send in parts or a
// reward-link request is never settled "failed, nothing was charged" while the API holds its order.
import { and, eq, isNotNull, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { kudos, rewardLinkRequests } from '../../../src/db/schema/index.js';
import { placeRewardLinkRequest } from '../../../src/domain/reward-links/reward-links.js';
import { presentNotice } from '../../../src/slack/notices/present-notice.js';
import { eventually, useAppPerTest } from '../../support/app.js';
import { pendingKudosValues } from '../../support/kudos-row.js';
import { CHECKS_RUN_BY_THE_TEST } from '../../support/order-checks.js';

const e2e = useAppPerTest({
  env: { KUDOS_NOTIFY_CHANNEL: 'C_KUDOS', KUDOS_ADMINS: 'U_ADMIN', KUDOS_APPROVAL_THRESHOLD: '100000' },
  app: { tuning: { webhooks: CHECKS_RUN_BY_THE_TEST, approvalsSweepMs: 0 } },
});

/** The next create at `path` is carried out and its answer lost; the client's own retries then meet 503s. */
async function loseTheAnswerOfTheNextCreate(path: string) {
  await e2e.emulator.faults({ method: 'POST', path, drop: true, count: 1 });
  await e2e.emulator.faults({ method: 'POST', path, status: 503, count: 4 });
}

describe('a first part whose answer was lost', () => {
  it('a send to 150 people: the retry finds part 1 by its key and places part 2; nobody is told nothing was charged', async () => {
    // $1,500 with $2,000 available: once part 1 ($1,000) is charged, $1,000 is left, less than the whole send.
    await e2e.emulator.setBalance(2000);
    await loseTheAnswerOfTheNextCreate('/api/v1/orders/choice-cards');
    const recipients = Array.from({ length: 150 }, (_, i) => ({
      slackUserId: null,
      recipientId: null,
      email: `person-${i}@example.com`,
      name: `Person ${i}`,
    }));
    const [row] = await e2e.db
      .insert(kudos)
      .values(pendingKudosValues({ recipients, recipientCount: 150, totalCents: 150_000 }))
      .returning();
    e2e.stack.app.worker.wake();

    const settled = await eventually(async () => {
      const [r] = await e2e.db.select().from(kudos).where(eq(kudos.id, row!.id));
      return r && r.status !== 'pending' ? r : undefined;
    }, 30_000);
    expect(settled.errorMessage ?? '').not.toContain('Nothing was charged');
    expect(settled.status).toBe('placed');
    expect(settled.partsPlaced).toBe(2);
    const orders = await e2e.stack.app.rewards.orders.list({ pageSize: 100 }).all();
    expect(orders).toHaveLength(2);
    expect([...settled.orderIds].sort()).toEqual(orders.map((o) => o.orderId).sort());
    // The sender hears that it went out, never that nothing was charged.
    const dms = await e2e.stack.sim.waitFor(() => {
      const texts = e2e.stack.sim.messages('U_MANAGER').map((m) => m.text);
      return texts.length > 0 ? texts : undefined;
    });
    expect(dms.join('\n')).not.toContain('Nothing was charged');
  });

  it('reward links: the resumed request finds its first part by its key instead of judging the balance', async () => {
    // 10 links of $50 with $800 available: once the part ($500) is charged, $300 is left.
    await e2e.emulator.setBalance(800);
    await loseTheAnswerOfTheNextCreate('/api/v1/orders/reward-links');
    await e2e.stack.sim.slashCommand('U_ADMIN', 'links 10 50', 'C_GENERAL');
    // The first attempt ends without an answer: the request waits to be tried again with its key.
    const waiting = await eventually(
      async () =>
        (
          await e2e.db
            .select()
            .from(rewardLinkRequests)
            .where(and(eq(rewardLinkRequests.status, 'pending'), isNotNull(rewardLinkRequests.errorCode)))
        )[0],
      30_000,
    );
    expect(waiting.partsCreated).toBe(0);

    // The test resumes it now rather than waiting for the app's sweep.
    const app = e2e.stack.app;
    await app.background.stop();
    await e2e.db
      .update(rewardLinkRequests)
      .set({ claimedUntil: sql`now()` })
      .where(eq(rewardLinkRequests.id, waiting.id));
    const outcome = await placeRewardLinkRequest(
      { db: e2e.db, rewards: app.rewardsAccounts, chat: app.slack, present: presentNotice, logger: app.logger },
      waiting.id,
      {
        firstCheckDelayMs: 3_600_000,
      },
    );
    expect(outcome).toBe('placed');

    const [request] = await e2e.db.select().from(rewardLinkRequests).where(eq(rewardLinkRequests.id, waiting.id));
    const orders = await app.rewards.orders.list({ orderType: 'LINK', pageSize: 100 }).all();
    expect(orders).toHaveLength(1);
    expect(request).toMatchObject({
      status: 'placed',
      partsCreated: 1,
      createdQuantity: 10,
      orderIds: [orders[0]!.orderId],
    });
    expect(
      e2e.stack.sim
        .messages('U_ADMIN')
        .map((m) => m.text)
        .join('\n'),
    ).not.toContain('could not be created');
  });
});
