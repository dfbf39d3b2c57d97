import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import type { KudosRow } from '../../../src/db/schema/index.js';
import type { Brand } from '../../../src/domain/branded/brand-catalog.js';
import { minorUnitCents, parseFaceAmount } from '../../../src/domain/branded/currency.js';
import { checkBrandedAmount } from '../../../src/domain/branded/prices.js';
import { ScheduledList, SendModal } from '../../../src/slack/ids.js';
import { brandBlocks, buildBrandOptions } from '../../../src/slack/sending/brand-blocks.js';
import { buildDesignOptions, buildGroupOptions } from '../../../src/slack/sending/design-options-blocks.js';
import { buildScheduledList } from '../../../src/slack/sending/scheduled-blocks.js';
import { buildAnnouncement } from '../../../src/slack/sending/send-messages.js';
import { buildSendModal, timeHint } from '../../../src/slack/sending/send-modal-blocks.js';
import { buildSenderDm } from '../../../src/slack/sending/sender-dm-blocks.js';
import { buildKudosRow } from '../../support/kudos-row.js';

function row(overrides: Partial<KudosRow> = {}): KudosRow {
  return buildKudosRow({
    teamId: 'T1',
    senderUserId: 'U_SENDER',
    senderName: 'Sam <script>',
    recipients: [
      { slackUserId: 'U_A', recipientId: 'RE-1', email: 'a@example.com', name: 'A' },
      { slackUserId: null, recipientId: 'RE-2', email: 'b@example.com', name: 'Bea <!here>' },
    ],
    productId: 'CC-1',
    designName: 'Thanks & more',
    amountCents: 2500,
    totalCents: 5000,
    message: 'line one <!channel>\n<https://evil|click>',
    scheduledAt: new Date('2027-03-14T07:30:00Z'),
    scheduleTimezone: 'America/New_York',
    scheduleLocal: '2027-03-14T03:30:00-04:00',
    status: 'placed',
    attempts: 1,
    orderId: 'ORD-1',
    orderStatus: 'PENDING',
    costCents: 5000,
    costCurrency: 'USD',
    ...overrides,
  });
}

describe('Block Kit builders', () => {
  it('the send modal says in which time zone a scheduled time is read, UTC when the profile has none', () => {
    expect(timeHint({ timezone: 'Asia/Tokyo' })).toContain('In your Slack time zone, Asia/Tokyo');
    expect(timeHint({ noTimezone: true })).toMatch(/no time zone.*UTC/);
    expect(timeHint({})).toContain('UTC if your profile has none');
  });

  it('the send modal uses the ids of ids.ts and stays within Slack limits', () => {
    // Every field shown: "Schedule for later" picked and More options pressed.
    const modal = buildSendModal({
      timezone: 'Asia/Tokyo',
      today: '2027-01-01',
      metadata: { channelId: 'C1', more: true },
      scheduled: true,
      userIds: ['U1'],
      amountDollars: 25,
      values: {
        options: [
          {
            id: '00000000-0000-4000-8000-00000000000a',
            name: 'Teamwork',
            emoji: 'handshake',
            description: '',
            revision: 1,
          },
        ],
        required: false,
      },
    });
    const blocks = modal.blocks as Array<{ block_id: string; element: { action_id: string } }>;
    expect(modal.callback_id).toBe(SendModal.callbackId);
    for (const [key, blockId] of Object.entries(SendModal.blocks)) {
      const block = blocks.find((b) => b.block_id === blockId);
      expect(block?.element.action_id).toBe(SendModal.actions[key as keyof typeof SendModal.actions]);
    }
    expect((modal.title as { text: string }).text.length).toBeLessThanOrEqual(24);
    expect(String(modal.private_metadata).length).toBeLessThanOrEqual(3000);
    expect(JSON.stringify(modal)).toContain('Asia/Tokyo');
  });

  it('the short send form shows no date, time, campaign, template or refund until asked', () => {
    const modal = buildSendModal({ metadata: {}, userIds: ['U1'] });
    const ids = (modal.blocks as Array<{ block_id?: string }>).map((b) => b.block_id);
    for (const hidden of ['send_date', 'send_time', 'send_campaign', 'send_template', 'send_refund'])
      expect(ids).not.toContain(hidden);
    expect(ids).toContain('send_more');
  });

  it('announcements escape every piece of user text', () => {
    const text = JSON.stringify(buildAnnouncement(row()));
    expect(text).not.toContain('<!channel>');
    expect(text).not.toContain('<!here>');
    expect(text).not.toContain('<https://evil');
    expect(text).toContain('&lt;!channel&gt;');
    expect(text).toContain('<@U_SENDER>');
    expect(text).toContain('<@U_A>');
    expect(text).toContain('Bea &lt;!here&gt;');
  });

  it('announcements say what each person gets in plain words: "a $25 gift card each", never "$25 each gift card"', () => {
    const several = buildAnnouncement(row({ amountCents: 2500, recipientCount: 2 })).blocks[0]!;
    expect(JSON.stringify(several)).toContain('with a $25 gift card each!');
    const one = buildAnnouncement(row({ amountCents: 2500, recipientCount: 1, recipients: [row().recipients[0]!] }))
      .blocks[0]!;
    expect(JSON.stringify(one)).toContain('with a $25 gift card!');
    expect(JSON.stringify([several, one])).not.toContain('each gift card');
  });

  it('the confirmation names the cost in plain words, never the order id', () => {
    const text = JSON.stringify(
      buildSenderDm({ type: 'kudos.sender_dm', kudos: row(), delivered: false, bounces: [], untold: [] }),
    );
    expect(text).not.toContain('ORD-1');
    expect(text).toContain('$50');
  });

  it('the scheduled list has a Cancel button only for cancellable sends', () => {
    const list = buildScheduledList(
      [
        { row: row({ id: 'a', status: 'scheduled' }), cancellable: true },
        { row: row({ id: 'b', status: 'scheduled' }), cancellable: false },
      ],
      { showSender: true },
    );
    const json = JSON.stringify(list.blocks);
    expect(json.match(new RegExp(ScheduledList.actions.cancel, 'g'))).toHaveLength(1);
    expect(json).toContain('Can no longer be cancelled');
    expect(list.blocks.length).toBeLessThanOrEqual(50);
  });

  it('options respect the 75-character text and 100-option limits', () => {
    const designs = Array.from({ length: 150 }, (_, i) => ({
      productId: `P${i}`,
      name: 'x'.repeat(200),
      minCents: 500,
      maxCents: 50_000,
    }));
    const options = buildDesignOptions(designs).options;
    expect(options).toHaveLength(100);
    expect(options.every((o) => o.text.text.length <= 75)).toBe(true);
    expect(buildGroupOptions([], [])).toEqual({ options: [] });
    expect(
      JSON.stringify(
        buildGroupOptions(
          [{ id: 'S1', handle: 'team', name: 'Team' }],
          [{ groupId: 'G1', groupName: 'Sales', memberCount: 3 }],
        ),
      ),
    ).toContain('book:G1');
  });
});

describe('a hostile message in the announcement (security finding 10)', () => {
  it('a message of 1000 `<` is shown whole, inert, in sections that each fit', () => {
    const message = buildAnnouncement(row({ message: '<'.repeat(1000) }));
    const texts = message.blocks.slice(1).map((b) => (b as { text: { text: string } }).text.text);
    for (const text of texts) {
      expect(text.length).toBeLessThanOrEqual(3000);
      expect(text).toMatch(/^>(&lt;)+$/);
    }
    expect(texts.join('').replace(/>/g, '')).toBe('&lt;'.repeat(1000));
  });

  it('the send form says how long a message may be', () => {
    expect(JSON.stringify(buildSendModal({ timezone: 'UTC', today: '2027-01-01', metadata: {} }))).toContain(
      'Up to 1000 characters',
    );
  });
});

describe('the send form’s brand fields', () => {
  const brand = (i: number, prices: Brand['prices']): Brand => ({
    productId: `BR-${i}`,
    name: `Brand ${i} Gift Card`,
    brandName: `Brand ${i}`,
    category: 'food',
    countryCode: i % 2 ? 'GLOBAL' : null,
    currency: prices.currency,
    prices,
    terms: '',
    redemptionInstructions: null,
  });
  const fixed = (productId: string, currency: string, denominationsCents: number[]): Brand['prices'] => ({
    productId,
    currency,
    priceType: 'FIXED',
    denominationsCents,
  });

  it('lists a page of the catalog per option group, at most 100 options, the last saying when more match', () => {
    const page = (from: number) => Array.from({ length: 50 }, (_, i) => brand(from + i, fixed('x', 'GBP', [1000])));
    const answer = buildBrandOptions([
      { brands: page(0), hasMore: true },
      { brands: page(50), hasMore: true },
    ]) as { option_groups: Array<{ label: { text: string }; options: Array<{ text: { text: string } }> }> };
    expect(answer.option_groups.map((g) => g.label.text)).toEqual(['Page 1', 'Page 2 (more match: type to narrow)']);
    expect(answer.option_groups.flatMap((g) => g.options)).toHaveLength(100);
    expect(answer.option_groups[0]!.options[1]!.text.text).toBe('Brand 1 · GBP · all countries');
    expect(buildBrandOptions([{ brands: [], hasMore: false }])).toEqual({ options: [] });
  });

  it('a FIXED brand’s amounts read back as the amounts it offers, in any currency', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('GBP', 'EUR', 'USD', 'JPY'),
        fc.uniqueArray(fc.integer({ min: 1, max: 100_000 }), { minLength: 1, maxLength: 20 }),
        (currency, units) => {
          const cents = units.map((u) => u * minorUnitCents(currency)).sort((a, b) => a - b);
          const picked = brand(1, fixed('BR-1', currency, cents));
          const blocks = brandBlocks({ categories: [], picked: { brand: picked } }, undefined);
          const face = blocks.find((b) => 'block_id' in b && b.block_id === 'send_face') as unknown as {
            element: { options: Array<{ value: string }> };
          };
          const read = face.element.options.map((o) => parseFaceAmount(o.value, currency));
          expect(read.map((r) => r.ok && r.faceCents)).toEqual(cents);
          for (const c of cents) expect(checkBrandedAmount(picked.prices, c).ok).toBe(true);
        },
      ),
    );
  });
});
