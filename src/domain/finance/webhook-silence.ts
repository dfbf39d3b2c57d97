// "Webhooks not arriving": with REWARDS_WEBHOOKS=on, an order open for longer than
// WEBHOOK_SILENCE_MS while no Rewards webhook arrived in that time means the registration (or the
// public URL in front of it) is broken. Polling already learns the outcomes (order-poller.ts), so
// nothing is lost; admins are warned so that they fix it. One health warning on their App Home and
// one alert per episode (the alert's outbox key is the episode's start, so instances and repeated
// checks agree on it); a webhook received after the episode began clears the warning, and a later
// silence is a new episode. With REWARDS_WEBHOOKS=off polling is the mode, not a fault: no check.
import { and, eq, isNotNull, isNull, lt, notLike, sql } from 'drizzle-orm';

import type { Logger } from '../../config/logger.js';
import type { Database } from '../../db/client.js';
import { healthWarnings, orderChecks, webhookEvents } from '../../db/schema/index.js';
import type { Workspace } from '../common/workspace.js';
import { raiseHealthWarning, resolveHealthWarning } from '../notices/health-warnings.js';
import type { FinanceNotifier } from './finance-notices.js';

/** How long an order may stay open with no webhook at all before admins are warned. */
export const WEBHOOK_SILENCE_MS = 30 * 60_000;
export const WEBHOOKS_SILENT = 'webhooks.silent';
/** The warning's one subject (the workspace's Rewards webhooks). */
const SUBJECT = 'rewards';
/** Events the poller stores start with this (order-poller.ts); they are not webhooks. */
const POLLED_EVENT_PATTERN = 'poll:%';

export interface WebhookSilenceDeps {
  db: Database;
  notifier: Pick<FinanceNotifier, 'toAdmins'>;
  logger: Logger;
  now(): Date;
  webhooks: 'on' | 'off';
}

export interface WebhookSilenceCheck {
  teamId: string;
  /** This check started an episode (and alerted). */
  raised: boolean;
  /** This check saw a webhook and cleared the warning. */
  cleared: boolean;
}

/** One pass over every workspace with an order open too long or a warning open. */
export async function checkWebhookSilence(deps: WebhookSilenceDeps): Promise<WebhookSilenceCheck[]> {
  if (deps.webhooks !== 'on') return [];
  const now = deps.now();
  const since = new Date(now.getTime() - WEBHOOK_SILENCE_MS);
  // Single-workspace route: one Rewards account, so any webhook shows the registration works. A
  // workspace's own URL (distribution mode, connection_id set): only its own webhooks count, so one
  // workspace's deliveries never hide another's broken registration.
  const lasts = await deps.db
    .select({
      teamId: webhookEvents.teamId,
      at: sql<Date | null>`max(${webhookEvents.receivedAt})`.mapWith(webhookEvents.receivedAt),
    })
    .from(webhookEvents)
    .where(and(notLike(webhookEvents.eventId, POLLED_EVENT_PATTERN), isNotNull(webhookEvents.connectionId)))
    .groupBy(webhookEvents.teamId);
  const [shared] = await deps.db
    .select({ at: sql<Date | null>`max(${webhookEvents.receivedAt})`.mapWith(webhookEvents.receivedAt) })
    .from(webhookEvents)
    .where(and(notLike(webhookEvents.eventId, POLLED_EVENT_PATTERN), isNull(webhookEvents.connectionId)));
  const byTeam = new Map(lasts.flatMap((l) => (l.teamId && l.at ? [[l.teamId, l.at] as const] : [])));
  const lastWebhookAtOf = (teamId: string): Date | null => {
    const own = byTeam.get(teamId) ?? null;
    const any = shared?.at ?? null;
    return own && any ? (own > any ? own : any) : (own ?? any);
  };
  const results: WebhookSilenceCheck[] = [];

  // Clear first: a webhook that arrived after an episode began ends it.
  const open = await deps.db
    .select({ teamId: healthWarnings.teamId, firstAt: healthWarnings.firstAt })
    .from(healthWarnings)
    .where(
      and(
        eq(healthWarnings.kind, WEBHOOKS_SILENT),
        eq(healthWarnings.subject, SUBJECT),
        isNull(healthWarnings.resolvedAt),
      ),
    );
  const stillOpen = new Set<string>();
  for (const w of open) {
    const lastWebhookAt = lastWebhookAtOf(w.teamId);
    if (lastWebhookAt && lastWebhookAt > w.firstAt) {
      if (await resolveHealthWarning(deps.db, { teamId: w.teamId, kind: WEBHOOKS_SILENT, subject: SUBJECT })) {
        deps.logger.info('rewards webhooks arriving again; warning cleared', { teamId: w.teamId });
        results.push({ teamId: w.teamId, raised: false, cleared: true });
      }
    } else stillOpen.add(w.teamId);
  }
  const stale = await deps.db
    .select({
      teamId: orderChecks.teamId,
      enterpriseId: sql<string | null>`min(${orderChecks.enterpriseId})`,
      openOrders: sql<number>`count(*)::int`,
      oldest: sql<Date>`min(${orderChecks.createdAt})`.mapWith(orderChecks.createdAt),
    })
    .from(orderChecks)
    .where(and(isNull(orderChecks.doneAt), lt(orderChecks.createdAt, since)))
    .groupBy(orderChecks.teamId);
  for (const row of stale) {
    if (!row.teamId || stillOpen.has(row.teamId) || results.some((r) => r.teamId === row.teamId)) continue;
    const lastWebhookAt = lastWebhookAtOf(row.teamId);
    if (lastWebhookAt && lastWebhookAt >= since) continue;
    const ws: Workspace = { teamId: row.teamId, enterpriseId: row.enterpriseId };
    await raiseHealthWarning(deps.db, {
      teamId: ws.teamId,
      enterpriseId: ws.enterpriseId ?? null,
      kind: WEBHOOKS_SILENT,
      subject: SUBJECT,
      error: 'no_webhook',
    });
    const [episode] = await deps.db
      .select({ firstAt: healthWarnings.firstAt })
      .from(healthWarnings)
      .where(
        and(
          eq(healthWarnings.teamId, ws.teamId),
          eq(healthWarnings.kind, WEBHOOKS_SILENT),
          eq(healthWarnings.subject, SUBJECT),
        ),
      );
    // Keyed by the episode's start: a second instance raising the same episode posts nothing more.
    await deps.notifier.toAdmins(ws, `webhooks_silent:${episode!.firstAt.toISOString()}`, {
      kind: 'webhooks_silent',
      openOrders: row.openOrders,
      oldestOpenSince: row.oldest,
      lastWebhookAt,
    });
    deps.logger.warn('no rewards webhook while orders are open; admins warned', {
      teamId: ws.teamId,
      openOrders: row.openOrders,
      lastWebhookAt,
    });
    results.push({ teamId: ws.teamId, raised: true, cleared: false });
  }
  return results;
}
