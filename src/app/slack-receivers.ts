// How Slack reaches the app: POST /slack/events whenever there is a signing secret (always over HTTP;
// optional in Socket Mode), and the Socket Mode connection when SLACK_APP_TOKEN is set.
import type { Receiver } from '@slack/bolt';

import type { AppConfig } from '../config/index.js';
import type { Logger } from '../config/logger.js';
import { SlackReceiver } from '../http/slack-receiver.js';
import type { AppMetrics } from '../observability/metrics.js';
import { SocketModeConnection, type SocketModeConnectionOptions } from '../socket-mode/connection.js';
import { type AppPart, stopPassesWithin } from './parts.js';

export interface SlackReceiversPart extends AppPart {
  httpReceiver: SlackReceiver | undefined;
  socket: SocketModeConnection | undefined;
  /** What Bolt listens on: the socket when there is one, else POST /slack/events. */
  receiver: Receiver;
  /** Opens the socket (once the HTTP servers listen). */
  start(): void;
}

export function openSlackReceivers(
  deps: { config: AppConfig; logger: Logger; metrics: AppMetrics; onPublicUrl: (url: string) => void },
  socketMode: Pick<SocketModeConnectionOptions, 'retryDelaysMs' | 'failedRetryMs'> | undefined,
): SlackReceiversPart {
  const { config, logger, metrics } = deps;
  const httpReceiver = config.slackSigningSecret
    ? new SlackReceiver({
        signingSecret: config.slackSigningSecret,
        logger: logger.child({ part: 'receiver' }),
        onPublicUrl: deps.onPublicUrl,
      })
    : undefined;
  const socket = config.slackAppToken
    ? new SocketModeConnection({
        appToken: config.slackAppToken,
        slackApiUrl: config.slackApiUrl,
        logger: logger.child({ part: 'socket' }),
        onStateChange: (state) => metrics.setSlackSocketState(state),
        ...socketMode,
      })
    : undefined;
  if (socket) metrics.setSlackSocketState(socket.state);
  const receiver = socket?.receiver ?? httpReceiver;
  if (!receiver) throw new Error('no way for Slack to reach the app: set SLACK_SIGNING_SECRET or SLACK_APP_TOKEN');
  return {
    httpReceiver,
    socket,
    receiver,
    start: () => socket?.start(),
    stop: () => stopPassesWithin({ socket, httpReceiver }, logger),
  };
}
