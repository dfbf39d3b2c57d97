// What every HTTP route module may use. Route modules export create…Route(deps) => handler.
import type { AppConfig } from '../config/index.js';
import type { Logger } from '../config/logger.js';
import type { Database } from '../db/client.js';
import type { RewardsAccounts } from '../domain/accounts/rewards-accounts.js';

export interface RouteDeps {
  config: AppConfig;
  db: Database;
  logger: Logger;
  rewards: RewardsAccounts;
}
