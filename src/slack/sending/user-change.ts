// user_change keeps the Slack user -> recipient mapping in step with profile e-mails.
import type { App } from '@slack/bolt';

import { syncChangedSlackUser } from '../../domain/sending/recipients.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { parseAtEdge, userChangeEvent } from '../listening/payloads.js';
import { toSlackUser } from '../web-api/gateway.js';

export function registerUserChange(app: App, deps: ListenerDeps): void {
  app.event('user_change', async ({ body: raw }) => {
    const body = parseAtEdge(userChangeEvent, raw, 'user_change');
    const user = toSlackUser(body.event.user);
    const teamId = body.team_id ?? user.teamId ?? 'unknown';
    const enterpriseId = body.enterprise_id ?? null;
    deps.slack.for({ teamId, enterpriseId }).forgetUser?.(user.id);
    // A workspace without a Rewards account has no address book to keep in step.
    if (!(await deps.rewards.isConnected({ teamId, enterpriseId }))) return;
    const result = await syncChangedSlackUser(
      { db: deps.db, rewards: await deps.rewards.for({ teamId, enterpriseId }) },
      { teamId, enterpriseId },
      user,
    );
    if (result === 'updated') deps.logger.info('recipient e-mail updated from Slack profile', { user: user.id });
  });
}
