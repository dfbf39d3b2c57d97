// An admin's export (`/kudos ledger csv`, `/kudos audit csv`) as a CSV file in that admin's DM, with
// one line saying what it is. When Slack refuses the file (an installation from before the app asked
// for files:write answers missing_scope), the admin gets one line saying so instead of silence.
import type { Logger } from '../../config/logger.js';
import { ChatRefusal } from '../../domain/common/ports.js';
import type { SharedFile, SlackGateway } from '../web-api/gateway.js';

export async function sendExportFile(
  slack: Pick<SlackGateway, 'sendFileDirectly' | 'sendDirectMessage'>,
  userId: string,
  file: SharedFile,
  log: Logger,
): Promise<void> {
  try {
    await slack.sendFileDirectly(userId, file);
  } catch (error) {
    if (!(error instanceof ChatRefusal) || error.outcome === 'rate_limited') throw error;
    log.warn('sharing an export file failed', { error, file: file.filename });
    await slack.sendDirectMessage(userId, {
      text: `:warning: Slack refused the file ${file.filename} (${error.detail}). If it says missing_scope, reinstall Kudos so that it may share files (scope files:write).`,
    });
  }
}
