// Events API: user_change keeps the Slack user -> recipient mapping in step with profile e-mails;
// app_home_opened publishes the Home tab (src/slack/home-publisher.ts keeps it current afterwards).
import type { App } from '@slack/bolt';
import { syncChangedSlackUser } from '../../domain/recipients.js';
import type { ListenerDeps } from '../deps.js';
import { workspaceOf } from '../deps.js';
import { toSlackUser } from '../gateway.js';
import { appHomeOpenedEvent, parseAtEdge, userChangeEvent } from '../payloads.js';

export function register(app: App, deps: ListenerDeps): void {
  app.event('user_change', async ({ body: raw }) => {
    const body = parseAtEdge(userChangeEvent, raw, 'user_change');
    const user = toSlackUser(body.event.user as never);
    deps.slack.forgetUser?.(user.id);
    const teamId = body.team_id ?? user.teamId ?? 'unknown';
    const enterpriseId = body.enterprise_id ?? null;
    const result = await syncChangedSlackUser({ db: deps.db, rewards: deps.rewards }, { teamId, enterpriseId }, user);
    if (result === 'updated') deps.logger.info('recipient e-mail updated from Slack profile', { user: user.id });
  });

  app.event('app_home_opened', async ({ body: raw }) => {
    const body = parseAtEdge(appHomeOpenedEvent, raw, 'app_home_opened');
    const event = body.event;
    if (event.tab && event.tab !== 'home') return;
    await deps.home.publish(workspaceOf(body), event.user, { opened: true });
  });
}
