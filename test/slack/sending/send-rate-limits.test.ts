// The send modal's submission under Slack's rate limits (the simulator enforces them): a check that
// would have to wait for a Slack slot past Slack's 3 s books none and says when to press Send again;
// nothing is recorded until a press is accepted, and then once. users.list (a big group's members are
// checked against the workspace's people) keeps to Tier 2: a workspace too big to read in one minute
// is read at Slack's pace, once, without a 429. Signed requests through the simulator; no timings.
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { rowsOf } from '../../../src/db/client.js';
import { kudos } from '../../../src/db/schema/index.js';
import { TEAM_ID } from '../../../src/simulator/seed.js';
import { workspacePerson } from '../../../src/simulator/seed.js';
import { eventually, sendModalValues, useAppPerTest } from '../../support/app.js';
import { slackRetryAfterPassed } from '../../support/slack-retry-after.js';

const e2e = useAppPerTest({ env: { KUDOS_NOTIFY_CHANNEL: 'C_KUDOS', KUDOS_APPROVAL_THRESHOLD: '1000000' } });

async function openSendModal(userId: string) {
  const { sim } = e2e.stack;
  await sim.slashCommand(userId, '', 'C_GENERAL');
  return sim.waitFor(() => sim.openViews(userId).find((v) => v.callback_id === 'kudos_send'));
}

/** Presses Send: accepted (the modal closed) or the inline errors, joined. */
async function pressSend(
  viewId: string,
  values: Record<string, Record<string, unknown>>,
  userId = 'U_MANAGER',
): Promise<{ accepted: boolean; errors: string }> {
  const { sim } = e2e.stack;
  const answer = await sim.submitView(viewId, values, userId);
  const accepted = answer.body === '' && sim.openViews(userId).every((v) => v.id !== viewId);
  return { accepted, errors: Object.values(sim.viewErrors(viewId)).join(' ') };
}

/**
 * Presses Send until Slack is said to be busy, and returns that answer. A press that Slack itself gave
 * up on (the app's answer later than 3 s on a loaded machine: "trouble connecting") is pressed again.
 */
async function pressUntilBusy(viewId: string, values: Record<string, Record<string, unknown>>): Promise<string> {
  for (let press = 1; ; press++) {
    const answer = await pressSend(viewId, values);
    expect(answer.accepted).toBe(false);
    if (!/trouble connecting/.test(answer.errors) || press === 5) return answer.errors;
  }
}

/**
 * Presses Send once Slack has room, and returns the answers before it was accepted: only Slack giving
 * up on a press (the app's answer later than 3 s on a loaded machine) is pressed again.
 */
async function pressAccepted(viewId: string, values: Record<string, Record<string, unknown>>): Promise<string[]> {
  const answers: string[] = [];
  for (let press = 1; ; press++) {
    const answer = await pressSend(viewId, values);
    if (answer.accepted) return answers;
    answers.push(answer.errors);
    if (!/trouble connecting|took too long/.test(answer.errors) || press === 5)
      throw new Error(`the press was not accepted: ${answers.join(' | ')}`);
  }
}

async function scheduleRow(key: string) {
  const [row] = rowsOf<{ next_at: unknown; blocked_until: unknown; updated_at: unknown }>(
    await e2e.db.execute(
      sql`select next_at::text, blocked_until::text, updated_at::text from slack_call_schedules where team_id = ${TEAM_ID} and key = ${key}`,
    ),
  );
  return row;
}

const okCalls = (method: string) => e2e.stack.sim.calls.filter((c) => c.method === method && c.ok).length;

describe('the send modal under Slack rate limits', () => {
  it(
    "a group's members cannot be read before Slack's 3 s: the person is told to press Send again in N s, nothing is booked or recorded, and a later press sends once",
    { timeout: 90_000 },
    async () => {
      const { sim } = e2e.stack;
      const view = await openSendModal('U_MANAGER');
      const values = sendModalValues({
        group: { value: 'slack:S_TEAM', text: '@team' },
        design: 'CC-THANK-YOU',
        amount: '25',
        message: 'Thanks, team',
      });
      // Slack answers the group's read with a 429 and a 10 s Retry-After (the app's share of Tier 2 used up).
      sim.rateLimits.storm({ count: 1, retryAfterSeconds: 10, methods: ['usergroups.users.list'] });

      expect(await pressUntilBusy(view.id, values)).toMatch(
        /Slack is busy right now .*Nothing was sent\. Press Send again in \d+ s\./,
      );
      expect(await e2e.db.select().from(kudos)).toEqual([]);

      // Pressing again while Slack has no room books no slot (the schedule is untouched) and calls nothing.
      const before = await scheduleRow('usergroups.users.list');
      expect(before?.blocked_until).toBeTruthy();
      for (let press = 0; press < 2; press++)
        expect(await pressUntilBusy(view.id, values)).toContain('Slack is busy right now');
      expect(await scheduleRow('usergroups.users.list')).toEqual(before);
      expect(okCalls('usergroups.users.list')).toBe(0);
      expect(await e2e.db.select().from(kudos)).toEqual([]);

      // Once the Retry-After has passed, a press is accepted: one send, to the group, read once.
      expect(await slackRetryAfterPassed(e2e.db, 'usergroups.users.list')).toBe(1);
      const meanwhile = await pressAccepted(view.id, values);
      for (const errors of meanwhile) expect(errors).toMatch(/trouble connecting|took too long/);
      const recorded = await eventually(async () => e2e.db.select().from(kudos).where(eq(kudos.sourceViewId, view.id)));
      expect(recorded).toHaveLength(1);
      expect(recorded[0]!.recipientCount).toBe(2);
      expect(await e2e.db.select().from(kudos)).toHaveLength(1);
      expect(okCalls('usergroups.users.list')).toBe(1);
      // The storm's one 429, and none from Slack's limits.
      expect(sim.rateLimits.counts().total).toBe(1);
    },
  );

  it(
    'users.list keeps to Tier 2: a workspace of 4,100 people (21 pages, more than Slack allows in a minute) is read once at its pace, with no 429; the big group is sent once it is read',
    { timeout: 200_000 },
    async () => {
      const { sim } = e2e.stack;
      const members: string[] = [];
      for (let i = 0; sim.workspace.users.length < 4100; i++) {
        const id = `U_MANY${String(i).padStart(4, '0')}`;
        sim.workspace.users.push(
          workspacePerson(id, `many${i}`, `Person ${i}`, 'member', { displayName: `P${i}`, tz: 'UTC' }),
        );
        if (members.length < 100) members.push(id);
      }
      sim.workspace.usergroups.push({ id: 'S_HUNDRED', handle: 'hundred', name: 'A Hundred', users: members });
      const pages = Math.ceil(sim.workspace.users.length / 200);
      expect(pages).toBe(21);

      const view = await openSendModal('U_MANAGER');
      const values = sendModalValues({
        group: { value: 'slack:S_HUNDRED', text: '@hundred' },
        design: 'CC-THANK-YOU',
        amount: '5',
        message: 'Thank you all',
      });
      expect(await pressUntilBusy(view.id, values)).toMatch(/Slack is busy right now .*Press Send again in \d+ s\./);
      expect(await e2e.db.select().from(kudos)).toEqual([]);

      // The read goes on at Slack's pace (Tier 2: about a minute and a half for 21 pages) whoever waits.
      // A press while it does is told to come back, and waits for the same read.
      await eventually(() => okCalls('users.list') > pages / 2, 180_000);
      expect(await pressUntilBusy(view.id, values)).toMatch(/Slack is busy right now .*Press Send again in \d+ s\./);
      // The person comes back once the workspace has been read: accepted.
      await eventually(() => okCalls('users.list') === pages, 180_000);
      const meanwhile = await pressAccepted(view.id, values);
      for (const errors of meanwhile) expect(errors).toMatch(/trouble connecting|took too long/);
      const recorded = await eventually(async () => e2e.db.select().from(kudos).where(eq(kudos.sourceViewId, view.id)));
      expect(recorded).toHaveLength(1);
      expect(recorded[0]!.recipientCount).toBe(100);
      expect(okCalls('users.list')).toBe(pages);
      expect(sim.rateLimits.counts().total).toBe(0);
    },
  );
});
