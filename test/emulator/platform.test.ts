import { describe, expect, it } from 'vitest';

import { startTestEmulator } from '../support/emulator.js';
import { apiClient, choiceOrder, getToken, http, key, startDeterministicEmulator, useEmulator } from './helpers.js';

const t = useEmulator();

async function orderCount() {
  return (await t.api.get('/orders')).body.totalCount as number;
}

describe('bad input: 4xx with a code, never 500, never half-applied', () => {
  it('malformed JSON -> 400 INVALID_JSON', async () => {
    for (const body of ['{', '{"idempotencyKey": "x",}', 'null x', '']) {
      const res = await http(`${t.emu.url}/api/v1/orders/choice-cards`, {
        method: 'POST',
        token: t.api.token || (await getToken(t.emu.url)),
        body,
        headers: { 'content-type': 'application/json' },
      });
      expect([res.status, res.body.error.code], body).toEqual([400, 'INVALID_JSON']);
    }
    expect(await orderCount()).toBe(0);
  });

  it('a JSON value that is not an object, or fields of the wrong type -> 400 VALIDATION_ERROR with details', async () => {
    for (const json of [
      [],
      'text',
      42,
      { ...choiceOrder(), recipients: 'everyone' },
      { ...choiceOrder(), sendTiming: 'now' },
      { ...choiceOrder(), refundOption: 'yes' },
      { ...choiceOrder(), emailSetting: { senderName: 1 } },
    ]) {
      const res = await t.api.post('/orders/choice-cards', json);
      expect([res.status, res.body.error.code], JSON.stringify(json).slice(0, 80)).toEqual([400, 'VALIDATION_ERROR']);
      expect(res.body.error.details.issues.length).toBeGreaterThan(0);
    }
    expect(await orderCount()).toBe(0);
  });

  it('wrong content type -> 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const token = await getToken(t.emu.url);
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', undefined]) {
      const res = await http(`${t.emu.url}/api/v1/recipients`, {
        method: 'POST',
        token,
        body: JSON.stringify({ email: 'a@example.com' }),
        headers: type ? { 'content-type': type } : {},
      });
      expect([res.status, res.body.error.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    }
    const withCharset = await http(`${t.emu.url}/api/v1/recipients`, {
      method: 'POST',
      token,
      body: JSON.stringify({ email: 'a@example.com' }),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(withCharset.status).toBe(201);
  });

  it('a body over the cap -> 413 PAYLOAD_TOO_LARGE (declared or streamed)', async () => {
    const token = await getToken(t.emu.url);
    const huge = JSON.stringify({ ...choiceOrder(), padding: 'x'.repeat(1024 * 1024 + 10) });
    const res = await http(`${t.emu.url}/api/v1/orders/choice-cards`, {
      method: 'POST',
      token,
      body: huge,
      headers: { 'content-type': 'application/json' },
    });
    expect([res.status, res.body.error.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    const small = await startDeterministicEmulator({ EMULATOR_BODY_LIMIT_BYTES: '100' });
    try {
      const t = await getToken(small.url);
      const stream = new ReadableStream({
        start(controller) {
          controller.enqueue(
            new TextEncoder().encode(JSON.stringify({ email: 'a@example.com', firstName: 'x'.repeat(200) })),
          );
          controller.close();
        },
      });
      const streamed = await fetch(`${small.url}/api/v1/recipients`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t}`, 'content-type': 'application/json' },
        body: stream,
        duplex: 'half',
      });
      expect(streamed.status).toBe(413);
    } finally {
      await small.close();
    }
    expect(await orderCount()).toBe(0);
  });

  it('unknown API endpoints answer 501 NOT_IMPLEMENTED; other unknown paths 404', async () => {
    const res = await t.api.get('/gift-wrapping');
    expect([res.status, res.body.error.code]).toEqual([501, 'NOT_IMPLEMENTED']);
    expect((await http(`${t.emu.url}/nothing-here`)).status).toBe(404);
  });

  it('every answer carries X-Request-Id, matching the error body', async () => {
    const res = await t.api.get('/orders/ORNOPE');
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    expect(res.body.requestId).toBe(res.headers.get('x-request-id'));
  });
});

describe('rate limiting', () => {
  it('X-RateLimit-* headers on every API answer; 429 RATE_LIMITED past the limit; a new window after the reset seconds', async () => {
    const limited = await startDeterministicEmulator({ EMULATOR_RATE_LIMIT: '3', EMULATOR_RATE_WINDOW_S: '60' });
    try {
      const client = apiClient(limited.url, await getToken(limited.url));
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await client.get('/balance'));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
      expect(answers.map((a) => a.headers.get('x-ratelimit-remaining'))).toEqual(['2', '1', '0', '0']);
      for (const a of answers) {
        expect(a.headers.get('x-ratelimit-limit')).toBe('3');
        expect(Number(a.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
        expect(Number(a.headers.get('x-ratelimit-reset'))).toBeLessThanOrEqual(60);
      }
      expect(answers[3]!.body.error.code).toBe('RATE_LIMITED');
      // Only the 429 says when to come back, in the same seconds as the reset.
      expect(answers.map((a) => a.headers.get('retry-after'))).toEqual([
        null,
        null,
        null,
        answers[3]!.headers.get('x-ratelimit-reset'),
      ]);
      // Per app: the sandbox app has its own budget.
      const sandbox = apiClient(limited.url, await getToken(limited.url, 'sandbox'));
      expect((await sandbox.get('/balance')).status).toBe(200);
      await limited.advance(Number(answers[3]!.headers.get('x-ratelimit-reset')));
      expect((await client.get('/balance')).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('defaults to 1000 requests per 10-second window', async () => {
    const res = await t.api.get('/balance');
    expect(res.headers.get('x-ratelimit-limit')).toBe('1000');
    expect(Number(res.headers.get('x-ratelimit-reset'))).toBeLessThanOrEqual(10);
  });
});

describe('fault injection', () => {
  it('status faults answer before the request is applied; count limits them; control routes are never faulted', async () => {
    await t.emu.faults({ method: 'POST', path: '^/api/v1/orders/choice-cards$', status: 503, count: 2 });
    const k = key();
    expect((await t.api.post('/orders/choice-cards', choiceOrder({ idempotencyKey: k }))).status).toBe(503);
    expect((await http(`${t.emu.url}/_emulator/clock`)).status).toBe(200);
    expect((await t.api.get('/orders')).status).toBe(200); // GET does not match the method
    expect((await t.api.post('/orders/choice-cards', choiceOrder({ idempotencyKey: k }))).status).toBe(503);
    expect((await t.api.post('/orders/choice-cards', choiceOrder({ idempotencyKey: k }))).status).toBe(201);
    expect(await orderCount()).toBe(1);
  });

  it('injected statuses carry a plausible code; the token endpoint can be faulted too', async () => {
    await t.emu.faults({ path: '^/api/v1/balance$', status: 401 });
    const res = await apiClient(t.emu.url, await getToken(t.emu.url)).get('/balance');
    expect([res.status, res.body.error.code, res.body.error.details]).toEqual([
      401,
      'UNAUTHORIZED',
      { injected: true },
    ]);
    await t.emu.faults({ method: 'POST', path: '^/oauth2/token$', status: 500 });
    await expect(getToken(t.emu.url)).rejects.toThrow(/500/);
    expect(await getToken(t.emu.url)).toEqual(expect.any(String));
  });

  it('an injected 429 carries the X-RateLimit-* headers and Retry-After', async () => {
    await t.emu.faults({ path: 'balance', status: 429 });
    const res = await t.api.get('/balance');
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('RATE_LIMITED');
    expect(res.headers.get('x-ratelimit-limit')).toBe('1000');
    expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
    expect(res.headers.get('retry-after')).toBe(res.headers.get('x-ratelimit-reset'));
  });

  it('drop: the request is applied, then the connection is cut without an answer', async () => {
    await t.emu.faults({ method: 'POST', path: 'choice-cards', drop: true });
    const k = key();
    await expect(t.api.post('/orders/choice-cards', choiceOrder({ idempotencyKey: k }))).rejects.toThrow();
    const found = await t.api.get('/orders', { clientOrderId: k });
    expect(found.body.totalCount).toBe(1);
    expect((await t.api.post('/orders/choice-cards', choiceOrder({ idempotencyKey: k }))).body.error.code).toBe(
      'DUPLICATE_IDEMPOTENCY_KEY',
    );
  });

  it('delay: the answer comes after delayMs (a client timeout sees nothing)', async () => {
    await t.emu.faults({ path: '/balance$', delayMs: 300 });
    const token = await getToken(t.emu.url);
    const aborted = fetch(`${t.emu.url}/api/v1/balance`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(100),
    });
    await expect(aborted).rejects.toThrow();
    expect((await t.api.get('/balance')).status).toBe(200);
  });

  it('refuses malformed rules', async () => {
    for (const rule of [{ path: '(' }, { status: 42 }, {}, { drop: 'yes' }]) {
      const res = await http(`${t.emu.url}/_emulator/faults`, { json: rule });
      expect(res.status, JSON.stringify(rule)).toBe(400);
    }
  });
});

describe('clock and reset', () => {
  it('GET clock follows real time; advance moves it forward and answers the new time', async () => {
    const before = Date.parse(await t.emu.now());
    expect(Math.abs(before - Date.now())).toBeLessThan(5000);
    const after = Date.parse(await t.emu.advance(3600));
    expect(after - before).toBeGreaterThanOrEqual(3600_000);
    for (const bad of [{ seconds: -1 }, { seconds: 'ten' }, {}])
      expect((await http(`${t.emu.url}/_emulator/clock/advance`, { json: bad })).status).toBe(400);
  });

  it('reset returns to the seed and the clock to real time', async () => {
    await t.api.post('/orders/choice-cards', choiceOrder());
    await t.api.post('/recipients', { email: 'x@example.com' });
    await t.emu.advance(86400 * 3);
    await t.emu.reset();
    expect(Math.abs(Date.parse(await t.emu.now()) - Date.now())).toBeLessThan(5000);
    expect(await orderCount()).toBe(0);
    expect((await t.api.get('/recipients')).body.totalCount).toBe(0);
    expect((await t.api.get('/balance')).body.data.availableBalance.amount).toBe(10000);
    expect(await t.emu.emails()).toEqual([]);
  });
});

describe('real time', () => {
  it('without any clock advance an immediate order reaches COMPLETE by itself within a few seconds', async () => {
    const live = await startTestEmulator();
    try {
      const client = apiClient(live.url, { env: 'production' });
      const order = (await client.post('/orders/choice-cards', choiceOrder())).body.data;
      let status = 'PENDING';
      for (let i = 0; i < 40 && status !== 'COMPLETE'; i++) {
        await new Promise((r) => setTimeout(r, 250));
        status = (await client.get(`/orders/${order.orderId}`)).body.data.status;
      }
      expect(status).toBe('COMPLETE');
    } finally {
      await live.close();
    }
  }, 20_000);
});
