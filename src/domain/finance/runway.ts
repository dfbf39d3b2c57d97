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

/** The window's net order spend from the ledger. */
export function recentSpendCents(
  rewards: Pick<RewardsClient, 'balance'>,
  now: Date,
  request: RequestOptions = {},
): Promise<number> {
  return orderSpendSince(rewards, new Date(now.getTime() - RUNWAY_WINDOW_DAYS * DAY_MS), now, request);
}
