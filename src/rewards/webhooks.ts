// Webhook helpers (spec part 6): signature verification and body parsing for the receiver.
import { createHmac, timingSafeEqual } from 'node:crypto';

import { z } from 'zod';

import { RewardsWebhookPayloadError } from './errors.js';
import { decimalSchema, integerSchema, timestampSchema } from './schemas.js';

const SIGNATURE_HEADER = /^sha256=([0-9a-f]{64})$/;

/** Name of the signature header (lowercase, as node:http presents it). */
export const WEBHOOK_SIGNATURE_HEADER = 'x-service-signature';

/** `sha256=<lowercase hex HMAC-SHA256 of the raw body>`, as the service signs a delivery. */
export function signWebhookBody(rawBody: Buffer | string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}

/**
 * True when `header` is `sha256=` + the lowercase hex HMAC-SHA256 of the exact raw body under `secret`.
 * Compared with crypto.timingSafeEqual on equal-length digests, so the time taken does not reveal how
 * much of a forged signature was right. Missing or malformed headers give false, never an exception.
 */
export function verifyWebhookSignature(rawBody: Buffer | string, header: string | undefined, secret: string): boolean {
  if (typeof header !== 'string') return false;
  const match = SIGNATURE_HEADER.exec(header.trim());
  if (!match) return false;
  const received = Buffer.from(match[1]!, 'hex');
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  return received.length === expected.length && timingSafeEqual(received, expected);
}

const envelopeSchema = z.looseObject({
  eventId: z.string().min(1),
  eventType: z.string().min(1),
  createdAt: timestampSchema,
  data: z.record(z.string(), z.unknown()),
});

export const orderCreatedDataSchema = z.looseObject({
  orderId: z.string(),
  cardType: z.string(),
  /** Exact decimal string, e.g. "50.00". */
  totalAmount: decimalSchema,
  currency: z.string(),
  recipientCount: integerSchema,
});
export type OrderCreatedData = z.output<typeof orderCreatedDataSchema>;

interface EnvelopeBase {
  eventId: string;
  /** Parsed as UTC when the timestamp has no offset. */
  createdAt: Date;
}
export interface OrderCreatedEvent extends EnvelopeBase {
  eventType: 'order.created';
  data: OrderCreatedData;
}
/** Any other event type: stored and acknowledged by receivers, never an error. */
export interface OtherWebhookEvent extends EnvelopeBase {
  eventType: string;
  data: Record<string, unknown>;
}
export type WebhookEvent = OrderCreatedEvent | OtherWebhookEvent;

export type ParsedWebhookBody = { kind: 'challenge'; challengeToken: string } | { kind: 'event'; event: WebhookEvent };

/** True when the event is an `order.created` (narrows `data`). */
export function isOrderCreatedEvent(event: WebhookEvent): event is OrderCreatedEvent {
  return event.eventType === 'order.created';
}

/**
 * Parses a delivery body: the registration challenge `{challengeToken}`, or an event envelope
 * `{eventId, eventType, createdAt, data}`. `order.created` data is validated and typed; other event
 * types keep their data as is. Throws RewardsWebhookPayloadError on anything else.
 */
export function parseWebhookBody(rawBody: Buffer | string): ParsedWebhookBody {
  let json: unknown;
  try {
    json = JSON.parse(typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8'));
  } catch {
    throw new RewardsWebhookPayloadError('Webhook body is not JSON');
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new RewardsWebhookPayloadError('Webhook body is not a JSON object');
  }
  const record = json as Record<string, unknown>;
  if (typeof record.challengeToken === 'string' && record.eventType === undefined) {
    return { kind: 'challenge', challengeToken: record.challengeToken };
  }
  const envelope = envelopeSchema.safeParse(json);
  if (!envelope.success) {
    throw new RewardsWebhookPayloadError(
      `Invalid webhook envelope: ${z.prettifyError(envelope.error)}`,
      envelope.error.issues,
    );
  }
  const { eventId, eventType, createdAt, data } = envelope.data;
  if (eventType === 'order.created') {
    const parsed = orderCreatedDataSchema.safeParse(data);
    if (!parsed.success) {
      throw new RewardsWebhookPayloadError(
        `Invalid order.created data: ${z.prettifyError(parsed.error)}`,
        parsed.error.issues,
      );
    }
    return { kind: 'event', event: { eventId, eventType, createdAt, data: parsed.data } };
  }
  return { kind: 'event', event: { eventId, eventType, createdAt, data } };
}
