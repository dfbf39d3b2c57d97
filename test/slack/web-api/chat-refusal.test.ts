// The Messenger and UserDirectory ports speak in the domain's words: the Slack gateway turns Slack's
// error codes into ChatRefusal outcomes (domain/common/ports.ts), over real HTTP to the simulator (and to a
// Web API that answers 429), so that nothing in src/domain needs to know a Slack error string.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import { webApi } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ChatRefusal } from '../../../src/domain/common/ports.js';
import { type SlackSimulator, startSlackSimulator } from '../../../src/simulator/slack.js';
import { createSlackGateway, POST_CLIENT_OPTIONS, type SlackGateway } from '../../../src/slack/web-api/gateway.js';

let sim: SlackSimulator;
let gateway: SlackGateway;

beforeAll(async () => {
  sim = await startSlackSimulator({ signingSecret: 'test-secret' });
  gateway = createSlackGateway(
    new webApi.WebClient(sim.botToken, { slackApiUrl: sim.apiUrl, retryConfig: { retries: 0 } }),
  );
  // A public channel the app was never added to.
  sim.workspace.channels.push({
    id: 'C_RANDOM',
    name: 'random',
    isPrivate: false,
    topic: 'Anything',
    members: ['U_EMP1'],
  });
});
afterAll(async () => {
  await sim?.close();
});

const refusal = (outcome: string, detail: string) => expect.objectContaining({ name: 'ChatRefusal', outcome, detail });

describe('Slack errors in the domain’s words', () => {
  it('a channel the app cannot post in is channel_unreachable, with Slack’s word for it', async () => {
    const notIn = await gateway.postMessage('C_RANDOM', { text: 'hi' }).catch((e: unknown) => e);
    expect(notIn).toBeInstanceOf(ChatRefusal);
    expect(notIn).toEqual(refusal('channel_unreachable', 'not_in_channel'));
    expect(await gateway.postMessage('C_NOPE', { text: 'hi' }).catch((e: unknown) => e)).toEqual(
      refusal('channel_unreachable', 'channel_not_found'),
    );
    expect(await gateway.updateMessage('C_NOPE', '1.000001', { text: 'hi' }).catch((e: unknown) => e)).toEqual(
      refusal('channel_unreachable', 'channel_not_found'),
    );
  });

  it('any other refusal is refused; a user group that does not exist is not_found, and an id that is none never reaches Slack', async () => {
    expect(await gateway.postMessage('C_KUDOS', { text: '' }).catch((e: unknown) => e)).toEqual(
      expect.objectContaining({ outcome: 'refused' }),
    );
    expect(await gateway.usergroupMembers('S_NONE').catch((e: unknown) => e)).toEqual(
      refusal('not_found', 'no_such_subteam'),
    );
    const before = sim.calls.filter((c) => c.method === 'usergroups.users.list').length;
    expect(await gateway.usergroupMembers('../x').catch((e: unknown) => e)).toEqual(
      expect.objectContaining({ outcome: 'not_found' }),
    );
    expect(sim.calls.filter((c) => c.method === 'usergroups.users.list')).toHaveLength(before);
    expect(await gateway.usergroupMembers('S_TEAM')).toContain('U_EMP1');
  });

  it('a 429 is rate_limited with Slack’s Retry-After; a lost answer stays an unknown error', async () => {
    const server = createServer((_req, res) =>
      res.writeHead(429, { 'retry-after': '7', 'content-type': 'application/json' }).end('{}'),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`;
      // The app's post client options (src/app.ts): a 429 fails at once, with Slack's Retry-After.
      const limited = createSlackGateway(
        new webApi.WebClient('xoxb-test', { slackApiUrl: url, ...POST_CLIENT_OPTIONS }),
      );
      const error = await limited.postMessage('C_KUDOS', { text: 'hi' }).catch((e: unknown) => e);
      expect(error).toEqual(expect.objectContaining({ outcome: 'rate_limited', retryAfterSeconds: 7 }));
    } finally {
      server.close();
    }
    const unreachable = createSlackGateway(
      new webApi.WebClient('xoxb-test', { slackApiUrl: 'http://127.0.0.1:9/api/', retryConfig: { retries: 0 } }),
    );
    const lost = await unreachable.postMessage('C_KUDOS', { text: 'hi' }).catch((e: unknown) => e);
    expect(lost).not.toBeInstanceOf(ChatRefusal);
  });
});
