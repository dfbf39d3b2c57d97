// A big group's first send maps its people to the address book in batches (src/domain/sending/recipients.ts).
// A flaky API failing a creation here and there does not stop the others: one attempt maps everyone
// it can and the next only those left; an API failing every call is asked for a tenth of them only.
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { recipientMappings } from '../../../src/db/schema/index.js';
import { ensureRecipientMappings } from '../../../src/domain/sending/recipients.js';
import { type CallInfo, createRewardsClient, type RewardsClient } from '../../../src/rewards/index.js';
import { useTestDatabase } from '../../support/db.js';
import { startTestEmulator, type TestEmulator } from '../../support/emulator.js';

const WS = { teamId: 'T0KUDOS', enterpriseId: null };
const people = Array.from({ length: 120 }, (_, i) => ({
  slackUserId: `U_P${i}`,
  email: `p${i}@example.com`,
  firstName: `P${i}`,
}));

describe('mapping a big group to the address book', () => {
  const testDb = useTestDatabase();
  let emulator: TestEmulator;
  let client: RewardsClient;
  let calls: CallInfo[];

  beforeAll(async () => {
    emulator = await startTestEmulator();
  });
  afterAll(async () => {
    await emulator.close();
  });
  beforeEach(async () => {
    await emulator.reset();
    await testDb.db.delete(recipientMappings);
    calls = [];
    client = createRewardsClient({
      baseUrl: emulator.url,
      clientId: 'production-client',
      clientSecret: 'production-secret',
      maxRetries: 0,
      onCall: (info) => calls.push(info),
    });
    return () => client.close();
  });

  const mapped = async () =>
    (await testDb.db.select({ n: count() }).from(recipientMappings).where(eq(recipientMappings.teamId, WS.teamId)))[0]!
      .n;

  it('a few failed creations: the attempt maps everyone else, and the next attempt only those left', async () => {
    await emulator.faults({ method: 'POST', path: '^/api/v1/recipients$', status: 500, count: 4 });
    await expect(
      ensureRecipientMappings({ db: testDb.db, rewards: client }, WS, people, { concurrency: 8 }),
    ).rejects.toThrow();
    expect(await mapped()).toBe(people.length - 4);

    const before = calls.length;
    const all = await ensureRecipientMappings({ db: testDb.db, rewards: client }, WS, people, { concurrency: 8 });
    expect(all.size).toBe(people.length);
    expect(calls.slice(before).filter((c) => c.method === 'POST')).toHaveLength(4);
  });

  it('an API failing every creation is asked a few times, not once per person', async () => {
    await emulator.faults({ method: 'POST', path: '^/api/v1/recipients$', status: 503, count: 1000 });
    await expect(
      ensureRecipientMappings({ db: testDb.db, rewards: client }, WS, people, { concurrency: 8 }),
    ).rejects.toThrow();
    expect(await mapped()).toBe(0);
    // A tenth of the 120 fail, then the calls already in flight finish; nothing new starts after it.
    expect(calls.filter((c) => c.method === 'POST').length).toBeLessThanOrEqual(12 + 8);
  });
});
