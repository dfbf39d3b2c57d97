// "Webhooks not arriving" per workspace (distribution mode): one workspace's deliveries on its own URL
// never hide another's broken registration; the single-workspace route's deliveries count for all.
import { randomUUID } from 'node:crypto';

import { describe, expect, it } from 'vitest';

import { createLogger } from '../../src/config/logger.js';
import { orderChecks, webhookEvents } from '../../src/db/schema/index.js';
import { checkWebhookSilence } from '../../src/domain/finance/webhook-silence.js';
import { useTestDatabase } from '../support/db.js';

const testDb = useTestDatabase();
const hourAgo = () => new Date(Date.now() - 3600_000);

async function openOrder(teamId: string): Promise<void> {
  await testDb.db.insert(orderChecks).values({
    orderId: `ord-${randomUUID()}`,
    teamId,
    source: 'kudos',
    createdAt: hourAgo(),
    nextCheckAt: new Date(Date.now() + 86_400_000),
  });
}

function check() {
  const alerted: string[] = [];
  const run = checkWebhookSilence({
    db: testDb.db,
    notifier: { toAdmins: async (ws) => (alerted.push(ws.teamId), []) },
    logger: createLogger({ level: 'silent' }),
    now: () => new Date(),
    webhooks: 'on',
  });
  return run.then((results) => ({ results, alerted }));
}

describe('webhooks not arriving, per workspace', () => {
  it("a workspace whose own URL is silent is warned even while another workspace's webhooks arrive", async () => {
    await openOrder('T_A');
    await openOrder('T_B');
    await testDb.db.insert(webhookEvents).values({
      eventId: randomUUID(),
      eventType: 'order.created',
      body: {},
      teamId: 'T_B',
      connectionId: 'rc_b',
      receivedAt: new Date(),
    });
    const { results, alerted } = await check();
    expect(alerted).toEqual(['T_A']);
    expect(results).toEqual([{ teamId: 'T_A', raised: true, cleared: false }]);
  });

  it("the single route's deliveries count for every workspace (one Rewards account)", async () => {
    await openOrder('T0KUDOS');
    // Matched to a kudos when processed (team filled in later), but it arrived on the shared route.
    await testDb.db.insert(webhookEvents).values({
      eventId: randomUUID(),
      eventType: 'order.created',
      body: {},
      teamId: 'T_OTHER',
      receivedAt: new Date(),
    });
    expect((await check()).alerted).toEqual([]);
  });
});
