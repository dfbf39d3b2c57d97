// The audit trail: one row per approval request, decision, settings change, cancellation (written by
// cancel-scheduled.ts) and order outcome. Orders are placed by the worker, which does not write audit rows, so
// order outcomes are copied from the kudos table into the trail by recordOrderEvents (run by the
// approvals sweep and before every listing), once per order / failed attempt.
import { and, desc, eq, sql } from 'drizzle-orm';

import type { Database } from '../../db/client.js';
import { type AuditEventRow, auditEvents } from '../../db/schema/index.js';

export type AuditAction =
  | 'approval.requested'
  | 'approval.approved'
  | 'approval.rejected'
  | 'approval.expired'
  | 'approval.reopened'
  | 'settings.changed'
  /** A sender's or a user group's own monthly allowance set, changed or removed (allowance-overrides.ts). */
  | 'allowance.set'
  | 'allowance.removed'
  | 'kudos.order_placed'
  | 'kudos.order_failed'
  | 'kudos.canceled'
  /** A send started by a workflow step or an automation (details say which). */
  | 'kudos.automated'
  /** Reward links: asked for, then all parts created, some created and the rest refused, or refused. */
  | 'reward_links.requested'
  | 'reward_links.approved'
  | 'reward_links.rejected'
  | 'reward_links.placed'
  | 'reward_links.partial'
  | 'reward_links.failed'
  /** Campaigns (domain/finance/campaigns.ts): created (once the Rewards API has it), changed, archived. */
  | 'campaign.created'
  | 'campaign.updated'
  | 'campaign.archived'
  /** Company values (company-values.ts): added, changed, removed. */
  | 'value.created'
  | 'value.updated'
  | 'value.removed';

/** Anything drizzle can insert through: the handle or a transaction's. */
type Executor = Pick<Database, 'insert'>;

export async function recordAudit(
  db: Executor,
  entry: {
    teamId: string;
    enterpriseId: string | null;
    actorUserId: string;
    action: AuditAction;
    subjectType: string;
    subjectId: string;
    details?: Record<string, unknown>;
  },
): Promise<void> {
  await db.insert(auditEvents).values({ ...entry, details: entry.details ?? {} });
}

// Serialises the copy across instances (PostgreSQL advisory lock, released with the transaction).
const ORDER_AUDIT_LOCK = 726_173_002;

/**
 * Which kudos rows a copy looks at: one workspace's (a request from that workspace), or every
 * workspace's (only the periodic sweep, which acts for no workspace and writes each row under its own).
 */
export type OrderEventsScope = { teamId: string } | 'all-workspaces';

/**
 * Copies order outcomes (placed/scheduled, failed) from kudos rows into the trail, each once. Only rows
 * changed in the last 30 days are looked at, so the periodic copy stays cheap as history grows.
 */
export async function recordOrderEvents(db: Database, scope: OrderEventsScope): Promise<number> {
  const inScope = scope === 'all-workspaces' ? sql`` : sql`and k.team_id = ${scope.teamId}`;
  return db.transaction(async (tx) => {
    // One lock for every scope: a workspace's copy and the sweep's must not both insert the same row.
    await tx.execute(sql`select pg_advisory_xact_lock(${ORDER_AUDIT_LOCK})`);
    const placed = await tx.execute(sql`
      insert into audit_events (team_id, enterprise_id, actor_user_id, action, subject_type, subject_id, details, created_at)
      select k.team_id, k.enterprise_id, k.sender_user_id, 'kudos.order_placed', 'kudos', k.id::text,
             jsonb_build_object('orderId', k.order_id, 'costCents', k.cost_cents, 'totalCents', k.total_cents,
                                'recipients', k.recipient_count, 'scheduledAt', k.scheduled_at),
             coalesce(k.placed_at, k.updated_at)
      from kudos k
      where k.order_id is not null
        and k.updated_at > now() - interval '30 days'
        ${inScope}
        and not exists (select 1 from audit_events a
                        where a.team_id = k.team_id and a.subject_type = 'kudos' and a.subject_id = k.id::text and a.action = 'kudos.order_placed')
      returning id`);
    const failed = await recordFailedOrders(tx, scope === 'all-workspaces' ? scope : { teamId: scope.teamId });
    return rowCount(placed) + rowCount(failed);
  });
}

/**
 * Copies refused orders into the trail, once per idempotency key: all recent ones, or one send's
 * (before it is re-opened with a fresh key, which would hide the failure from the periodic copy).
 */
export async function recordFailedOrders(
  tx: Pick<Database, 'execute'>,
  scope: OrderEventsScope | { teamId: string; kudosId: string },
) {
  const inScope =
    scope === 'all-workspaces'
      ? sql``
      : 'kudosId' in scope
        ? sql`and k.team_id = ${scope.teamId} and k.id = ${scope.kudosId}`
        : sql`and k.team_id = ${scope.teamId}`;
  return tx.execute(sql`
      insert into audit_events (team_id, enterprise_id, actor_user_id, action, subject_type, subject_id, details, created_at)
      select k.team_id, k.enterprise_id, k.sender_user_id, 'kudos.order_failed', 'kudos', k.id::text,
             jsonb_build_object('errorCode', k.error_code, 'errorMessage', k.error_message, 'totalCents', k.total_cents,
                                'idempotencyKey', k.idempotency_key::text),
             k.updated_at
      from kudos k
      where k.status = 'failed'
        and k.updated_at > now() - interval '30 days'
        ${inScope}
        and not exists (select 1 from audit_events a
                        where a.team_id = k.team_id and a.subject_type = 'kudos' and a.subject_id = k.id::text and a.action = 'kudos.order_failed'
                          and a.details->>'idempotencyKey' = k.idempotency_key::text)
      returning id`);
}

function rowCount(result: unknown): number {
  const r = result as { rows?: unknown[]; length?: number; count?: number };
  return r.rows?.length ?? r.count ?? r.length ?? 0;
}

export async function listAudit(
  db: Database,
  opts: { teamId: string; limit: number; subjectId?: string },
): Promise<AuditEventRow[]> {
  return db
    .select()
    .from(auditEvents)
    .where(
      and(eq(auditEvents.teamId, opts.teamId), opts.subjectId ? eq(auditEvents.subjectId, opts.subjectId) : undefined),
    )
    .orderBy(desc(auditEvents.createdAt), desc(auditEvents.id))
    .limit(opts.limit);
}
