// Counts, plurals and times as people read them: the kit's helpers and the money side's words.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { buildLowBalanceAlert, lastsFor } from '../../../src/slack/finance/finance-blocks.js';
import { readerTime } from '../../../src/slack/kit/reader-time.js';
import { cardCount, cardsTo, peopleCount } from '../../../src/slack/kit/recipients.js';

const recipient = (i: number) => ({
  slackUserId: `U${i}`,
  recipientId: null,
  email: `p${i}@example.com`,
  name: `P ${i}`,
});

describe('counts and plurals', () => {
  it('one is singular, every other count plural, with thousands separated', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), (n) => {
        const shown = n.toLocaleString('en-US');
        expect(cardCount(n)).toBe(`${shown} ${n === 1 ? 'card' : 'cards'}`);
        expect(peopleCount(n)).toBe(`${shown} ${n === 1 ? 'person' : 'people'}`);
      }),
    );
    expect(cardCount(1)).toBe('1 card');
    expect(cardCount(2)).toBe('2 cards');
    expect(peopleCount(1000)).toBe('1,000 people');
  });

  it('how long a balance lasts: under a day, one day, or about n days', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), (days) => {
        const text = lastsFor(days);
        if (days === 0) expect(text).toBe('less than a day');
        else if (days === 1) expect(text).toBe('about 1 day');
        else expect(text).toBe(`about ${days.toLocaleString('en-US')} days`);
      }),
    );
  });

  it('what a send gives reads as a sentence: "each" only for several people', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 500, max: 50_000 }), (count, amountCents) => {
        const text = cardsTo({
          amountCents,
          designName: 'Thank You',
          recipients: Array.from({ length: count }, (_, i) => recipient(i)),
          recipientCount: count,
          recipientGroupName: null,
          slackUsergroupId: null,
          recipientGroupId: null,
        });
        expect(text.startsWith('a $')).toBe(true);
        expect(text.includes(' Thank You card each to ')).toBe(count > 1);
        expect(text.includes(' Thank You card to ')).toBe(count === 1);
        expect(text).not.toMatch(/\$\d[\d,.]* each/);
      }),
    );
    expect(
      cardsTo({
        amountCents: 2500,
        designName: 'Thank You',
        recipients: [],
        recipientCount: 1000,
        recipientGroupName: 'engineering',
        slackUsergroupId: 'S1',
        recipientGroupId: null,
      }),
    ).toBe('a $25 Thank You card each to engineering (1,000 people)');
  });
});

describe('times', () => {
  it('in the reader’s own zone by Slack’s date token, with the app’s one format as the fallback', () => {
    const at = new Date('2026-11-22T05:30:00Z');
    expect(readerTime(at)).toBe(
      `<!date^${at.getTime() / 1000}^{date_short_pretty} at {time}|Sun 22 Nov 2026, 05:30 UTC>`,
    );
  });
});

describe('the low-balance alert', () => {
  const base = { kind: 'low_balance' as const, balanceCents: 95_000, currency: 'USD', thresholdCents: 100_000 };
  const text = (over: Partial<Parameters<typeof buildLowBalanceAlert>[0]>) =>
    JSON.stringify(buildLowBalanceAlert({ ...base, spend30dCents: 15_000, daysLeft: 190, ...over }).blocks);

  it('says how long the balance lasts in words, without footnotes or internal states', () => {
    expect(text({})).toContain("At the last 30 days' rate ($150 spent), it lasts about 190 days.");
    expect(text({ daysLeft: 1 })).toContain('it lasts about 1 day.');
    expect(text({ daysLeft: 0 })).toContain('it lasts less than a day.');
    expect(text({ spend30dCents: 0, daysLeft: undefined })).toContain('Nothing was spent in the last 30 days.');
    expect(text({ spend30dCents: undefined, daysLeft: undefined })).toContain(
      'How long it lasts is not known right now',
    );
    for (const over of [{}, { daysLeft: 0 }, { spend30dCents: undefined, daysLeft: undefined }]) {
      expect(text(over)).not.toMatch(/about 0 days|Days left|unknown|One alert per crossing|undefined/);
    }
  });
});
