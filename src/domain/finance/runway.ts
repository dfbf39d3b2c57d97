// How long the balance lasts, for the overview (`/kudos balance` for admins, App Home): the last 30
// days' net spend on orders (the ledger's orders less their cancellations, every tool on the account
// counted) as a rate, and the days the available balance covers at it (daysLeftAtRate, the same
// arithmetic as the low-balance alert's). No spend in the window: nothing is said about days.
import type { RequestOptions, RewardsClient } from '../../rewards/index.js';
import { orderSpendSince } from './ledger.js';
import { daysLeftAtRate } from './low-balance.js';

export const RUNWAY_WINDOW_DAYS = 30;
const DAY_MS = 86_400_000;

export interface BalanceRunway {
  /** The available balance is under the workspace's low-balance alert level (none set: false). */
  belowThreshold: boolean;
  /** Net order spend over the window, in cents; undefined when the ledger could not be read. */
  spentCents: number | undefined;
  /** Whole days the available balance lasts at the window's rate; undefined without a rate. */
  daysLeft: number | undefined;
}

export function runwayOf(input: {
  availableCents: number;
  thresholdCents: number | null;
  spentCents: number | undefined;
}): BalanceRunway {
  return {
    belowThreshold: input.thresholdCents !== null && input.availableCents < input.thresholdCents,
    spentCents: input.spentCents,
    daysLeft: daysLeftAtRate(input.availableCents, input.spentCents),
  };
}

/** How long a workspace's window spend is reused: 30 days' spend hardly moves in minutes, and reading it pages the ledger. */
export const SPEND_REUSE_MS = 10 * 60_000;
const SPEND_CACHE_MAX = 2_000;

/**
 * The window's net order spend, reused for SPEND_REUSE_MS under a key the caller makes of the workspace
 * and of what Kudos itself spent (its own sends change the key, so they show at once): the overview is
 * read on every admin's `/kudos balance` and Home refresh, and each read would page through a month of
 * the ledger against the Rewards rate budget. A failed read is not kept.
 */
export function createRecentSpend(now: () => Date) {
  const kept = new Map<string, { at: number; cents: Promise<number> }>();
  return (key: string, rewards: () => Promise<Pick<RewardsClient, 'balance'>>, request: RequestOptions = {}) => {
    const at = now().getTime();
    const hit = kept.get(key);
    if (hit && at - hit.at < SPEND_REUSE_MS) return hit.cents;
    if (kept.size >= SPEND_CACHE_MAX) kept.clear();
    const cents = rewards().then((client) => recentSpendCents(client, new Date(at), request));
    kept.set(key, { at, cents });
    cents.catch(() => {
      if (kept.get(key)?.cents === cents) kept.delete(key);
    });
    return cents;
  };
}

/** The window's net order spend from the ledger. */
function recentSpendCents(
  rewards: Pick<RewardsClient, 'balance'>,
  now: Date,
  request: RequestOptions = {},
): Promise<number> {
  return orderSpendSince(rewards, new Date(now.getTime() - RUNWAY_WINDOW_DAYS * DAY_MS), now, request);
}
