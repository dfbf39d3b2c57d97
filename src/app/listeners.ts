// Bolt's listeners: every feature's handlers, given the domain services they call.
import type { AppConfig } from '../config/index.js';
import type { Logger } from '../config/logger.js';
import type { Database } from '../db/client.js';
import type { SettingsStore } from '../domain/workspaces/settings.js';
import { registerListeners } from '../slack/index.js';
import type { ListenerDeps } from '../slack/listening/listener-deps.js';
import type { BackgroundWorkPart } from './background-work.js';
import { installationEvents } from './installations.js';
import type { RewardsPart } from './rewards-accounts.js';
import type { SlackPart } from './slack-gateway.js';

export function registerSlackListeners(
  deps: {
    config: AppConfig;
    db: Database;
    logger: Logger;
    now: () => Date;
    settings: SettingsStore;
    rewards: Pick<RewardsPart, 'rewardsAccounts' | 'rewardsSetup'>;
    slack: Pick<SlackPart, 'bolt' | 'slack' | 'tenancy'>;
    work: BackgroundWorkPart;
  },
  options: { campaignSettleMs?: number | undefined; workflowStepWaitMs?: number | undefined },
): void {
  const { config, db, logger, now, settings, work } = deps;
  const { rewardsAccounts, rewardsSetup } = deps.rewards;
  const { bolt, slack, tenancy } = deps.slack;
  const { approvals } = work;
  const listenerDeps: ListenerDeps = {
    workflowSteps: work.workflowSteps,
    config,
    db,
    logger,
    rewards: rewardsAccounts,
    rewardsSetup,
    slack,
    catalog: work.catalog,
    brands: work.brands,
    policy: work.sendPolicy,
    wakeWorker: work.wakeWorker,
    automations: work.automations,
    placeRewardLinks: (requestId) => work.background.placeRewardLinks(requestId),
    now,
    settings,
    approvals,
    home: work.home,
    isAdmin: (ws, userId) => approvals.isAdmin(ws, userId),
    finance: work.finance,
    campaignSettleMs: options.campaignSettleMs,
    workflowStepWaitMs: options.workflowStepWaitMs,
    installations: tenancy ? installationEvents(tenancy, slack, db, logger, rewardsSetup) : undefined,
  };
  registerListeners(bolt, listenerDeps);
  bolt.error(async (error) => {
    // Re-thrown to the receiver, which logs it once and answers Slack: 400 for a payload of a shape
    // Slack never sends, otherwise a message the user can act on (src/http/slack-receiver.ts).
    throw error;
  });
}
