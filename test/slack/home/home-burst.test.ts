// A burst of Home openings (200 at once, two people) through the real app with signed requests:
// every delivery is answered 200 at once, /healthz stays 200 meanwhile, and the burst ends in at
// most two publishes per person after the last opening was taken in (one in flight, one waiting
// with the newest ask); then nothing of it runs on.
import { describe, expect, it } from 'vitest';

import { createLogger } from '../../../src/config/logger.js';
import { postSignedEvent, useAppPerTest } from '../../support/app.js';
import { within } from '../../support/within.js';

const PEOPLE = ['U_EMP1', 'U_EMP2'];
const OPENS = 200;

// Each opening the publisher takes in is logged (debug): the test awaits the last one, not a time.
let asked = 0;
let allAsked: () => void = () => {};
const logger = createLogger({
  level: 'debug',
  write: (line) => {
    if (line.includes('"msg":"Home publish asked"') && ++asked === OPENS) allAsked();
  },
});
const e2e = useAppPerTest({ app: { tuning: { home: { enabled: false } }, logger } });

const homeOpened = (i: number, user: string) => ({
  type: 'event_callback',
  team_id: 'T0KUDOS',
  api_app_id: 'A0KUDOS',
  event_id: `EvHOMEBURST${i}`,
  event_time: 1,
  event: { type: 'app_home_opened', user, channel: `D_${user}`, tab: 'home' },
});

describe('a burst of Home openings', () => {
  it('answers every delivery and /healthz, and ends in at most two publishes per person after the last opening', async () => {
    asked = 0;
    const taken = new Promise<void>((resolve) => (allAsked = resolve));
    const { url } = e2e.stack.app;
    const publishesOf = (user: string) =>
      e2e.stack.sim.calls.filter((c) => c.method === 'views.publish' && c.args.user_id === user).length;

    const opens = Array.from({ length: OPENS }, (_, i) =>
      postSignedEvent(url, homeOpened(i, PEOPLE[i % 2]!)).then((a) => a.status),
    );
    // Health asked while the openings are in flight.
    const health = Array.from({ length: 10 }, () =>
      fetch(`${url}/healthz`).then(async (r) => ({ status: r.status, body: await r.text() })),
    );
    const statuses = await Promise.all(opens);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    for (const h of await Promise.all(health))
      expect(h).toEqual({ status: 200, body: expect.stringContaining('"db":"ok"') as unknown });

    await within(taken, 'every opening taken in by the Home publisher');
    const atLastOpen = PEOPLE.map(publishesOf);
    await within(e2e.stack.app.home.idle(), 'the Home publisher going idle');
    const after = PEOPLE.map((u, i) => publishesOf(u) - atLastOpen[i]!);
    for (const n of after) expect(n).toBeLessThanOrEqual(2);
    // Each person's Home is there, and rendered at least once after their last opening was asked.
    for (const u of PEOPLE) expect(e2e.stack.sim.homeView(u)).toBeDefined();
    expect(PEOPLE.map(publishesOf).every((n) => n >= 1 && n < OPENS / 2)).toBe(true);
  });
});
