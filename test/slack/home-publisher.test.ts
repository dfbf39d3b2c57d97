// The Home publisher keeps a click's outcome on top: one person's publishes reach Slack in the order
// they were asked for (a slower background re-publish cannot wipe the line of a click after it), and
// the line is stored with the visit, so that another instance's re-publish shows it too.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { homeVisits } from '../../src/db/schema/index.js';
import { createSettingsStore } from '../../src/domain/settings.js';
import { createHomePublisher } from '../../src/slack/home-publisher.js';
import type { SlackWorkspaces } from '../../src/slack/workspaces.js';
import { testLogger } from '../support/app.js';
import { REQUIRED_ENV } from '../support/config.js';
import { useTestDatabase } from '../support/db.js';

const testDb = useTestDatabase();
const WS = { teamId: 'T_HOME_ORDER' };

/** A Slack whose first views.publish is held until `release()`: the slow answer of a busy moment. */
function slackHoldingFirstPublish() {
  const published: { userId: string; view: Record<string, unknown> }[] = [];
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let calls = 0;
  const client = {
    async publishHome(userId: string, view: Record<string, unknown>) {
      calls++;
      if (calls === 1) await held;
      published.push({ userId, view });
    },
  };
  const slack = { for: () => client } as unknown as Pick<SlackWorkspaces, 'for'>;
  return { slack, published, release, calls: () => calls };
}

function slackRecording() {
  const views: Record<string, unknown>[] = [];
  const slack = { for: () => ({ publishHome: async (_userId: string, view: Record<string, unknown>) => void views.push(view) }) } as unknown as Pick<SlackWorkspaces, 'for'>;
  return { slack, lastView: () => JSON.stringify(views.at(-1)) };
}

function publisherWith(slack: Pick<SlackWorkspaces, 'for'>) {
  return createHomePublisher({
    db: testDb.db,
    slack,
    rewards: { for: () => Promise.reject(new Error('no balance on a non-admin Home')) },
    settings: createSettingsStore({ db: testDb.db, config: loadConfig(REQUIRED_ENV) }),
    approvals: { isAdmin: async () => false, isApprover: async () => false },
    logger: testLogger(),
    now: () => new Date(),
  });
}

describe('Home publisher', () => {
  it('a click’s outcome is the last Home Slack gets, even when a re-publish asked before it answers later', async () => {
    const { slack, published, release, calls } = slackHoldingFirstPublish();
    const home = publisherWith(slack);
    const background = home.publish(WS, 'U_EMP1');
    const click = home.publish(WS, 'U_EMP1', { flash: 'Done: you won’t appear on the leaderboard.' });
    // The click waits for the re-publish in flight, whatever Slack does with it.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(calls()).toBe(1);
    release();
    await Promise.all([background, click]);
    expect(published).toHaveLength(2);
    expect(JSON.stringify(published.at(-1)!.view)).toContain('you won’t appear on the leaderboard');
    // And a re-publish after the click keeps the line on top for its 30 s.
    await home.publish(WS, 'U_EMP1');
    expect(JSON.stringify(published.at(-1)!.view)).toContain('you won’t appear on the leaderboard');
  });

  it('another instance’s re-publish keeps the click’s outcome on top until its 30 s are up', async () => {
    const a = slackRecording();
    const b = slackRecording();
    await publisherWith(a.slack).publish(WS, 'U_EMP1', { flash: 'Done: you won’t appear on the leaderboard.' });
    await publisherWith(b.slack).publish(WS, 'U_EMP1');
    expect(b.lastView()).toContain('you won’t appear on the leaderboard');
    // Once its time is up, a re-publish leaves it out.
    await testDb.db.update(homeVisits).set({ flashUntil: new Date(Date.now() - 1) });
    await publisherWith(b.slack).publish(WS, 'U_EMP1');
    expect(b.lastView()).not.toContain('you won’t appear on the leaderboard');
  });

  it('a failed publish does not hold back the next one, and other people are not kept waiting', async () => {
    const published: string[] = [];
    let failNext = true;
    const slack = {
      for: () => ({
        async publishHome(userId: string) {
          if (failNext && userId === 'U_EMP1') {
            failNext = false;
            throw new Error('views.publish failed');
          }
          published.push(userId);
        },
      }),
    } as unknown as Pick<SlackWorkspaces, 'for'>;
    const home = publisherWith(slack);
    const first = home.publish(WS, 'U_EMP1');
    const second = home.publish(WS, 'U_EMP1');
    const other = home.publish(WS, 'U_EMP2');
    await expect(first).rejects.toThrow('views.publish failed');
    await second;
    await other;
    expect(published.sort()).toEqual(['U_EMP1', 'U_EMP2']);
  });
});
