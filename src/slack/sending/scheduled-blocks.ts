// The `/kudos scheduled` list, with Cancel on what can still be cancelled; Home shows the same button.
import type { KudosRow } from '../../db/schema/index.js';
import { formatScheduled } from '../../domain/common/zoned-time.js';
import { ScheduledList } from '../ids.js';
import { type Block, context, plain, section, type SlackMessageContent } from '../kit/mrkdwn.js';
import { escapeMrkdwn, mentionUser } from '../kit/mrkdwn-escape.js';
import { cardEach, MENTIONS_PER_MESSAGE, recipientList, sendRecipients } from '../kit/recipients.js';

export interface ScheduledItem {
  row: KudosRow;
  /** Cancellable now (more than 10 minutes before it goes out). */
  cancellable: boolean;
}

export function buildScheduledList(
  items: ScheduledItem[],
  opts: { showSender: boolean; note?: string },
): SlackMessageContent {
  if (items.length === 0) {
    return {
      text: 'No scheduled kudos.',
      blocks: [section(opts.note ? `${opts.note}\nNo scheduled kudos.` : 'No scheduled kudos.')],
    };
  }
  const blocks: Block[] = [{ type: 'header', text: plain('Scheduled kudos', 150) }];
  if (opts.note) blocks.push(context(opts.note));
  // 50 blocks per message: at most 2 per item after the header.
  for (const { row, cancellable } of items.slice(0, 20)) {
    blocks.push(scheduledItemBlock(row, cancellable, opts.showSender));
  }
  if (items.length > 20) blocks.push(context(`…and ${items.length - 20} more.`));
  return { text: `${items.length} scheduled kudos`, blocks };
}

export function scheduledItemText(row: KudosRow, showSender: boolean): string {
  const when = row.scheduledAt ? formatScheduled(row.scheduledAt, row.scheduleTimezone ?? 'UTC') : 'soon';
  const from = showSender ? `${mentionUser(row.senderUserId)} → ` : 'To ';
  return `${from}${row.recipientCount > MENTIONS_PER_MESSAGE ? sendRecipients(row) : recipientList(row.recipients, 5)} · ${cardEach(row)} · *${escapeMrkdwn(when)}*`;
}

function scheduledItemBlock(row: KudosRow, cancellable: boolean, showSender: boolean): Block {
  const text = scheduledItemText(row, showSender);
  const blockId = `${ScheduledList.blockPrefix}${row.id}`;
  if (!cancellable) {
    return {
      type: 'section',
      block_id: blockId,
      text: {
        type: 'mrkdwn',
        text: `${text}\n_Can no longer be cancelled: it goes out in less than 10 minutes._`,
        verbatim: true,
      },
    };
  }
  return {
    type: 'section',
    block_id: blockId,
    text: { type: 'mrkdwn', text, verbatim: true },
    accessory: cancelButton(ScheduledList.actions.cancel, row.id),
  };
}

/** Cancel on a scheduled send (the /kudos scheduled list, App Home), asking for confirmation first. */
export function cancelButton(actionId: string, kudosId: string) {
  return {
    type: 'button' as const,
    action_id: actionId,
    text: plain('Cancel', 75),
    style: 'danger' as const,
    value: kudosId,
    confirm: {
      title: plain('Cancel this kudos?', 100),
      text: plain('The card will not be sent and the amount returns to the balance.', 300),
      confirm: plain('Cancel it', 30),
      deny: plain('Keep it', 30),
    },
  };
}
