// Per-workspace settings, and the change feed that evicts what other instances changed from this
// instance's caches (installations, settings, Rewards connections).
import type { AppConfig } from '../config/index.js';
import type { Logger } from '../config/logger.js';
import type { Database } from '../db/client.js';
import type { RewardsAccounts } from '../domain/accounts/rewards-accounts.js';
import type { ChangeFeed } from '../domain/workspaces/change-feed.js';
import { createSettingsStore, type SettingsStore } from '../domain/workspaces/settings.js';
import type { DistributionTenancy } from '../slack/install/tenancy.js';
import { type AppPart, stopPassesWithin } from './parts.js';

export interface WorkspaceCachesPart extends AppPart {
  settings: SettingsStore;
}

export function startWorkspaceCaches(
  deps: {
    config: AppConfig;
    db: Database;
    logger: Logger;
    changes: ChangeFeed | undefined;
    tenancy: DistributionTenancy | undefined;
    rewardsAccounts: RewardsAccounts;
  },
  changeFeed: { intervalMs?: number } | false | undefined,
): WorkspaceCachesPart {
  const { changes, tenancy, rewardsAccounts } = deps;
  // Settings live in the database, one row per workspace (seeded from the environment the first time
  // a workspace is seen), and are read for the workspace at hand on every request and notice.
  const settings = createSettingsStore({ db: deps.db, config: deps.config, ...(changes ? { changes } : {}) });
  changes?.listen({
    installation(key) {
      tenancy?.evictInstallation(key);
      // An uninstall or a purge also ends what the workspace's settings and connection were.
      if (key.startsWith('team:')) {
        settings.evict(key.slice('team:'.length));
        rewardsAccounts.changed(key.slice('team:'.length));
      }
    },
    settings: (teamId) => settings.evict(teamId),
    connection: (teamId) => rewardsAccounts.changed(teamId),
  });
  // `intervalMs: 0`: the test polls the feed itself.
  if (!(changeFeed && changeFeed.intervalMs === 0)) changes?.start();
  return { settings, stop: () => stopPassesWithin({ changes }, deps.logger) };
}
