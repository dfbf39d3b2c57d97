// The one way a checked send (prepareSend's `ok` result) is recorded and started: the send modal, the
// Workflow Builder step and automations (celebrations, recurring kudos) all come through here, so
// approvals, budgets and limits apply to each alike. Recording is idempotent on the send's source
// key (`sourceViewId`: a modal, a workflow execution, an automation occurrence).
import { and, eq, sql } from 'drizzle-orm';

import type { Database } from '../../db/client.js';
import { auditEvents, kudos, type KudosRow, type NewKudosRow } from '../../db/schema/index.js';
import type { PreparedSend } from './check-send.js';

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
  /**
   * Recorded before with other details (the form was edited and submitted again after Slack lost our
   * answer): the first send stands and the caller must say so, never send the old one silently.
   */
  differs?: boolean;
}

/** Do two submissions of one source describe the same send (amount, design, people, words, timing)? */
export function sameSend(recorded: KudosRow, submitted: NewKudosRow): boolean {
  const emails = (recipients: NewKudosRow['recipients']) =>
    recipients
      .map((r) => r.email.toLowerCase())
      .sort()
      .join(',');
  return (
    recorded.amountCents === submitted.amountCents &&
    recorded.productId === submitted.productId &&
    emails(recorded.recipients) === emails(submitted.recipients) &&
    recorded.message === (submitted.message ?? '') &&
    (recorded.refundOptionDays ?? null) === (submitted.refundOptionDays ?? null) &&
    (recorded.campaignId ?? null) === (submitted.campaignId ?? null) &&
    (recorded.valueId ?? null) === (submitted.valueId ?? null) &&
    (recorded.emailTemplateId ?? null) === (submitted.emailTemplateId ?? null) &&
    (recorded.scheduledAt?.getTime() ?? null) === (submitted.scheduledAt?.getTime() ?? null)
  );
}

type AcceptedSend = Extract<PreparedSend, { ok: true }>;

/**
 * The policy refused the send under the per-sender lock (another send took what was left of the
 * sender's allowance meanwhile): nothing was recorded; `message` says why and what to do.
 */
export class SendRefusedOnRecord extends Error {
  override readonly name = 'SendRefusedOnRecord';
}

/**
 * Inserts the kudos row (awaiting approval when the route says so) with the audit entry naming its
 * origin, in one transaction; a second call with the same source key returns the first row.
 */
export async function recordPreparedSend(
  db: Database,
  prepared: AcceptedSend,
  origin?: SendOrigin,
): Promise<RecordedSend> {
  return db.transaction(async (tx) => {
    // One sender's sends are recorded one at a time (a transaction-scoped advisory lock), and the
    // policy decides again under that lock: two sends at once cannot both fit an allowance only one
    // fits. A refusal now (the allowance taken meanwhile) records nothing; a send that waits for
    // approval counts against the allowance too, so it is checked again as well.
    await tx.execute(
      sql`select pg_advisory_xact_lock(hashtext(${`kudos.send:${prepared.values.teamId}:${prepared.values.senderUserId}`}))`,
    );
    // A second submission of the same source finds the first (its money is already counted).
    const first = await recordedBefore(tx, prepared.values);
    if (first) {
      const waiting = first.status === 'awaiting_approval';
      const reason = prepared.route.kind === 'needs_approval' ? prepared.route.reason : 'it waits for approval';
      return {
        row: first,
        created: false,
        approvalReason: waiting ? reason : undefined,
        differs: !sameSend(first, prepared.values),
      };
    }
    let route = prepared.route;
    if (prepared.recheck) {
      const again = await prepared.recheck(tx);
      if (again.kind === 'refuse') throw new SendRefusedOnRecord(again.message);
      if (route.kind === 'send' && again.kind === 'needs_approval') route = again;
    }
    const approvalReason = route.kind === 'needs_approval' ? route.reason : undefined;
    const values = approvalReason ? { ...prepared.values, status: 'awaiting_approval' } : prepared.values;
    const [inserted] = await tx
      .insert(kudos)
      .values(values)
      .onConflictDoNothing({ target: [kudos.teamId, kudos.sourceViewId] })
      .returning();
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
    return { row: existing, created: false, approvalReason, differs: !sameSend(existing, values) };
  });
}

async function recordedBefore(tx: Pick<Database, 'select'>, values: NewKudosRow): Promise<KudosRow | undefined> {
  if (!values.sourceViewId) return undefined;
  const [row] = await tx
    .select()
    .from(kudos)
    .where(and(eq(kudos.teamId, values.teamId), eq(kudos.sourceViewId, values.sourceViewId)));
  return row;
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
