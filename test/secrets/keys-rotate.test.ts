// npm run keys:rotate (src/db/rotate-keys.ts): every sealed column re-sealed under the first key, in
// batches, idempotent; afterwards the old key can be dropped.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { rotateSealedColumns } from '../../src/db/rotate-keys.js';
import { rewardsConnections } from '../../src/db/schema/index.js';
import { SEALED_COLUMNS } from '../../src/db/sealed-columns.js';
import { createRewardsConnectionStore } from '../../src/domain/accounts/rewards-connections.js';
import { generateKey, parseKeyRing } from '../../src/secrets/key-ring.js';
import { useTestDatabase } from '../support/db.js';

const keyA = generateKey('a');
const keyB = generateKey('b');
const testDb = useTestDatabase();

describe('npm run keys:rotate', () => {
  it('re-seals every connection secret under the new first key; then only the new key opens them; a second run changes nothing', async () => {
    const storeA = createRewardsConnectionStore({ db: testDb.db, keyRing: parseKeyRing(keyA) });
    // More rows than a batch, so the rotation pages through them.
    for (let i = 0; i < 7; i++)
      await storeA.save(
        { teamId: `T${i}`, enterpriseId: null },
        { clientId: `client-${i}`, clientSecret: `secret-${i}`, webhookSecret: `hook-${i}` },
        'U_ADMIN',
      );
    await storeA.disconnect({ teamId: 'T6' });

    const report = await rotateSealedColumns(testDb.db, parseKeyRing(`${keyB},${keyA}`), { batchSize: 3 });
    const line = (name: string) => report.columns.find((c) => c.name === name)!;
    expect(line('rewards_connections.client_secret')).toMatchObject({
      resealed: 6,
      current: 0,
      skipped: 0,
      failed: [],
    });
    expect(line('rewards_connections.webhook_secret')).toMatchObject({
      resealed: 6,
      current: 0,
      skipped: 0,
      failed: [],
    });
    // Every registered column was visited (the installations' tokens too: none stored here).
    expect(report.columns.map((c) => c.name)).toEqual(SEALED_COLUMNS.map((c) => c.name));

    const storeB = createRewardsConnectionStore({ db: testDb.db, keyRing: parseKeyRing(keyB) });
    for (let i = 0; i < 6; i++) {
      expect(await storeB.get({ teamId: `T${i}` })).toMatchObject({
        clientId: `client-${i}`,
        clientSecret: `secret-${i}`,
        webhookSecret: `hook-${i}`,
      });
    }
    expect(await storeB.get({ teamId: 'T6' })).toBeUndefined();
    // Key A alone opens nothing any more.
    await expect(storeA.get({ teamId: 'T0' })).rejects.toThrow(/key b/);

    const again = await rotateSealedColumns(testDb.db, parseKeyRing(`${keyB},${keyA}`), { batchSize: 3 });
    expect(again.columns.find((c) => c.name === 'rewards_connections.client_secret')).toMatchObject({
      resealed: 0,
      current: 6,
    });
  });

  it('names a value no key opens (never the value) and goes on', async () => {
    const store = createRewardsConnectionStore({ db: testDb.db, keyRing: parseKeyRing(keyA) });
    const saved = await store.save(
      { teamId: 'T1' },
      { clientId: 'c', clientSecret: 's-1', webhookSecret: 'w-1' },
      'U1',
    );
    await store.save({ teamId: 'T2' }, { clientId: 'c2', clientSecret: 's-2', webhookSecret: 'w-2' }, 'U1');
    // A secret moved to another row does not open there (the context binds the row).
    const [other] = await testDb.db.select().from(rewardsConnections).where(eq(rewardsConnections.teamId, 'T2'));
    await testDb.db
      .update(rewardsConnections)
      .set({ clientSecret: other!.clientSecret })
      .where(eq(rewardsConnections.id, saved.id));
    const report = await rotateSealedColumns(testDb.db, parseKeyRing(`${keyB},${keyA}`));
    const line = report.columns.find((c) => c.name === 'rewards_connections.client_secret')!;
    expect(line.resealed).toBe(1);
    expect(line.failed).toEqual([{ key: saved.id, problem: expect.stringMatching(/failed to open/) }]);
    expect(JSON.stringify(report)).not.toContain('s-2');
  });
});
