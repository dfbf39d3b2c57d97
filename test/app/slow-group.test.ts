// The first send to a 1,500-member user group while Slack answers as slowly as it does (250 ms a
// page: usergroups.users.list, eight users.list pages, users.info): every answer ok, no 429. The form
// is answered in time without an error, the send goes on after the answer, is placed for every
// member, and nobody is told Slack is busy or rate-limited. Signed requests through the simulator,
// the Rewards emulator over HTTP, PGlite and PostgreSQL.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { kudos } from '../../src/db/schema/index.js';
import { workspacePerson } from '../../src/simulator/seed.js';
import type { SlackSimulator } from '../../src/simulator/slack.js';
import { eventually, sendModalValues, useAppPerTest } from '../support/app.js';

const GROUP_SIZE = 1500;
const e2e = useAppPerTest({
  env: { KUDOS_NOTIFY_CHANNEL: 'C_KUDOS', KUDOS_APPROVAL_THRESHOLD: '1000000' },
  // Placing 1,500 cards is the big-group file's subject; a roomier Rewards limit keeps this one short.
  emulatorEnv: { EMULATOR_RATE_LIMIT: '20000' },
});

function seedGroup(sim: SlackSimulator): void {
  const ids: string[] = [];
  for (let i = 0; i < GROUP_SIZE; i++) {
    const id = `U_SLOW${String(i).padStart(4, '0')}`;
    ids.push(id);
    sim.workspace.users.push(
      workspacePerson(id, `slow${i}`, `Person ${i}`, 'member', { displayName: `P${i}`, tz: 'UTC' }),
    );
  }
  sim.workspace.usergroups.push({ id: 'S_SLOW', handle: 'all-hands', name: 'All Hands', users: ids });
}

/** Everything the sender saw from Kudos: the modal (its errors and content) and every message to them. */
function seenBySender(sim: SlackSimulator, viewId: string): string {
  const views = sim.openViews('U_MANAGER').filter((v) => v.id === viewId);
  const messages = sim.messages('U_MANAGER').map((m) => `${m.text}\n${JSON.stringify(m.blocks ?? [])}`);
  const ephemerals = sim.messages('C_GENERAL').filter((m) => m.ephemeral && m.visible_to === 'U_MANAGER');
  return [
    JSON.stringify(sim.viewErrors(viewId)),
    JSON.stringify(views),
    ...messages,
    ...ephemerals.map((m) => m.text),
  ].join('\n');
}

describe('a big user group while Slack answers slowly', () => {
  it(
    'the first send to 1,500 people is answered in time, placed for all of them, and nobody is told about a rate limit',
    { timeout: 600_000 },
    async () => {
      const { sim } = e2e.stack;
      seedGroup(sim);
      // $7,500 in one send: above the emulator's seeded daily limit of $5,000.
      await e2e.emulator.setLimits({ dailyLimitUsd: 50_000, monthlyLimitUsd: 500_000 });
      await e2e.emulator.setBalance(50_000);
      sim.setLatency({ 'users.list': 250, 'usergroups.users.list': 250, 'users.info': 250 });

      await sim.slashCommand('U_MANAGER', '', 'C_GENERAL');
      const view = await sim.waitFor(() => sim.openViews('U_MANAGER').find((v) => v.callback_id === 'kudos_send'));
      const answer = await sim.submitView(
        view.id,
        sendModalValues({
          group: { value: 'slack:S_SLOW', text: '@all-hands' },
          design: 'CC-THANK-YOU',
          amount: '5',
          message: 'Thanks, everyone',
        }),
        'U_MANAGER',
      );
      expect(answer.status).toBe(200);
      // Answered in time, no error: the window says the people are being checked, then that it is recorded.
      expect(sim.viewErrors(view.id)).toEqual({});
      await sim.waitFor(
        () =>
          sim
            .openViews('U_MANAGER')
            .find((v) => v.id === view.id && JSON.stringify(v.blocks).includes('Your kudos is recorded')),
        60_000,
      );

      const placed = await eventually(async () => {
        const [row] = await e2e.db.select().from(kudos).where(eq(kudos.sourceViewId, view.id));
        return row?.status === 'placed' && row.notifiedAt ? row : undefined;
      }, 500_000);
      expect(placed.recipientCount).toBe(GROUP_SIZE);
      expect(placed.partsPlaced).toBe(GROUP_SIZE / 100);
      expect(await e2e.db.select().from(kudos)).toHaveLength(1);
      await sim.waitFor(() =>
        sim.messages('U_MANAGER').find((m) => /^Your kudos (is on its way|was delivered)/.test(m.text)),
      );

      // Every page read once, every answer ok, no 429, and not a word about Slack being busy.
      expect(sim.calls.filter((c) => c.method === 'users.list' && c.ok)).toHaveLength(
        Math.ceil(sim.workspace.users.length / 200),
      );
      expect(sim.rateLimits.counts().total).toBe(0);
      expect(seenBySender(sim, view.id)).not.toMatch(/rate limit|busy|again in/i);
    },
  );
});
