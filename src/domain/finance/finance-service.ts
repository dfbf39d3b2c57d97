// The money side for admins in one service: the low-balance monitor, top-up settlement and the
// overview that `/kudos balance` (admins) and App Home show. A periodic sweep (every instance; each
// step is claim-safe) checks balances, settles top-ups the ledger shows completed and, with webhooks
// on, warns admins when Rewards webhooks stop arriving (webhook-silence.ts).
import { inArray } from 'drizzle-orm';

import type { Logger } from '../../config/logger.js';
import type { Database } from '../../db/client.js';
import { type LimitIncreaseRequestRow, type TopUpRequestRow, topUpRequests } from '../../db/schema/index.js';
import { createPeriodicJob, type PeriodicJob } from '../../lib/periodic-job.js';
import { toCents } from '../../rewards/index.js';
import type { KeyRing } from '../../secrets/key-ring.js';
import type { RewardsAccounts } from '../accounts/rewards-accounts.js';
import type { Workspace } from '../common/workspace.js';
import type { SettingsStore } from '../workspaces/settings.js';
import type { FinanceNotifier } from './finance-notices.js';
import { createLowBalanceMonitor, type LowBalanceMonitor } from './low-balance.js';
import { type BalanceRunway, createRecentSpend, runwayOf } from './runway.js';
import { type KnownLimits, knownLimits, type LimitUsage, limitUsage, pendingLimitRequest } from './spending-limits.js';
import {
  isKnownSandbox,
  openTopUps,
  recentlySettledTopUps,
  sealPlainBilling,
  settleTopUps,
  type TopUpDeps,
} from './top-ups.js';
import { checkWebhookSilence } from './webhook-silence.js';

export interface FinanceDeps {
  db: Database;
  /** `mode`: in single mode the low-balance reads are the one account's, shared by every workspace. */
  rewards: Pick<RewardsAccounts, 'for'> & Partial<Pick<RewardsAccounts, 'mode'>>;
  settings: Pick<SettingsStore, 'get'>;
  notifier: FinanceNotifier;
  logger: Logger;
  now: () => Date;
  /** REWARDS_WEBHOOKS: with 'on' the sweep also warns admins when webhooks stop arriving. Default 'off'. */
  webhooks?: 'on' | 'off';
  /** KUDOS_ENCRYPTION_KEY: top-up requests' billing details are sealed with it (and older ones by the sweep). */
  keyRing?: KeyRing | undefined;
}

export interface FinanceOverviewData {
  availableCents: number;
  pendingCents: number;
  currency: string;
  thresholdCents: number | null;
  topUps: TopUpRequestRow[];
  /** Settled in the last week (completed, not approved, rejected, refused): how they ended. */
  recentTopUps: TopUpRequestRow[];
  limits: KnownLimits | undefined;
  usage: LimitUsage;
  pendingLimitRequest: LimitIncreaseRequestRow | undefined;
  sandbox: boolean;
  /** Under the alert level, and the days the balance lasts at the last 30 days' rate (runway.ts). */
  runway: BalanceRunway;
}

export interface FinanceService {
  deps: FinanceDeps;
  /** Top-up requests and their decisions use these. */
  topUps: TopUpDeps;
  lowBalance: LowBalanceMonitor;
  overview(ws: Workspace, opts?: { timeoutMs?: number }): Promise<FinanceOverviewData>;
  sweep(): Promise<void>;
  start(intervalMs: number): void;
  stop(): Promise<void>;
}

export function createFinanceService(deps: FinanceDeps): FinanceService {
  const log = deps.logger.child({ part: 'finance' });
  const lowBalance = createLowBalanceMonitor(deps);
  const topUps: TopUpDeps = {
    db: deps.db,
    rewards: deps.rewards,
    notifier: deps.notifier,
    logger: log,
    now: deps.now,
    keyRing: deps.keyRing,
  };
  const recentSpend = createRecentSpend(deps.now);
  let sweeps: PeriodicJob<void> | undefined;
  let sweeping: Promise<void> | undefined;

  async function sweepOnce(): Promise<void> {
    // Requests made before billing details were sealed (or by an instance of the previous version
    // during an upgrade, or before the key was set): sealed now.
    await sealPlainBilling(deps.db, deps.keyRing)
      .then((sealed) => {
        if (sealed > 0) log.info('sealed the billing details of top-up requests', { sealed });
      })
      .catch((error: unknown) => log.warn('sealing top-up billing details failed', { error }));
    await lowBalance.sweep().catch((error: unknown) => log.warn('low balance sweep failed', { error }));
    await checkWebhookSilence({ ...deps, webhooks: deps.webhooks ?? 'off', logger: log }).catch((error: unknown) =>
      log.warn('webhook silence check failed', { error }),
    );
    const open = await deps.db
      .selectDistinct({ teamId: topUpRequests.teamId, enterpriseId: topUpRequests.enterpriseId })
      .from(topUpRequests)
      .where(inArray(topUpRequests.status, ['approved', 'submitted']));
    for (const ws of open)
      await settleTopUps(topUps, ws).catch((error: unknown) =>
        log.warn('settling top-ups failed', { teamId: ws.teamId, error }),
      );
  }

  return {
    deps,
    topUps,
    lowBalance,
    async overview(ws, opts = {}) {
      // Settling reads the ledger: worth it only when something is waiting for it.
      const waiting = (await openTopUps(deps.db, ws)).some((r) => r.status === 'submitted' || r.status === 'approved');
      if (waiting)
        await settleTopUps(topUps, ws).catch((error: unknown) =>
          log.warn('settling top-ups failed', { teamId: ws.teamId, error }),
        );
      const request = opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : undefined;
      const usageNow = limitUsage(deps.db, ws, deps.now());
      const [balance, settings, topUpRows, recentTopUps, limits, usage, pending, sandbox, spentCents] =
        await Promise.all([
          deps.rewards.for(ws).then((rewards) => rewards.balance.get(request)),
          deps.settings.get(ws),
          openTopUps(deps.db, ws),
          recentlySettledTopUps(deps.db, ws, deps.now()),
          knownLimits(deps.db, ws),
          usageNow,
          pendingLimitRequest(deps.db, ws),
          isKnownSandbox(deps.db, ws),
          // Without the ledger the overview still shows the balance; it says nothing about days.
          usageNow
            .then((used) =>
              recentSpend(`${ws.teamId}:${used.monthCents}:${used.todayCents}`, () => deps.rewards.for(ws), request),
            )
            .catch((error: unknown) => {
              log.warn('reading the last 30 days of the ledger failed', { teamId: ws.teamId, error });
              return undefined;
            }),
        ]);
      const availableCents = toCents(balance.availableBalance.amount, { rounding: 'half-up' });
      return {
        availableCents,
        pendingCents: toCents(balance.pendingBalance.amount, { rounding: 'half-up' }),
        currency: balance.availableBalance.currency,
        thresholdCents: settings.lowBalanceThresholdCents,
        topUps: topUpRows,
        recentTopUps,
        limits,
        usage,
        pendingLimitRequest: pending,
        sandbox,
        runway: runwayOf({ availableCents, thresholdCents: settings.lowBalanceThresholdCents, spentCents }),
      };
    },
    async sweep() {
      while (sweeping) await sweeping.catch(() => {});
      sweeping = sweepOnce().finally(() => {
        sweeping = undefined;
      });
      return sweeping;
    },
    start(intervalMs) {
      if (sweeps || intervalMs <= 0) return;
      sweeps = createPeriodicJob({
        name: 'finance sweep',
        logger: log,
        failureLevel: 'warn',
        periodMs: intervalMs,
        // A sweep asked for outside the schedule (a top-up just recorded) stands for this one.
        step: () => (sweeping ? Promise.resolve() : this.sweep()),
      });
      sweeps.start();
    },
    async stop() {
      const stopping = sweeps?.stop();
      sweeps = undefined;
      await stopping;
      await sweeping?.catch(() => {});
      await lowBalance.stop();
    },
  };
}
