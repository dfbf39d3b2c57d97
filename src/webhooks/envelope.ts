// What a delivery body may be (spec part 6): the registration challenge `{challengeToken}`, or an
// event envelope `{eventId, eventType, createdAt, data}`. Validated with zod; unknown event types
// are valid envelopes (stored and acknowledged), `order.created` data is checked on arrival.
import { z } from 'zod';
import { orderCreatedDataSchema, tryParseApiTimestamp } from '../rewards/index.js';

export const challengeSchema = z.strictObject({ challengeToken: z.string().min(1).max(1000) });

export const envelopeSchema = z.looseObject({
  eventId: z.string().min(1).max(200),
  eventType: z.string().min(1).max(200),
  createdAt: z.string().refine((value) => tryParseApiTimestamp(value) !== undefined, 'must be an ISO-8601 timestamp'),
  data: z.record(z.string(), z.unknown()),
});

/** Data schemas of the event types the app understands; any other type passes as is. */
const DATA_SCHEMAS: Record<string, z.ZodType> = {
  'order.created': orderCreatedDataSchema,
};

export type ParsedDelivery =
  | { kind: 'challenge'; challengeToken: string }
  | { kind: 'event'; eventId: string; eventType: string; createdAt: Date | null; body: Record<string, unknown> }
  | { kind: 'invalid'; code: 'INVALID_JSON' | 'INVALID_ENVELOPE'; message: string };

export function parseDelivery(raw: Buffer): ParsedDelivery {
  let json: unknown;
  const text = raw.toString('utf8');
  try {
    json = JSON.parse(text);
  } catch {
    return { kind: 'invalid', code: 'INVALID_JSON', message: 'The body is not valid JSON.' };
  }
  // PostgreSQL's jsonb cannot hold NUL characters; no real event carries one.
  if (text.includes('\\u0000')) return { kind: 'invalid', code: 'INVALID_JSON', message: 'NUL characters (\\u0000) are not accepted.' };
  const challenge = challengeSchema.safeParse(json);
  if (challenge.success) return { kind: 'challenge', challengeToken: challenge.data.challengeToken };
  const envelope = envelopeSchema.safeParse(json);
  if (!envelope.success) return { kind: 'invalid', code: 'INVALID_ENVELOPE', message: summarize(envelope.error) };
  const dataSchema = DATA_SCHEMAS[envelope.data.eventType];
  if (dataSchema) {
    const data = dataSchema.safeParse(envelope.data.data);
    if (!data.success) return { kind: 'invalid', code: 'INVALID_ENVELOPE', message: `data: ${summarize(data.error)}` };
  }
  return {
    kind: 'event',
    eventId: envelope.data.eventId,
    eventType: envelope.data.eventType,
    createdAt: tryParseApiTimestamp(envelope.data.createdAt) ?? null,
    body: json as Record<string, unknown>,
  };
}

/** True when an unsigned body is exactly a challenge object (the only unsigned body accepted). */
export function isBareChallenge(raw: Buffer): string | undefined {
  try {
    const parsed = challengeSchema.safeParse(JSON.parse(raw.toString('utf8')));
    return parsed.success ? parsed.data.challengeToken : undefined;
  } catch {
    return undefined;
  }
}

function summarize(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`)
    .join('; ');
}
