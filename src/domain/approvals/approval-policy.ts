// Routing of a send (SendPolicy): refused when its sender may not send kudos with cards, or would go
// over their monthly allowance where the workspace refuses such sends; to approvers when its total is
// above the workspace's threshold (0: every send) or would take the sender past their monthly
// allowance (where the workspace asks an approver); otherwise straight to the worker.
import { and, eq, gte, notInArray, sql } from 'drizzle-orm';

import { type Database, rowsOf } from '../../db/client.js';
import { kudos, rewardLinkRequests } from '../../db/schema/index.js';
import { formatUsd } from '../common/money.js';
import type { Workspace } from '../common/workspace.js';
import {
  type AllowanceStanding,
  allowanceStanding,
  fitsAllowance,
  overAllowanceMessage,
} from '../sending/allowances.js';
import type { PolicyReader, SendDraftSummary, SendPolicy, SendRoute } from '../sending/send-policy.js';
import { cardSenderRefusal, senderAllowance, type SenderRuleDeps } from '../sending/sender-rules.js';
import { readStoredSettings, type SettingsStore, type WorkspaceSettings } from '../workspaces/settings.js';

/** Statuses whose money is not spent: never placed, refused, or given back. */
export const UNSPENT_STATUSES = ['failed', 'rejected', 'canceled', 'expired'] as const;

/** First instant of the calendar month (UTC) that `now` is in. */
export function monthStartUtc(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

/**
 * What a sender has spent (or has waiting for approval) this calendar month in UTC, in cents: their
 * sends, plus the reward links they asked for (all of a request still being placed, the created links
 * of a settled one).
 */
export async function monthlySpendCents(
  db: PolicyReader,
  teamId: string,
  senderUserId: string,
  now: Date,
): Promise<number> {
  const [row] = await db
    // A partial send (kudos-parts.ts) counts what it charged.
    .select({
      total: sql<
        string | null
      >`coalesce(sum(case when ${kudos.status} = 'partial' then coalesce(${kudos.costCents}, ${kudos.totalCents}) else ${kudos.totalCents} end), 0)`,
    })
    .from(kudos)
    .where(
      and(
        eq(kudos.teamId, teamId),
        eq(kudos.senderUserId, senderUserId),
        gte(kudos.createdAt, monthStartUtc(now)),
        notInArray(kudos.status, [...UNSPENT_STATUSES]),
      ),
    );
  // Links count what their parts were charged once known (a branded card's actual cost), else their judged cost.
  const r = rewardLinkRequests;
  const [links] = await db
    .select({
      total: sql<
        string | null
      >`coalesce(sum(case when ${r.status} = 'pending' then greatest(${r.quantity}::bigint * ${r.amountCents}, coalesce(${r.costCents}, 0)) else coalesce(${r.costCents}, ${r.createdQuantity}::bigint * ${r.amountCents}) end), 0)`,
    })
    .from(rewardLinkRequests)
    .where(
      and(
        eq(rewardLinkRequests.teamId, teamId),
        eq(rewardLinkRequests.requesterUserId, senderUserId),
        gte(rewardLinkRequests.createdAt, monthStartUtc(now)),
      ),
    );
  return Number(row?.total ?? 0) + Number(links?.total ?? 0);
}

/** Sends to the same people within this window count together against the approval threshold. */
export const SPLIT_WINDOW_HOURS = 24;

/**
 * What the sender gave, in the last SPLIT_WINDOW_HOURS, to any of these addresses (per-recipient
 * amount times the recipients in common), in cents: a send split into several stays visible.
 */
export async function recentToSameCents(
  db: PolicyReader,
  teamId: string,
  senderUserId: string,
  emails: string[],
): Promise<number> {
  if (emails.length === 0) return 0;
  const lowered = emails.map((e) => e.toLowerCase());
  const result = await db.execute(sql`
    select coalesce(sum(k.amount_cents * (
             select count(*) from jsonb_array_elements(k.recipients) r
             where lower(r->>'email') in (${sql.join(
               lowered.map((e) => sql`${e}`),
               sql`, `,
             )}))), 0)::text as cents
    from kudos k
    where k.team_id = ${teamId} and k.sender_user_id = ${senderUserId}
      and k.created_at > now() - ${`${SPLIT_WINDOW_HOURS} hours`}::interval
      and k.status not in (${sql.join(
        UNSPENT_STATUSES.map((s) => sql`${s}`),
        sql`, `,
      )})`);
  return Number(rowsOf<{ cents: string }>(result)[0]?.cents ?? 0);
}

/**
 * The pure rule: threshold first (this send's total plus what the sender gave the same people in the
 * last 24 hours: a send split in parts is judged as one), then the sender's monthly allowance
 * (`monthlyBudgetCents`: theirs, resolved; spentCents is what is counted against it this month).
 */
export function decideRoute(
  draft: Pick<SendDraftSummary, 'totalCents' | 'estimated'>,
  settings: Pick<WorkspaceSettings, 'approvalThresholdCents' | 'monthlyBudgetCents'>,
  spentCents: number,
  recentToSame = 0,
): SendRoute {
  const threshold = settings.approvalThresholdCents;
  if (threshold === 0) return { kind: 'needs_approval', reason: 'every send needs approval' };
  if (draft.totalCents > threshold) {
    return {
      kind: 'needs_approval',
      reason: draft.estimated
        ? `the total, judged at ${formatUsd(draft.totalCents)} in USD (the estimate plus the safety margin on the exchange rate), is above the ${formatUsd(threshold)} approval threshold`
        : `the total ${formatUsd(draft.totalCents)} is above the ${formatUsd(threshold)} approval threshold`,
    };
  }
  if (draft.totalCents + recentToSame > threshold) {
    return {
      kind: 'needs_approval',
      reason: `with the ${formatUsd(recentToSame)} the sender gave the same people in the last ${SPLIT_WINDOW_HOURS} hours, the total ${formatUsd(draft.totalCents + recentToSame)} is above the ${formatUsd(threshold)} approval threshold`,
    };
  }
  const budget = settings.monthlyBudgetCents;
  if (budget !== null && spentCents + draft.totalCents > budget) {
    return {
      kind: 'needs_approval',
      reason: `it would take the sender's spending this month to ${formatUsd(spentCents + draft.totalCents)}, over their ${formatUsd(budget)} monthly allowance`,
    };
  }
  return { kind: 'send' };
}

export interface ApprovalPolicyDeps {
  db: Database;
  settings: SettingsStore;
  now: () => Date;
  /** Who may send, and the user groups of allowance overrides (sending/sender-rules.ts). */
  senders: SenderRuleDeps;
}

export function approvalPolicy(deps: ApprovalPolicyDeps): SendPolicy {
  /** `underLock`: inside the recording transaction; user groups as kept (never a Slack call there). */
  async function decide(
    db: PolicyReader,
    draft: SendDraftSummary,
    settings: WorkspaceSettings,
    underLock: boolean,
  ): Promise<SendRoute> {
    const ws = { teamId: draft.teamId };
    if (!underLock) {
      const refusal = await cardSenderRefusal(deps.senders, settings, ws, draft.senderUserId);
      if (refusal) return { kind: 'refuse', message: refusal };
    }
    const allowance = await senderAllowance(db, deps.senders.membership, settings, ws, draft.senderUserId, {
      cached: underLock,
    });
    const now = deps.now();
    const spent = allowance.cents !== null ? await monthlySpendCents(db, draft.teamId, draft.senderUserId, now) : 0;
    if (settings.overAllowance === 'refuse' && !fitsAllowance(allowance.cents, spent, draft.totalCents)) {
      const message = overAllowanceMessage({
        allowanceCents: allowance.cents!,
        countedCents: spent,
        totalCents: draft.totalCents,
        now,
      });
      return { kind: 'refuse', message };
    }
    const underThreshold = settings.approvalThresholdCents !== 0 && draft.totalCents <= settings.approvalThresholdCents;
    const recent = underThreshold
      ? await recentToSameCents(db, draft.teamId, draft.senderUserId, draft.recipientEmails ?? [])
      : 0;
    const budget = settings.overAllowance === 'approval' ? allowance.cents : null;
    return decideRoute(
      draft,
      { approvalThresholdCents: settings.approvalThresholdCents, monthlyBudgetCents: budget },
      spent,
      recent,
    );
  }
  return {
    route: async (draft) => decide(deps.db, draft, await deps.settings.get({ teamId: draft.teamId }), false),
    // Under the caller's transaction: the settings too are read through it (readStoredSettings), never
    // through the cache's own connection. A workspace not seeded yet (no row) has had no settings read:
    // then the cache's read, outside any lock a one-connection database would deadlock on, cannot be
    // avoided; every caller reads the settings (admin check, route) before recording, which seeds them.
    recheck: async (db, draft) =>
      decide(
        db,
        draft,
        (await readStoredSettings(db, draft.teamId)) ?? (await deps.settings.get({ teamId: draft.teamId })),
        true,
      ),
    // Reads the sender's user groups (Slack) before a recording transaction that did not route first.
    prepare: async (draft) => {
      const settings = await deps.settings.get({ teamId: draft.teamId });
      await senderAllowance(deps.db, deps.senders.membership, settings, { teamId: draft.teamId }, draft.senderUserId);
    },
  };
}

/** A sender's allowance this month and what is left of it (the send form's line, App Home). */
export async function senderStanding(
  deps: ApprovalPolicyDeps,
  ws: Workspace,
  userId: string,
): Promise<AllowanceStanding> {
  const settings = await deps.settings.get(ws);
  const allowance = await senderAllowance(deps.db, deps.senders.membership, settings, ws, userId);
  const now = deps.now();
  const counted = allowance.cents === null ? 0 : await monthlySpendCents(deps.db, ws.teamId, userId, now);
  return allowanceStanding(allowance.cents, counted, now);
}
