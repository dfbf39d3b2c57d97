// Slack redelivers an event with the same event_id when an attempt seemed to fail. Over HTTP as over
// Socket Mode, the second delivery must have no effect, whatever the handler (security issue, finding 9).
import { describe, expect, it } from 'vitest';
import { eventually, postSignedEvent, useAppPerTest } from '../support/app.js';

const e2e = useAppPerTest();

const homeOpened = (eventId: string, teamId = 'T0KUDOS') => ({
  type: 'event_callback',
  team_id: teamId,
  api_app_id: 'A0KUDOS',
  event_id: eventId,
  event_time: 1,
  event: { type: 'app_home_opened', user: 'U_EMP1', channel: 'D_U_EMP1', tab: 'home' },
});

const publishes = () => e2e.stack.sim.calls.filter((c) => c.method === 'views.publish').length;

describe('Slack events are handled once per event_id (HTTP)', () => {
  it('a redelivered app_home_opened publishes Home once; a new event_id publishes again', async () => {
    const before = publishes();
    expect((await postSignedEvent(e2e.stack.app.url, homeOpened('EvDEDUPE1'))).status).toBe(200);
    await eventually(() => publishes() > before);
    const afterFirst = publishes();

    expect((await postSignedEvent(e2e.stack.app.url, homeOpened('EvDEDUPE1'))).status).toBe(200);
    expect((await postSignedEvent(e2e.stack.app.url, homeOpened('EvDEDUPE2'))).status).toBe(200);
    await eventually(() => publishes() > afterFirst);
    // Give a wrongly handled redelivery time to show up before counting.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(publishes()).toBe(afterFirst + 1);
  });
});
