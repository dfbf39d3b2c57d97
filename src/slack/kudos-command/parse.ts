// `/kudos` text: mentions + amount + message to prefill the send modal, or a subcommand's word (as
// typed) and what follows it (subcommands.ts knows the words). Slack encodes a person as `<@U123|name>`
// or `<@U123>`, and a user group as `<!subteam^S123|@handle>` or `<!subteam^S123>`. A company value is
// `#teamwork` at the start of the message (before or after the amount) or at its end; a `#word` inside
// the message stays in it. At the start Slack may have made it a channel link, `<#C123|teamwork>`, when a
// channel has that name. Resolving the name to one of the workspace's values is the domain's
// (resolveValueTag in domain/workspaces/company-values.ts).
import { leadingValueTags, trailingValueTags } from '../../domain/workspaces/company-values.js';

export type KudosCommand =
  | {
      kind: 'open';
      userIds: string[];
      groups?: UserGroupMention[];
      amountDollars?: number;
      message?: string;
      /** The company value named with `#`, without the `#`. */
      value?: string;
      /** Further `#values` named: a kudos has one, so the command is answered with one line. */
      otherValues?: string[];
    }
  | { kind: 'subcommand'; word: string; args: string };

/** A Slack user group named in the command: its id and, when Slack gave it, its handle. */
export interface UserGroupMention {
  id: string;
  handle?: string;
}

const MENTION = /^<@([UW][A-Z0-9_]+)(?:\|[^>]*)?>/;
const GROUP_MENTION = /^<!subteam\^([A-Z0-9_]+)(?:\|@?([^>]*))?>/;
/**
 * `opts.valueTags` false: no `#value` is read (a workspace without values keeps `#words` in the message
 * as typed).
 */
export function parseKudosCommand(text: string, opts: { valueTags?: boolean } = {}): KudosCommand {
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
  const tags: string[] = [];
  const takeLeading = (from: string) => {
    if (opts.valueTags === false) return from;
    const leading = leadingValueTags(from);
    tags.push(...leading.tags);
    return leading.rest;
  };
  rest = takeLeading(rest);
  const amount = /^\$?(\d{1,7})(?:\.00?)?(?=\s|$)/.exec(rest);
  let message = takeLeading(amount ? rest.slice(amount[0].length).trim() : rest);
  if (opts.valueTags !== false) {
    const trailing = trailingValueTags(message);
    tags.push(...trailing.tags);
    message = trailing.rest;
  }
  const [value, ...otherValues] = tags;
  return {
    ...named,
    ...(amount ? { amountDollars: Number(amount[1]) } : {}),
    ...(message ? { message } : {}),
    ...(value ? { value } : {}),
    ...(otherValues.length > 0 ? { otherValues } : {}),
  };
}
