// Events API: user_change keeps the Slack user -> recipient mapping in step with profile e-mails;
// app_home_opened publishes the Home tab.
import type { App } from '@slack/bolt';
import { recentSends } from '../../domain/kudos-store.js';
import { syncChangedSlackUser } from '../../domain/recipients.js';
import { buildHome } from '../blocks/home.js';
import type { ListenerDeps } from '../deps.js';
import { toSlackUser } from '../gateway.js';

export function register(app: App, deps: ListenerDeps): void {
  app.event('user_change', async ({ event, body }) => {
    const user = toSlackUser(event.user as never);
    deps.slack.forgetUser?.(user.id);
    const teamId = (body as { team_id?: string }).team_id ?? user.teamId ?? 'unknown';
    const enterpriseId = (body as { enterprise_id?: string }).enterprise_id ?? null;
    const result = await syncChangedSlackUser({ db: deps.db, rewards: deps.rewards }, { teamId, enterpriseId }, user);
    if (result === 'updated') deps.logger.info('recipient e-mail updated from Slack profile', { user: user.id });
  });

  app.event('app_home_opened', async ({ event, body }) => {
    if (event.tab && event.tab !== 'home') return;
    const teamId = (body as { team_id?: string }).team_id ?? 'unknown';
    const rows = await recentSends(deps.db, { teamId, senderUserId: event.user, limit: 5 });
    await deps.slack.publishHome(event.user, buildHome(rows));
  });
}
