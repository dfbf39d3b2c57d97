import { describe, expect, it } from 'vitest';

import { parseKudosCommand } from '../../../src/slack/kudos-command/parse.js';
import { parseStatsCommand } from '../../../src/slack/recognition/stats-command.js';

describe('parseKudosCommand', () => {
  it('tells a subcommand (its word as typed, and what follows) from the send form', () => {
    expect(parseKudosCommand('')).toEqual({ kind: 'open', userIds: [] });
    expect(parseKudosCommand(' BALANCE ')).toEqual({ kind: 'subcommand', word: 'BALANCE', args: '' });
    expect(parseKudosCommand('recurring  new ')).toEqual({ kind: 'subcommand', word: 'recurring', args: 'new' });
    expect(parseKudosCommand('dance now')).toEqual({ kind: 'subcommand', word: 'dance', args: 'now' });
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

  it('reads a brand with its amount in its own currency: `£25 at Tesco`, `25 GBP at Tesco`, a quoted name', () => {
    expect(parseKudosCommand('<@U1|eli> £25 at Tesco for the launch')).toEqual({
      kind: 'open',
      userIds: ['U1'],
      brand: { face: '£25', query: 'Tesco' },
      message: 'for the launch',
    });
    expect(parseKudosCommand('<@U1> 12.50 EUR at "IKEA Geschenkkarte" Danke')).toMatchObject({
      brand: { face: '12.50 EUR', query: 'IKEA Geschenkkarte' },
      message: 'Danke',
    });
    expect(parseKudosCommand('<@U1> #teamwork $50 at airbnb')).toMatchObject({
      brand: { face: '$50', query: 'airbnb' },
      value: 'teamwork',
    });
    // Nobody named yet: the form, with the brand (never a subcommand).
    expect(parseKudosCommand('£25 at Tesco')).toEqual({
      kind: 'open',
      userIds: [],
      brand: { face: '£25', query: 'Tesco' },
    });
    // "at" later in the message is the message's: a choice card, as before.
    expect(parseKudosCommand('<@U1> 25 thanks at the offsite')).toEqual({
      kind: 'open',
      userIds: ['U1'],
      amountDollars: 25,
      message: 'thanks at the offsite',
    });
  });

  it('reads Slack user groups in both encodings, beside people, once each', () => {
    expect(
      parseKudosCommand('<!subteam^S0614TZR7|@design> <@U1> <!subteam^S0614TZR7> <!subteam^S9> 10 Thanks'),
    ).toEqual({
      kind: 'open',
      userIds: ['U1'],
      groups: [{ id: 'S0614TZR7', handle: 'design' }, { id: 'S9' }],
      amountDollars: 10,
      message: 'Thanks',
    });
    expect(parseKudosCommand('<!subteam^S1|@team>')).toEqual({
      kind: 'open',
      userIds: [],
      groups: [{ id: 'S1', handle: 'team' }],
    });
  });
});

describe('parseStatsCommand', () => {
  it('reads a month, a channel and a user group in any order (as Slack escapes them), and opt-out/in', () => {
    expect(parseStatsCommand('stats')).toEqual({ kind: 'board', month: '' });
    expect(parseStatsCommand('stats october <#C024BE91L|sales>')).toEqual({
      kind: 'board',
      month: 'october',
      channel: 'C024BE91L',
    });
    expect(parseStatsCommand('stats <!subteam^S0614TZR7|@design> 2026-10')).toEqual({
      kind: 'board',
      month: '2026-10',
      group: { id: 'S0614TZR7', handle: 'design' },
    });
    expect(parseStatsCommand('stats <#C024BE91L>')).toEqual({ kind: 'board', month: '', channel: 'C024BE91L' });
    expect(parseStatsCommand('stats opt-out')).toEqual({ kind: 'optout' });
    expect(parseStatsCommand('stats optin')).toEqual({ kind: 'optin' });
    expect(parseStatsCommand('statsx')).toBeUndefined();
  });
});
