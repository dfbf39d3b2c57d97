// Events API: user_change keeps the Slack user -> recipient mapping in step with profile e-mails;
// app_home_opened publishes the Home tab (src/slack/home/home-publisher.ts keeps it current afterwards).
import type { App } from '@slack/bolt';
import { syncChangedSlackUser } from '../../domain/sending/recipients.js';
import { plusOneAudience, recordPlusOne, removePlusOne } from '../../domain/recognition/stats.js';
import type { InstallationRef, ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import { toSlackUser } from '../web-api/gateway.js';
import {
  appHomeOpenedEvent,
  appUninstalledEvent,
  parseAtEdge,
  reactionEvent,
  tokensRevokedEvent,
  userChangeEvent,
} from '../listening/payloads.js';

export function register(app: App, deps: ListenerDeps): void {
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

  // "+1" on an announcement with the workspace's reaction (default :gift:, `/kudos settings`): counted,
  // no money moves. A skin tone is the same reaction (thumbsup::skin-tone-2 counts for thumbsup).
  const isPlusOne = async (ws: { teamId: string; enterpriseId?: string | null }, reaction: string) => {
    const configured = (await deps.settings.get(ws)).reactionEmoji;
    return reaction === configured || (!configured.includes('::') && reaction.startsWith(`${configured}::`));
  };

  app.event('reaction_added', async ({ body: raw }) => {
    const body = parseAtEdge(reactionEvent, raw, 'reaction_added');
    const { event } = body;
    const item = event.item;
    if (item.type !== 'message' || !item.channel || !item.ts) return;
    const ws = workspaceOf(body);
    if (!(await isPlusOne(ws, event.reaction))) return;
    const counted = await recordPlusOne(deps.db, {
      teamId: ws.teamId,
      channel: item.channel,
      ts: item.ts,
      userId: event.user,
      reaction: event.reaction,
    });
    // Their Homes count the +1s on their kudos: re-published (coalesced, rate-limited by the publisher).
    if (counted === 'counted')
      deps.home.refresh(ws, await plusOneAudience(deps.db, { teamId: ws.teamId, channel: item.channel, ts: item.ts }));
  });

  app.event('reaction_removed', async ({ body: raw }) => {
    const body = parseAtEdge(reactionEvent, raw, 'reaction_removed');
    const { event } = body;
    const item = event.item;
    if (item.type !== 'message' || !item.channel || !item.ts) return;
    const ws = workspaceOf(body);
    if (!(await isPlusOne(ws, event.reaction))) return;
    if (await removePlusOne(deps.db, { teamId: ws.teamId, channel: item.channel, ts: item.ts, userId: event.user })) {
      deps.home.refresh(ws, await plusOneAudience(deps.db, { teamId: ws.teamId, channel: item.channel, ts: item.ts }));
    }
  });

  // Distribution mode: uninstalling, or revoking the bot token, deletes the installation's tokens at
  // once (Bolt skips authorize for these two events: the tokens are already dead at Slack). Only the
  // installation the event is about, as its envelope names it (see installationOf).
  app.event('app_uninstalled', async ({ body: raw }) => {
    const body = parseAtEdge(appUninstalledEvent, raw, 'app_uninstalled');
    const installation = installationOf(body, deps);
    if (installation) await deps.installations?.uninstalled(installation);
  });

  app.event('tokens_revoked', async ({ body: raw }) => {
    const body = parseAtEdge(tokensRevokedEvent, raw, 'tokens_revoked');
    const installation = installationOf(body, deps);
    const tokens = body.event.tokens;
    if (installation)
      await deps.installations?.tokensRevoked(installation, {
        botUserIds: tokens.bot ?? [],
        userIds: tokens.oauth ?? [],
      });
  });

  app.event('app_home_opened', async ({ body: raw }) => {
    const body = parseAtEdge(appHomeOpenedEvent, raw, 'app_home_opened');
    const event = body.event;
    if (event.tab && event.tab !== 'home') return;
    await deps.home.publish(workspaceOf(body), event.user, { opened: true });
  });
}

/**
 * The installation an uninstall or revocation is about: the envelope's own workspace (`team_id`),
 * or its own org (`enterprise_id`) when the event says it came through that org's org-wide install.
 * `authorizations` lists the installations an event is visible to, not its subject: an entry naming
 * another workspace or org is never acted on (and is logged).
 */
function installationOf(
  body: {
    team_id?: string | undefined;
    enterprise_id?: string | null | undefined;
    is_enterprise_install?: boolean | undefined;
    authorizations?:
      | Array<{
          team_id?: string | null | undefined;
          enterprise_id?: string | null | undefined;
          is_enterprise_install?: boolean | undefined;
        }>
      | undefined;
    event: { type: string };
  },
  deps: Pick<ListenerDeps, 'logger'>,
): InstallationRef | undefined {
  const teamId = body.team_id || null;
  const enterpriseId = body.enterprise_id || null;
  const authorizations = body.authorizations ?? [];
  const foreign = authorizations.filter(
    (a) => (a.enterprise_id || null) !== enterpriseId || (!a.is_enterprise_install && (a.team_id || null) !== teamId),
  );
  if (foreign.length > 0) {
    deps.logger.warn('installation event names another workspace in its authorizations: acted on its own only', {
      event: body.event.type,
      teamId,
      enterpriseId,
      authorizations: foreign.map((a) => ({
        teamId: a.team_id ?? null,
        enterpriseId: a.enterprise_id ?? null,
        orgWide: a.is_enterprise_install ?? false,
      })),
    });
  }
  const orgWide =
    enterpriseId !== null &&
    (body.is_enterprise_install === true ||
      authorizations.some((a) => a.is_enterprise_install === true && a.enterprise_id === enterpriseId));
  if (orgWide) return { teamId: null, enterpriseId, isEnterpriseInstall: true };
  return teamId ? { teamId, enterpriseId, isEnterpriseInstall: false } : undefined;
}
