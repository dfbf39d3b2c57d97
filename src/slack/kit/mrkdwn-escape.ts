// mrkdwn control characters in user text: &, <, > become entities so that `<!channel>`,
// `<@U…>` and forged `<https://evil|label>` links render as plain text instead of pinging or linking.
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A Slack user mention (built by us from a validated id, never from user text). */
export function mentionUser(userId: string): string {
  if (!/^[UW][A-Z0-9_]+$/.test(userId)) return escapeMrkdwn(userId);
  return `<@${userId}>`;
}

// Slack's limits count UTF-16 units; people see graphemes. A cut is made only where both agree: at a
// grapheme boundary, never inside an entity (`&lt;`) nor inside one of our own `<…>` tokens (mentions,
// links), so that what is left renders as the same text, shorter.
// Made on first use (as in domain/sending/message-text.ts): ICU's break rules stay unloaded in an idle process.
let graphemes: Intl.Segmenter | undefined;
const ELLIPSIS = '…';
const MRKDWN_ATOM = /&(?:amp|lt|gt);|<[^<>\n]*>/g;

/** The largest index <= max where `text` may be cut (0 when none): a grapheme boundary outside every atom. */
function cutIndex(text: string, max: number, atoms: RegExp | undefined): number {
  if (text.length <= max) return text.length;
  const inside: Array<[number, number]> = atoms
    ? Array.from(text.matchAll(atoms), (m) => [m.index, m.index + m[0].length])
    : [];
  let cut = 0;
  for (const { index } of (graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' })).segment(text)) {
    if (index > max) break;
    if (!inside.some(([start, end]) => index > start && index < end)) cut = index;
  }
  return cut;
}

function clipWith(text: string, max: number, atoms: RegExp | undefined): string {
  if (text.length <= max) return text;
  if (max < ELLIPSIS.length) return '';
  return `${text.slice(0, cutIndex(text, max - ELLIPSIS.length, atoms))}${ELLIPSIS}`;
}

/** Plain text cut to at most `max` UTF-16 units on a grapheme boundary, with an ellipsis when cut. */
export function clip(text: string, max: number): string {
  return clipWith(text, max, undefined);
}

/** Built mrkdwn cut to at most `max` units, never inside a grapheme, an entity or a `<…>` token. */
export function clipMrkdwn(text: string, max: number): string {
  return clipWith(text, max, MRKDWN_ATOM);
}

/** User text escaped for mrkdwn, then cut so that the escaped text fits `max`: the one way to do both. */
export function escapeAndClip(text: string, max: number): string {
  return clipMrkdwn(escapeMrkdwn(text), max);
}

/** Built mrkdwn split into pieces of at most `max` units each, at the same boundaries as clipMrkdwn. */
export function splitMrkdwn(text: string, max: number): string[] {
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > max) {
    // A single atom longer than max cannot be kept whole; cut it at a grapheme boundary instead.
    const cut = cutIndex(rest, max, MRKDWN_ATOM) || cutIndex(rest, max, undefined) || max;
    pieces.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  if (rest !== '' || pieces.length === 0) pieces.push(rest);
  return pieces;
}
