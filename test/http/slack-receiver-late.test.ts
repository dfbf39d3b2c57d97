// A listener still at work when Slack's answer is due (a busy moment) is answered for with 200, a
// shape Slack takes (an empty body; an options list with no options), never a 5xx: Slack would show
// the person an error and they would submit again, or deliver an event again. The listener goes on.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { App, ReceiverEvent } from '@slack/bolt';
import { afterEach, describe, expect, it } from 'vitest';

import { SlackReceiver } from '../../src/http/slack-receiver.js';
import { signSlackRequest } from '../../src/http/slack-signature.js';
import { testLogger } from '../support/app.js';

const SECRET = 'late-secret';
let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** A receiver whose app holds every request until `release()`, then acknowledges it (too late). */
async function receiverHoldingListeners() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let finished!: () => void;
  const listenerDone = new Promise<void>((resolve) => (finished = resolve));
  const receiver = new SlackReceiver({ signingSecret: SECRET, logger: testLogger(), ackTimeoutMs: 50 });
  receiver.init({
    async processEvent(event: ReceiverEvent) {
      await released;
      await event.ack({ response_action: 'errors', errors: { b: 'too late to be seen' } });
      finished();
    },
  } as unknown as App);
  server = createServer((req, res) => void receiver.handle(req, res));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
  const post = async (payload: Record<string, unknown>) => {
    const body = `payload=${encodeURIComponent(JSON.stringify(payload))}`;
    const ts = Math.floor(Date.now() / 1000);
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        'X-Slack-Request-Timestamp': String(ts),
        'X-Slack-Signature': signSlackRequest(SECRET, ts, body),
      },
      body,
    });
    return { status: res.status, text: await res.text() };
  };
  return { post, release, listenerDone };
}

const user = { id: 'U_EMP1', team_id: 'T0KUDOS' };
const team = { id: 'T0KUDOS', domain: 'x' };

describe('a Slack request its listener does not acknowledge in time', () => {
  it('a form submission is answered 200 (Slack closes the modal) and its listener goes on', async () => {
    const { post, release, listenerDone } = await receiverHoldingListeners();
    const answer = await post({
      type: 'view_submission',
      team,
      user,
      api_app_id: 'A',
      view: { id: 'V1', callback_id: 'recurring_new', state: { values: {} } },
    });
    expect(answer).toEqual({ status: 200, text: '' });
    release();
    await listenerDone;
  });

  it('an options list is answered 200 with no options', async () => {
    const { post, release } = await receiverHoldingListeners();
    const answer = await post({
      type: 'block_suggestion',
      team,
      user,
      api_app_id: 'A',
      action_id: 'design',
      block_id: 'b',
      value: 'x',
      view: { id: 'V1' },
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ options: [] });
    release();
  });
});
