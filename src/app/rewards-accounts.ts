// The Rewards part: which account serves a workspace (ARCHITECTURE.md, "Which Rewards account"), each
// client paced by the rate budget its account shares with every instance.
import type { AppConfig } from '../config/index.js';
import type { Logger } from '../config/logger.js';
import type { Database } from '../db/client.js';
import {
  type RewardsAccounts,
  RewardsNotConnectedError,
  singleRewardsAccount,
  workspaceRewardsAccounts,
} from '../domain/accounts/rewards-accounts.js';
import {
  createRewardsConnectionStore,
  createRewardsSetup,
  type RewardsConnectionStore,
  type RewardsSetup,
} from '../domain/accounts/rewards-connections.js';
import { createRateBudgets, type RateBudgetOptions, type RateBudgets } from '../domain/pacing/rewards-rate-budget.js';
import type { ChangeFeed } from '../domain/workspaces/change-feed.js';
import type { AppMetrics } from '../observability/metrics.js';
import { createRewardsClient, type RewardsClient } from '../rewards/index.js';
import type { AppPart } from './parts.js';

export interface RewardsPart extends AppPart {
  rewardsAccounts: RewardsAccounts;
  /** The environment's client, or (per workspace) one whose every use fails: see RunningApp.rewards. */
  rewards: RewardsClient;
  rateBudgets: RateBudgets;
  rewardsConnections: RewardsConnectionStore | undefined;
  rewardsSetup: RewardsSetup | undefined;
}

export interface RewardsPartDeps {
  config: AppConfig;
  db: Database;
  logger: Logger;
  metrics: AppMetrics;
  now: () => Date;
  changes: ChangeFeed | undefined;
  /** Where Slack's last request came, the base of webhook URLs when KUDOS_PUBLIC_URL is not set. */
  seenPublicUrl: () => string | undefined;
}

export async function startRewardsAccounts(
  deps: RewardsPartDeps,
  options: { rewardsPerWorkspace?: boolean | undefined; rateBudget?: RateBudgetOptions | false | undefined },
): Promise<RewardsPart> {
  const { config, db, logger } = deps;
  // One rate budget per Rewards account, shared by every instance (src/domain/pacing/rewards-rate-budget.ts).
  const rateBudgets = createRateBudgets(db, {
    onError: (error) =>
      logger.warn('the shared Rewards rate budget could not be read or written; pacing locally', { error }),
    ...(options.rateBudget || {}),
  });
  const newClient = (credentials: { clientId: string; clientSecret: string }, account: string) =>
    newRewardsClient(
      config,
      deps.metrics,
      options.rateBudget === false ? undefined : rateBudgets,
      credentials,
      account,
    );
  const perWorkspace = options.rewardsPerWorkspace ?? (config.mode as string) === 'distribution';
  const accounts = perWorkspace ? connectedAccounts(deps, newClient) : await environmentAccount(config, newClient);
  return {
    ...accounts,
    rateBudgets,
    // Work waiting for its turn at the Rewards rate budget (a storm of 429s, a long window) stops
    // waiting now: nothing of it was sent, and its rows are released and resumed with their keys.
    interrupt: () => rateBudgets.stop(),
    release: () => accounts.rewardsAccounts.close(),
  };
}

type NewRewardsClient = (credentials: { clientId: string; clientSecret: string }, account: string) => RewardsClient;

function newRewardsClient(
  config: AppConfig,
  metrics: AppMetrics,
  rateBudgets: RateBudgets | undefined,
  credentials: { clientId: string; clientSecret: string },
  account: string,
): RewardsClient {
  return createRewardsClient({
    baseUrl: config.rewardsApiUrl,
    clientId: credentials.clientId,
    clientSecret: credentials.clientSecret,
    onCall: (info) => metrics.observeRewardsCall(info),
    ...(rateBudgets ? { rateGate: rateBudgets.gate(account) } : {}),
  });
}

/** Single-workspace Rewards: the environment's one account. */
async function environmentAccount(
  config: AppConfig,
  newClient: NewRewardsClient,
): Promise<Omit<RewardsPart, 'rateBudgets'>> {
  const rewardsAccounts = singleRewardsAccount(
    newClient(
      { clientId: config.rewardsClientId ?? '', clientSecret: config.rewardsClientSecret ?? '' },
      `env:${config.rewardsClientId ?? ''}`,
    ),
  );
  const rewards = await rewardsAccounts.for({ teamId: '' });
  return { rewardsAccounts, rewards, rewardsConnections: undefined, rewardsSetup: undefined };
}

/** Each workspace connects its own account (rewards_connections), its secrets stored sealed. */
function connectedAccounts(deps: RewardsPartDeps, newClient: NewRewardsClient): Omit<RewardsPart, 'rateBudgets'> {
  const { config, db, now, changes } = deps;
  if (!config.keyRing)
    throw new Error(
      'KUDOS_ENCRYPTION_KEY is required when each workspace connects its own Rewards account (its secrets are stored sealed)',
    );
  const store = createRewardsConnectionStore({ db, keyRing: config.keyRing, now });
  const accounts = workspaceRewardsAccounts(store, (connection) => newClient(connection, connection.id), {
    listConnected: () => store.listConnected(),
    ...(changes ? { changes } : {}),
  });
  const rewardsSetup = createRewardsSetup({
    db,
    store,
    evict: (ws) => accounts.evict(ws),
    isConnected: (ws) => accounts.isConnected(ws),
    publicUrl: () => config.publicUrl ?? deps.seenPublicUrl(),
    // Inside Slack's 3 s: one token and one balance call, no retries.
    verify: async (credentials) => {
      const probe = createRewardsClient({
        baseUrl: config.rewardsApiUrl,
        ...credentials,
        timeoutMs: 2000,
        maxRetries: 0,
      });
      try {
        await probe.balance.get({ timeoutMs: 2000 });
      } finally {
        await probe.close();
      }
    },
  });
  return { rewardsAccounts: accounts, rewards: noSingleClient(), rewardsConnections: store, rewardsSetup };
}

/** RunningApp.rewards when each workspace has its own account: any use names the mistake. */
function noSingleClient(): RewardsClient {
  return new Proxy({} as RewardsClient, {
    get() {
      throw new RewardsNotConnectedError('(no workspace given: use rewardsAccounts.for(ws))');
    },
  });
}
