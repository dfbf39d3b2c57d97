// The store of each workspace's Rewards connection: sealed at rest, one row per workspace, the same
// connectionId across reconnects, and two first connections at once make one row (PostgreSQL).
import { describe, expect, it } from 'vitest';

import { rewardsConnections } from '../../src/db/schema/index.js';
import { createRewardsConnectionStore } from '../../src/domain/accounts/rewards-connections.js';
import { generateKey, parseKeyRing } from '../../src/secrets/key-ring.js';
import { useTestDatabase } from '../support/db.js';

const testDb = useTestDatabase();
const ring = parseKeyRing(generateKey('k'));
const creds = (n: number) => ({
  clientId: `client-${n}`,
  clientSecret: `client-secret-${n}`,
  webhookSecret: `webhook-secret-${n}`,
});

describe('rewards connections', () => {
  it('two first connections of a workspace at once: one row, both answered, the last credentials kept', async () => {
    const store = createRewardsConnectionStore({ db: testDb.db, keyRing: ring });
    const results = await Promise.all([1, 2, 3, 4].map((n) => store.save({ teamId: 'T1' }, creds(n), 'U_ADMIN')));
    const rows = await testDb.db.select().from(rewardsConnections);
    expect(rows).toHaveLength(1);
    expect(new Set(results.map((r) => r.id))).toEqual(new Set([rows[0]!.id]));
    // Whatever won, the row opens (its secrets sealed under its own id).
    const current = await store.get({ teamId: 'T1' });
    expect(current).toMatchObject({ id: rows[0]!.id, clientSecret: expect.stringMatching(/^client-secret-\d$/) });
    expect(JSON.stringify(rows)).not.toMatch(/client-secret-|webhook-secret-/);
  });

  it('describe and listConnected never open a secret; a disconnected row is neither listed nor found by id', async () => {
    const store = createRewardsConnectionStore({ db: testDb.db, keyRing: ring });
    const a = await store.save({ teamId: 'T1' }, creds(1), 'U1');
    await store.save({ teamId: 'T2', enterpriseId: 'E1' }, creds(2), 'U2');
    // A store whose key ring cannot open anything still describes and lists.
    const blind = createRewardsConnectionStore({ db: testDb.db, keyRing: parseKeyRing(generateKey('other')) });
    expect(await blind.describe({ teamId: 'T1' })).toMatchObject({ id: a.id, clientId: 'client-1', connectedBy: 'U1' });
    expect((await blind.listConnected()).sort((x, y) => x.teamId.localeCompare(y.teamId))).toEqual([
      { teamId: 'T1', enterpriseId: null },
      { teamId: 'T2', enterpriseId: 'E1' },
    ]);
    expect(await store.disconnect({ teamId: 'T1' })).toBe(true);
    expect(await store.byId(a.id)).toBeUndefined();
    expect(await store.listConnected()).toEqual([{ teamId: 'T2', enterpriseId: 'E1' }]);
  });
});
