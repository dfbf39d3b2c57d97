// The one-line confirmation's button value: what is confirmed comes back unchanged on Send, or does
// not fit and the form opens instead; the expiry is an hour. Property tests over the values a
// command can name.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { ONE_LINE_TTL_MS, oneLineExpired } from '../../../src/domain/sending/one-line.js';
import { oneLineTextProblem } from '../../../src/slack/sending/one-line-command.js';
import { confirmationToken, confirmationValue, newConfirmation } from '../../../src/slack/sending/one-line-token.js';

const slackId = fc.stringMatching(/^U[A-Z0-9]{2,12}$/);
const send = fc.record({
  userIds: fc.uniqueArray(slackId, { minLength: 0, maxLength: 100 }),
  amountDollars: fc.integer({ min: 1, max: 9_999_999 }),
  productId: fc.stringMatching(/^[A-Z0-9-]{1,40}$/),
  message: fc.string({ maxLength: 1000 }),
});

describe('the one-line confirmation', () => {
  it('a value that fits comes back as confirmed; one that does not is never written', () => {
    fc.assert(
      fc.property(send, (s) => {
        const c = newConfirmation(s, { senderUserId: 'U_SENDER', channelId: 'C_GENERAL', now: new Date() });
        const value = confirmationValue(c);
        if (value === undefined) return; // the form opens instead
        expect(value.length).toBeLessThanOrEqual(2000);
        expect(confirmationToken.parse(value)).toEqual(c);
      }),
    );
  });

  it('refuses a value it did not write', () => {
    for (const raw of ['', 'x', '{}', JSON.stringify({ i: 'not-an-id', t: 1 })])
      expect(confirmationToken.safeParse(raw).success).toBe(false);
  });

  it('expires after an hour, not before', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 3 * ONE_LINE_TTL_MS }), (ageMs) => {
        const now = new Date(1_800_000_000_000);
        expect(oneLineExpired(now.getTime() - ageMs, now)).toBe(ageMs > ONE_LINE_TTL_MS);
      }),
    );
  });

  it("two amounts are one line; a message with numbers or #words is not (values are the command's)", () => {
    expect(oneLineTextProblem('30 thanks')).toMatch(/^Two amounts/);
    expect(oneLineTextProblem('thanks for $30 more')).toMatch(/^Two amounts/);
    expect(oneLineTextProblem('#teamwork for the launch')).toBeUndefined();
    expect(oneLineTextProblem('Thanks for 10 years and 3 launches')).toBeUndefined();
    expect(oneLineTextProblem(undefined)).toBeUndefined();
  });
});
