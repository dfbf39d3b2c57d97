import { describe, expect, it } from 'vitest';

import { formEncode, signedHeaders, slackSignature } from '../../src/simulator/signing.js';

// Slack's documented worked example (api.slack.com "Verifying requests from Slack"), copied as test data.
const KAT = {
  secret: '8f742231b10e8888abcd99yyyzzz85a5',
  timestamp: '1531420618',
  body:
    'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar' +
    '&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com' +
    '%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c',
  signature: 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
};

describe('Slack request signing', () => {
  it("reproduces Slack's documented signature", () => {
    expect(slackSignature(KAT.secret, KAT.timestamp, KAT.body)).toBe(KAT.signature);
  });

  it("form-encodes a slash command byte for byte as Slack's example", () => {
    const body = formEncode({
      token: 'xyzz0WbapA4vBCDEFasx0q6G',
      team_id: 'T1DC2JH3J',
      team_domain: 'testteamnow',
      channel_id: 'G8PSS9T3V',
      channel_name: 'foobar',
      user_id: 'U2CERLKJA',
      user_name: 'roadrunner',
      command: '/webhook-collect',
      text: '',
      response_url: 'https://hooks.slack.com/commands/T1DC2JH3J/397700885554/96rGlfmibIGlgcZRskXaIFfN',
      trigger_id: '398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c',
    });
    expect(body).toBe(KAT.body);
    const headers = signedHeaders(KAT.secret, body, 'application/x-www-form-urlencoded', Number(KAT.timestamp));
    expect(headers).toEqual({
      'Content-Type': 'application/x-www-form-urlencoded',
      'X-Slack-Request-Timestamp': KAT.timestamp,
      'X-Slack-Signature': KAT.signature,
    });
  });

  it('changes the signature when one byte of the body changes', () => {
    expect(slackSignature(KAT.secret, KAT.timestamp, KAT.body + ' ')).not.toBe(KAT.signature);
  });
});
