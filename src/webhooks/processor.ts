// Processes stored webhook events in the background. Each processor declares the event types it
// handles; an event of any other type is marked processed as `ignored` (stored, acknowledged, never
// an error). A failure is retried with backoff; after MAX_EVENT_ATTEMPTS it is given up and kept,
// with its error, until the retention cleanup.
import type { WebhookEventRow } from '../db/schema/index.js';
import type { BackgroundDeps } from '../domain/notices/background-deps.js';
import { claimEvents, markEventFailed, markEventProcessed } from './event-store.js';

export interface EventContext extends BackgroundDeps {
  /** Delay before the first completion check of an order. */
  firstCheckDelayMs: number;
  signal: AbortSignal;
}

export interface EventResult {
  outcome: string;
  teamId?: string | null;
  enterpriseId?: string | null;
}

export interface EventProcessor {
  eventTypes: readonly string[];
  process(event: WebhookEventRow, ctx: EventContext): Promise<EventResult>;
}

export const MAX_EVENT_ATTEMPTS = 10;
const EVENT_LEASE_MS = 60_000;

export function eventRetryDelayMs(attempts: number): number {
  return Math.min(15 * 60_000, 2000 * 2 ** Math.max(0, attempts - 1));
}

/** Claims a batch of due events and processes them one by one; returns how many it claimed. */
export async function processEventBatch(
  ctx: EventContext,
  processors: readonly EventProcessor[],
  batchSize = 10,
): Promise<number> {
  const events = await claimEvents(ctx.db, batchSize, EVENT_LEASE_MS);
  for (const event of events) {
    if (ctx.signal.aborted) break;
    const log = ctx.logger.child({ eventId: event.eventId, eventType: event.eventType });
    const processor = processors.find((p) => p.eventTypes.includes(event.eventType));
    if (!processor) {
      log.info('webhook event of a type the app does not use; stored and ignored');
      await markEventProcessed(ctx.db, event.id, { outcome: 'ignored' });
      continue;
    }
    try {
      const result = await processor.process(event, { ...ctx, logger: log });
      await markEventProcessed(ctx.db, event.id, result);
      log.info('webhook event processed', { outcome: result.outcome });
    } catch (error) {
      const message = String((error as Error)?.message ?? error).slice(0, 1000);
      if (event.attempts >= MAX_EVENT_ATTEMPTS) {
        log.error('webhook event failed too often; giving up', { attempts: event.attempts, error });
        await markEventProcessed(ctx.db, event.id, { outcome: 'failed', error: message });
      } else {
        const retryInMs = eventRetryDelayMs(event.attempts);
        log.warn('processing a webhook event failed; will retry', { attempts: event.attempts, retryInMs, error });
        await markEventFailed(ctx.db, event.id, message, retryInMs);
      }
    }
  }
  return events.length;
}
