// The App Home tab: a button to send, the commands, and the user's last sends.
import type { KudosRow } from '../../db/schema/index.js';
import { formatUsd } from '../../domain/money.js';
import { Home } from '../ids.js';
import { recipientList } from './messages.js';
import { context, plain, section, type Block } from './text.js';

const STATUS_LABEL: Record<string, string> = {
  pending: 'sending',
  placed: 'sent',
  scheduled: 'scheduled',
  failed: 'failed',
  canceled: 'cancelled',
};

export function buildHome(recent: KudosRow[]): Record<string, unknown> {
  const blocks: Block[] = [
    { type: 'header', text: plain('Kudos', 150) },
    section('Thank people with a gift card, now or later.'),
    { type: 'actions', elements: [{ type: 'button', action_id: Home.actions.openSendModal, text: plain('Send kudos', 75), style: 'primary' }] },
    context('Commands: `/kudos`, `/kudos balance`, `/kudos scheduled`, `/kudos help`'),
    { type: 'divider' },
    section('*Your recent kudos*'),
  ];
  if (recent.length === 0) blocks.push(context('Nothing yet.'));
  for (const row of recent) {
    blocks.push(section(`${recipientList(row.recipients, 5)} · ${formatUsd(row.amountCents)} · _${STATUS_LABEL[row.status] ?? row.status}_`));
  }
  return { type: 'home', blocks };
}
