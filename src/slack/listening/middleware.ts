// Bolt global middleware that apply to every request whatever its transport.
import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';

import type { Logger } from '../../config/logger.js';
import type { EventReceipts } from '../../domain/workspaces/event-receipts.js';

/**
 * An Events API delivery is handled once per (workspace, event_id): Slack redelivers an event it
 * thinks failed (x-slack-retry-num over HTTP, retry_attempt over Socket Mode), possibly to another
 * instance. Bolt has acknowledged events before middleware runs, so a copy is simply dropped.
 */
export function dropRedeliveredEvents(receipts: EventReceipts, logger: Logger): Middleware<AnyMiddlewareArgs> {
  return async ({ body, context, next }) => {
    const b = body as { type?: unknown; event_id?: unknown; team_id?: unknown };
    if (b.type === 'event_callback' && typeof b.event_id === 'string') {
      const teamId = typeof b.team_id === 'string' ? b.team_id : (context.teamId ?? '');
      if (!(await receipts.first({ teamId, eventId: b.event_id }))) {
        logger.info('slack event delivered again: already handled', {
          eventId: b.event_id,
          retryNum: context.retryNum,
        });
        return;
      }
    }
    await next();
  };
}

/**
 * Socket Mode: an envelope no listener acknowledged (an action the app has no listener for) is
 * acknowledged once the listeners are done, as the HTTP receiver answers such a request with 200;
 * otherwise Slack would show an error, or redeliver it.
 */
export function ackUnanswered(socket: {
  gate: { wasAcknowledged(envelopeId: string): boolean };
}): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    await args.next();
    const envelopeId: unknown = args.context.socketEnvelopeId;
    const ack = (args as { ack?: (response?: unknown) => Promise<void> }).ack;
    if (typeof envelopeId === 'string' && ack && !socket.gate.wasAcknowledged(envelopeId)) await ack();
  };
}
