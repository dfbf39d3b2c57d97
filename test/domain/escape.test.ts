import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeMrkdwn, mentionUser } from '../../src/domain/escape.js';

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
