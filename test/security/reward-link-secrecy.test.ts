// Reward links are bearer gift cards: once the `/kudos links` DM is posted, no
// redeem URL stays in the notice outbox, and a LOG_LEVEL=debug run writes none to the logs.
import { sql } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';

import { createLogger } from '../../src/config/logger.js';
import { rowsOf } from '../../src/db/client.js';
import { rewardLinkRequests } from '../../src/db/schema/index.js';
import { eventually, useAppPerTest } from '../support/app.js';
import { FAST_CHECKS } from '../webhooks/support.js';

const logLines: string[] = [];
beforeEach(() => {
  logLines.length = 0;
});
const e2e = useAppPerTest({
  env: { KUDOS_NOTIFY_CHANNEL: 'C_KUDOS', KUDOS_ADMINS: 'U_ADMIN', LOG_LEVEL: 'debug' },
  app: {
    tuning: { webhooks: FAST_CHECKS },
    logger: createLogger({ level: 'debug', write: (line) => logLines.push(line) }),
  },
  emulatorEnv: { EMULATOR_BACKGROUND: 'off' },
});

const REDEEM = 'rewards.emulator.test/redeem/';

/** Runs `/kudos links 3 10 birthday` to the DM; returns the links the emulator issued. */
async function deliverLinks(): Promise<string[]> {
  const answer = await e2e.stack.sim.slashCommand('U_ADMIN', 'links 3 10 birthday', 'C_KUDOS');
  expect(answer.status).toBe(200);
  const request = await eventually(async () =>
    (await e2e.db.select().from(rewardLinkRequests)).find((r) => r.status === 'placed'),
  );
  await e2e.emulator.advance(3);
  const dm = await e2e.stack.sim.waitFor(
    () => e2e.stack.sim.messages('U_ADMIN').find((m) => m.text.includes(REDEEM)),
    30_000,
  );
  const order = await e2e.stack.app.rewards.orders.get(request.orderIds[0]!);
  const links = order.recipients.map((r) => r.rewardLink!);
  expect(links).toHaveLength(3);
  for (const link of links) expect(dm.text).toContain(link);
  // The outbox row is marked posted (after the post returns).
  await eventually(async () => {
    const rows = rowsOf<{ posted_at: unknown }>(
      await e2e.db.execute(sql`select posted_at from notifications where kind = 'reward_links.delivered'`),
    );
    return rows.length === 1 && rows[0]!.posted_at ? rows : undefined;
  });
  return links;
}

describe('reward links are kept out of storage and logs', () => {
  it('once the links DM is posted, the notice outbox holds no redeem URL', async () => {
    const links = await deliverLinks();
    const stored = JSON.stringify(rowsOf(await e2e.db.execute(sql`select * from notifications`)));
    expect(stored).not.toContain(REDEEM);
    for (const link of links) expect(stored).not.toContain(link);
  });

  it('a LOG_LEVEL=debug run writes no redeem URL to the logs', async () => {
    const links = await deliverLinks();
    // Debug lines were written (the run really logged at debug, Web API calls included), none with a link.
    expect(logLines.some((line) => line.includes('"level":"debug"'))).toBe(true);
    const logs = logLines.join('\n');
    for (const link of links) expect(logs).not.toContain(link);
    expect(logs).not.toContain(REDEEM);
  });
});
