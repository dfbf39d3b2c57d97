// Slack request signing (v0): HMAC-SHA256 of `v0:{timestamp}:{raw body}` with the signing secret.
// Unlike Bolt, a timestamp more than 5 minutes in the FUTURE is refused too.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const MAX_CLOCK_SKEW_SECONDS = 5 * 60;

export type SignatureCheck =
  { ok: true } | { ok: false; reason: 'missing_headers' | 'stale_timestamp' | 'bad_signature' };

export function signSlackRequest(secret: string, timestampSeconds: number, rawBody: string | Buffer): string {
  const hmac = createHmac('sha256', secret);
  hmac.update(`v0:${timestampSeconds}:`);
  hmac.update(rawBody);
  return `v0=${hmac.digest('hex')}`;
}

export function verifySlackSignature(input: {
  secret: string;
  rawBody: Buffer;
  timestampHeader: string | undefined;
  signatureHeader: string | undefined;
  nowSeconds: number;
}): SignatureCheck {
  const { timestampHeader, signatureHeader } = input;
  if (!timestampHeader || !signatureHeader || !/^\d{1,12}$/.test(timestampHeader))
    return { ok: false, reason: 'missing_headers' };
  const timestamp = Number(timestampHeader);
  if (Math.abs(input.nowSeconds - timestamp) > MAX_CLOCK_SKEW_SECONDS) return { ok: false, reason: 'stale_timestamp' };
  const expected = Buffer.from(signSlackRequest(input.secret, timestamp, input.rawBody), 'utf8');
  const given = Buffer.from(signatureHeader, 'utf8');
  // timingSafeEqual needs equal lengths; a length mismatch is a mismatch.
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { ok: false, reason: 'bad_signature' };
  return { ok: true };
}
