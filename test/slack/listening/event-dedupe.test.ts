// Slack redelivers an event with the same event_id when an attempt seemed to fail. Over HTTP as over
// Socket Mode, the second delivery must have no effect, whatever the handler (security issue, finding 9).
import { describe, expect, it } from 'vitest';

import { createLogger } from '../../../src/config/logger.js';
import { eventually, postSignedEvent, useAppPerTest } from '../../support/app.js';

// What the app logs, read for the line that says a redelivery was dropped (it is acked before it is handled).
const logLines: Array<{ msg?: string; eventId?: string }> = [];
// Home is published on app_home_opened only: the poll that re-publishes Homes is off.
const e2e = useAppPerTest({
  app: {
    tuning: { home: { enabled: false } },
    logger: createLogger({
      level: 'info',
      write: (line) => void logLines.push(JSON.parse(line) as (typeof logLines)[number]),
    }),
  },
});

const homeOpened = (eventId: string, teamId = 'T0KUDOS') => ({
  type: 'event_callback',
  team_id: teamId,
  api_app_id: 'A0KUDOS',
  event_id: eventId,
  event_time: 1,
  event: { type: 'app_home_opened', user: 'U_EMP1', channel: 'D_U_EMP1', tab: 'home' },
});

const publishes = () => e2e.stack.sim.calls.filter((c) => c.method === 'views.publish').length;
const dropped = (eventId: string) =>
  logLines.some((l) => l.msg === 'slack event delivered again: already handled' && l.eventId === eventId);

describe('Slack events are handled once per event_id (HTTP)', () => {
  it('a redelivered app_home_opened publishes Home once; a new event_id publishes again', async () => {
    const before = publishes();
    expect((await postSignedEvent(e2e.stack.app.url, homeOpened('EvDEDUPE1'))).status).toBe(200);
    await eventually(() => publishes() > before);
    const afterFirst = publishes();

    expect((await postSignedEvent(e2e.stack.app.url, homeOpened('EvDEDUPE1'))).status).toBe(200);
    // The redelivery is dropped before any listener sees it: nothing of it can publish after this.
    await eventually(() => dropped('EvDEDUPE1'));
    expect((await postSignedEvent(e2e.stack.app.url, homeOpened('EvDEDUPE2'))).status).toBe(200);
    await eventually(() => publishes() > afterFirst);
    expect(publishes()).toBe(afterFirst + 1);
    expect(dropped('EvDEDUPE2')).toBe(false);
  });
});
