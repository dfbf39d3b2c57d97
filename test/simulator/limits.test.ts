import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { checkBlocks, checkMessageContent, checkView, LIMITS } from '../../src/simulator/limits.js';

const plain = (text: string) => ({ type: 'plain_text', text });
const modal = (over: Record<string, unknown> = {}) => ({
  type: 'modal',
  title: plain('Send kudos'),
  blocks: [],
  ...over,
});

describe('view rules', () => {
  it('accepts a title of at most 24 characters and refuses a longer one', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60 }), (n) => {
        const problems = checkView(modal({ title: plain('t'.repeat(n)) }), 'modal');
        expect(problems.length === 0).toBe(n <= LIMITS.viewTitle);
      }),
    );
  });

  it('accepts at most 100 blocks in a modal or Home tab', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 130 }), (n) => {
        const blocks = Array.from({ length: n }, () => ({ type: 'divider' }));
        expect(checkView(modal({ blocks }), 'modal').length === 0).toBe(n <= 100);
        expect(checkView({ type: 'home', blocks }, 'home').length === 0).toBe(n <= 100);
      }),
    );
  });

  it('limits private_metadata to 3000 and callback_id to 255 characters', () => {
    expect(checkView(modal({ private_metadata: 'x'.repeat(3000) }), 'modal')).toEqual([]);
    expect(checkView(modal({ private_metadata: 'x'.repeat(3001) }), 'modal')[0]).toContain('/view/private_metadata');
    expect(checkView(modal({ callback_id: 'x'.repeat(255) }), 'modal')).toEqual([]);
    expect(checkView(modal({ callback_id: 'x'.repeat(256) }), 'modal')[0]).toContain('/view/callback_id');
  });

  it('requires submit when the modal has an input block, and plain_text titles', () => {
    const input = { type: 'input', label: plain('Amount'), element: { type: 'plain_text_input', action_id: 'a' } };
    expect(checkView(modal({ blocks: [input] }), 'modal')[0]).toContain('/view/submit');
    expect(checkView(modal({ blocks: [input], submit: plain('Send') }), 'modal')).toEqual([]);
    expect(checkView(modal({ title: { type: 'mrkdwn', text: '*x*' } }), 'modal')[0]).toContain('/view/title/type');
    expect(checkView(modal({ type: 'home' }), 'modal')[0]).toContain('/view/type');
  });

  it('requires is_decimal_allowed on number_input', () => {
    const block = (el: Record<string, unknown>) => ({
      type: 'input',
      label: plain('n'),
      element: { type: 'number_input', action_id: 'n', ...el },
    });
    expect(checkView(modal({ submit: plain('Go'), blocks: [block({})] }), 'modal')[0]).toContain('is_decimal_allowed');
    expect(
      checkView(
        modal({ submit: plain('Go'), blocks: [block({ is_decimal_allowed: false, min_value: 5 })] }),
        'modal',
      )[0],
    ).toContain('min_value');
  });
});

describe('block rules', () => {
  it('keeps section text within 3000 and header text within 150 characters', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3100 }), (n) => {
        const ok =
          checkBlocks([{ type: 'section', text: { type: 'mrkdwn', text: 'a'.repeat(n) } }], 'message').length === 0;
        expect(ok).toBe(n <= 3000);
      }),
      { numRuns: 40 },
    );
    expect(checkBlocks([{ type: 'header', text: plain('h'.repeat(150)) }], 'message')).toEqual([]);
    expect(checkBlocks([{ type: 'header', text: plain('h'.repeat(151)) }], 'message')).toHaveLength(1);
  });

  it('wants block_ids unique and at most 255 characters', () => {
    expect(checkBlocks([{ type: 'divider', block_id: 'b'.repeat(255) }], 'message')).toEqual([]);
    expect(checkBlocks([{ type: 'divider', block_id: 'b'.repeat(256) }], 'message')[0]).toContain('/blocks/0/block_id');
    expect(
      checkBlocks(
        [
          { type: 'divider', block_id: 'x' },
          { type: 'divider', block_id: 'x' },
        ],
        'message',
      )[0],
    ).toContain('duplicate block_id');
  });

  it('checks buttons, options, fields and confirm dialogs', () => {
    const button = (over: Record<string, unknown>) => ({
      type: 'actions',
      elements: [{ type: 'button', action_id: 'b', text: plain('Go'), ...over }],
    });
    expect(checkBlocks([button({})], 'message')).toEqual([]);
    expect(checkBlocks([button({ text: plain('x'.repeat(76)) })], 'message')).toHaveLength(1);
    expect(checkBlocks([button({ value: 'v'.repeat(2001) })], 'message')).toHaveLength(1);
    expect(checkBlocks([button({ style: 'loud' })], 'message')).toHaveLength(1);
    expect(
      checkBlocks(
        [button({ confirm: { title: plain('Sure?'), text: plain('x'), confirm: plain('Yes'), deny: plain('No') } })],
        'message',
      ),
    ).toEqual([]);
    expect(
      checkBlocks(
        [
          button({
            confirm: { title: plain('Sure?'), text: plain('x'.repeat(301)), confirm: plain('Yes'), deny: plain('No') },
          }),
        ],
        'message',
      ),
    ).toHaveLength(1);
    const twoSame = {
      type: 'actions',
      elements: [
        { type: 'button', action_id: 'a', text: plain('1') },
        { type: 'button', action_id: 'a', text: plain('2') },
      ],
    };
    expect(checkBlocks([twoSame], 'message')[0]).toContain('duplicate action_id');
    const fields = Array.from({ length: 11 }, () => ({ type: 'mrkdwn', text: 'f' }));
    expect(checkBlocks([{ type: 'section', fields }], 'message')).toHaveLength(1);
    const select = (n: number) => ({
      type: 'actions',
      elements: [
        {
          type: 'static_select',
          action_id: 's',
          options: Array.from({ length: n }, (_, i) => ({ text: plain(`o${i}`), value: `v${i}` })),
        },
      ],
    });
    expect(checkBlocks([select(100)], 'message')).toEqual([]);
    expect(checkBlocks([select(101)], 'message')).toHaveLength(1);
    expect(checkBlocks([{ type: 'carousel' }], 'message')[0]).toContain('/blocks/0/type');
  });
});

describe('message rules', () => {
  it('needs text or blocks, and at most 50 blocks and 40,000 characters', () => {
    expect(checkMessageContent({}, { requireContent: true })).toEqual({ ok: false, error: 'no_text' });
    expect(checkMessageContent({ text: 'hi' }, { requireContent: true })).toEqual({ ok: true });
    expect(checkMessageContent({ text: 'x'.repeat(40_001) }, { requireContent: true })).toEqual({
      ok: false,
      error: 'msg_too_long',
    });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 70 }), (n) => {
        const r = checkMessageContent(
          { blocks: Array.from({ length: n }, () => ({ type: 'divider' })) },
          { requireContent: true },
        );
        expect(r.ok).toBe(n <= 50);
      }),
    );
  });
});

describe('initial options', () => {
  it('must be one of the options', () => {
    const options = [
      { text: plain('Now'), value: 'now' },
      { text: plain('Later'), value: 'later' },
    ];
    const block = (el: Record<string, unknown>) => [
      { type: 'input', label: plain('When'), element: { type: 'radio_buttons', action_id: 'r', options, ...el } },
    ];
    expect(checkBlocks(block({ initial_option: options[1] }), 'modal')).toEqual([]);
    expect(checkBlocks(block({ initial_option: { text: plain('Soon'), value: 'soon' } }), 'modal')[0]).toContain(
      '/blocks/0/element/initial_option',
    );
    expect(checkBlocks(block({ initial_option: { text: plain('Renamed'), value: 'now' } }), 'modal')).toHaveLength(1);
  });
});
