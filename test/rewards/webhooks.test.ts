import { createHmac } from 'node:crypto';

import { describe, expect, it, vi } from 'vitest';

// Spy on timingSafeEqual to show the comparison goes through it (constant time), not through ===.
vi.mock('node:crypto', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:crypto')>();
  return { ...original, timingSafeEqual: vi.fn(original.timingSafeEqual) };
});

const crypto = await import('node:crypto');
const { parseWebhookBody, verifyWebhookSignature, signWebhookBody, isOrderCreatedEvent, RewardsWebhookPayloadError } =
  await import('../../src/rewards/index.js');

const secret = 'emulator-signing-secret';
const body = JSON.stringify({
  eventId: '2b1f7c8e-8f6a-4c7e-9a55-1f0b8c1d2e3f',
  eventType: 'order.created',
  createdAt: '2026-11-22T04:40:00',
  data: { orderId: 'O-1', cardType: 'CHOICE_CARD', totalAmount: '50.00', currency: 'USD', recipientCount: 2 },
});
const goodHeader = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

describe('verifyWebhookSignature', () => {
  it('accepts the HMAC-SHA256 of the raw body, as string or Buffer', () => {
    expect(signWebhookBody(body, secret)).toBe(goodHeader);
    expect(verifyWebhookSignature(body, goodHeader, secret)).toBe(true);
    expect(verifyWebhookSignature(Buffer.from(body), goodHeader, secret)).toBe(true);
  });

  it('rejects a different body, a different secret, a flipped digit', () => {
    expect(verifyWebhookSignature(`${body} `, goodHeader, secret)).toBe(false);
    expect(verifyWebhookSignature(body, goodHeader, 'other-secret')).toBe(false);
    const flipped = goodHeader.slice(0, -1) + (goodHeader.endsWith('0') ? '1' : '0');
    expect(verifyWebhookSignature(body, flipped, secret)).toBe(false);
  });

  it('compares a well-formed wrong signature with crypto.timingSafeEqual', () => {
    const spy = vi.mocked(crypto.timingSafeEqual);
    spy.mockClear();
    const wrong = `sha256=${'0'.repeat(64)}`;
    expect(verifyWebhookSignature(body, wrong, secret)).toBe(false);
    expect(spy).toHaveBeenCalledTimes(1);
    const [a, b] = spy.mock.calls[0]!;
    expect(a.byteLength).toBe(32);
    expect(b.byteLength).toBe(32);
  });

  it('returns false, never throws, for missing or malformed headers', () => {
    for (const header of [
      undefined,
      '',
      'sha256=',
      'sha1=abc',
      goodHeader.slice(7),
      `${goodHeader}00`,
      goodHeader.toUpperCase(),
      `sha256=${'z'.repeat(64)}`,
    ]) {
      expect(verifyWebhookSignature(body, header, secret)).toBe(false);
    }
  });
});

describe('parseWebhookBody', () => {
  it('recognises the registration challenge', () => {
    expect(parseWebhookBody('{"challengeToken":"abc"}')).toEqual({ kind: 'challenge', challengeToken: 'abc' });
  });

  it('parses order.created with typed data and a UTC createdAt', () => {
    const parsed = parseWebhookBody(Buffer.from(body));
    expect(parsed.kind).toBe('event');
    if (parsed.kind !== 'event') return;
    expect(parsed.event.createdAt.toISOString()).toBe('2026-11-22T04:40:00.000Z');
    expect(isOrderCreatedEvent(parsed.event)).toBe(true);
    if (isOrderCreatedEvent(parsed.event)) {
      expect(parsed.event.data).toMatchObject({
        orderId: 'O-1',
        totalAmount: '50.00',
        currency: 'USD',
        recipientCount: 2,
      });
    }
  });

  it('accepts a numeric totalAmount as an exact decimal string', () => {
    const parsed = parseWebhookBody(body.replace('"50.00"', '50'));
    expect(parsed.kind === 'event' && parsed.event.data.totalAmount).toBe('50.00');
  });

  it('allows unknown event types and keeps their data', () => {
    const parsed = parseWebhookBody(
      JSON.stringify({
        eventId: 'e-2',
        eventType: 'order.completed',
        createdAt: '2026-11-22T04:40:00',
        data: { anything: [1] },
      }),
    );
    expect(parsed).toMatchObject({ kind: 'event', event: { eventType: 'order.completed', data: { anything: [1] } } });
  });

  it('throws RewardsWebhookPayloadError for non-JSON, a bad envelope or bad order.created data', () => {
    expect(() => parseWebhookBody('not json')).toThrow(RewardsWebhookPayloadError);
    expect(() => parseWebhookBody('[1,2]')).toThrow(RewardsWebhookPayloadError);
    expect(() => parseWebhookBody(JSON.stringify({ eventType: 'order.created', data: {} }))).toThrow(
      RewardsWebhookPayloadError,
    );
    expect(() => parseWebhookBody(body.replace('"O-1"', '42'))).toThrow(RewardsWebhookPayloadError);
  });
});
