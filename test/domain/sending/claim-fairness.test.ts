// The worker's claim takes workspaces in turn (src/domain/sending/kudos-store.ts, claimBatch): one
// workspace's backlog never queues another workspace's single kudos behind it. The order of the
// claim is checked, not the time anything takes.
import { describe, expect, it } from 'vitest';

import { kudos } from '../../../src/db/schema/index.js';
import { claimBatch, inTurns } from '../../../src/domain/sending/kudos-store.js';
import { useTestDatabase } from '../../support/db.js';
import { pendingKudosValues } from '../../support/kudos-row.js';

describe('claiming work across workspaces', () => {
  const testDb = useTestDatabase();

  async function backlog(teamId: string, count: number, dueSecondsAgo: number): Promise<void> {
    const base = Date.now() - dueSecondsAgo * 1000;
    const rows = Array.from({ length: count }, (_, i) =>
      pendingKudosValues({ teamId, nextAttemptAt: new Date(base + i), createdAt: new Date(base + i) }),
    );
    for (let i = 0; i < rows.length; i += 500) await testDb.db.insert(kudos).values(rows.slice(i, i + 500));
  }

  it("takes each workspace's oldest first, in turn: a 1,000-send backlog does not queue another workspace's single kudos", async () => {
    await backlog('T_BIG', 1000, 3600); // due an hour ago, all of them
    await backlog('T_MID', 3, 60);
    await backlog('T_ONE', 1, 1); // the newest of all

    const first = await claimBatch(testDb.db, 'worker-a', 60_000, 4);
    expect(first.map((r) => r.teamId)).toEqual(['T_BIG', 'T_MID', 'T_ONE', 'T_BIG']);

    // A second instance claiming at the same time gets the next turns, not the rows already held.
    const second = await claimBatch(testDb.db, 'worker-b', 60_000, 4);
    // (Returned workspace by workspace in turn, each one's oldest first.)
    expect(second.map((r) => r.teamId)).toEqual(['T_BIG', 'T_MID', 'T_BIG', 'T_MID']);
    expect(new Set([...first, ...second].map((r) => r.id)).size).toBe(8);

    // Within a workspace, oldest due first.
    const big = [...first, ...second].filter((r) => r.teamId === 'T_BIG').map((r) => r.nextAttemptAt.getTime());
    expect(big).toEqual([...big].sort((a, b) => a - b));
  });

  it('a workspace recorded after a whole batch was claimed is first in the next claim, even for one free slot', async () => {
    await backlog('T_BIG', 50, 600);
    const first = await claimBatch(testDb.db, 'worker-a', 60_000, 16);
    expect(first.every((r) => r.teamId === 'T_BIG')).toBe(true);
    await backlog('T_LATE', 1, 0);
    const next = await claimBatch(testDb.db, 'worker-a', 60_000, 1);
    // First: within the first turn it has no send in progress, T_BIG has 16.
    expect(next[0]!.teamId).toBe('T_LATE');
  });

  it("the spare slots' claim takes only workspaces with nothing in progress: none while only the backlog's workspace is due", async () => {
    await backlog('T_BIG', 40, 600);
    const held = await claimBatch(testDb.db, 'worker-a', 60_000, 16);
    expect(held).toHaveLength(16);
    // Every slot busy with the backlog: its remaining 24 rows are not for the spare slots.
    expect(await claimBatch(testDb.db, 'worker-a', 60_000, 4, { idleWorkspacesOnly: true })).toEqual([]);
    await backlog('T_ONE', 1, 0);
    await backlog('T_TWO', 2, 0);
    const spare = await claimBatch(testDb.db, 'worker-a', 60_000, 4, { idleWorkspacesOnly: true });
    // The idle workspaces' sends, in turn; none of the backlog's.
    expect(spare.map((r) => r.teamId)).toEqual(['T_ONE', 'T_TWO', 'T_TWO']);
  });

  it('inTurns interleaves workspaces, oldest first within each', () => {
    const at = (s: number) => new Date(1_700_000_000_000 + s * 1000);
    const rows = [
      { id: 'a1', teamId: 'A', nextAttemptAt: at(1) },
      { id: 'a2', teamId: 'A', nextAttemptAt: at(2) },
      { id: 'a3', teamId: 'A', nextAttemptAt: at(3) },
      { id: 'b1', teamId: 'B', nextAttemptAt: at(10) },
      { id: 'c1', teamId: 'C', nextAttemptAt: at(5) },
      { id: 'c2', teamId: 'C', nextAttemptAt: at(6) },
    ];
    expect(inTurns(rows).map((r) => r.id)).toEqual(['a1', 'c1', 'b1', 'a2', 'c2', 'a3']);
  });
});
