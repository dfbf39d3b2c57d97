// A company value as people read it: `:rocket: *Teamwork*`. A kudos shows the copy it kept at send time.
import type { KudosRow } from '../../db/schema/index.js';
import { escapeMrkdwn } from './mrkdwn-escape.js';

export function valueLabel(value: { name: string; emoji: string }): string {
  return `:${escapeMrkdwn(value.emoji)}: *${escapeMrkdwn(value.name)}*`;
}

/** The value a kudos was sent for, or undefined when none was picked. */
export function kudosValueLabel(row: Pick<KudosRow, 'valueName' | 'valueEmoji'>): string | undefined {
  return row.valueName ? valueLabel({ name: row.valueName, emoji: row.valueEmoji ?? 'star' }) : undefined;
}
