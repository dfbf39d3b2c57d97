import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { pingDatabase } from '../../src/db/client.js';
import { kudos, recipientMappings } from '../../src/db/schema/index.js';
import { useTestDatabase } from '../support/db.js';

const testDb = useTestDatabase();

const baseKudos = {
  teamId: 'T1',
  senderUserId: 'U1',
  senderName: 'Maya',
  recipients: [{ slackUserId: 'U2', recipientId: 'RE-1', email: 'a@example.com', name: 'A' }],
  recipientCount: 1,
  productId: 'CC-1',
  designName: 'Thanks',
  amountCents: 2500,
  totalCents: 2500,
};

describe('database', () => {
  it('answers select 1', async () => {
    expect(await pingDatabase(testDb.db)).toBe(true);
  });

  it('gives every kudos row its own idempotency key at insert, and starts it pending', async () => {
    const [a] = await testDb.db.insert(kudos).values(baseKudos).returning();
    const [b] = await testDb.db.insert(kudos).values(baseKudos).returning();
    expect(a!.idempotencyKey).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a!.idempotencyKey).not.toBe(b!.idempotencyKey);
    expect(a!.status).toBe('pending');
    expect(a!.recipients[0]!.email).toBe('a@example.com');
  });

  it('keeps one row per submitted modal (team, view id)', async () => {
    await testDb.db.insert(kudos).values({ ...baseKudos, sourceViewId: 'V1' });
    const again = await testDb.db
      .insert(kudos)
      .values({ ...baseKudos, sourceViewId: 'V1' })
      .onConflictDoNothing()
      .returning();
    expect(again).toHaveLength(0);
    const other = await testDb.db
      .insert(kudos)
      .values({ ...baseKudos, teamId: 'T2', sourceViewId: 'V1' })
      .onConflictDoNothing()
      .returning();
    expect(other).toHaveLength(1);
  });

  it('maps a Slack user once per workspace', async () => {
    await testDb.db
      .insert(recipientMappings)
      .values({ teamId: 'T1', slackUserId: 'U2', recipientId: 'RE-1', email: 'a@example.com' });
    await expect(
      testDb.db
        .insert(recipientMappings)
        .values({ teamId: 'T1', slackUserId: 'U2', recipientId: 'RE-2', email: 'b@example.com' }),
    ).rejects.toThrow();
    await testDb.db
      .insert(recipientMappings)
      .values({ teamId: 'T2', slackUserId: 'U2', recipientId: 'RE-3', email: 'a@example.com' });
    const rows = await testDb.db.select().from(recipientMappings).where(eq(recipientMappings.slackUserId, 'U2'));
    expect(rows).toHaveLength(2);
  });

  it('truncateAll empties every table', async () => {
    await testDb.db.insert(kudos).values(baseKudos);
    await testDb.truncateAll();
    expect(await testDb.db.select().from(kudos)).toHaveLength(0);
  });
});
