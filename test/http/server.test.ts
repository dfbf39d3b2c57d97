// The HTTP face of the app: Slack request verification and parsing, health, webhooks placeholder.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createLogger } from '../../src/config/logger.js';
import type { Database } from '../../src/db/client.js';
import { createHealthRoute } from '../../src/http/health-route.js';
import { createReadyRoute } from '../../src/http/ready-route.js';
import { startHttpServer } from '../../src/http/server.js';
import { signSlackRequest } from '../../src/http/slack-signature.js';
import { startTestStack, TEST_SIGNING_SECRET, type TestStack } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { startTestEmulator, type TestEmulator } from '../support/emulator.js';

let testDb: TestDatabase;
let emulator: TestEmulator;
let stack: TestStack;

beforeAll(async () => {
  [testDb, emulator] = await Promise.all([createTestDatabase(), startTestEmulator()]);
  stack = await startTestStack({ db: testDb.db, emulator });
});
afterAll(async () => {
  await stack?.close();
  await emulator?.close();
  await testDb?.close();
});

const FORM = 'application/x-www-form-urlencoded';

function slashBody(text = 'help'): string {
  return new URLSearchParams({
    team_id: 'T0KUDOS',
    user_id: 'U_EMP1',
    user_name: 'eli',
    channel_id: 'C_GENERAL',
    command: '/kudos',
    text,
    trigger_id: '1.2.3',
    response_url: 'http://127.0.0.1:1/none',
  }).toString();
}

async function post(
  body: string | Buffer,
  opts: { contentType?: string; timestamp?: number; signature?: string; secret?: string } = {},
) {
  const timestamp = opts.timestamp ?? Math.floor(Date.now() / 1000);
  const signature = opts.signature ?? signSlackRequest(opts.secret ?? TEST_SIGNING_SECRET, timestamp, body);
  const res = await fetch(`${stack.app.url}/slack/events`, {
    method: 'POST',
    headers: {
      'Content-Type': opts.contentType ?? FORM,
      'X-Slack-Request-Timestamp': String(timestamp),
      'X-Slack-Signature': signature,
    },
    body,
  });
  return { status: res.status, text: await res.text() };
}

describe('POST /slack/events', () => {
  it('answers a correctly signed slash command', async () => {
    const answer = await post(slashBody('help'));
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('/kudos balance');
  });

  it('refuses a bad signature with 401', async () => {
    expect((await post(slashBody(), { secret: 'wrong-secret' })).status).toBe(401);
    expect((await post(slashBody(), { signature: 'v0=deadbeef' })).status).toBe(401);
    expect((await post(slashBody(), { signature: '' })).status).toBe(401);
  });

  it('refuses timestamps more than 5 minutes old or in the future with 401', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect((await post(slashBody(), { timestamp: now - 6 * 60 })).status).toBe(401);
    expect((await post(slashBody(), { timestamp: now + 6 * 60 })).status).toBe(401);
    expect((await post(slashBody(), { timestamp: now + 60 })).status).toBe(200);
  });

  it('refuses a huge body with 413 before verifying, and stays up', async () => {
    const huge = Buffer.alloc(2 * 1024 * 1024, 'a');
    const answer = await post(huge, { signature: 'v0=unchecked' });
    expect(answer.status).toBe(413);
    expect((await fetch(`${stack.app.url}/healthz`)).status).toBe(200);
  });

  it('answers malformed payloads with 400, and stays up', async () => {
    expect((await post('payload=%7Bnot-json')).status).toBe(400);
    expect((await post('[1,2,3]', { contentType: 'application/json' })).status).toBe(400);
    expect((await post('{"type":', { contentType: 'application/json' })).status).toBe(400);
    expect((await post('hello', { contentType: 'text/plain' })).status).toBe(400);
    expect((await post('foo=bar')).status).toBe(400);
    // Well-formed JSON that is not what Slack sends: a block_actions without a user or actions.
    expect((await post(`payload=${encodeURIComponent(JSON.stringify({ type: 'block_actions' }))}`)).status).toBe(400);
    expect((await post(JSON.stringify({ type: 'event_callback' }), { contentType: 'application/json' })).status).toBe(
      400,
    );
    expect((await post(slashBody('help'))).status).toBe(200);
  });

  it('answers the Events API url_verification challenge (signed)', async () => {
    const body = JSON.stringify({ token: 't', challenge: 'abc123', type: 'url_verification' });
    const answer = await post(body, { contentType: 'application/json' });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ challenge: 'abc123' });
  });
});

describe('other routes', () => {
  it('GET /healthz is 200 {ok, db} when the database answers', async () => {
    const res = await fetch(`${stack.app.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, db: 'ok' });
  });

  it('GET /healthz is 503 when the database does not answer', async () => {
    const brokenDb = { execute: () => Promise.reject(new Error('connection refused')) } as unknown as Database;
    const logger = createLogger({ level: 'silent' });
    const notUsed = async () => {
      throw new Error('not used');
    };
    const server = await startHttpServer({
      logger,
      port: 0,
      host: '127.0.0.1',
      routes: { slackEvents: notUsed, rewardsWebhooks: notUsed, health: createHealthRoute({ db: brokenDb } as never) },
    });
    try {
      const res = await fetch(`${server.url}/healthz`);
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ ok: false });
    } finally {
      await server.close();
    }
  });

  it('GET /readyz is 200 {ready, db} while the database answers and the app is not stopping', async () => {
    const res = await fetch(`${stack.app.url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ready: true, db: 'ok' });
  });

  it('GET /readyz is 503 when the database does not answer, and 503 draining once the app stops', async () => {
    const brokenDb = { execute: () => Promise.reject(new Error('connection refused')) } as unknown as Database;
    let draining = false;
    const server = await startHttpServer({
      logger: createLogger({ level: 'silent' }),
      port: 0,
      host: '127.0.0.1',
      routes: { ready: createReadyRoute({ db: brokenDb }, { draining: () => draining }) },
    });
    try {
      const down = await fetch(`${server.url}/readyz`);
      expect(down.status).toBe(503);
      expect(await down.json()).toEqual({ ready: false, db: 'unavailable' });
      draining = true;
      const stopping = await fetch(`${server.url}/readyz`);
      expect(stopping.status).toBe(503);
      expect(stopping.headers.get('connection')).toBe('close');
      expect(await stopping.json()).toEqual({ ready: false, draining: true });
    } finally {
      await server.close();
    }
  });

  it('POST /webhooks/rewards reaches the webhooks route (its behaviour is tested with src/webhooks)', async () => {
    const res = await fetch(`${stack.app.url}/webhooks/rewards`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect([404, 405]).not.toContain(res.status);
    expect(res.status).not.toBe(200); // an unsigned, empty body is never accepted
  });

  it('unknown paths are 404 and wrong methods 405', async () => {
    expect((await fetch(`${stack.app.url}/nope`)).status).toBe(404);
    expect((await fetch(`${stack.app.url}/slack/events`)).status).toBe(405);
  });
});
