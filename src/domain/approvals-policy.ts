// Routing of a send (SendPolicy): straight to the worker, or to approvers when its total is above the
// workspace's threshold (0: every send) or would take the sender past their monthly budget.
import { and, eq, gte, notInArray, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { kudos } from '../db/schema/index.js';
import { formatUsd } from './money.js';
import type { SendDraftSummary, SendPolicy, SendRoute } from './send-policy.js';
import type { SettingsStore, WorkspaceSettings } from './settings.js';

/** Statuses whose money is not spent: never placed, refused, or given back. */
export const UNSPENT_STATUSES = ['failed', 'rejected', 'canceled', 'expired'] as const;

/** First instant of the calendar month (UTC) that `now` is in. */
export function monthStartUtc(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

/** What a sender has spent (or has waiting for approval) this calendar month in UTC, in cents. */
export async function monthlySpendCents(db: Database, teamId: string, senderUserId: string, now: Date): Promise<number> {
  const [row] = await db
    .select({ total: sql<string | null>`coalesce(sum(${kudos.totalCents}), 0)` })
    .from(kudos)
    .where(
      and(
        eq(kudos.teamId, teamId),
        eq(kudos.senderUserId, senderUserId),
        gte(kudos.createdAt, monthStartUtc(now)),
        notInArray(kudos.status, [...UNSPENT_STATUSES]),
      ),
    );
  return Number(row?.total ?? 0);
}

/** The pure rule: threshold first, then the budget (spentCents is what the sender already used). */
export function decideRoute(
  draft: Pick<SendDraftSummary, 'totalCents'>,
  settings: Pick<WorkspaceSettings, 'approvalThresholdCents' | 'monthlyBudgetCents'>,
  spentCents: number,
): SendRoute {
  const threshold = settings.approvalThresholdCents;
  if (threshold === 0) return { kind: 'needs_approval', reason: 'every send needs approval' };
  if (draft.totalCents > threshold) {
    return { kind: 'needs_approval', reason: `the total ${formatUsd(draft.totalCents)} is above the ${formatUsd(threshold)} approval threshold` };
  }
  const budget = settings.monthlyBudgetCents;
  if (budget !== null && spentCents + draft.totalCents > budget) {
    return {
      kind: 'needs_approval',
      reason: `it would take the sender's spending this month to ${formatUsd(spentCents + draft.totalCents)}, over the ${formatUsd(budget)} monthly budget`,
    };
  }
  return { kind: 'send' };
}

export function approvalPolicy(deps: { db: Database; settings: SettingsStore; now: () => Date }): SendPolicy {
  return {
    async route(draft) {
      const settings = await deps.settings.get({ teamId: draft.teamId });
      const needsSpend = settings.approvalThresholdCents !== 0 && draft.totalCents <= settings.approvalThresholdCents && settings.monthlyBudgetCents !== null;
      const spent = needsSpend ? await monthlySpendCents(deps.db, draft.teamId, draft.senderUserId, deps.now()) : 0;
      return decideRoute(draft, settings, spent);
    },
  };
}
