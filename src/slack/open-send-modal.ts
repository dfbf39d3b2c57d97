// Opens the send modal from a click (Home's Give kudos, the shortcuts): the sender's time zone if
// Slack answers in time, since a trigger_id lives 3 s.
import { todayIn } from '../domain/schedule.js';
import { buildSendModal, type SendModalMetadata } from './blocks/send-modal.js';
import { OPEN_LOOKUP_BUDGET_MS, withinBudget } from './deadline.js';
import type { ListenerDeps } from './deps.js';

export async function openSendModal(deps: ListenerDeps, input: { userId: string; triggerId: string; userIds?: string[]; metadata?: SendModalMetadata }): Promise<void> {
  const sender = await withinBudget(deps.slack.userInfo(input.userId), OPEN_LOOKUP_BUDGET_MS, undefined);
  const timezone = sender?.tz;
  await deps.slack.openView(
    input.triggerId,
    buildSendModal({
      ...(input.userIds?.length ? { userIds: input.userIds } : {}),
      ...(timezone ? { timezone, today: todayIn(timezone, deps.now()) } : {}),
      metadata: input.metadata ?? {},
    }),
  );
}
