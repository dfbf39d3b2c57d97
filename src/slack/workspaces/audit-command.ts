// `/kudos audit` (admins): the latest audit rows, ephemeral. `/kudos audit csv`: the trail (latest
// CSV_MAX_ROWS rows) as CSV in direct-message code blocks: our bot scopes have no file upload, and a
// DM keeps it private to the admin who asked.
import type { AckFn, RespondArguments } from '@slack/bolt';

import { campaignNamesOfKudos } from '../../domain/finance/campaigns.js';
import { auditToCsv, listAudit, recordOrderEvents } from '../../domain/workspaces/audit-trail.js';
import { valueNamesOfKudos } from '../../domain/workspaces/company-values.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import type { SlashCommandPayload as SlashCommand } from '../listening/payloads.js';
import { buildAuditList, buildCsvMessages } from './audit-blocks.js';

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
    text: `The audit trail (latest ${CSV_MAX_ROWS} rows at most) is on its way as CSV in a direct message.`,
  });
  const rows = await listAudit(deps.db, { teamId: ws.teamId, limit: CSV_MAX_ROWS });
  const kudosIds = rows.filter((r) => r.subjectType === 'kudos').map((r) => r.subjectId);
  const [campaigns, values] = await Promise.all([
    campaignNamesOfKudos(deps.db, ws.teamId, kudosIds),
    valueNamesOfKudos(deps.db, ws.teamId, kudosIds),
  ]);
  for (const message of buildCsvMessages(auditToCsv(rows, campaigns, values), rows.length)) {
    await deps.slack.for(ws).sendDirectMessage(command.user_id, message);
  }
}
