// Helpers for the webhook tests: the app stack with short completion-check delays, signed
// deliveries, and a proxy between the emulator's real webhook sender and the app that records every
// delivery and can fail some (to make the emulator retry).
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

import { sql } from 'drizzle-orm';

import { type Database, rowsOf } from '../../src/db/client.js';
import { signWebhookBody } from '../../src/rewards/index.js';
import type { View } from '../../src/simulator/slack.js';
import { startTestStack, type TestStack } from '../support/app.js';
import type { TestEmulator } from '../support/emulator.js';

export const SIGNING_SECRET = 'emulator-signing-secret';
/** Completion checks every few hundred ms instead of 5 s, 15 s, 1 min... */
export const FAST_CHECKS = { checkDelaysMs: [150, 300, 500, 800], pollIntervalMs: 100, sweepIntervalMs: 300 };

/** useAppPerTest's options for the webhook tests: short completion checks, an emulator without its background jobs. */
export const WEBHOOK_APP = {
  env: { KUDOS_NOTIFY_CHANNEL: 'C_KUDOS', KUDOS_ADMINS: 'U_ADMIN' },
  app: { tuning: { webhooks: FAST_CHECKS } },
  emulatorEnv: { EMULATOR_BACKGROUND: 'off' },
};

export function startWebhookStack(
  db: Database,
  emulator: TestEmulator,
  env: Record<string, string> = {},
): Promise<TestStack> {
  return startTestStack({ db, emulator, env: { ...WEBHOOK_APP.env, ...env }, app: WEBHOOK_APP.app });
}

export async function postWebhook(
  appUrl: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${appUrl}/webhooks/rewards`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body,
  });
  const text = await res.text();
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, json };
}

export function signed(body: string): Record<string, string> {
  return { 'X-Service-Signature': signWebhookBody(body, SIGNING_SECRET) };
}

export function envelope(eventType: string, data: Record<string, unknown>, eventId = crypto.randomUUID()): string {
  return JSON.stringify({ eventId, eventType, createdAt: new Date().toISOString().slice(0, 19), data });
}

export interface RecordedDelivery {
  body: string;
  signature: string;
  eventType: string;
  eventId: string;
}

export interface WebhookProxy {
  url: string;
  recorded: RecordedDelivery[];
  /**
   * The next `count` deliveries fail: `lost-ack` forwards to the app and then answers 500 (the app
   * stored it, the sender thinks it failed); `down` answers 503 without forwarding.
   */
  failNext(count: number, mode: 'lost-ack' | 'down'): void;
  close(): Promise<void>;
}

async function read(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startWebhookProxy(targetUrl: () => string): Promise<WebhookProxy> {
  const recorded: RecordedDelivery[] = [];
  let failures: { count: number; mode: 'lost-ack' | 'down' } = { count: 0, mode: 'down' };
  const server = createServer((req, res) => {
    void (async () => {
      const body = await read(req);
      const signature = String(req.headers['x-service-signature'] ?? '');
      try {
        const parsed = JSON.parse(body.toString('utf8')) as { eventId?: string; eventType?: string };
        if (parsed.eventId)
          recorded.push({
            body: body.toString('utf8'),
            signature,
            eventType: parsed.eventType ?? '',
            eventId: parsed.eventId,
          });
      } catch {
        // not JSON: forward as is
      }
      const failing = parsed(body) && failures.count > 0 ? failures.mode : undefined;
      if (failing) failures = { ...failures, count: failures.count - 1 };
      if (failing === 'down') {
        res.writeHead(503).end();
        return;
      }
      const forwarded = await fetch(`${targetUrl()}/webhooks/rewards`, {
        method: 'POST',
        headers: {
          'Content-Type': String(req.headers['content-type'] ?? 'application/json'),
          ...(signature ? { 'X-Service-Signature': signature } : {}),
        },
        body,
      });
      const text = await forwarded.text();
      if (failing === 'lost-ack') {
        res.writeHead(500).end();
        return;
      }
      res.writeHead(forwarded.status, { 'Content-Type': 'application/json' }).end(text);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(502).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    recorded,
    failNext(count, mode) {
      failures = { count, mode };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Only event deliveries fail, never the registration challenge. */
function parsed(body: Buffer): boolean {
  try {
    return typeof (JSON.parse(body.toString('utf8')) as { eventId?: unknown }).eventId === 'string';
  } catch {
    return false;
  }
}

export async function countRows(db: Database, table: string, where = 'true'): Promise<number> {
  return Number(
    rowsOf<{ n: number }>(await db.execute(sql.raw(`select count(*)::int as n from ${table} where ${where}`)))[0]!.n,
  );
}

/**
 * /kudos and the send modal that opens. On a heavily loaded machine the very first request of a fresh
 * app can take longer than a trigger_id lives (3 s), and Slack would show nothing: the user types the
 * command again, and so does this helper (once).
 */
export async function openSendModal(stack: TestStack, userId: string): Promise<View> {
  for (let attempt = 1; ; attempt++) {
    await stack.sim.slashCommand(userId, '', 'C_GENERAL');
    try {
      return await stack.sim.waitFor(() => stack.sim.openViews(userId).at(-1), 5000);
    } catch (error) {
      if (attempt >= 2) throw error;
    }
  }
}
