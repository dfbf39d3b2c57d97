// POST /webhooks/rewards: Rewards API webhooks (challenge, X-Service-Signature, de-duplication by
// eventId). The receiver lives in webhook-receiver.ts; processing happens in the background.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createWebhookReceiver } from './webhook-receiver.js';
import type { RouteDeps } from './routes.js';

export function createWebhooksRoute(deps: RouteDeps, opts: { onEventStored?: () => void; bodyLimitBytes?: number } = {}): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
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
