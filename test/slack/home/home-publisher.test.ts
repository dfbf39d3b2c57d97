// The Home publisher keeps a click's outcome on top: one person's publishes reach Slack in the order
// they were asked for (a slower background re-publish cannot wipe the line of a click after it), and
// the line is stored with the visit, so that another instance's re-publish shows it too.
import { describe, expect, it } from 'vitest';

import { loadConfig } from '../../../src/config/index.js';
import { homeVisits } from '../../../src/db/schema/index.js';
import { createSettingsStore } from '../../../src/domain/workspaces/settings.js';
import { createHomePublisher } from '../../../src/slack/home/home-publisher.js';
import type { SlackWorkspaces } from '../../../src/slack/web-api/workspace-gateways.js';
import { testLogger } from '../../support/app.js';
import { REQUIRED_ENV } from '../../support/config.js';
import { useTestDatabase } from '../../support/db.js';
import { within } from '../../support/within.js';

const testDb = useTestDatabase();
const WS = { teamId: 'T_HOME_ORDER' };

/**
 * A Slack that holds every views.publish without the click's line until `release()`: the slow answer
 * of a busy moment. `reached` resolves when the first held publish arrives at Slack.
 */
function slackHoldingPublishesWithout(line: string) {
  const published: { userId: string; view: Record<string, unknown> }[] = [];
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let arrived!: () => void;
  const reached = new Promise<void>((resolve) => (arrived = resolve));
  const client = {
    async publishHome(userId: string, view: Record<string, unknown>) {
      if (!JSON.stringify(view).includes(line)) {
        arrived();
        await held;
      }
      published.push({ userId, view });
    },
  };
  const slack = { for: () => client } as unknown as Pick<SlackWorkspaces, 'for'>;
  return { slack, published, release, reached };
}

function slackRecording() {
  const views: Record<string, unknown>[] = [];
  const slack = {
    for: () => ({ publishHome: async (_userId: string, view: Record<string, unknown>) => void views.push(view) }),
  } as unknown as Pick<SlackWorkspaces, 'for'>;
  return { slack, lastView: () => JSON.stringify(views.at(-1)) };
}

function publisherWith(slack: Pick<SlackWorkspaces, 'for'>, onRender: () => void = () => {}) {
  const settings = createSettingsStore({ db: testDb.db, config: loadConfig(REQUIRED_ENV) });
  return createHomePublisher({
    db: testDb.db,
    slack,
    rewards: { for: () => Promise.reject(new Error('no balance on a non-admin Home')) },
    // A render starts by reading the settings: counting those reads tells which renders have begun.
    settings: { ...settings, get: (ws) => (onRender(), settings.get(ws)) },
    approvals: { isAdmin: async () => false, isApprover: async () => false },
    logger: testLogger(),
    now: () => new Date(),
  });
}

describe('Home publisher', () => {
  it('a click’s outcome is the last Home Slack gets, even when a re-publish asked before it answers later', async () => {
    const line = 'you won’t appear on the leaderboard';
    const { slack, published, release, reached } = slackHoldingPublishesWithout(line);
    let renders = 0;
    const home = publisherWith(slack, () => renders++);
    const background = home.publish(WS, 'U_EMP1');
    const click = home.publish(WS, 'U_EMP1', { flash: `Done: ${line}.` });
    // The re-publish is at Slack, held; the click has not begun to render: it waits its turn.
    await within(reached, 'the re-publish reaching Slack');
    expect(renders).toBe(1);
    expect(published).toHaveLength(0);
    release();
    await Promise.all([background, click]);
    expect(renders).toBe(2);
    expect(published).toHaveLength(2);
    expect(JSON.stringify(published.at(-1)!.view)).toContain(line);
    // And a re-publish after the click keeps the line on top for its 30 s.
    await home.publish(WS, 'U_EMP1');
    expect(JSON.stringify(published.at(-1)!.view)).toContain(line);
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
