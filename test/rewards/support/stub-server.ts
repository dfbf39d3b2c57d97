// A tiny node:http Rewards API stand-in for unit tests: records every request and lets each test
// script the answers. The token endpoint answers by itself unless the test overrides it.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { createRewardsClient, type RewardsClient, type RewardsClientOptions } from '../../../src/rewards/index.js';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  rawBody: string;
  /** Parsed JSON body, or the form fields of a form body. */
  body: any;
}

export type Handler = (req: RecordedRequest, res: ServerResponse, index: number) => void | Promise<void>;

export interface StubServer {
  url: string;
  requests: RecordedRequest[];
  /** Requests whose path (without query) equals `path`, optionally with this method. */
  hits(path: string, method?: string): RecordedRequest[];
  tokenRequests(): RecordedRequest[];
  close(): Promise<void>;
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(text);
}

export function apiError(
  res: ServerResponse,
  status: number,
  code: string,
  headers: Record<string, string> = {},
): void {
  json(
    res,
    status,
    { error: { code, message: `${code} (stub)` }, requestId: 'req-stub' },
    { 'x-request-id': 'req-stub', ...headers },
  );
}

export interface StubOptions {
  /** Seconds of token lifetime; default 3600. */
  expiresIn?: number;
  /** Override the token endpoint. */
  token?: Handler;
}

export async function startStub(handler: Handler, options: StubOptions = {}): Promise<StubServer> {
  const requests: RecordedRequest[] = [];
  let tokens = 0;
  const sockets = new Set<import('node:net').Socket>();
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- a test server: a throw here fails the test that waits on it
  const server = createServer(async (incoming, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString('utf8');
    const url = new URL(incoming.url ?? '/', 'http://stub');
    let body: any;
    if (incoming.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) {
      body = Object.fromEntries(new URLSearchParams(rawBody));
    } else {
      try {
        body = rawBody ? JSON.parse(rawBody) : undefined;
      } catch {
        body = rawBody;
      }
    }
    const recorded: RecordedRequest = {
      method: incoming.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: incoming.headers,
      rawBody,
      body,
    };
    requests.push(recorded);
    try {
      if (recorded.path === '/oauth2/token' && !options.token) {
        tokens += 1;
        json(res, 200, {
          access_token: `tok-${tokens}`,
          token_type: 'Bearer',
          expires_in: options.expiresIn ?? 3600,
          scope: body?.scope ?? '',
        });
        return;
      }
      if (recorded.path === '/oauth2/token' && options.token) {
        await options.token(recorded, res, requests.filter((r) => r.path === '/oauth2/token').length - 1);
        return;
      }
      const apiIndex = requests.filter((r) => r.path !== '/oauth2/token').length - 1;
      await handler(recorded, res, apiIndex);
    } catch (error) {
      if (!res.headersSent) json(res, 500, { error: { code: 'STUB_FAILURE', message: String(error) } });
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    hits: (path, method) => requests.filter((r) => r.path === path && (!method || r.method === method)),
    tokenRequests: () => requests.filter((r) => r.path === '/oauth2/token'),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Drops the connection without answering (what a crashed proxy or a reset looks like). */
export function drop(res: ServerResponse): void {
  res.socket?.destroy();
}

export interface TestClient {
  client: RewardsClient;
  /** Every wait the client asked for (backoff, rate-limit spacing), in ms; the fake clock moves, real time does not. */
  sleeps: number[];
  calls: Array<{ method: string; endpoint: string; status: number | 'network'; code?: string }>;
  clock: { now: number };
}

/** A client against `url` whose sleeps are recorded instead of waited, and whose clock is settable. */
export function testClient(url: string, overrides: Partial<RewardsClientOptions> = {}): TestClient {
  const sleeps: number[] = [];
  const calls: TestClient['calls'] = [];
  const clock = { now: Date.parse('2026-11-22T12:00:00Z') };
  const client = createRewardsClient({
    baseUrl: url,
    clientId: 'production-client',
    clientSecret: 'production-secret',
    timeoutMs: 2_000,
    now: () => clock.now,
    random: () => 0.5,
    sleep: async (ms, signal) => {
      if (ms > 0) sleeps.push(ms);
      clock.now += Math.max(0, ms);
      if (signal?.aborted) {
        const { RewardsAbortError } = await import('../../../src/rewards/index.js');
        throw new RewardsAbortError();
      }
    },
    onCall: (info) =>
      calls.push({
        method: info.method,
        endpoint: info.endpoint,
        status: info.status,
        ...(info.code ? { code: info.code } : {}),
      }),
    ...overrides,
  });
  return { client, sleeps, calls, clock };
}

export const orderSummary = (overrides: Record<string, unknown> = {}) => ({
  orderId: 'O-1',
  orderType: 'ONE_TIME',
  cardType: 'CHOICE_CARD',
  cardName: 'Thank You',
  status: 'PENDING',
  totalCost: { amount: 25, currency: 'USD' },
  recipientCount: 1,
  sentCount: 0,
  createdAt: '2026-11-22T12:00:00',
  ...overrides,
});

export const choiceParams = {
  productId: 'CH-THANKS',
  recipients: [{ email: 'ann@example.com', amount: '25.00', firstName: 'Ann' }],
  emailSetting: { senderName: 'Maya', subject: 'Thank you!' },
};
