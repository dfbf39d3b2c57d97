import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { clip, escapeAndClip, escapeMrkdwn, mentionUser, splitMrkdwn } from '../../../src/slack/kit/mrkdwn-escape.js';

describe('escapeMrkdwn', () => {
  it('neutralises special mentions, user mentions and forged links', () => {
    expect(escapeMrkdwn('<!channel> <!here> <@U123> <https://evil.example|intranet> a & b')).toBe(
      '&lt;!channel&gt; &lt;!here&gt; &lt;@U123&gt; &lt;https://evil.example|intranet&gt; a &amp; b',
    );
  });

  it('leaves no control character behind, and escapes & first (no double decoding)', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const escaped = escapeMrkdwn(text);
        expect(escaped).not.toMatch(/[<>]/);
        // Decoding the three entities gives the original back.
        expect(escaped.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')).toBe(text);
      }),
    );
  });

  it('mentions only well-formed user ids', () => {
    expect(mentionUser('U_EMP1')).toBe('<@U_EMP1>');
    expect(mentionUser('<!channel>')).toBe('&lt;!channel&gt;');
  });
});

// Finding 10: clipping works on whole graphemes, after escaping, and never cuts inside an entity.
const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const boundaries = (text: string) => new Set([...Array.from(segmenter.segment(text), (s) => s.index), text.length]);
const endsInsideEntity = (text: string) => /&[a-z]{0,3}$/.test(text);
const hostile = fc.oneof(
  fc.string({ unit: 'grapheme' }),
  fc
    .array(
      fc.constantFrom('<', '>', '&', '👍🏽', '👨‍👩‍👧', '🇫🇷', 'é', 'e\u0301', '<!channel>', '<https://x|y>', 'a', ' ', '\n'),
    )
    .map((parts) => parts.join('')),
);

describe('escapeAndClip', () => {
  it('fits the escaped text, cuts only between graphemes outside entities, and keeps a grapheme prefix', () => {
    fc.assert(
      fc.property(hostile, fc.integer({ min: 0, max: 80 }), (text, max) => {
        const escaped = escapeMrkdwn(text);
        const out = escapeAndClip(text, max);
        expect(out.length).toBeLessThanOrEqual(max);
        if (out === escaped) return;
        const kept = out.endsWith('…') ? out.slice(0, -1) : out;
        expect(escaped.startsWith(kept)).toBe(true);
        expect(boundaries(escaped).has(kept.length)).toBe(true);
        expect(endsInsideEntity(kept)).toBe(false);
        // The cut is also between whole graphemes of what the user typed.
        expect(boundaries(text).has(unescape(kept).length)).toBe(true);
      }),
    );
  });

  it('keeps hostile names inert and whole where they fit', () => {
    expect(escapeAndClip('<!channel>', 100)).toBe('&lt;!channel&gt;');
    expect(escapeAndClip('<https://x|y>', 100)).toBe('&lt;https://x|y&gt;');
    expect(escapeAndClip('Tom & Jerry', 100)).toBe('Tom &amp; Jerry');
    expect(escapeAndClip('<!channel>', 8)).toBe('&lt;!ch…');
    expect(escapeAndClip('<<<<', 10)).toBe('&lt;&lt;…');
    expect(escapeAndClip('👨‍👩‍👧👨‍👩‍👧', 12)).toBe('👨‍👩‍👧…');
    expect(escapeAndClip('👍🏽👍🏽', 5)).toBe('👍🏽…');
  });

  it('a message of `<` shown over sections loses nothing', () => {
    const escaped = escapeMrkdwn('<'.repeat(1000));
    const pieces = splitMrkdwn(escaped, 2999);
    expect(pieces.join('')).toBe(escaped);
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(2999);
      expect(piece).toMatch(/^(&lt;)+$/);
    }
  });
});

describe('clip', () => {
  it('never splits an emoji and never exceeds the limit', () => {
    fc.assert(
      fc.property(hostile, fc.integer({ min: 0, max: 40 }), (text, max) => {
        const out = clip(text, max);
        expect(out.length).toBeLessThanOrEqual(max);
        const kept = out.endsWith('…') && out !== text ? out.slice(0, -1) : out;
        expect(text.startsWith(kept)).toBe(true);
        expect(boundaries(text).has(kept.length)).toBe(true);
      }),
    );
    expect(clip('ab👍🏽', 4)).toBe('ab…');
  });
});

function unescape(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}
