// POST /webhooks/rewards: Rewards API webhooks (challenge, X-Service-Signature, de-duplication by
// eventId). The receiver lives in webhook-receiver.ts; processing happens in the background.
// POST /webhooks/rewards/{connectionId} (distribution mode): the same receiver, verified with that
// connection's own webhook secret, its events stored with the connection's workspace.
import type { IncomingMessage, ServerResponse } from 'node:http';

import type { RewardsConnectionStore } from '../domain/accounts/rewards-connections.js';
import type { RouteDeps } from './routes.js';
import { createWebhookReceiver } from './webhook-receiver.js';

export const CONNECTION_WEBHOOK_PATH = '/webhooks/rewards/';

export function createWebhooksRoute(
  deps: RouteDeps,
  opts: { onEventStored?: () => void; bodyLimitBytes?: number } = {},
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const secret = deps.config.rewardsWebhookSecret;
  if (!secret) throw new Error('REWARDS_WEBHOOK_SECRET is required for the webhook route');
  return createWebhookReceiver({
    db: deps.db,
    secret,
    logger: deps.logger,
    ...(opts.onEventStored ? { onStored: opts.onEventStored } : {}),
    ...(opts.bodyLimitBytes ? { bodyLimitBytes: opts.bodyLimitBytes } : {}),
  });
}

/** The connectionId of a request to POST /webhooks/rewards/{connectionId}, if well-formed. */
export function connectionIdOf(url: string | undefined): string | undefined {
  const path = (url ?? '').split('?')[0] ?? '';
  if (!path.startsWith(CONNECTION_WEBHOOK_PATH)) return undefined;
  const id = decodeURIComponent(path.slice(CONNECTION_WEBHOOK_PATH.length));
  return /^[A-Za-z0-9_-]{1,100}$/.test(id) ? id : undefined;
}

export function createConnectionWebhooksRoute(
  deps: RouteDeps & { connections: Pick<RewardsConnectionStore, 'byId'> },
  opts: { onEventStored?: () => void; bodyLimitBytes?: number } = {},
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return createWebhookReceiver({
    db: deps.db,
    secret: async (req) => {
      const id = connectionIdOf(req.url);
      const connection = id ? await deps.connections.byId(id) : undefined;
      if (!connection) return undefined;
      return {
        secret: connection.webhookSecret,
        source: { connectionId: connection.id, teamId: connection.teamId, enterpriseId: connection.enterpriseId },
      };
    },
    logger: deps.logger,
    ...(opts.onEventStored ? { onStored: opts.onEventStored } : {}),
    ...(opts.bodyLimitBytes ? { bodyLimitBytes: opts.bodyLimitBytes } : {}),
  });
}
