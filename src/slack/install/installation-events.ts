// Distribution mode: uninstalling, or revoking the bot token, deletes the installation's tokens at
// once (Bolt skips authorize for these two events: the tokens are already dead at Slack). Only the
// installation the event is about, as its envelope names it (see installationOf).
import type { App } from '@slack/bolt';

import type { InstallationRef, ListenerDeps } from '../listening/listener-deps.js';
import { appUninstalledEvent, parseAtEdge, tokensRevokedEvent } from '../listening/payloads.js';

export function registerInstallationEvents(app: App, deps: ListenerDeps): void {
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
