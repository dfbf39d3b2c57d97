// POST /webhooks/rewards over real HTTP: challenge, signatures, size cap, malformed bodies,
// unknown event types and redelivery. Real deliveries come from the emulator's webhook sender.
import { request } from 'node:http';

import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { webhookEvents } from '../../src/db/schema/index.js';
import { eventually, useAppPerTest } from '../support/app.js';
import { countRows, envelope, postWebhook, signed, WEBHOOK_APP } from './support.js';

const e2e = useAppPerTest(WEBHOOK_APP);

const orderData = {
  orderId: 'OR-NOT-OURS',
  cardType: 'CHOICE_CARD',
  totalAmount: '25.00',
  currency: 'USD',
  recipientCount: 1,
};

describe('the webhook receiver', () => {
  it("answers the emulator's (signed) registration challenge, so the endpoint becomes active", async () => {
    expect(await e2e.emulator.registerWebhook(`${e2e.stack.app.url}/webhooks/rewards`)).toEqual({ active: true });
  });

  it('answers an unsigned challenge only when the body is exactly a challenge object', async () => {
    const bare = await postWebhook(e2e.stack.app.url, JSON.stringify({ challengeToken: 'tok-123' }));
    expect(bare).toEqual({ status: 200, json: { challengeToken: 'tok-123' } });
    const withExtra = await postWebhook(
      e2e.stack.app.url,
      JSON.stringify({ challengeToken: 'tok-123', eventType: 'order.created' }),
    );
    expect(withExtra.status).toBe(401);
  });

  it('refuses a missing or forged signature with 401 and stores nothing', async () => {
    const body = envelope('order.created', orderData);
    const missing = await postWebhook(e2e.stack.app.url, body);
    expect(missing.status).toBe(401);
    expect(missing.json).toMatchObject({ error: { code: 'MISSING_SIGNATURE' } });

    const forged = await postWebhook(e2e.stack.app.url, body, { 'X-Service-Signature': `sha256=${'0'.repeat(64)}` });
    expect(forged.status).toBe(401);
    expect(forged.json).toMatchObject({ error: { code: 'INVALID_SIGNATURE' } });

    // Signed with another secret, and a correct signature over different bytes.
    const otherSecret = await postWebhook(e2e.stack.app.url, body, {
      'X-Service-Signature': signed(body.replace('25.00', '26.00'))['X-Service-Signature']!,
    });
    expect(otherSecret.status).toBe(401);
    const garbage = await postWebhook(e2e.stack.app.url, body, { 'X-Service-Signature': 'md5=abc' });
    expect(garbage.status).toBe(401);
    expect(await countRows(e2e.db, 'webhook_events')).toBe(0);
  });

  it('acknowledges a correctly signed event with 200 and stores it', async () => {
    const body = envelope('order.shipped', { orderId: 'OR-1' });
    const answer = await postWebhook(e2e.stack.app.url, body, signed(body));
    expect(answer).toEqual({ status: 200, json: { ok: true, duplicate: false } });
    const [row] = await e2e.db.select().from(webhookEvents);
    expect(row!.eventType).toBe('order.shipped');
    expect(row!.body).toEqual(JSON.parse(body));
  });

  it("stores and acknowledges an unknown event type from the emulator's real sender, and ignores it", async () => {
    expect(
      await e2e.emulator.registerWebhook(`${e2e.stack.app.url}/webhooks/rewards`, ['balance.ach_approved']),
    ).toEqual({ active: true });
    const funding = await e2e.stack.app.rewards.balance.topUp({
      amount: '150.00',
      companyName: 'Kudos Inc',
      phoneNumber: '555-0100',
      billingAddress: '1 Main St',
      city: 'Springfield',
      state: 'IL',
      country: 'US',
      zipCode: '62701',
      ein: '12-3456789',
    });
    await e2e.emulator.processTopUp(funding.fundingNo, 'approve');
    await e2e.emulator.advance(0);
    const deliveries = await e2e.emulator.deliveries();
    expect(deliveries.map((d) => [d.eventType, d.status])).toEqual([['balance.ach_approved', 200]]);
    const row = await eventually(async () => (await e2e.db.select().from(webhookEvents)).find((e) => e.processedAt));
    expect(row.eventType).toBe('balance.ach_approved');
    expect(row.outcome).toBe('ignored');
    expect(row.error).toBeNull();
  });

  it('refuses a 2 MB body with 413 before verifying it, and stays up', async () => {
    const huge = JSON.stringify({
      eventId: 'big',
      eventType: 'order.created',
      createdAt: '2026-01-01T00:00:00',
      data: { pad: 'x'.repeat(2 * 1024 * 1024) },
    });
    const declared = await postWebhook(e2e.stack.app.url, huge, signed(huge));
    expect(declared.status).toBe(413);
    expect(declared.json).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });

    // Without Content-Length (chunked): counted while streaming.
    const streamed = await new Promise<number>((resolve, reject) => {
      const req = request(
        `${e2e.stack.app.url}/webhooks/rewards`,
        { method: 'POST', headers: { 'Content-Type': 'application/json', ...signed(huge) } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      const chunk = Buffer.from(huge);
      for (let offset = 0; offset < chunk.length; offset += 64 * 1024)
        req.write(chunk.subarray(offset, offset + 64 * 1024));
      req.end();
    });
    expect(streamed).toBe(413);
    expect(await countRows(e2e.db, 'webhook_events')).toBe(0);

    const body = envelope('order.shipped', {});
    expect((await postWebhook(e2e.stack.app.url, body, signed(body))).status).toBe(200);
  });

  it('answers malformed bodies with 400 and a code', async () => {
    const notJson = '{"eventId": "x", ';
    expect(await postWebhook(e2e.stack.app.url, notJson, signed(notJson))).toMatchObject({
      status: 400,
      json: { error: { code: 'INVALID_JSON' } },
    });

    const noId = JSON.stringify({ eventType: 'order.created', createdAt: '2026-01-01T00:00:00', data: orderData });
    expect(await postWebhook(e2e.stack.app.url, noId, signed(noId))).toMatchObject({
      status: 400,
      json: { error: { code: 'INVALID_ENVELOPE' } },
    });

    const badDate = envelope('order.created', orderData).replace(/"createdAt":"[^"]+"/, '"createdAt":"yesterday"');
    expect((await postWebhook(e2e.stack.app.url, badDate, signed(badDate))).status).toBe(400);

    const badData = envelope('order.created', { ...orderData, orderId: undefined, recipientCount: 'many' });
    const answer = await postWebhook(e2e.stack.app.url, badData, signed(badData));
    expect(answer).toMatchObject({ status: 400, json: { error: { code: 'INVALID_ENVELOPE' } } });
    expect(JSON.stringify(answer.json)).toContain('orderId');

    const nul = envelope('order.shipped', { note: 'a\u0000b' });
    expect(nul).toContain('\\u0000');
    expect(await postWebhook(e2e.stack.app.url, nul, signed(nul))).toMatchObject({
      status: 400,
      json: { error: { code: 'INVALID_JSON' } },
    });

    const array = '[]';
    expect((await postWebhook(e2e.stack.app.url, array, signed(array))).status).toBe(400);
    expect(await countRows(e2e.db, 'webhook_events')).toBe(0);
    expect((await fetch(`${e2e.stack.app.url}/healthz`)).status).toBe(200);
  });

  it('acknowledges a redelivery without storing or doing anything twice', async () => {
    const eventId = crypto.randomUUID();
    const body = envelope('order.shipped', { orderId: 'OR-2' }, eventId);
    const first = await postWebhook(e2e.stack.app.url, body, signed(body));
    const second = await postWebhook(e2e.stack.app.url, body, signed(body));
    expect(first.json).toEqual({ ok: true, duplicate: false });
    expect(second.json).toEqual({ ok: true, duplicate: true });
    const rows = await e2e.db.select().from(webhookEvents).where(eq(webhookEvents.eventId, eventId));
    expect(rows).toHaveLength(1);
  });
});
