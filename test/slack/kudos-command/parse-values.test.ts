// `#value` in the one-line `/kudos` command: where it is read (the message's start, before or after the
// amount, and its end), in which spellings, and what stays words of the message.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { checkValueForm, emojiShortcode, valueTag } from '../../../src/domain/workspaces/company-values.js';
import { parseKudosCommand } from '../../../src/slack/kudos-command/parse.js';

describe('parseKudosCommand: #value', () => {
  it('reads a value at the start of the message (before or after the amount) or at its end', () => {
    expect(parseKudosCommand('<@U1> <@U2> 25 #teamwork Thanks for the launch')).toEqual({
      kind: 'open',
      userIds: ['U1', 'U2'],
      amountDollars: 25,
      message: 'Thanks for the launch',
      value: 'teamwork',
    });
    expect(parseKudosCommand('<@U1> #customer-first 25')).toMatchObject({ amountDollars: 25, value: 'customer-first' });
    expect(parseKudosCommand('<@U1> 25 Thanks for the launch #Teamwork')).toMatchObject({
      message: 'Thanks for the launch',
      value: 'Teamwork',
    });
    // Slack's escaping makes `#name` a channel link when a channel has that name.
    expect(parseKudosCommand('<@U1> 25 <#C024BE91L|teamwork> Thanks')).toMatchObject({
      message: 'Thanks',
      value: 'teamwork',
    });
  });

  it('a #word inside the message, #1, and every #word when tags are off stay words of the message', () => {
    expect(parseKudosCommand('<@U1> 25 Thanks for #teamwork on the launch')).toEqual({
      kind: 'open',
      userIds: ['U1'],
      amountDollars: 25,
      message: 'Thanks for #teamwork on the launch',
    });
    expect(parseKudosCommand('<@U1> 25 #1 teammate')).toMatchObject({ message: '#1 teammate' });
    expect(parseKudosCommand('<@U1> 25 #teamwork Thanks', { valueTags: false })).toEqual({
      kind: 'open',
      userIds: ['U1'],
      amountDollars: 25,
      message: '#teamwork Thanks',
    });
  });

  it('two values are both reported, the first as `value`', () => {
    expect(parseKudosCommand('<@U1> 25 #teamwork Thanks #ownership')).toMatchObject({
      value: 'teamwork',
      otherValues: ['ownership'],
      message: 'Thanks',
    });
  });
});

describe('company value rules', () => {
  it('a tag is the name in lower case, letters and digits only; emoji are shortcodes', () => {
    expect(valueTag('Customer first')).toBe('customerfirst');
    expect(valueTag('Ünïty-2')).toBe('ünïty2');
    expect(emojiShortcode(':rocket:')).toBe('rocket');
    expect(emojiShortcode('+1')).toBe('+1');
    expect(emojiShortcode(':rocket')).toBeUndefined();
    expect(emojiShortcode('two words')).toBeUndefined();
    expect(checkValueForm({ name: '  Team   work ', emoji: 'Rocket', description: '' })).toEqual({
      ok: true,
      input: { name: 'Team work', emoji: 'rocket', description: '' },
    });
    expect(checkValueForm({ name: '!!!', emoji: 'x', description: '' })).toMatchObject({
      ok: false,
      errors: { name: expect.stringMatching(/at least one letter or digit/) },
    });
  });
});

describe('company value rules, as properties', () => {
  it('a name is accepted exactly when, spaces folded, it has 1 to 30 characters and a letter or digit', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (name) => {
        const folded = name.trim().replace(/\s+/g, ' ');
        const checked = checkValueForm({ name, emoji: 'star', description: '' });
        const fits = folded !== '' && [...folded].length <= 30 && /[\p{L}\p{N}]/u.test(folded);
        expect(checked.ok).toBe(fits);
        if (checked.ok) expect(valueTag(checked.input.name)).toBe(valueTag(folded));
      }),
    );
  });

  it('a value typed as #tag is found whatever its case and punctuation', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z][A-Za-z0-9 _-]{0,28}$/), (name) => {
        const typed = `#${valueTag(name).toUpperCase()}`;
        const parsed = parseKudosCommand(`<@U1> 25 ${typed} Thanks`);
        expect(parsed.kind === 'open' && valueTag(parsed.value ?? '')).toBe(valueTag(name));
      }),
    );
  });
});
