// What a delivery body may be (spec part 6): the registration challenge `{challengeToken}`, or an
// event envelope `{eventId, eventType, createdAt, data}`. Validated with zod; unknown event types
// are valid envelopes (stored and acknowledged), `order.created` data is checked on arrival.
import { z } from 'zod';

import { isWellFormedText } from '../domain/sending/message-text.js';
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
  | { kind: 'invalid'; code: 'INVALID_JSON' | 'INVALID_ENVELOPE' | 'UNSTORABLE_PAYLOAD'; message: string };

export function parseDelivery(raw: Buffer): ParsedDelivery {
  let json: unknown;
  const text = raw.toString('utf8');
  try {
    json = JSON.parse(text);
  } catch {
    return { kind: 'invalid', code: 'INVALID_JSON', message: 'The body is not valid JSON.' };
  }
  // PostgreSQL's jsonb cannot hold NUL characters; no real event carries one.
  if (text.includes('\\u0000'))
    return { kind: 'invalid', code: 'INVALID_JSON', message: 'NUL characters (\\u0000) are not accepted.' };
  // Nor lone surrogates (\ud800 alone is not text), and nesting that deep is no event of the spec's:
  // refused with a 4xx, since storing them fails every time and a 503 would only bring retries.
  const unstorable = unstorableReason(json);
  if (unstorable) return { kind: 'invalid', code: 'UNSTORABLE_PAYLOAD', message: unstorable };
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

/** Deeper than any event of the spec (envelope, data, recipients, one more level to spare). */
export const MAX_WEBHOOK_DEPTH = 32;

/** Why `json` cannot be stored as jsonb, or undefined. Walks iteratively: no stack to overflow. */
function unstorableReason(json: unknown): string | undefined {
  const stack: Array<{ value: unknown; depth: number }> = [{ value: json, depth: 0 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (!isWellFormedText(value))
        return 'Strings must be well-formed Unicode (a lone surrogate such as \\ud800 is not).';
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= MAX_WEBHOOK_DEPTH) return `The body is nested deeper than ${MAX_WEBHOOK_DEPTH} levels.`;
    for (const [key, child] of Object.entries(value)) {
      if (!isWellFormedText(key)) return 'Keys must be well-formed Unicode (a lone surrogate such as \\ud800 is not).';
      stack.push({ value: child, depth: depth + 1 });
    }
  }
  return undefined;
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
