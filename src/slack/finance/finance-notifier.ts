// Delivers the money side's notices (src/domain/finance/finance-notices.ts): rendered here, posted exactly
// once each through the notice outbox, to the admin channel of the settings or, without one, to each
// admin by direct message (the settings' admins, or Slack's workspace admins and owners).
import type { Logger } from '../../config/logger.js';
import type { Database } from '../../db/client.js';
import type { Workspace } from '../../domain/common/workspace.js';
import type { FinanceNotice, FinanceNotifier, TopUpRequest } from '../../domain/finance/finance-notices.js';
import { postOnce } from '../../domain/notices/outbox.js';
import type { SettingsStore } from '../../domain/workspaces/settings.js';
import type { SlackWorkspaces } from '../web-api/workspace-gateways.js';
import { buildTopUpRequestMessage, renderFinanceNotice } from './finance-blocks.js';

export interface FinanceNotifierDeps {
  db: Database;
  slack: SlackWorkspaces;
  settings: Pick<SettingsStore, 'get'>;
  logger: Logger;
}

export function createFinanceNotifier(deps: FinanceNotifierDeps): FinanceNotifier {
  async function adminIds(ws: Workspace): Promise<string[]> {
    const settings = await deps.settings.get(ws);
    if (settings.adminUserIds && settings.adminUserIds.length > 0) return settings.adminUserIds;
    const users = await deps.slack.listUsers(ws);
    return users.filter((u) => (u.isAdmin || u.isOwner) && !u.isBot && !u.deleted).map((u) => u.id);
  }

  async function postTo(
    ws: Workspace,
    to: { channel: string } | { userId: string },
    kind: string,
    subject: string,
    notice: FinanceNotice,
  ) {
    const result = await postOnce(
      { db: deps.db, chat: deps.slack },
      { kind, subject, teamId: ws.teamId, enterpriseId: ws.enterpriseId ?? null },
      { to, message: renderFinanceNotice(notice) },
    );
    if (result.posted) return result.message;
    const existing = result.existing;
    return existing?.channel && existing.ts ? { channel: existing.channel, ts: existing.ts } : undefined;
  }

  return {
    async toAdmins(ws, subject, notice) {
      const kind = `finance.${notice.kind}`;
      const settings = await deps.settings.get(ws);
      if (settings.adminChannel) {
        const posted = await postTo(ws, { channel: settings.adminChannel }, kind, `${ws.teamId}:${subject}`, notice);
        return posted ? [posted] : [];
      }
      const admins = await adminIds(ws);
      if (admins.length === 0) deps.logger.warn('no Kudos admin to tell', { teamId: ws.teamId, kind });
      const results = await Promise.allSettled(
        admins.map((userId) => postTo(ws, { userId }, kind, `${ws.teamId}:${subject}:${userId}`, notice)),
      );
      const posted: Array<{ channel: string; ts: string }> = [];
      for (const r of results) {
        if (r.status === 'fulfilled' && r.value) posted.push(r.value);
        if (r.status === 'rejected')
          deps.logger.warn('telling an admin failed', { teamId: ws.teamId, kind, error: r.reason });
      }
      return posted;
    },
    async toUser(ws, userId, subject, notice) {
      await postTo(ws, { userId }, `finance.${notice.kind}`, `${ws.teamId}:${subject}`, notice);
    },
    async updateTopUpMessages(request: TopUpRequest) {
      const content = buildTopUpRequestMessage(request);
      await Promise.all(
        request.messages.map((ref) =>
          deps.slack
            .updateMessage({ teamId: request.teamId, enterpriseId: request.enterpriseId }, ref.channel, ref.ts, content)
            .catch((error: unknown) =>
              deps.logger.warn('updating a top-up message failed', { topUpId: request.id, error }),
            ),
        ),
      );
    },
  };
}
