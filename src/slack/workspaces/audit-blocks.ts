// The audit trail as an ephemeral list (recent rows) and as CSV in direct-message code blocks.
import type { AuditEventRow } from '../../db/schema/index.js';
import { formatUtc } from '../../domain/common/zoned-time.js';
import type { SlackMessageContent } from '../kit/mrkdwn.js';
import { type Block, context, plain, section } from '../kit/mrkdwn.js';
import { escapeAndClip, escapeMrkdwn, mentionUser } from '../kit/mrkdwn-escape.js';

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
        `*${escapeMrkdwn(row.action)}* · ${actor(row.actorUserId)} · ${subject(row)} · ${formatUtc(row.createdAt)}${details ? `\n${details}` : ''}`,
      ),
    );
  }
  blocks.push(context('All rows as CSV: `/kudos audit csv` (sent to you as a direct message).'));
  return { text: `Audit trail: last ${rows.length} events`, blocks };
}

/** Keeps each message well under Slack's 40,000-character text limit. */
export const CSV_CHUNK_CHARS = 12_000;

/**
 * CSV as code blocks, split at line ends into messages of at most CSV_CHUNK_CHARS; the header line is
 * only in the first, so the parts concatenate back into one file. `&`, `<`, `>` are escaped as Slack
 * requires (they show, and copy, as themselves); a run of three backticks inside a value is broken
 * with a zero-width space so it cannot end the code block.
 */
export function buildCsvMessages(
  csv: string,
  rowCount: number,
  what: { title: string; fileName: string } = { title: 'Kudos audit trail', fileName: 'kudos-audit.csv' },
): Array<{ text: string }> {
  const safe = csv.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/```/g, '`\u200b``');
  const lines = safe.split('\r\n').filter((l) => l !== '');
  const chunks: string[] = [];
  let current = '';
  for (const line of lines) {
    if (current.length + line.length + 1 > CSV_CHUNK_CHARS && current !== '') {
      chunks.push(current);
      current = '';
    }
    current += `${line}\n`;
  }
  if (current !== '') chunks.push(current);
  return chunks.map((chunk, i) => ({
    text: `${what.title}, ${rowCount} rows, newest first (${what.fileName}${chunks.length > 1 ? `, part ${i + 1} of ${chunks.length}` : ''}):\n\`\`\`\n${chunk}\`\`\``,
  }));
}
