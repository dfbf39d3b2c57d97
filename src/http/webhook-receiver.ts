// POST /webhooks/rewards. Order of checks, cheapest and safest first:
//   1. size: Content-Length over the cap, or a stream that grows past it -> 413 before any HMAC work;
//   2. X-Service-Signature over the raw bytes (constant time) -> 401 on mismatch; a missing header is
//      401 too, except for a body that is exactly `{challengeToken}` (the spec does not say whether
//      the challenge is signed, so an unsigned bare challenge is answered; it reveals nothing and
//      changes nothing);
//   3. JSON and the zod envelope -> 400 with a code;
//   4. challenge -> 200 with the same token;
//   5. the event is stored (eventId UNIQUE; a redelivery is acknowledged and nothing else) -> 200;
//      arrivals during an insert share the next one (event-batcher.ts).
// Processing happens later, in the background (src/webhooks/processor.ts), so the answer stays fast under load.
import type { IncomingMessage, ServerResponse } from 'node:http';

import type { Logger } from '../config/logger.js';
import type { Database } from '../db/client.js';
import { verifyWebhookSignature, WEBHOOK_SIGNATURE_HEADER } from '../rewards/index.js';
import { isBareChallenge, parseDelivery } from '../webhooks/envelope.js';
import { createEventBatcher } from '../webhooks/event-batcher.js';
import type { EventSource } from '../webhooks/event-store.js';
import { BodyTooLargeError, readBody, sendJson } from './body.js';

/** Deliveries are small JSON envelopes; 256 KB leaves room for any plausible event. */
export const WEBHOOK_BODY_LIMIT_BYTES = 256 * 1024;

export interface WebhookReceiverOptions {
  db: Database;
  /**
   * The secret deliveries are verified with: the single-workspace route's one secret, or (distribution
   * mode, POST /webhooks/rewards/{connectionId}) the connection's, looked up per request with the
   * workspace its events belong to; undefined for an unknown or disconnected connection (404).
   */
  secret: string | ((req: IncomingMessage) => Promise<{ secret: string; source: EventSource } | undefined>);
  logger: Logger;
  bodyLimitBytes?: number;
  /** Called after a new event was stored (wakes the processor). */
  onStored?: () => void;
}

export function createWebhookReceiver(
  opts: WebhookReceiverOptions,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const limit = opts.bodyLimitBytes ?? WEBHOOK_BODY_LIMIT_BYTES;
  const log = opts.logger.child({ part: 'webhooks' });
  const events = createEventBatcher(opts.db);
  const fail = (res: ServerResponse, status: number, code: string, message: string) =>
    sendJson(res, status, { error: { code, message } });

  return async (req, res) => {
    let secret: string;
    let source: EventSource | undefined;
    if (typeof opts.secret === 'string') secret = opts.secret;
    else {
      const connection = await opts.secret(req);
      if (!connection) {
        req.resume();
        log.warn('webhook for an unknown or disconnected Rewards connection');
        return fail(res, 404, 'UNKNOWN_CONNECTION', 'No connected Rewards account has this webhook URL.');
      }
      ({ secret, source } = connection);
    }
    let raw: Buffer;
    try {
      raw = await readBody(req, limit);
    } catch (error) {
      if (error instanceof BodyTooLargeError) {
        log.warn('webhook body too large', { limit });
        // Close the connection after answering: the rest of the body is not worth reading.
        res.setHeader('Connection', 'close');
        return fail(res, 413, 'PAYLOAD_TOO_LARGE', `Bodies are limited to ${limit} bytes.`);
      }
      return fail(res, 400, 'BAD_REQUEST', 'The body could not be read.');
    }

    const header = req.headers[WEBHOOK_SIGNATURE_HEADER];
    const signature = Array.isArray(header) ? header[0] : header;
    if (signature === undefined) {
      const token = isBareChallenge(raw);
      if (token !== undefined) {
        log.info('answered an unsigned webhook challenge');
        return sendJson(res, 200, { challengeToken: token });
      }
      return fail(res, 401, 'MISSING_SIGNATURE', 'X-Service-Signature is required.');
    }
    if (!verifyWebhookSignature(raw, signature, secret)) {
      log.warn('webhook signature mismatch');
      return fail(res, 401, 'INVALID_SIGNATURE', 'X-Service-Signature does not match the body.');
    }

    const delivery = parseDelivery(raw);
    switch (delivery.kind) {
      case 'invalid':
        log.warn('malformed webhook body', { code: delivery.code, problem: delivery.message });
        return fail(res, 400, delivery.code, delivery.message);
      case 'challenge':
        log.info('answered the webhook challenge');
        return sendJson(res, 200, { challengeToken: delivery.challengeToken });
      case 'event': {
        let stored: boolean;
        try {
          ({ stored } = await events.store({ ...delivery, source }));
        } catch (error) {
          // Not acknowledged: the service retries (1 min, 5 min, 30 min, 2 h).
          log.error('storing a webhook event failed', { eventId: delivery.eventId, error });
          return fail(res, 503, 'STORE_UNAVAILABLE', 'The event could not be stored; retry later.');
        }
        log.info(stored ? 'webhook event stored' : 'webhook event redelivered (already stored)', {
          eventId: delivery.eventId,
          eventType: delivery.eventType,
        });
        sendJson(res, 200, { ok: true, duplicate: !stored });
        if (stored) opts.onStored?.();
        return;
      }
    }
  };
}
