// The audit trail as an ephemeral list (recent rows); the CSV file is audit-command.ts's.
import type { AuditEventRow } from '../../db/schema/index.js';
import { auditEventLabel } from '../../domain/finance/csv-exports.js';
import type { SlackMessageContent } from '../kit/mrkdwn.js';
import { type Block, context, plain, section } from '../kit/mrkdwn.js';
import { escapeAndClip, escapeMrkdwn, mentionUser } from '../kit/mrkdwn-escape.js';
import { readerTime } from '../kit/reader-time.js';

function actor(id: string): string {
  return /^[UW][A-Z0-9_]+$/.test(id) ? mentionUser(id) : `_${escapeMrkdwn(id)}_`;
}

function subject(row: AuditEventRow): string {
  return row.subjectType === 'kudos'
    ? `kudos \`${escapeMrkdwn(row.subjectId.slice(0, 8))}\``
    : escapeMrkdwn(row.subjectType);
}

function detailsText(details: Record<string, unknown>): string {
  const text = Object.entries(details)
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join('; ');
  return escapeAndClip(text, 400);
}

export function buildAuditList(rows: AuditEventRow[], opts: { limit: number }): SlackMessageContent {
  if (rows.length === 0) return { text: 'The audit trail is empty.', blocks: [section('The audit trail is empty.')] };
  const blocks: Block[] = [{ type: 'header', text: plain(`Audit trail: last ${rows.length} events`, 150) }];
  for (const row of rows.slice(0, opts.limit)) {
    const details = detailsText(row.details);
    blocks.push(
      section(
        `*${escapeMrkdwn(auditEventLabel(row.action))}* · ${actor(row.actorUserId)} · ${subject(row)} · ${readerTime(row.createdAt)}${details ? `\n${details}` : ''}`,
      ),
    );
  }
  blocks.push(context('All rows as a CSV file: `/kudos audit csv` (sent to you as a direct message).'));
  return { text: `Audit trail: last ${rows.length} events`, blocks };
}
