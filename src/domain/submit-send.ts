// The one way a checked send (prepareSend's `ok` result) is recorded and started: the send modal, the
// Workflow Builder step and automations (celebrations, recurring kudos) all come through here, so
// approvals, budgets and limits apply to each alike. Recording is idempotent on the send's source
// key (`sourceViewId`: a modal, a workflow execution, an automation occurrence).
import { and, eq } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { auditEvents, kudos, type KudosRow } from '../db/schema/index.js';
import type { PreparedSend } from './send-request.js';

/** What started a send other than a person in the send modal; written to the audit trail with it. */
export type SendOrigin =
  | { kind: 'workflow'; functionExecutionId: string; workflowExecutionId?: string | undefined }
  | { kind: 'celebration'; celebration: 'birthday' | 'anniversary'; occurrenceKey: string }
  | { kind: 'recurring'; seriesId: string; occurrenceKey: string };

export interface RecordedSend {
  row: KudosRow;
  /** False when this source key was recorded before (a double submission, a retried event). */
  created: boolean;
  /** The approvers' reason, when the send waits for approval. */
  approvalReason: string | undefined;
}

type AcceptedSend = Extract<PreparedSend, { ok: true }>;

/**
 * Inserts the kudos row (awaiting approval when the route says so) with the audit entry naming its
 * origin, in one transaction; a second call with the same source key returns the first row.
 */
export async function recordPreparedSend(db: Database, prepared: AcceptedSend, origin?: SendOrigin): Promise<RecordedSend> {
  const approvalReason = prepared.route.kind === 'needs_approval' ? prepared.route.reason : undefined;
  const values = approvalReason ? { ...prepared.values, status: 'awaiting_approval' } : prepared.values;
  return db.transaction(async (tx) => {
    const [inserted] = await tx.insert(kudos).values(values).onConflictDoNothing({ target: [kudos.teamId, kudos.sourceViewId] }).returning();
    if (inserted) {
      if (origin) {
        await tx.insert(auditEvents).values({
          teamId: inserted.teamId,
          enterpriseId: inserted.enterpriseId,
          actorUserId: inserted.senderUserId,
          action: 'kudos.automated',
          subjectType: 'kudos',
          subjectId: inserted.id,
          details: { ...origin },
        });
      }
      return { row: inserted, created: true, approvalReason };
    }
    const [existing] = await tx
      .select()
      .from(kudos)
      .where(and(eq(kudos.teamId, values.teamId), eq(kudos.sourceViewId, values.sourceViewId ?? '')));
    if (!existing) throw new Error('kudos insert conflicted but no row was found');
    return { row: existing, created: false, approvalReason };
  });
}

export interface StartSendDeps {
  approvals: { submit(row: KudosRow, reason: string): Promise<void> };
  wakeWorker(recordedId?: string): void;
}

/** After recording: a direct send goes to the worker at once; one needing approval goes to approvers (once). */
export async function startRecordedSend(deps: StartSendDeps, recorded: RecordedSend): Promise<void> {
  if (!recorded.approvalReason) return deps.wakeWorker(recorded.row.id);
  if (recorded.created) await deps.approvals.submit(recorded.row, recorded.approvalReason);
}
