// Small Block Kit helpers. Text objects that carry user text are `verbatim` so that Slack does not
// auto-link a typed "@channel" or URL; user text itself is always escaped with escapeMrkdwn.
import type { types } from '@slack/bolt';

import type { NamingText } from '../../domain/common/ports.js';
import { clip, clipMrkdwn, mentionUser } from './mrkdwn-escape.js';

export { clip };

export type Block = types.KnownBlock;

/** A message's content: the notification text, and its blocks. */
export interface SlackMessageContent {
  text: string;
  blocks: Block[];
}

export const plain = (text: string, max = 3000) => ({
  type: 'plain_text' as const,
  text: clip(text, max),
  emoji: true,
});
/** The domain's text that names people, in mrkdwn: each person a mention. */
export function namingMrkdwn(text: NamingText): string {
  return typeof text === 'string'
    ? text
    : text.parts.map((part) => (typeof part === 'string' ? part : mentionUser(part.userId))).join('');
}

/** The same in plain text (a modal's inline error renders no mention): each person their user id. */
export function namingPlain(text: NamingText): string {
  return typeof text === 'string'
    ? text
    : text.parts.map((part) => (typeof part === 'string' ? part : part.userId)).join('');
}

export const mrkdwn = (text: string) => ({ type: 'mrkdwn' as const, text: clipMrkdwn(text, 3000), verbatim: true });

export function section(text: string, blockId?: string): Block {
  return { type: 'section', text: mrkdwn(text), ...(blockId ? { block_id: blockId } : {}) };
}

export function context(text: string): Block {
  return { type: 'context', elements: [mrkdwn(text)] };
}

/** A plain-text input block (one field of a modal form); `initial` prefills it when non-empty. */
export function plainTextInput(
  actionId: string,
  blockId: string,
  label: string,
  initial: string | undefined,
  opts: { optional?: boolean; multiline?: boolean; max?: number; hint?: string; placeholder?: string } = {},
): Block {
  return {
    type: 'input',
    block_id: blockId,
    optional: Boolean(opts.optional),
    label: plain(label, 2000),
    element: {
      type: 'plain_text_input',
      action_id: actionId,
      ...(opts.multiline ? { multiline: true } : {}),
      ...(opts.max ? { max_length: opts.max } : {}),
      ...(initial ? { initial_value: initial } : {}),
      ...(opts.placeholder ? { placeholder: plain(opts.placeholder, 150) } : {}),
    },
    ...(opts.hint ? { hint: plain(opts.hint, 2000) } : {}),
  } as unknown as Block;
}
