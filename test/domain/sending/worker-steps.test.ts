// The worker's steps read alone, on the database without the app: the claim (an idle poll, the spare
// slots, the lease kept), the settle step's fencing and the notice sweep's pacing.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import type { LogFields, Logger } from '../../../src/config/logger.js';
import { kudos, type KudosRow } from '../../../src/db/schema/index.js';
import { claimDue, type Claiming, keepClaim, pauseAfterPoll } from '../../../src/domain/sending/claim-sends.js';
import { claimBatch, fenceOf } from '../../../src/domain/sending/kudos-store.js';
import { fail, interrupted, type SendPass } from '../../../src/domain/sending/settle-send.js';
import { type NoticeSweep, sweepStalledNotices } from '../../../src/domain/sending/tell-sends.js';
import type { WorkerDeps } from '../../../src/domain/sending/worker-deps.js';
import { useTestDatabase } from '../../support/db.js';
import { pendingKudosValues } from '../../support/kudos-row.js';
import { within } from '../../support/within.js';

const testDb = useTestDatabase();

/** A logger that keeps its lines, for the warnings a step must say. */
function recordingLogger(): Logger & { lines: { level: string; msg: string; fields?: LogFields | undefined }[] } {
  const lines: { level: string; msg: string; fields?: LogFields | undefined }[] = [];
  const logger = {
    lines,
    debug: (msg: string, fields?: LogFields) => lines.push({ level: 'debug', msg, fields }),
    info: (msg: string, fields?: LogFields) => lines.push({ level: 'info', msg, fields }),
    warn: (msg: string, fields?: LogFields) => lines.push({ level: 'warn', msg, fields }),
    error: (msg: string, fields?: LogFields) => lines.push({ level: 'error', msg, fields }),
    child: () => logger,
  };
  return logger;
}

function claiming(overrides: Partial<Claiming> = {}): Claiming {
  return {
    db: testDb.db,
    workerId: 'worker-a',
    leaseMs: 60_000,
    concurrency: 4,
    spareSlots: 1,
    pollIntervalMs: 300,
    idlePollMaxMs: 3000,
    log: recordingLogger(),
    running: () => true,
    emptyPolls: 0,
    lostClaims: new WeakSet(),
    ...overrides,
  };
}

async function insertDue(teamId: string, inMs = -1000): Promise<KudosRow> {
  const [row] = await testDb.db
    .insert(kudos)
    .values(pendingKudosValues({ teamId, nextAttemptAt: new Date(Date.now() + inMs) }))
    .returning();
  return row!;
}

async function rowOf(id: string): Promise<KudosRow> {
  const [row] = await testDb.db.select().from(kudos).where(eq(kudos.id, id));
  return row!;
}

describe('the claim step', () => {
  it('an idle poll only reads when the next row is due, backs off until then, and claims once one is', async () => {
    const c = claiming({ emptyPolls: 1 });
    await insertDue('T_ONE', 60_000);
    const idle = await claimDue(c, 0);
    expect(idle.rows).toEqual([]);
    expect(idle.dueInMs).toBeGreaterThan(50_000);
    expect(c.emptyPolls).toBe(2);
    expect(pauseAfterPoll(c, idle.dueInMs)).toBe(600);

    const due = await insertDue('T_TWO');
    const claimed = await claimDue(c, 0);
    expect(claimed.rows.map((r) => r.id)).toEqual([due.id]);
    expect(claimed.dueInMs).toBeNull();
    expect(c.emptyPolls).toBe(0);
    expect(pauseAfterPoll(c, claimed.dueInMs)).toBe(300);
  });

  it("with every slot busy, only the spare slots' claim: a workspace with a send in progress waits", async () => {
    await insertDue('T_BUSY');
    await insertDue('T_BUSY');
    expect(await claimBatch(testDb.db, 'worker-a', 60_000, 1)).toHaveLength(1);
    const other = await insertDue('T_IDLE');
    const c = claiming();
    const claimed = await claimDue(c, c.concurrency);
    expect(claimed.rows.map((r) => r.id)).toEqual([other.id]);
    // Not idle: the spare slots' claim runs beside a backlog.
    expect(c.emptyPolls).toBe(0);
  });

  it('a claim re-taken by someone else aborts the call in flight and marks it lost', async () => {
    await insertDue('T_ONE');
    const [row] = await claimBatch(testDb.db, 'worker-a', 150, 1);
    const log = recordingLogger();
    const c = claiming({ leaseMs: 150 });
    const controller = new AbortController();
    const stop = keepClaim(c, row!.id, fenceOf(row!, 'worker-a'), controller, log);
    try {
      await testDb.db.update(kudos).set({ claimedBy: 'worker-b' }).where(eq(kudos.id, row!.id));
      await within(
        new Promise((resolve) => controller.signal.addEventListener('abort', resolve)),
        'the call aborted once the lease was lost',
      );
    } finally {
      stop();
    }
    expect(c.lostClaims.has(controller.signal)).toBe(true);
    expect(log.lines.map((l) => l.msg)).toContain(
      'lease lost (the row was claimed by someone else); aborting the call, the row will be resumed with the same key',
    );
  });
});

describe('the settle step', () => {
  function pass(overrides: Partial<SendPass> = {}): SendPass & { log: ReturnType<typeof recordingLogger> } {
    return {
      deps: { db: testDb.db } as WorkerDeps,
      workerId: 'worker-a',
      leaseMs: 60_000,
      maxAttempts: 10,
      backoffMs: () => 1000,
      signal: new AbortController().signal,
      leaseLost: () => false,
      ...overrides,
      log: recordingLogger(),
    };
  }

  it("a fence the row no longer matches writes nothing: the row's new holder finishes it", async () => {
    await insertDue('T_ONE');
    const [row] = await claimBatch(testDb.db, 'worker-a', 60_000, 1);
    const p = pass();
    const stale = { ...fenceOf(row!, 'worker-a'), attempts: row!.attempts - 1 };
    expect(await fail(p, row!, stale, 'VALIDATION_ERROR', 'refused')).toBeUndefined();
    expect((await rowOf(row!.id)).status).toBe('pending');
    expect(p.log.lines.map((l) => l.msg)).toContain(
      "the claim was lost before the outcome was written; the row's new holder finishes it",
    );
  });

  it('an interrupted call gives the row back when stopping, and writes nothing once the lease was lost', async () => {
    await insertDue('T_ONE');
    await insertDue('T_TWO');
    const [lost, stopped] = await claimBatch(testDb.db, 'worker-a', 60_000, 2);
    expect(await interrupted(pass({ leaseLost: () => true }), lost!)).toBeUndefined();
    expect((await rowOf(lost!.id)).claimedBy).toBe('worker-a');

    const given = await interrupted(pass(), stopped!);
    expect(given?.status).toBe('pending');
    expect((await rowOf(stopped!.id)).claimedBy).toBeNull();
  });
});

describe('the notice sweep', () => {
  it('runs one sweep at a time, at most every `everyMs`', async () => {
    const sweep: NoticeSweep = {
      deps: { db: testDb.db } as WorkerDeps,
      log: recordingLogger(),
      everyMs: 60_000,
      last: 0,
      running: undefined,
    };
    sweepStalledNotices(sweep);
    const first = sweep.running;
    expect(first).toBeDefined();
    const startedAt = sweep.last;
    sweepStalledNotices(sweep);
    expect(sweep.running).toBe(first);
    await first;
    expect(sweep.running).toBeUndefined();
    sweepStalledNotices(sweep);
    expect(sweep.running).toBeUndefined();
    expect(sweep.last).toBe(startedAt);
  });
});
