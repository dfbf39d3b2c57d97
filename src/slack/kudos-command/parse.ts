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
      /** A brand named with its amount (`£25 at Tesco`): the amount as typed, and the brand's words. */
      brand?: BrandMention;
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

/** `£25 at Tesco`: an amount as typed in the brand's currency, and the brand named after "at". */
export interface BrandMention {
  face: string;
  query: string;
}

/**
 * An amount in any currency (`£25`, `€12.50`, `25 GBP`, `1,000 JPY`) then `at` and the brand: one word,
 * or several in quotes (`at "IKEA Geschenkkarte"`). What follows is the message.
 */
const BRANDED =
  /^((?:[^\s\d<#@]{1,3})?\d[\d,]{0,12}(?:\.\d{1,2})?(?:\s?[A-Za-z]{3})?)\s+at\s+(?:"([^"]{1,100})"|“([^”]{1,100})”|([^\s"“]{1,100}))(?=\s|$)/i;

const MENTION = /^<@([UW][A-Z0-9_]+)(?:\|[^>]*)?>/;
const GROUP_MENTION = /^<!subteam\^([A-Z0-9_]+)(?:\|@?([^>]*))?>/;
/**
 * `opts.valueTags` false: no `#value` is read (a workspace without values keeps `#words` in the message
 * as typed).
 */
export function parseKudosCommand(text: string, opts: { valueTags?: boolean } = {}): KudosCommand {
  let rest = text.trim();
  if (rest === '') return { kind: 'open', userIds: [] };
  // `/kudos £25 at Tesco` names nobody yet: the form, with the brand.
  if (!rest.startsWith('<@') && !rest.startsWith('<!subteam^') && !BRANDED.test(rest)) {
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
  const branded = BRANDED.exec(rest);
  const brand = branded
    ? { face: branded[1]!.trim(), query: (branded[2] ?? branded[3] ?? branded[4]!).trim() }
    : undefined;
  const amount = branded ? branded : /^\$?(\d{1,7})(?:\.00?)?(?=\s|$)/.exec(rest);
  let message = takeLeading(amount ? rest.slice(amount[0].length).trim() : rest);
  if (opts.valueTags !== false) {
    const trailing = trailingValueTags(message);
    tags.push(...trailing.tags);
    message = trailing.rest;
  }
  const [value, ...otherValues] = tags;
  return {
    ...named,
    ...(brand ? { brand } : amount ? { amountDollars: Number(amount[1]) } : {}),
    ...(message ? { message } : {}),
    ...(value ? { value } : {}),
    ...(otherValues.length > 0 ? { otherValues } : {}),
  };
}
