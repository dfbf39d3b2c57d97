// Small Block Kit helpers. Text objects that carry user text are `verbatim` so that Slack does not
// auto-link a typed "@channel" or URL; user text itself is always escaped with escapeMrkdwn.
import type { types } from '@slack/bolt';
import { clip, clipMrkdwn } from '../../domain/escape.js';

export { clip };

export type Block = types.KnownBlock;

export const plain = (text: string, max = 3000) => ({ type: 'plain_text' as const, text: clip(text, max), emoji: true });
export const mrkdwn = (text: string) => ({ type: 'mrkdwn' as const, text: clipMrkdwn(text, 3000), verbatim: true });

export function section(text: string, blockId?: string): Block {
  return { type: 'section', text: mrkdwn(text), ...(blockId ? { block_id: blockId } : {}) };
}

export function context(text: string): Block {
  return { type: 'context', elements: [mrkdwn(text)] };
}
