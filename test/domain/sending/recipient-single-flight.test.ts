// Recipient creation is single flight per workspace and e-mail, across instances
// (src/domain/sending/recipients.ts): concurrent first kudos to the same new person create the address-book
// recipient once; the others wait for its id (no 409 EMAIL_TAKEN storm). Requests are counted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { connectDatabase, type Database, type DatabaseConnection } from '../../../src/db/client.js';
import { ensureRecipientMapping } from '../../../src/domain/sending/recipients.js';
import { type CallInfo, createRewardsClient } from '../../../src/rewards/index.js';
import { useTestDatabase } from '../../support/db.js';
import { startTestEmulator, type TestEmulator } from '../../support/emulator.js';

describe('recipient creation, single flight', () => {
  const testDb = useTestDatabase();
  let emulator: TestEmulator;
  let second: DatabaseConnection | undefined;

  beforeAll(async () => {
    emulator = await startTestEmulator();
  });
  afterAll(async () => {
    await second?.close();
    await emulator.close();
  });

  async function secondDb(): Promise<Database> {
    if (!testDb.url) return testDb.db;
    second ??= await connectDatabase({ databaseUrl: testDb.url, maxConnections: 4 });
    return second.db;
  }

  it('eight concurrent first kudos to one new person, on two instances, create the recipient once', async () => {
    await emulator.reset();
    const calls: CallInfo[] = [];
    const client = createRewardsClient({
      baseUrl: emulator.url,
      clientId: 'production-client',
      clientSecret: 'production-secret',
      onCall: (info) => calls.push(info),
    });
    const dbs = [testDb.db, await secondDb()];
    const ws = { teamId: 'T0KUDOS', enterpriseId: null };
    const person = { slackUserId: 'U_NEW', email: 'New.Person@example.com', firstName: 'New' };
    try {
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => ensureRecipientMapping({ db: dbs[i % 2]!, rewards: client }, ws, person)),
      );
      expect(new Set(results.map((r) => r.recipientId)).size).toBe(1);
      // Later kudos to the same person use the stored mapping: no request at all.
      const before = calls.length;
      await ensureRecipientMapping({ db: testDb.db, rewards: client }, ws, person);
      expect(calls.length).toBe(before);
    } finally {
      await client.close();
    }
    const recipientCalls = calls.filter((c) => c.endpoint.startsWith('/api/v1/recipients'));
    expect(recipientCalls.filter((c) => c.method === 'POST')).toHaveLength(1);
    expect(recipientCalls.filter((c) => c.status === 409)).toEqual([]);
    expect(recipientCalls).toHaveLength(1);
  });
});
