// Notices are posted exactly once, through the Slack Web API of the simulator and the real database:
// racing callers post once; a refused post may be tried again; a post whose answer was lost, or
// whose process died before or after calling Slack, is finished by resumeStalledNotices without a
// second message (it looks for the message by its metadata first).
import { type AddressInfo, createServer } from 'node:net';

import { webApi } from '@slack/bolt';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { createLogger } from '../../../src/config/logger.js';
import { notifications } from '../../../src/db/schema/index.js';
import { ChatRefusal } from '../../../src/domain/common/ports.js';
import {
  editOnce,
  expireNoticeMessages,
  findNotification,
  type NoticeDeps,
  postOnce,
  queueNoticeInThreadOf,
  resumeStalledNotices,
  REWARD_LINKS_NOTICE_KIND,
} from '../../../src/domain/notices/outbox.js';
import { startSlackSimulator } from '../../../src/simulator/slack.js';
import { createSlackGateway, createUserLister } from '../../../src/slack/web-api/gateway.js';
import { singleWorkspace, type SlackWorkspaces } from '../../../src/slack/web-api/workspace-gateways.js';
import { createTestDatabase, type TestDatabase } from '../../support/db.js';

/** A local port nothing listens on (connection refused). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let testDb: TestDatabase;
let sim: Awaited<ReturnType<typeof startSlackSimulator>>;
let gateway: SlackWorkspaces;
const logger = createLogger({ level: 'error' });

// The outbox is driven here through an unpaced gateway, many posts a second into one channel: Slack's
// limits (and the app's pacing that meets them) are tested in test/slack/web-api/rate-limits.test.ts.
beforeAll(async () => {
  [testDb, sim] = await Promise.all([
    createTestDatabase(),
    startSlackSimulator({ signingSecret: 'test-secret', rateLimits: false }),
  ]);
  const client = new webApi.WebClient(sim.botToken, { slackApiUrl: sim.apiUrl, retryConfig: { retries: 0 } });
  gateway = singleWorkspace(createSlackGateway(client), createUserLister(client));
});
afterAll(async () => {
  await sim?.close();
  await testDb?.close();
});
beforeEach(async () => {
  await testDb.truncateAll();
});

const posts = (channel: string) =>
  sim.calls.filter((c) => c.method === 'chat.postMessage' && c.ok && c.args.channel === channel).length;
const deps = (chat: NoticeDeps['chat'] = gateway): NoticeDeps => ({ db: testDb.db, chat });
/** As if the lease of every unfinished notice had run out (its poster died or lost Slack's answer). */
const expireLeases = () => testDb.db.update(notifications).set({ claimedUntil: sql`now() - interval '1 second'` });
const lostAnswer = Object.assign(new Error('socket hang up'), { code: 'slack_webapi_request_error' });

/** Slack posts the message, but its answer never arrives. */
function answerLost(): NoticeDeps['chat'] {
  return {
    ...gateway,
    postMessage: async (ws, channel, message) => (
      await gateway.postMessage(ws, channel, message),
      Promise.reject(lostAnswer)
    ),
  };
}
/** The request never reaches Slack. */
function unreachable(): NoticeDeps['chat'] {
  return { ...gateway, postMessage: () => Promise.reject(lostAnswer) };
}

describe('postOnce', () => {
  it('posts once when 10 callers race for the same notice, and stores where it went', async () => {
    const before = posts('C_KUDOS');
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        postOnce(
          deps(),
          { kind: 'order.completed', subject: 'OR-9' },
          { to: { channel: 'C_KUDOS' }, message: { text: 'Order OR-9 complete' } },
        ),
      ),
    );
    expect(posts('C_KUDOS') - before).toBe(1);
    expect(results.filter((r) => r.posted)).toHaveLength(1);
    const [row] = await testDb.db.select().from(notifications);
    expect(row).toMatchObject({
      kind: 'order.completed',
      subject: 'OR-9',
      channel: 'C_KUDOS',
      postedAt: expect.any(Date),
      claimedUntil: null,
    });
    expect(sim.messages('C_KUDOS').find((m) => m.ts === row!.ts)?.metadata).toEqual({
      event_type: 'kudos_notice',
      event_payload: { notice_id: row!.id },
    });
  });

  it('may post again after Slack refused it (nothing was posted)', async () => {
    await expect(
      postOnce(deps(), { kind: 'k', subject: 'a' }, { to: { channel: 'C_NOPE' }, message: { text: 'hello' } }),
    ).rejects.toThrow(/channel_not_found/);
    expect(await testDb.db.select().from(notifications)).toHaveLength(0);
    expect(
      (await postOnce(deps(), { kind: 'k', subject: 'a' }, { to: { channel: 'C_KUDOS' }, message: { text: 'hello' } }))
        .posted,
    ).toBe(true);
  });

  it('never posts again inline after an unknown outcome', async () => {
    const before = posts('C_KUDOS');
    await expect(
      postOnce(
        deps(answerLost()),
        { kind: 'k', subject: 'b' },
        { to: { channel: 'C_KUDOS' }, message: { text: 'hello' } },
      ),
    ).rejects.toThrow();
    expect(
      (await postOnce(deps(), { kind: 'k', subject: 'b' }, { to: { channel: 'C_KUDOS' }, message: { text: 'hello' } }))
        .posted,
    ).toBe(false);
    expect(posts('C_KUDOS') - before).toBe(1);
  });
});

describe('resumeStalledNotices', () => {
  it('finds a channel notice whose answer was lost, and does not post it again', async () => {
    const before = posts('C_KUDOS');
    await expect(
      postOnce(
        deps(answerLost()),
        { kind: 'kudos.announcement', subject: 'K1' },
        { to: { channel: 'C_KUDOS' }, message: { text: 'Maya sent kudos' } },
      ),
    ).rejects.toThrow();
    // Still within the lease: nobody touches it.
    expect(await resumeStalledNotices({ ...deps(), logger })).toEqual({
      found: 0,
      posted: 0,
      failed: 0,
      deferred: 0,
      reposted: 0,
    });
    await expireLeases();
    expect(await resumeStalledNotices({ ...deps(), logger })).toMatchObject({ found: 1, posted: 0 });
    expect(posts('C_KUDOS') - before).toBe(1);
    const [row] = await testDb.db.select().from(notifications);
    expect(row!.ts).toBe(sim.messages('C_KUDOS').at(-1)!.ts);
    expect(row!.postedAt).not.toBeNull();
  });

  it('posts a notice that never reached Slack, once, even if resumed twice', async () => {
    const before = posts('C_KUDOS');
    await expect(
      postOnce(
        deps(unreachable()),
        { kind: 'kudos.announcement', subject: 'K2' },
        { to: { channel: 'C_KUDOS' }, message: { text: 'Maya sent kudos' } },
      ),
    ).rejects.toThrow();
    await expireLeases();
    const [first, second] = await Promise.all([
      resumeStalledNotices({ ...deps(), logger }),
      resumeStalledNotices({ ...deps(), logger }),
    ]);
    expect(first.posted + second.posted).toBe(1);
    expect(posts('C_KUDOS') - before).toBe(1);
    expect(sim.messages('C_KUDOS').at(-1)!.text).toBe('Maya sent kudos');
  });

  it('looks in the thread for a threaded notice, and in the DM for a direct message', async () => {
    const parent = await gateway.postMessage({ teamId: 'T' }, 'C_KUDOS', { text: 'Maya sent kudos' });
    await expect(
      postOnce(
        deps(answerLost()),
        { kind: 'order.completed', subject: 'OR-1' },
        { to: { channel: 'C_KUDOS', threadTs: parent.ts }, message: { text: 'complete' } },
      ),
    ).rejects.toThrow();
    await expect(
      postOnce(
        deps(answerLost()),
        { kind: 'order.completed.dm', subject: 'OR-1' },
        { to: { userId: 'U_MANAGER' }, message: { text: 'your kudos arrived' } },
      ),
    ).rejects.toThrow();
    await expireLeases();
    expect(await resumeStalledNotices({ ...deps(), logger })).toMatchObject({ found: 2, posted: 0 });
    expect(sim.messages('C_KUDOS').filter((m) => m.thread_ts === parent.ts && m.ts !== parent.ts)).toHaveLength(1);
    expect(sim.messages('U_MANAGER').filter((m) => m.text === 'your kudos arrived')).toHaveLength(1);
    const rows = await testDb.db.select().from(notifications);
    expect(rows.every((r) => r.postedAt && r.ts)).toBe(true);
  });

  it('records a DM whose channel could not be opened (Slack unreachable), and the next sweep posts it once', async () => {
    const noDm: NoticeDeps['chat'] = { ...gateway, openDirectChannel: () => Promise.reject(lostAnswer) };
    await expect(
      postOnce(
        deps(noDm),
        { kind: 'kudos.confirmation', subject: 'K3' },
        { to: { userId: 'U_MANAGER' }, message: { text: 'your kudos is on its way' } },
      ),
    ).rejects.toThrow('socket hang up');
    const [row] = await testDb.db.select().from(notifications);
    expect(row).toMatchObject({
      dmUserId: 'U_MANAGER',
      channel: null,
      claimedUntil: null,
      attemptedAt: null,
      postedAt: null,
    });
    // Retried by its caller meanwhile: recorded already, not posted twice.
    expect(
      (
        await postOnce(
          deps(),
          { kind: 'kudos.confirmation', subject: 'K3' },
          { to: { userId: 'U_MANAGER' }, message: { text: 'your kudos is on its way' } },
        )
      ).posted,
    ).toBe(false);
    expect(await resumeStalledNotices({ ...deps(), logger })).toMatchObject({ found: 0, posted: 1 });
    expect(await resumeStalledNotices({ ...deps(), logger })).toMatchObject({ posted: 0 });
    expect(sim.messages('U_MANAGER').filter((m) => m.text === 'your kudos is on its way')).toHaveLength(1);
  });

  it('a process that died after recording the notice but before calling Slack: posted on resume', async () => {
    await testDb.db.insert(notifications).values({
      kind: 'order.bounced',
      subject: 'OR-2:a@example.com',
      dmUserId: 'U_MANAGER',
      message: { text: 'a card bounced' },
      claimedUntil: sql`now() - interval '1 second'`,
    });
    expect(await resumeStalledNotices({ ...deps(), logger })).toMatchObject({ posted: 1 });
    expect(sim.messages('U_MANAGER').filter((m) => m.text === 'a card bounced')).toHaveLength(1);
  });

  it('gives up a notice Slack refuses, and one recorded without its message by an older version', async () => {
    await testDb.db.insert(notifications).values([
      { kind: 'k', subject: 'refused', channel: 'C_GONE', message: { text: 'x' } },
      { kind: 'k', subject: 'old', channel: 'C_KUDOS' },
    ]);
    expect(await resumeStalledNotices({ ...deps(), logger })).toMatchObject({ failed: 2 });
    const rows = await testDb.db.select().from(notifications).where(eq(notifications.kind, 'k'));
    expect(rows.map((r) => [r.subject, r.error])).toEqual(
      expect.arrayContaining([
        ['refused', 'channel_not_found'],
        ['old', expect.stringContaining('older version')],
      ]),
    );
    expect(await resumeStalledNotices({ ...deps(), logger })).toEqual({
      found: 0,
      posted: 0,
      failed: 0,
      deferred: 0,
      reposted: 0,
    });
  });
});

describe('a notice for the thread of another still in the outbox', () => {
  const sweep = () => resumeStalledNotices({ ...deps(), logger });

  it('waits as long as that one does (days: the sweep has no window), then goes in its thread, once', async () => {
    // An announcement waiting for its turn in Slack, recorded long ago; its completion notice follows it.
    const [announcement] = await testDb.db
      .insert(notifications)
      .values({
        kind: 'kudos.announcement',
        subject: 'K-late',
        channel: 'C_KUDOS',
        message: { text: 'Maya sent kudos (late)' },
        claimedUntil: sql`now() + interval '1 hour'`,
      })
      .returning();
    await queueNoticeInThreadOf(
      testDb.db,
      { kind: 'order.completed', subject: 'OR-late' },
      { channel: 'C_KUDOS', threadOf: announcement!.id, message: { text: 'OR-late complete' } },
    );
    await testDb.db.update(notifications).set({ createdAt: sql`now() - interval '30 days'` });
    expect(await sweep()).toMatchObject({ posted: 0 });
    await expireLeases();
    expect((await sweep()).posted + (await sweep()).posted).toBe(2);
    expect(await sweep()).toEqual({ found: 0, posted: 0, failed: 0, deferred: 0, reposted: 0 });
    const parent = sim.messages('C_KUDOS').filter((m) => m.text === 'Maya sent kudos (late)');
    const replies = sim.messages('C_KUDOS').filter((m) => m.text === 'OR-late complete');
    expect(parent).toHaveLength(1);
    expect(replies).toHaveLength(1);
    expect(replies[0]!.thread_ts).toBe(parent[0]!.ts);
    const [completed] = await testDb.db.select().from(notifications).where(eq(notifications.subject, 'OR-late'));
    expect(completed).toMatchObject({ threadTs: parent[0]!.ts, ts: replies[0]!.ts });
  });

  it('goes in its channel when that one was given up or removed', async () => {
    const [refused] = await testDb.db
      .insert(notifications)
      .values({ kind: 'kudos.announcement', subject: 'K-gone', channel: 'C_GONE', message: { text: 'x' } })
      .returning();
    await queueNoticeInThreadOf(
      testDb.db,
      { kind: 'order.completed', subject: 'OR-a' },
      { channel: 'C_KUDOS', threadOf: refused!.id, message: { text: 'OR-a complete' } },
    );
    await queueNoticeInThreadOf(
      testDb.db,
      { kind: 'order.completed', subject: 'OR-b' },
      { channel: 'C_KUDOS', threadOf: crypto.randomUUID(), message: { text: 'OR-b complete' } },
    );
    // Recorded once: a second recording (another instance, a retry) changes nothing.
    await queueNoticeInThreadOf(
      testDb.db,
      { kind: 'order.completed', subject: 'OR-b' },
      { channel: 'C_KUDOS', threadOf: crypto.randomUUID(), message: { text: 'OR-b complete' } },
    );
    expect(await sweep()).toMatchObject({ posted: 1, failed: 1 });
    expect(await sweep()).toMatchObject({ posted: 1 });
    expect(await sweep()).toEqual({ found: 0, posted: 0, failed: 0, deferred: 0, reposted: 0 });
    const posted = sim.messages('C_KUDOS').filter((m) => m.text === 'OR-a complete' || m.text === 'OR-b complete');
    expect(posted.map((m) => m.text).sort()).toEqual(['OR-a complete', 'OR-b complete']);
    expect(posted.every((m) => !m.thread_ts)).toBe(true);
  });
});

describe('a notice that comes after another (`follows`, recorded by an older version)', () => {
  const sweep = () => resumeStalledNotices({ ...deps(), logger });
  /** A decision recorded by an older version to come after its "waiting" notice, in its own DM. */
  const queueAfter = (subject: string, after: string, to: { dmUserId: string } | { channel: string }, text: string) =>
    testDb.db
      .insert(notifications)
      .values({ kind: 'approval.decision', subject, ...to, follows: after, message: { text } });

  it('waits while that one is being posted, then goes in its own DM (not its thread), once', async () => {
    // "Waiting" being posted by another instance (its lease held); the decision must not overtake it.
    const [waiting] = await testDb.db
      .insert(notifications)
      .values({
        kind: 'approval.waiting',
        subject: 'K-1#0',
        dmUserId: 'U_MANAGER',
        message: { text: 'waiting' },
        claimedUntil: sql`now() + interval '1 hour'`,
      })
      .returning();
    await queueAfter('K-1#0', waiting!.id, { dmUserId: 'U_MANAGER' }, 'approved');
    expect(await sweep()).toMatchObject({ posted: 0 });
    await expireLeases();
    expect(await sweep()).toMatchObject({ posted: 1 });
    expect(await sweep()).toMatchObject({ posted: 1 });
    expect(await sweep()).toEqual({ found: 0, posted: 0, failed: 0, deferred: 0, reposted: 0 });
    const dm = sim.messages('U_MANAGER').filter((m) => ['waiting', 'approved'].includes(m.text));
    expect(dm.map((m) => m.text)).toEqual(['waiting', 'approved']);
    expect(dm.every((m) => !m.thread_ts)).toBe(true);
  });

  it('goes out when that one was given up or removed', async () => {
    const [givenUp] = await testDb.db
      .insert(notifications)
      .values({
        kind: 'approval.waiting',
        subject: 'K-2#0',
        dmUserId: 'U_MANAGER',
        message: { text: 'waiting' },
        failedAt: sql`now()`,
      })
      .returning();
    await queueAfter('K-2#0', givenUp!.id, { dmUserId: 'U_MANAGER' }, 'approved K-2');
    await queueAfter('K-3#0', crypto.randomUUID(), { channel: 'C_KUDOS' }, 'approved K-3');
    expect(await sweep()).toMatchObject({ posted: 2 });
    expect(sim.messages('U_MANAGER').filter((m) => m.text === 'approved K-2')).toHaveLength(1);
    expect(sim.messages('C_KUDOS').filter((m) => m.text === 'approved K-3')).toHaveLength(1);
  });
});

describe('an edit of another notice (editOnce)', () => {
  const sweep = () => resumeStalledNotices({ ...deps(), logger });
  const updates = (ts: string) =>
    sim.calls.filter((c) => c.method === 'chat.update' && c.ok && c.args.ts === ts).length;
  const edit = { kind: 'kudos.announcement.edit', subject: 'K-E#3' };

  it('edits a posted notice at once, once however many callers record it, and never posts another message', async () => {
    await postOnce(
      deps(),
      { kind: 'kudos.announcement', subject: 'K-E' },
      { to: { channel: 'C_KUDOS' }, message: { text: 'Maya sent kudos to 200 people' } },
    );
    const announced = (await findNotification(testDb.db, 'kudos.announcement', 'K-E'))!;
    const before = posts('C_KUDOS');
    const outcomes = await Promise.all(
      Array.from({ length: 5 }, () =>
        editOnce(deps(), edit, { of: announced, message: { text: 'Maya sent kudos to 250 people' } }),
      ),
    );
    expect(outcomes.sort()).toEqual(['edited', 'recorded', 'recorded', 'recorded', 'recorded']);
    expect(await sweep()).toEqual({ found: 0, posted: 0, failed: 0, deferred: 0, reposted: 0 });
    expect(posts('C_KUDOS')).toBe(before);
    expect(updates(announced.ts!)).toBe(1);
    expect(sim.messages('C_KUDOS').find((m) => m.ts === announced.ts)).toMatchObject({
      text: 'Maya sent kudos to 250 people',
      edited: expect.anything(),
    });
  });

  it('waits while the notice it edits is still to be posted, then edits it once', async () => {
    const [waiting] = await testDb.db
      .insert(notifications)
      .values({
        kind: 'kudos.announcement',
        subject: 'K-W',
        channel: 'C_KUDOS',
        message: { text: 'Maya sent kudos to 200 people (waiting)' },
        claimedUntil: sql`now() + interval '1 hour'`,
      })
      .returning();
    expect(
      await editOnce(
        deps(),
        { ...edit, subject: 'K-W#3' },
        { of: waiting!, message: { text: 'Maya sent kudos to 250 people (waiting)' } },
      ),
    ).toBe('later');
    expect(await sweep()).toMatchObject({ posted: 0 });
    await expireLeases();
    expect((await sweep()).posted + (await sweep()).posted).toBe(2);
    expect(await sweep()).toEqual({ found: 0, posted: 0, failed: 0, deferred: 0, reposted: 0 });
    const shown = sim.messages('C_KUDOS').filter((m) => m.text.endsWith('(waiting)'));
    expect(shown.map((m) => m.text)).toEqual(['Maya sent kudos to 250 people (waiting)']);
    expect(updates(shown[0]!.ts)).toBe(1);
  });

  it('edits of one message are made in the order they were recorded, even when Slack made the first wait', async () => {
    // The sender's DM: "waiting", then "approved" (Slack made it wait), then "on its way".
    await postOnce(
      deps(),
      { kind: 'approval.waiting', subject: 'K-O#0' },
      { to: { userId: 'U_MANAGER' }, message: { text: 'waiting (K-O)' } },
    );
    const dm = (await findNotification(testDb.db, 'approval.waiting', 'K-O#0'))!;
    const rateLimited: NoticeDeps['chat'] = {
      ...gateway,
      updateMessage: () => Promise.reject(new ChatRefusal('rate_limited', 'ratelimited', { retryAfterSeconds: 1 })),
    };
    expect(
      await editOnce(
        deps(rateLimited),
        { kind: 'approval.decision', subject: 'K-O#0' },
        { of: dm, message: { text: 'approved (K-O)' } },
      ),
    ).toBe('later');
    // The next step waits for it: made now, it would be undone by the older one.
    expect(
      await editOnce(
        deps(),
        { kind: 'kudos.sender_dm', subject: 'K-O#placed' },
        { of: dm, message: { text: 'on its way (K-O)' } },
      ),
    ).toBe('later');
    expect(updates(dm.ts!)).toBe(0);
    await expireLeases();
    expect(await sweep()).toMatchObject({ posted: 1 });
    expect(await sweep()).toMatchObject({ posted: 1 });
    expect(await sweep()).toEqual({ found: 0, posted: 0, failed: 0, deferred: 0, reposted: 0 });
    const texts = sim.calls
      .filter((c) => c.method === 'chat.update' && c.ok && c.args.ts === dm.ts)
      .map((c) => c.args.text);
    expect(texts).toEqual(['approved (K-O)', 'on its way (K-O)']);
    expect(sim.messages('U_MANAGER').find((m) => m.ts === dm.ts)!.text).toBe('on its way (K-O)');
  });

  it('is given up when the notice it edits was given up (nothing was posted to edit)', async () => {
    const [refused] = await testDb.db
      .insert(notifications)
      .values({ kind: 'kudos.announcement', subject: 'K-G', channel: 'C_GONE', message: { text: 'x' } })
      .returning();
    expect(await editOnce(deps(), { ...edit, subject: 'K-G#3' }, { of: refused!, message: { text: 'y' } })).toBe(
      'later',
    );
    expect(await sweep()).toMatchObject({ posted: 0, failed: 1 });
    expect(await sweep()).toMatchObject({ posted: 0, failed: 1 });
    expect(await sweep()).toEqual({ found: 0, posted: 0, failed: 0, deferred: 0, reposted: 0 });
    expect(sim.calls.filter((c) => c.method === 'chat.update' && c.args.channel === 'C_GONE')).toHaveLength(0);
    expect(await findNotification(testDb.db, edit.kind, 'K-G#3')).toMatchObject({
      failedAt: expect.any(Date),
      error: 'the message it edits was never posted',
    });
  });

  it('whose answer was lost is made again after its lease (an edit is safe to repeat), then done', async () => {
    await postOnce(
      deps(),
      { kind: 'kudos.announcement', subject: 'K-L' },
      { to: { channel: 'C_KUDOS' }, message: { text: 'Maya sent kudos to 100 people (lost)' } },
    );
    const announced = (await findNotification(testDb.db, 'kudos.announcement', 'K-L'))!;
    const lost: NoticeDeps['chat'] = {
      ...gateway,
      updateMessage: async (ws, channel, ts, message) => (
        await gateway.updateMessage(ws, channel, ts, message),
        Promise.reject(lostAnswer)
      ),
    };
    expect(
      await editOnce(
        deps(lost),
        { ...edit, subject: 'K-L#2' },
        { of: announced, message: { text: 'Maya sent kudos to 200 people (lost)' } },
      ),
    ).toBe('later');
    expect(await sweep()).toMatchObject({ posted: 0 });
    await expireLeases();
    expect(await sweep()).toMatchObject({ posted: 1 });
    expect(await sweep()).toEqual({ found: 0, posted: 0, failed: 0, deferred: 0, reposted: 0 });
    expect(
      sim
        .messages('C_KUDOS')
        .filter((m) => m.text.endsWith('(lost)'))
        .map((m) => m.text),
    ).toEqual(['Maya sent kudos to 200 people (lost)']);
    expect(updates(announced.ts!)).toBe(2);
  });
});

describe('what the outbox keeps of a message', () => {
  const linksDm = {
    to: { userId: 'U_ADMIN' },
    message: { text: 'Your reward links are ready:\nhttps://rewards.example/redeem/SECRET1' },
  };

  it('erases a reward-links DM once posted, inline or on resume, and still posts it exactly once', async () => {
    await postOnce(deps(), { kind: REWARD_LINKS_NOTICE_KIND, subject: 'LO-1#0' }, linksDm);
    await postOnce(deps(answerLost()), { kind: REWARD_LINKS_NOTICE_KIND, subject: 'LO-2#0' }, linksDm).catch(
      () => undefined,
    );
    await expireLeases();
    expect(await resumeStalledNotices({ ...deps(), logger })).toMatchObject({ found: 1 });
    await postOnce(deps(), { kind: REWARD_LINKS_NOTICE_KIND, subject: 'LO-1#0' }, linksDm);

    const dm = await gateway.openDirectChannel({ teamId: 'T' }, 'U_ADMIN');
    expect(sim.messages(dm).filter((m) => m.text.includes('SECRET1'))).toHaveLength(2);
    const rows = await testDb.db.select().from(notifications);
    expect(rows.map((r) => ({ subject: r.subject, message: r.message, posted: r.postedAt !== null }))).toEqual(
      expect.arrayContaining([
        { subject: 'LO-1#0', message: null, posted: true },
        { subject: 'LO-2#0', message: null, posted: true },
      ]),
    );
    // Other notices keep their message until the retention runs out.
    await postOnce(
      deps(),
      { kind: 'order.completed', subject: 'OR-1' },
      { to: { channel: 'C_KUDOS' }, message: { text: 'Order OR-1 complete' } },
    );
    expect((await testDb.db.select().from(notifications).where(eq(notifications.subject, 'OR-1')))[0]?.message).toEqual(
      { text: 'Order OR-1 complete' },
    );
  });

  it('erases the messages of notices posted or given up more than 7 days ago, and nothing else', async () => {
    const message = { text: 'kept for now' };
    await testDb.db.insert(notifications).values([
      {
        kind: 'order.completed',
        subject: 'OLD',
        channel: 'C_KUDOS',
        message,
        postedAt: sql`now() - interval '8 days'`,
      },
      {
        kind: 'order.completed',
        subject: 'OLD-FAILED',
        channel: 'C_KUDOS',
        message,
        failedAt: sql`now() - interval '8 days'`,
      },
      {
        kind: 'order.completed',
        subject: 'RECENT',
        channel: 'C_KUDOS',
        message,
        postedAt: sql`now() - interval '6 days'`,
      },
      // Not posted yet, however old: still needed to post it.
      {
        kind: 'order.completed',
        subject: 'UNPOSTED',
        channel: 'C_KUDOS',
        message,
        createdAt: sql`now() - interval '30 days'`,
      },
    ]);
    expect(await expireNoticeMessages(testDb.db)).toBe(2);
    const rows = await testDb.db.select().from(notifications);
    expect(Object.fromEntries(rows.map((r) => [r.subject, r.message]))).toEqual({
      OLD: null,
      'OLD-FAILED': null,
      RECENT: message,
      UNPOSTED: message,
    });
  });
});

describe('lost-post recovery without reading history (distribution mode)', () => {
  const historyReads = () =>
    sim.calls.filter((c) => c.method === 'conversations.history' || c.method === 'conversations.replies').length;

  it('a notice whose answer was lost is posted again, once, and history is never read', async () => {
    const blindClient = new webApi.WebClient(sim.botToken, { slackApiUrl: sim.apiUrl, retryConfig: { retries: 0 } });
    const blind = singleWorkspace(
      createSlackGateway(blindClient, { historyReads: false }),
      createUserLister(blindClient),
    );
    expect(blind.findMessageByMetadata).toBeUndefined();
    const before = { posts: posts('C_KUDOS'), reads: historyReads() };
    const lost: NoticeDeps['chat'] = {
      ...blind,
      postMessage: async (ws, channel, message) => (
        await blind.postMessage(ws, channel, message),
        Promise.reject(lostAnswer)
      ),
    };
    await expect(
      postOnce(
        deps(lost),
        { kind: 'order.completed', subject: 'OR-BLIND' },
        { to: { channel: 'C_KUDOS' }, message: { text: 'Order OR-BLIND complete' } },
      ),
    ).rejects.toThrow();
    await expireLeases();
    expect(await resumeStalledNotices({ ...deps(blind), logger })).toMatchObject({ found: 0, posted: 1, reposted: 1 });
    // Never lost; twice at most (the lost answer had posted it); never a third time.
    expect(await resumeStalledNotices({ ...deps(blind), logger })).toMatchObject({ posted: 0 });
    expect(posts('C_KUDOS') - before.posts).toBe(2);
    expect(historyReads()).toBe(before.reads);
    const [row] = await testDb.db.select().from(notifications);
    expect(row).toMatchObject({ postedAt: expect.any(Date), ts: expect.any(String) });
  });

  it('a post that never left (no connection) is posted once, with no lookup and no duplicate', async () => {
    const blindClient = new webApi.WebClient(sim.botToken, { slackApiUrl: sim.apiUrl, retryConfig: { retries: 0 } });
    const blind = singleWorkspace(
      createSlackGateway(blindClient, { historyReads: false }),
      createUserLister(blindClient),
    );
    const down = createSlackGateway(
      new webApi.WebClient(sim.botToken, {
        slackApiUrl: `http://127.0.0.1:${await closedPort()}/api/`,
        retryConfig: { retries: 0 },
      }),
    );
    const before = { posts: posts('C_KUDOS'), reads: historyReads() };
    const error = await postOnce(
      deps({ ...blind, postMessage: (_ws, channel, message) => down.postMessage(channel, message) }),
      { kind: 'order.completed', subject: 'OR-DOWN' },
      { to: { channel: 'C_KUDOS' }, message: { text: 'x' } },
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ChatRefusal', outcome: 'not_sent' });
    // Known not posted: due again at once, as never attempted.
    const [pending] = await testDb.db.select().from(notifications);
    expect(pending!.attemptedAt).toBeNull();
    await expireLeases();
    expect(await resumeStalledNotices({ ...deps(blind), logger })).toMatchObject({ posted: 1, reposted: 0 });
    expect(posts('C_KUDOS') - before.posts).toBe(1);
    expect(historyReads()).toBe(before.reads);
  });
});
