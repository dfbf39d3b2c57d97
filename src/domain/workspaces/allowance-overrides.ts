// Monthly allowances of their own for one person or for the members of one Slack user group, in place
// of the workspace's default (the settings' monthlyBudgetCents). Admins set and remove them in
// `/kudos settings`; each change is one audit row. The rule that picks a sender's allowance:
// sending/allowances.ts.
import { and, asc, eq, inArray, sql } from 'drizzle-orm';

import type { Database } from '../../db/client.js';
import { type SenderAllowanceRow, senderAllowances } from '../../db/schema/index.js';
import type { Workspace } from '../common/workspace.js';
import { recordAudit } from './audit-trail.js';

export type AllowanceSubject = { kind: 'user' | 'usergroup'; id: string };

export interface AllowanceOverride {
  id: string;
  subject: AllowanceSubject;
  /** null: no allowance (no limit). */
  allowanceCents: number | null;
}

function fromRow(row: SenderAllowanceRow): AllowanceOverride {
  return { id: row.id, subject: { kind: row.subjectKind, id: row.subjectId }, allowanceCents: row.allowanceCents };
}

// People first, then user groups.
const peopleFirst = () => sql`case when ${senderAllowances.subjectKind} = 'user' then 0 else 1 end`;

/** A workspace's overrides, people first; read through `reader` (a recording transaction's, or the handle). */
export async function listAllowanceOverrides(
  reader: Pick<Database, 'select'>,
  teamId: string,
): Promise<AllowanceOverride[]> {
  const rows = await reader
    .select()
    .from(senderAllowances)
    .where(eq(senderAllowances.teamId, teamId))
    .orderBy(peopleFirst(), asc(senderAllowances.subjectId));
  return rows.map(fromRow);
}

/** Sets (or replaces) the allowance of one person or user group, with its audit row. */
export async function setAllowanceOverride(
  db: Database,
  ws: Workspace,
  actorUserId: string,
  subject: AllowanceSubject,
  allowanceCents: number | null,
): Promise<void> {
  await db.transaction(async (tx) => {
    await tx
      .insert(senderAllowances)
      .values({
        teamId: ws.teamId,
        enterpriseId: ws.enterpriseId ?? null,
        subjectKind: subject.kind,
        subjectId: subject.id,
        allowanceCents,
        updatedBy: actorUserId,
      })
      .onConflictDoUpdate({
        target: [senderAllowances.teamId, senderAllowances.subjectKind, senderAllowances.subjectId],
        set: { allowanceCents, updatedBy: actorUserId, updatedAt: sql`clock_timestamp()` },
      });
    await recordAudit(tx, {
      teamId: ws.teamId,
      enterpriseId: ws.enterpriseId ?? null,
      actorUserId,
      action: 'allowance.set',
      subjectType: subject.kind,
      subjectId: subject.id,
      details: { allowanceCents },
    });
  });
}

/** Removes the workspace's overrides of these ids (others' ids are ignored), one audit row each. */
export async function removeAllowanceOverrides(
  db: Database,
  ws: Workspace,
  actorUserId: string,
  ids: string[],
): Promise<number> {
  if (ids.length === 0) return 0;
  return db.transaction(async (tx) => {
    const removed = await tx
      .delete(senderAllowances)
      .where(and(eq(senderAllowances.teamId, ws.teamId), inArray(senderAllowances.id, ids)))
      .returning();
    for (const row of removed) {
      await recordAudit(tx, {
        teamId: ws.teamId,
        enterpriseId: ws.enterpriseId ?? null,
        actorUserId,
        action: 'allowance.removed',
        subjectType: row.subjectKind,
        subjectId: row.subjectId,
        details: { allowanceCents: row.allowanceCents },
      });
    }
    return removed.length;
  });
}
