// Opens the send modal from a click (Home's Give kudos, the shortcuts): the sender's time zone if
// Slack answers in time, since a trigger_id lives 3 s.
import { isValidTimeZone, todayIn } from '../../domain/common/zoned-time.js';
import { buildSendModal, type SendModalMetadata } from './send-modal-blocks.js';
import { OPEN_LOOKUP_BUDGET_MS, withinBudget } from '../listening/deadline.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import type { WorkspaceRef } from '../../domain/workspaces/settings.js';
import type { ChatWorkspace } from '../../domain/common/ports.js';
import { notConnectedText } from '../workspaces/rewards-connect-blocks.js';
import { plain, section } from '../kit/mrkdwn.js';

export async function openSendModal(
  deps: ListenerDeps,
  input: {
    ws: WorkspaceRef & ChatWorkspace;
    userId: string;
    triggerId: string;
    userIds?: string[];
    metadata?: SendModalMetadata;
  },
): Promise<void> {
  const slack = deps.slack.for(input.ws);
  // Distribution mode, no Rewards account yet: say what an admin must do instead of a form that cannot send.
  if (deps.rewardsSetup && !(await deps.rewardsSetup.isConnected(input.ws))) return openNotConnectedModal(deps, input);
  const sender = await withinBudget(() => slack.userInfo(input.userId), OPEN_LOOKUP_BUDGET_MS, undefined);
  const timezone = sender?.tz && isValidTimeZone(sender.tz) ? sender.tz : undefined;
  await slack.openView(
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

/** In place of the send form while the workspace has no Rewards account: what an admin must do, or whom to ask. */
export async function openNotConnectedModal(
  deps: ListenerDeps,
  input: { ws: WorkspaceRef & ChatWorkspace; userId: string; triggerId: string },
): Promise<void> {
  const [admin, settings] = await Promise.all([deps.isAdmin(input.ws, input.userId), deps.settings.get(input.ws)]);
  await deps.slack.for(input.ws).openView(input.triggerId, {
    type: 'modal',
    title: plain('Kudos', 24),
    close: plain('OK', 24),
    blocks: [section(notConnectedText(admin, settings.adminUserIds ?? undefined))],
  });
}
