// The sender's one DM in plain words: counts and plurals right for any number of cards and bounces,
// no order id, the scheduled time in the sender's zone, a cancelled send called cancelled.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import type { BouncedRecipientRow, KudosRecipientSnapshot } from '../../../src/db/schema/index.js';
import { buildSenderDm } from '../../../src/slack/sending/sender-dm-blocks.js';
import { buildKudosRow } from '../../support/kudos-row.js';

function sendTo(count: number) {
  const recipients: KudosRecipientSnapshot[] = Array.from({ length: count }, (_, i) => ({
    slackUserId: `U_${i}`,
    recipientId: null,
    email: `p${i}@example.com`,
    name: `P${i}`,
  }));
  return buildKudosRow({
    teamId: 'T1',
    senderUserId: 'U_SENDER',
    senderName: 'Sam',
    recipients,
    recipientCount: count,
    productId: 'CC-1',
    designName: 'Thank You',
    amountCents: 2500,
    totalCents: 2500 * count,
    status: 'placed',
    orderId: 'ORD-SECRET-1',
  });
}

const bounce = (i: number, status = 'open'): BouncedRecipientRow =>
  ({
    id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    email: `p${i}@example.com`,
    name: `P${i}`,
    slackUserId: `U_${i}`,
    confirmed: true,
    status,
    error: null,
    correctedEmail: status === 'resent' ? `q${i}@example.com` : null,
  }) as unknown as BouncedRecipientRow;

describe("the sender's DM", () => {
  it('counts delivered cards and bounced addresses with the right plurals, and names no order', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 40 }), (people, bounced) => {
        const open = Math.min(people, bounced, 20);
        const row = sendTo(people);
        const dm = buildSenderDm({
          type: 'kudos.sender_dm',
          kudos: row,
          delivered: true,
          bounces: Array.from({ length: open }, (_, i) => bounce(i)),
          untold: [],
        });
        const text = JSON.stringify(dm);
        expect(text).not.toContain('ORD-SECRET-1');
        expect(text).not.toMatch(/\b1 cards\b|\b1 addresses\b|\b1 people\b/);
        if (open === 0) expect(dm.text).toBe('Your kudos was delivered.');
        else {
          expect(text).toContain(`delivered to ${people - open} of ${people} ${people === 1 ? 'card' : 'cards'}`);
          expect(dm.text).toContain(open === 1 ? 'one address bounced' : `${open} addresses bounced`);
        }
      }),
    );
  });

  it('a scheduled send shows its time in the sender’s zone; a resent card has no fix button', () => {
    const row = {
      ...sendTo(1),
      status: 'scheduled',
      scheduledAt: new Date('2027-03-14T07:30:00Z'),
      scheduleTimezone: 'America/New_York',
    };
    const scheduled = JSON.stringify(
      buildSenderDm({ type: 'kudos.sender_dm', kudos: row, delivered: false, bounces: [], untold: [] }),
    );
    expect(scheduled).toContain('03:30 EDT');
    const resent = JSON.stringify(
      buildSenderDm({
        type: 'kudos.sender_dm',
        kudos: sendTo(2),
        delivered: true,
        bounces: [bounce(0, 'resent')],
        untold: [],
      }),
    );
    expect(resent).toContain('q0@example.com');
    expect(resent).not.toContain('bounce_fix_open');
  });

  it('a cancelled send says so in the notification line too, never "on its way"', () => {
    const row = { ...sendTo(2), status: 'canceled' as const };
    const dm = buildSenderDm({ type: 'kudos.sender_dm', kudos: row, delivered: false, bounces: [], untold: [] });
    expect(dm.text).toBe('Your kudos was cancelled: nothing was sent.');
    expect(JSON.stringify(dm)).not.toContain('on its way');
  });
});
