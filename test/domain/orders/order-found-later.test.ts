// An order found later always lands on its send, whatever state the send is in: here its
// order.created came while the send was still being placed (it only scheduled the order's completion
// check), and the send was then settled without it. The completion check records it on the send.
import { randomUUID } from 'node:crypto';

import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { kudos } from '../../../src/db/schema/index.js';
import { scheduleOrderCheck } from '../../../src/domain/sending/order-check-schedule.js';
import { useAppPerTest } from '../../support/app.js';
import { pendingKudosValues } from '../../support/kudos-row.js';
import { CHECKS_RUN_BY_THE_TEST, runOrderChecksNow } from '../../support/order-checks.js';

const e2e = useAppPerTest({
  env: { KUDOS_NOTIFY_CHANNEL: 'C_KUDOS' },
  app: { tuning: { webhooks: CHECKS_RUN_BY_THE_TEST, worker: { enabled: false } } },
});

describe('an order the send was settled without', () => {
  for (const settled of ['failed', 'unknown'] as const) {
    it(`is recorded on a send told ${settled} when its completion check sees it`, async () => {
      const key = randomUUID();
      const [row] = await e2e.db
        .insert(kudos)
        .values(pendingKudosValues({ idempotencyKey: key }))
        .returning();
      // The worker's call created the order and its answer was lost.
      const { order } = await e2e.stack.app.rewards.orders.createChoice(
        {
          productId: 'CC-THANK-YOU',
          recipients: [{ email: row!.recipients[0]!.email, amount: '10.00' }],
          emailSetting: { senderName: 'Maya Manager', subject: 'Kudos' },
        },
        { idempotencyKey: key },
      );
      // Its order.created arrived while the send was pending: only the order's check was scheduled.
      await scheduleOrderCheck(e2e.db, {
        orderId: order.orderId,
        source: 'kudos',
        teamId: row!.teamId,
        enterpriseId: row!.enterpriseId,
        kudosId: row!.id,
        firstDelayMs: 0,
      });
      // Then the send was settled without it.
      await e2e.db
        .update(kudos)
        .set({
          status: settled,
          errorCode: 'SERVICE_UNAVAILABLE',
          errorMessage: 'the Rewards API did not answer',
          notifiedAt: new Date(),
        })
        .where(eq(kudos.id, row!.id));

      await runOrderChecksNow(e2e.stack.app, 'C_KUDOS');

      const [after] = await e2e.db.select().from(kudos).where(eq(kudos.id, row!.id));
      expect(after).toMatchObject({ status: 'placed', orderId: order.orderId, errorCode: null });
      // Back to the worker to tell the sender what happened.
      expect(after!.notifiedAt).toBeNull();
    });
  }

  it('leaves a send that already records the order as it is', async () => {
    const key = randomUUID();
    const { order } = await e2e.stack.app.rewards.orders.createChoice(
      {
        productId: 'CC-THANK-YOU',
        recipients: [{ email: 'someone@example.com', amount: '10.00' }],
        emailSetting: { senderName: 'Maya Manager', subject: 'Kudos' },
      },
      { idempotencyKey: key },
    );
    const notifiedAt = new Date();
    const [row] = await e2e.db
      .insert(kudos)
      .values(
        pendingKudosValues({
          idempotencyKey: key,
          status: 'placed',
          orderId: order.orderId,
          placedAt: notifiedAt,
          notifiedAt,
        }),
      )
      .returning();
    await scheduleOrderCheck(e2e.db, {
      orderId: order.orderId,
      source: 'kudos',
      teamId: row!.teamId,
      enterpriseId: row!.enterpriseId,
      kudosId: row!.id,
      firstDelayMs: 0,
    });

    await runOrderChecksNow(e2e.stack.app, 'C_KUDOS');

    const [after] = await e2e.db.select().from(kudos).where(eq(kudos.id, row!.id));
    expect(after).toMatchObject({ status: 'placed', orderId: order.orderId });
    expect(after!.notifiedAt).toEqual(notifiedAt);
  });
});
