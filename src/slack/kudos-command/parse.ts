// `/kudos` text: mentions + amount + message to prefill the send modal, or a subcommand's word (as
// typed) and what follows it (subcommands.ts knows the words). Slack encodes mentions as `<@U123|name>`
// or `<@U123>`.
export type KudosCommand =
  | { kind: 'open'; userIds: string[]; amountDollars?: number; message?: string }
  | { kind: 'subcommand'; word: string; args: string };

const MENTION = /^<@([UW][A-Z0-9_]+)(?:\|[^>]*)?>/;

export function parseKudosCommand(text: string): KudosCommand {
  let rest = text.trim();
  if (rest === '') return { kind: 'open', userIds: [] };
  if (!rest.startsWith('<@')) {
    const word = rest.split(/\s+/)[0]!;
    return { kind: 'subcommand', word, args: rest.slice(word.length).trim() };
  }
  const userIds: string[] = [];
  for (;;) {
    const match = MENTION.exec(rest);
    if (!match) break;
    if (!userIds.includes(match[1]!)) userIds.push(match[1]!);
    rest = rest.slice(match[0].length).replace(/^[\s,]+/, '');
  }
  const amount = /^\$?(\d{1,7})(?:\.00?)?(?=\s|$)/.exec(rest);
  if (!amount) return { kind: 'open', userIds, ...(rest ? { message: rest } : {}) };
  const message = rest.slice(amount[0].length).trim();
  return { kind: 'open', userIds, amountDollars: Number(amount[1]), ...(message ? { message } : {}) };
}
