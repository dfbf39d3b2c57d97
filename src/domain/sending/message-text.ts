// What a kudos message may contain. It is posted in public, so it is refused (with a reason the
// sender can act on) rather than silently changed: control characters (NUL breaks storage) and
// invisible characters that can disguise text (bidi overrides and isolates, zero-width spaces and
// joiners used outside emoji). Its length is counted in characters as people see them (graphemes).

/** Characters, as people count them; the send form says so. */
export const MESSAGE_MAX_CHARACTERS = 1000;

// Made on first use: a segmenter makes ICU load its break rules, ~2 MiB of resident memory that an
// idle process does without (docs/operations.md, Idle memory).
let segmenter: Intl.Segmenter | undefined;

/** Number of user-perceived characters (an emoji with its modifiers is one). */
export function characterCount(text: string): number {
  let count = 0;
  for (const _ of (segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' })).segment(text)) count++;
  return count;
}

// C0 and C1 controls except tab, line feed and carriage return (a multi-line message is fine).
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/u;
// Bidi embeddings, overrides, isolates and marks; zero-width space, word joiner, BOM, Mongolian vowel separator.
const INVISIBLE = /[\u061C\u200B\u200E\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF\u180E]/u;
// A zero-width (non-)joiner is part of emoji sequences and of some scripts; alone at either end it hides nothing useful.
const LONE_JOINER = /^[\u200C\u200D]|[\u200C\u200D]$|[\u200C\u200D]{2,}/u;
/** A lone surrogate: not text (and PostgreSQL refuses it). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** False for text with a lone surrogate (String.prototype.isWellFormed, which Node 20's TypeScript lib lacks). */
export function isWellFormedText(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/** Why this message cannot be sent, or undefined when it can. */
export function messageProblem(text: string): string | undefined {
  if (CONTROL.test(text) || !isWellFormedText(text))
    return 'The message contains control characters (perhaps from a paste); retype it or remove them.';
  if (INVISIBLE.test(text) || LONE_JOINER.test(text)) {
    return 'The message contains invisible characters (text-direction or zero-width marks) that could disguise it in public; remove them.';
  }
  const count = characterCount(text);
  if (count > MESSAGE_MAX_CHARACTERS)
    return `The message can be at most ${MESSAGE_MAX_CHARACTERS} characters; this one has ${count}.`;
  return undefined;
}
