// `/kudos` text: mentions + amount + message to prefill the send modal, or a subcommand's word (as
// typed) and what follows it (subcommands.ts knows the words). Slack encodes a person as `<@U123|name>`
// or `<@U123>`, and a user group as `<!subteam^S123|@handle>` or `<!subteam^S123>`.
export type KudosCommand =
  | { kind: 'open'; userIds: string[]; groups?: UserGroupMention[]; amountDollars?: number; message?: string }
  | { kind: 'subcommand'; word: string; args: string };

/** A Slack user group named in the command: its id and, when Slack gave it, its handle. */
export interface UserGroupMention {
  id: string;
  handle?: string;
}

const MENTION = /^<@([UW][A-Z0-9_]+)(?:\|[^>]*)?>/;
const GROUP_MENTION = /^<!subteam\^([A-Z0-9_]+)(?:\|@?([^>]*))?>/;

export function parseKudosCommand(text: string): KudosCommand {
  let rest = text.trim();
  if (rest === '') return { kind: 'open', userIds: [] };
  if (!rest.startsWith('<@') && !rest.startsWith('<!subteam^')) {
    const word = rest.split(/\s+/)[0]!;
    return { kind: 'subcommand', word, args: rest.slice(word.length).trim() };
  }
  const userIds: string[] = [];
  const groups: UserGroupMention[] = [];
  for (;;) {
    const person = MENTION.exec(rest);
    const group = person ? undefined : GROUP_MENTION.exec(rest);
    const match = person ?? group;
    if (!match) break;
    if (person && !userIds.includes(person[1]!)) userIds.push(person[1]!);
    if (group && !groups.some((g) => g.id === group[1])) {
      groups.push({ id: group[1]!, ...(group[2] ? { handle: group[2] } : {}) });
    }
    rest = rest.slice(match[0].length).replace(/^[\s,]+/, '');
  }
  const named = { kind: 'open' as const, userIds, ...(groups.length > 0 ? { groups } : {}) };
  const amount = /^\$?(\d{1,7})(?:\.00?)?(?=\s|$)/.exec(rest);
  if (!amount) return { ...named, ...(rest ? { message: rest } : {}) };
  const message = rest.slice(amount[0].length).trim();
  return { ...named, amountDollars: Number(amount[1]), ...(message ? { message } : {}) };
}
