import { describe, expect, it } from 'vitest';
import { parseKudosCommand } from '../../src/slack/commands/parse.js';

describe('parseKudosCommand', () => {
  it('recognises subcommands', () => {
    expect(parseKudosCommand('')).toEqual({ kind: 'open', userIds: [] });
    for (const word of ['balance', 'scheduled', 'help', 'settings'] as const) expect(parseKudosCommand(` ${word.toUpperCase()} `)).toEqual({ kind: word });
    expect(parseKudosCommand('dance now')).toEqual({ kind: 'unknown', word: 'dance' });
  });

  it('reads mentions in both encodings, the amount and the message', () => {
    expect(parseKudosCommand('<@U123|eli> <@W456> 25 great job <!channel>')).toEqual({
      kind: 'open',
      userIds: ['U123', 'W456'],
      amountDollars: 25,
      message: 'great job <!channel>',
    });
    expect(parseKudosCommand('<@U1>, <@U1> $40')).toEqual({ kind: 'open', userIds: ['U1'], amountDollars: 40 });
    expect(parseKudosCommand('<@U1> thanks')).toEqual({ kind: 'open', userIds: ['U1'], message: 'thanks' });
  });
});
