import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import type { TestEmulator } from '../support/emulator.js';
import { type ApiClient, apiClient, choiceOrder, startDeterministicEmulator } from './helpers.js';

/** A webhook receiver: answers the challenge, records deliveries, answers with a scripted status. */
interface Receiver {
  url: string;
  received: Array<{ raw: string; signature: string | undefined; body: any }>;
  statuses: number[];
  hang: boolean;
  echoChallenge: boolean;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const state = { received: [] as Receiver['received'], statuses: [] as number[], hang: false, echoChallenge: true };
  const readBody = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    });
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- a test server: a throw here fails the test that waits on it
  const server: Server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const body = JSON.parse(raw);
    if ('challengeToken' in body) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(state.echoChallenge ? { challengeToken: body.challengeToken } : { challengeToken: 'wrong' }),
      );
      return;
    }
    state.received.push({ raw, signature: req.headers['x-service-signature'] as string | undefined, body });
    if (state.hang) return; // never answers: the emulator times out after 5 s
    res.writeHead(state.statuses.shift() ?? 200);
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return Object.assign(state, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  });
}

let emu: TestEmulator;
let api: ApiClient;
let receiver: Receiver;
beforeAll(async () => {
  emu = await startDeterministicEmulator();
  api = apiClient(emu.url, { env: 'production' });
  receiver = await startReceiver();
});
afterAll(async () => {
  await emu.close();
  await receiver.close();
});
beforeEach(async () => {
  await emu.reset();
  receiver.received.length = 0;
  receiver.statuses.length = 0;
  receiver.hang = false;
  receiver.echoChallenge = true;
});

describe('registration', () => {
  it('posts a challenge; active only when the receiver echoes the token', async () => {
    expect(await emu.registerWebhook(receiver.url)).toEqual({ active: true });
    receiver.echoChallenge = false;
    expect(await emu.registerWebhook(receiver.url)).toEqual({ active: false });
    await api.post('/orders/choice-cards', choiceOrder());
    await emu.advance(1);
    expect(receiver.received).toHaveLength(0);
    expect(await emu.registerWebhook('http://127.0.0.1:1/unreachable')).toEqual({ active: false });
  });

  it('delivers only subscribed events', async () => {
    await emu.registerWebhook(receiver.url, ['balance.ach_approved']);
    await api.post('/orders/choice-cards', choiceOrder());
    await emu.advance(1);
    expect(receiver.received).toHaveLength(0);
  });
});

describe('order.created', () => {
  it('has the documented envelope and data, signed with HMAC-SHA256 of the raw body', async () => {
    await emu.registerWebhook(receiver.url);
    const order = (
      await api.post(
        '/orders/choice-cards',
        choiceOrder({
          recipients: [
            { email: 'a@example.com', amount: 25 },
            { email: 'b@example.com', amount: 10 },
          ],
        }),
      )
    ).body.data;
    await emu.advance(0);
    expect(receiver.received).toHaveLength(1);
    const [{ raw, signature, body }] = receiver.received as [Receiver['received'][0]];
    expect(body).toEqual({
      eventId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      eventType: 'order.created',
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/),
      data: {
        orderId: order.orderId,
        cardType: 'CHOICE_CARD',
        totalAmount: '35.00',
        currency: 'USD',
        recipientCount: 2,
      },
    });
    expect(signature).toBe(`sha256=${createHmac('sha256', 'emulator-signing-secret').update(raw).digest('hex')}`);
    expect(signature).not.toBe(`sha256=${createHmac('sha256', 'other-secret').update(raw).digest('hex')}`);
    const log = await emu.deliveries();
    expect(log).toEqual([
      expect.objectContaining({ eventId: body.eventId, eventType: 'order.created', attempt: 1, status: 200 }),
    ]);
  });

  it('events of the sandbox reach the same registration; the signing secret can be overridden', async () => {
    const custom = await startDeterministicEmulator({ EMULATOR_SIGNING_SECRET: 'custom-secret' });
    try {
      await custom.registerWebhook(receiver.url);
      const sandbox = apiClient(custom.url, { env: 'sandbox' });
      await sandbox.post('/orders/choice-cards', choiceOrder());
      await custom.advance(0);
      const [{ raw, signature }] = receiver.received as [Receiver['received'][0]];
      expect(signature).toBe(`sha256=${createHmac('sha256', 'custom-secret').update(raw).digest('hex')}`);
    } finally {
      await custom.close();
    }
  });
});

describe('top-up review events', () => {
  it('an approved top-up fires balance.ach_approved; a canceled one fires nothing', async () => {
    await emu.registerWebhook(receiver.url);
    const body = {
      amount: 100,
      companyName: 'A',
      phoneNumber: '1',
      billingAddress: 'x',
      city: 'c',
      state: 's',
      country: 'US',
      zipCode: '1',
      ein: 'e',
    };
    const approved = (await api.post('/balance/charge', body)).body.data;
    const canceled = (await api.post('/balance/charge', body)).body.data;
    await api.del(`/balance/charge/${canceled.fundingNo}`);
    await emu.processTopUp(approved.fundingNo, 'approve');
    await emu.advance(0);
    expect(receiver.received.map((r) => [r.body.eventType, r.body.data.fundingNo])).toEqual([
      ['balance.ach_approved', approved.fundingNo],
    ]);
  });
});

describe('retries', () => {
  it('retries after 1 min, 5 min, 30 min, 2 h with the same eventId and body; at most 5 attempts', async () => {
    await emu.registerWebhook(receiver.url);
    receiver.statuses.push(500, 503, 404, 500, 500, 500);
    await api.post('/orders/choice-cards', choiceOrder());
    await emu.advance(0);
    expect(receiver.received).toHaveLength(1);
    await emu.advance(59);
    expect(receiver.received).toHaveLength(1);
    await emu.advance(1);
    expect(receiver.received).toHaveLength(2);
    await emu.advance(5 * 60 - 1);
    expect(receiver.received).toHaveLength(2);
    await emu.advance(1);
    expect(receiver.received).toHaveLength(3);
    await emu.advance(30 * 60);
    expect(receiver.received).toHaveLength(4);
    await emu.advance(2 * 3600);
    expect(receiver.received).toHaveLength(5);
    await emu.advance(24 * 3600);
    expect(receiver.received).toHaveLength(5);
    expect(new Set(receiver.received.map((r) => r.raw)).size).toBe(1);
    const log = await emu.deliveries();
    expect(log.map((d) => [d.attempt, d.status])).toEqual([
      [1, 500],
      [2, 503],
      [3, 404],
      [4, 500],
      [5, 500],
    ]);
    expect(log.map((d) => (d as unknown as { failed: boolean }).failed)).toEqual([false, false, false, false, true]);
    expect(new Set(log.map((d) => d.eventId)).size).toBe(1);
    const gaps = log.slice(1).map((d, i) => (Date.parse(d.at) - Date.parse(log[i]!.at)) / 1000);
    expect(gaps.map((g) => Math.round(g))).toEqual([60, 300, 1800, 7200]);
  });

  it('stops retrying after a 2xx', async () => {
    await emu.registerWebhook(receiver.url);
    receiver.statuses.push(500, 204);
    await api.post('/orders/choice-cards', choiceOrder());
    await emu.advance(3 * 3600);
    expect((await emu.deliveries()).map((d) => d.status)).toEqual([500, 204]);
  });

  it('a receiver that does not answer within 5 seconds is a failed attempt (timeout)', async () => {
    await emu.registerWebhook(receiver.url);
    receiver.hang = true;
    await api.post('/orders/choice-cards', choiceOrder());
    await emu.advance(0); // waits for the 5-second timeout in real time
    expect((await emu.deliveries()).map((d) => [d.attempt, d.status])).toEqual([[1, 'timeout']]);
  }, 15_000);
});
