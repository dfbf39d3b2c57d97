// Opens the send modal from a click (Home's Give kudos, the shortcuts): the sender's time zone if
// Slack answers in time, since a trigger_id lives 3 s.
import { isValidTimeZone, todayIn } from '../domain/schedule.js';
import { buildSendModal, type SendModalMetadata } from './blocks/send-modal.js';
import { OPEN_LOOKUP_BUDGET_MS, withinBudget } from './deadline.js';
import type { ListenerDeps } from './deps.js';

export async function openSendModal(deps: ListenerDeps, input: { userId: string; triggerId: string; userIds?: string[]; metadata?: SendModalMetadata }): Promise<void> {
  const sender = await withinBudget(deps.slack.userInfo(input.userId), OPEN_LOOKUP_BUDGET_MS, undefined);
  const timezone = sender?.tz && isValidTimeZone(sender.tz) ? sender.tz : undefined;
  await deps.slack.openView(
    input.triggerId,
    buildSendModal({
      ...(input.userIds?.length ? { userIds: input.userIds } : {}),
      ...(timezone ? { timezone, today: todayIn(timezone, deps.now()) } : {}),
      // Slack answered, and the profile has no time zone: the modal says times are UTC.
      ...(sender && !timezone ? { noTimezone: true, today: todayIn('UTC', deps.now()) } : {}),
      metadata: input.metadata ?? {},
    }),
  );
}
