// `/kudos audit` (admins): the latest audit rows, ephemeral. `/kudos audit csv`: the trail (latest
// CSV_MAX_ROWS rows) as a CSV file in the admin's DM (private to the admin who asked), in names and
// dollars (domain/finance/csv-exports.ts).
import type { AckFn, RespondArguments } from '@slack/bolt';

import { displayNameOf } from '../../domain/common/ports.js';
import { auditCsv } from '../../domain/finance/csv-exports.js';
import { listAudit, recordOrderEvents } from '../../domain/workspaces/audit-trail.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import type { SlashCommandPayload as SlashCommand } from '../listening/payloads.js';
import { buildAuditList } from './audit-blocks.js';
import { sendExportFile } from './export-file.js';

export const AUDIT_LIST_ROWS = 20;
export const CSV_MAX_ROWS = 500;

export type AuditCommand = { kind: 'audit'; csv: boolean };

export function parseAuditCommand(text: string): AuditCommand | undefined {
  const match = /^\s*audit(?:\s+(csv))?\s*$/i.exec(text);
  return match ? { kind: 'audit', csv: Boolean(match[1]) } : undefined;
}

export async function handleAuditCommand(
  deps: ListenerDeps,
  input: { ack: AckFn<string | RespondArguments>; command: SlashCommand; csv: boolean },
): Promise<void> {
  const { ack, command } = input;
  const ws = workspaceOf(command);
  if (!(await deps.isAdmin(ws, command.user_id))) {
    return ack({ text: ':no_entry: Only Kudos admins can see the audit trail.' });
  }
  // Order outcomes are copied in lazily; make the listing current.
  await recordOrderEvents(deps.db, { teamId: ws.teamId }).catch((error: unknown) =>
    deps.logger.warn('copying order events into the audit trail failed', { error }),
  );
  if (!input.csv) {
    const rows = await listAudit(deps.db, { teamId: ws.teamId, limit: AUDIT_LIST_ROWS });
    return ack(buildAuditList(rows, { limit: AUDIT_LIST_ROWS }));
  }
  await ack({
    text: `The audit trail (latest ${CSV_MAX_ROWS} rows at most) is on its way as a CSV file in a direct message.`,
  });
  const rows = await listAudit(deps.db, { teamId: ws.teamId, limit: CSV_MAX_ROWS });
  const slack = deps.slack.for(ws);
  const content = await auditCsv(deps.db, ws, rows, async (userId) => {
    const user = await slack.userInfo(userId);
    return user ? displayNameOf(user) : undefined;
  });
  const day = deps.now().toISOString().slice(0, 10);
  await sendExportFile(
    slack,
    command.user_id,
    {
      filename: `kudos-audit-${day}.csv`,
      title: `Kudos audit trail ${day}`,
      content,
      comment: `The audit trail, ${rows.length} events, newest first.`,
    },
    deps.logger.child({ command: 'audit' }),
  );
}
