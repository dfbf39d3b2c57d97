// Distribution mode's installations: what uninstalling and revoking tokens do, and the periodic purge
// of uninstalled workspaces' data once KUDOS_RETENTION_DAYS have passed.
import { sql } from 'drizzle-orm';

import type { AppConfig } from '../config/index.js';
import type { Logger } from '../config/logger.js';
import { type Database, rowsOf } from '../db/client.js';
import type { RewardsSetup } from '../domain/accounts/rewards-connections.js';
import { purgeDueWorkspaces, purgeWorkspaceData } from '../domain/workspaces/data-purge.js';
import { createPeriodicJob } from '../lib/periodic-job.js';
import type { DistributionTenancy } from '../slack/install/tenancy.js';
import type { InstallationEvents, InstallationRef } from '../slack/listening/listener-deps.js';
import type { SlackWorkspaces } from '../slack/web-api/workspace-gateways.js';
import type { AppPart } from './parts.js';

export interface PurgesPart extends AppPart {
  /** Deletes the data of workspaces uninstalled KUDOS_RETENTION_DAYS ago (the periodic job's pass). */
  purgeDue: () => Promise<Array<{ installationKey: string; rows: number }>>;
  start(): void;
}

/** The purge of uninstalled workspaces' data; its timer only in distribution mode and when `periodMs` is not 0. */
export function createPurges(
  deps: { config: AppConfig; db: Database; logger: Logger; now: () => Date; tenancy: DistributionTenancy | undefined },
  periodMs: number | undefined,
): PurgesPart {
  const { config, db, logger, now } = deps;
  const purgeDue = async () => {
    const purged = await purgeDueWorkspaces(db, now());
    for (const p of purged)
      logger.info('uninstalled workspace data purged', {
        part: 'installations',
        installation: p.installationKey,
        rows: p.rows,
        retentionDays: config.retentionDays,
      });
    return purged;
  };
  const purges =
    deps.tenancy && periodMs !== 0
      ? createPeriodicJob({
          name: 'purging uninstalled workspaces',
          logger,
          failureLevel: 'warn',
          periodMs: periodMs ?? 3_600_000,
          step: purgeDue,
        })
      : undefined;
  return {
    purgeDue,
    start: () => purges?.start(),
    // Not waited for: a purge in flight is done again by the next pass of any instance.
    interrupt: () => void purges?.stop(),
  };
}

/**
 * Distribution mode's uninstall: the installation's tokens are deleted in the database at once, and
 * every cache that could still hold them (authorize answers, per-workspace gateways) is dropped, so no
 * later call of any instance-local work uses them; scheduled work of that workspace then meets
 * `not_installed` and gives up quietly (src/slack/web-api/workspace-gateways.ts).
 */
export function installationEvents(
  tenancy: DistributionTenancy,
  slack: SlackWorkspaces,
  db: Database,
  logger: Logger,
  rewardsSetup: RewardsSetup | undefined,
): InstallationEvents {
  const log = logger.child({ part: 'installations' });
  const forget = async (ref: InstallationRef) => {
    tenancy.evict(ref);
    slack.forget({ teamId: ref.teamId ?? '', enterpriseId: ref.enterpriseId });
    // The workspace's Rewards secrets go with its Slack tokens (an org-wide install: every workspace of the org).
    if (!rewardsSetup) return;
    // A workspace of the org with a live install of its own keeps its account: that install still serves it.
    const teams =
      ref.isEnterpriseInstall && ref.enterpriseId
        ? rowsOf<{ teamId: string }>(
            await db.execute(
              sql`select c.team_id as "teamId" from rewards_connections c where c.enterprise_id = ${ref.enterpriseId}
                  and not exists (select 1 from installations i where i.installation_key = 'team:' || c.team_id and i.uninstalled_at is null and i.bot_token is not null)`,
            ),
          ).map((r) => r.teamId)
        : ref.teamId
          ? [ref.teamId]
          : [];
    for (const teamId of teams) await rewardsSetup.disconnect({ teamId, enterpriseId: ref.enterpriseId });
  };
  return {
    async uninstalled(ref) {
      const key = await tenancy.store.uninstall(ref);
      // No such installation (a workspace served by its org's install, or never installed): nothing of anyone's changes.
      if (!key)
        return void log.info('app_uninstalled names no installation: nothing changed', {
          teamId: ref.teamId,
          enterpriseId: ref.enterpriseId,
          orgWide: ref.isEnterpriseInstall,
        });
      await forget(ref);
      log.info('uninstalled: tokens deleted', {
        installation: key,
        teamId: ref.teamId,
        enterpriseId: ref.enterpriseId,
        orgWide: ref.isEnterpriseInstall,
      });
    },
    async tokensRevoked(ref, revoked) {
      const taken = await tenancy.store.revokeTokens(ref, revoked);
      if (!taken) {
        // Ids of another installation's bot or user, or tokens already gone: nothing of this one changes.
        log.info('tokens_revoked names no token of this installation: nothing changed', {
          teamId: ref.teamId,
          enterpriseId: ref.enterpriseId,
          orgWide: ref.isEnterpriseInstall,
        });
        return;
      }
      if (taken.bot) await forget(ref);
      else tenancy.evict(ref);
      log.info('tokens revoked', { installation: taken.key, bot: taken.bot, user: taken.user });
    },
    async requestDeletion(ws, actorUserId) {
      // The workspace's rows go now; its installation (and so the app) stays.
      const rows = await purgeWorkspaceData(db, { teamId: ws.teamId });
      log.info('workspace data deleted at an admin request', { teamId: ws.teamId, actorUserId, rows });
    },
  };
}
