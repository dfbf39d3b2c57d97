// `/kudos scheduled`: the sender's scheduled sends (an admin's: everyone's), with Cancel where it is
// still possible (cancel-scheduled.ts).
import type { AckFn, RespondArguments } from '@slack/bolt';

import { isCancellable } from '../../domain/sending/cancel-scheduled.js';
import { listScheduled } from '../../domain/sending/kudos-store.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import type { SlashCommandPayload } from '../listening/payloads.js';
import { buildScheduledList } from './scheduled-blocks.js';

export async function handleScheduledCommand(
  deps: ListenerDeps,
  input: { ack: AckFn<string | RespondArguments>; command: SlashCommandPayload },
): Promise<void> {
  const { ack, command } = input;
  const admin = await deps.isAdmin(workspaceOf(command), command.user_id);
  const now = deps.now();
  const rows = await listScheduled(deps.db, {
    teamId: workspaceOf(command).teamId,
    ...(admin ? {} : { senderUserId: command.user_id }),
    now,
  });
  return ack(
    buildScheduledList(
      rows.map((row) => ({ row, cancellable: isCancellable(row, now) })),
      { showSender: admin, ...(admin ? { note: 'As an admin you see everyone’s scheduled sends.' } : {}) },
    ),
  );
}
