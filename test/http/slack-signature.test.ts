import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { parseSlackBody } from '../../src/http/slack-receiver.js';
import { signSlackRequest, verifySlackSignature } from '../../src/http/slack-signature.js';

const SECRET = 'signing-secret';
const NOW = 1_800_000_000;

function check(body: Buffer, signature: string, timestamp = NOW, now = NOW) {
  return verifySlackSignature({
    secret: SECRET,
    rawBody: body,
    timestampHeader: String(timestamp),
    signatureHeader: signature,
    nowSeconds: now,
  });
}

describe('Slack request signatures', () => {
  it('accepts exactly the signed bytes, and refuses any change to them (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 300 }), fc.nat(), (bytes, at) => {
        const body = Buffer.from(bytes);
        const signature = signSlackRequest(SECRET, NOW, body);
        expect(check(body, signature)).toEqual({ ok: true });
        const tampered = Buffer.from(body);
        tampered[at % tampered.length] = (tampered[at % tampered.length]! + 1) % 256;
        expect(check(tampered, signature)).toEqual({ ok: false, reason: 'bad_signature' });
      }),
    );
  });

  it('refuses timestamps more than 5 minutes away in either direction', () => {
    const body = Buffer.from('x=1');
    for (const skew of [-301, 301, -3600, 3600]) {
      expect(check(body, signSlackRequest(SECRET, NOW + skew, body), NOW + skew)).toEqual({
        ok: false,
        reason: 'stale_timestamp',
      });
    }
    for (const skew of [-300, 0, 300]) {
      expect(check(body, signSlackRequest(SECRET, NOW + skew, body), NOW + skew).ok).toBe(true);
    }
  });

  it('refuses missing or non-numeric headers', () => {
    const body = Buffer.from('x=1');
    expect(
      verifySlackSignature({
        secret: SECRET,
        rawBody: body,
        timestampHeader: undefined,
        signatureHeader: 'v0=1',
        nowSeconds: NOW,
      }).ok,
    ).toBe(false);
    expect(
      verifySlackSignature({
        secret: SECRET,
        rawBody: body,
        timestampHeader: 'soon',
        signatureHeader: 'v0=1',
        nowSeconds: NOW,
      }).ok,
    ).toBe(false);
    expect(
      verifySlackSignature({
        secret: SECRET,
        rawBody: body,
        timestampHeader: String(NOW),
        signatureHeader: undefined,
        nowSeconds: NOW,
      }).ok,
    ).toBe(false);
  });
});

describe('parseSlackBody', () => {
  it('parses slash-command forms, whatever the charset parameter', () => {
    const body = Buffer.from('command=%2Fkudos&text=hi+there&user_id=U1&team_id=T1');
    for (const type of ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded; charset=utf-8']) {
      expect(parseSlackBody(body, type)).toMatchObject({ command: '/kudos', text: 'hi there', user_id: 'U1' });
    }
  });

  it('parses interactivity payload= JSON and Events API JSON', () => {
    const payload = { type: 'block_actions', user: { id: 'U1' }, actions: [{ action_id: 'a' }] };
    expect(
      parseSlackBody(
        Buffer.from(`payload=${encodeURIComponent(JSON.stringify(payload))}`),
        'application/x-www-form-urlencoded',
      ),
    ).toEqual(payload);
    const event = { type: 'event_callback', event: { type: 'user_change' } };
    expect(parseSlackBody(Buffer.from(JSON.stringify(event)), 'application/json')).toEqual(event);
  });

  it('refuses what Slack never sends', () => {
    const bad: Array<[string, string]> = [
      ['payload=%7B', 'application/x-www-form-urlencoded'],
      ['null', 'application/json'],
      ['"text"', 'application/json'],
      ['{"type":"view_submission"}', 'application/json'],
      ['<xml/>', 'application/xml'],
    ];
    for (const [body, type] of bad) expect(() => parseSlackBody(Buffer.from(body), type)).toThrow();
  });
});
