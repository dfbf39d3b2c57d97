import { createHmac } from 'node:crypto';

/**
 * Slack's v0 request signature: HMAC-SHA256 over `v0:${timestamp}:${rawBody}` keyed with the signing
 * secret, hex, prefixed `v0=`. The body must be the exact bytes sent.
 */
export function slackSignature(signingSecret: string, timestamp: string, rawBody: string): string {
  return 'v0=' + createHmac('sha256', signingSecret).update(`v0:${timestamp}:${rawBody}`).digest('hex');
}

/** Headers Slack puts on a signed request. */
export function signedHeaders(
  signingSecret: string,
  rawBody: string,
  contentType: 'application/x-www-form-urlencoded' | 'application/json',
  nowSeconds: number,
): Record<string, string> {
  const timestamp = String(Math.floor(nowSeconds));
  return {
    'Content-Type': contentType,
    'X-Slack-Request-Timestamp': timestamp,
    'X-Slack-Signature': slackSignature(signingSecret, timestamp, rawBody),
  };
}

/** Form encoding as Slack sends it (spaces as `+`, like URLSearchParams / PHP http_build_query). */
export function formEncode(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}
