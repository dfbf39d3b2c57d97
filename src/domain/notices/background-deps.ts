// What background work that may tell people needs: the worker (place-sends.ts), and the processing of
// stored webhook events and order checks (src/webhooks). Each adds its own options on top.
import type { Logger } from '../../config/logger.js';
import type { Database } from '../../db/client.js';
import type { RewardsAccounts } from '../accounts/rewards-accounts.js';
import type { Messenger } from '../common/ports.js';
import type { NotifyChannelOf } from '../workspaces/settings.js';
import type { NoticePresenter } from './notices.js';

export interface BackgroundDeps {
  db: Database;
  rewards: RewardsAccounts;
  chat: Messenger;
  present: NoticePresenter;
  /** Announcement channel of a workspace, from its settings at the time of the notice. */
  notifyChannelOf: NotifyChannelOf;
  logger: Logger;
}
