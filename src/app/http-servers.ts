// The HTTP part: the main server (Slack's requests, installs, Rewards webhooks, /healthz, /readyz) and GET /metrics
// on a port of its own, on loopback by default: the main port faces the internet.
import type { AppConfig } from '../config/index.js';
import type { Logger } from '../config/logger.js';
import type { Database } from '../db/client.js';
import type { RewardsAccounts } from '../domain/accounts/rewards-accounts.js';
import type { RewardsConnectionStore } from '../domain/accounts/rewards-connections.js';
import { createHealthRoute } from '../http/health-route.js';
import { createReadyRoute } from '../http/ready-route.js';
import type { RouteDeps } from '../http/routes.js';
import { startHttpServer } from '../http/server.js';
import { createConnectionWebhooksRoute, createWebhooksRoute } from '../http/webhooks-route.js';
import type { AppMetrics } from '../observability/metrics.js';
import { createMetricsRoute } from '../observability/metrics-route.js';
import type { DistributionTenancy } from '../slack/install/tenancy.js';
import type { BackgroundProcessing } from '../webhooks/processing.js';
import type { AppPart } from './parts.js';
import type { SlackReceiversPart } from './slack-receivers.js';

export interface HttpPart extends AppPart {
  url: string;
  /** undefined when the metrics port could not be opened. */
  metricsUrl: string | undefined;
}

export interface HttpPartDeps {
  config: AppConfig;
  db: Database;
  logger: Logger;
  metrics: AppMetrics;
  rewardsAccounts: RewardsAccounts;
  rewardsConnections: RewardsConnectionStore | undefined;
  receivers: Pick<SlackReceiversPart, 'httpReceiver' | 'socket'>;
  tenancy: DistributionTenancy | undefined;
  background: BackgroundProcessing;
}

export async function startHttpServers(
  deps: HttpPartDeps,
  options: { port?: number | undefined; host?: string | undefined; metricsPort?: number | undefined },
): Promise<HttpPart> {
  const { config, logger, metrics, tenancy, background, rewardsConnections } = deps;
  const { httpReceiver, socket } = deps.receivers;
  const routeDeps: RouteDeps = { config, db: deps.db, logger, rewards: deps.rewardsAccounts };
  // Set at the first step of closing: /readyz answers 503 from then on.
  let draining = false;
  const http = await startHttpServer({
    logger,
    port: options.port ?? config.port,
    host: options.host ?? config.host,
    onRequestDone: (info) => metrics.observeHttpRequest(info),
    routes: {
      ...(httpReceiver ? { slackEvents: (req, res) => httpReceiver.handle(req, res) } : {}),
      ...(tenancy
        ? {
            slackInstall: (req, res) => tenancy.installRoute(req, res),
            slackOAuthRedirect: (req, res) => tenancy.redirectRoute(req, res),
          }
        : {}),
      ...(config.rewardsWebhooks === 'on' && config.rewardsWebhookSecret && !rewardsConnections
        ? { rewardsWebhooks: createWebhooksRoute(routeDeps, { onEventStored: () => background.wakeEvents() }) }
        : {}),
      ...(config.rewardsWebhooks === 'on' && rewardsConnections
        ? {
            connectionWebhooks: createConnectionWebhooksRoute(
              { ...routeDeps, connections: rewardsConnections },
              { onEventStored: () => background.wakeEvents() },
            ),
          }
        : {}),
      health: createHealthRoute(routeDeps, socket),
      ready: createReadyRoute(routeDeps, { draining: () => draining }),
    },
  });
  const metricsHttp = await startHttpServer({
    logger,
    port: options.metricsPort ?? config.metricsPort,
    host: config.metricsHost,
    routes: { metrics: createMetricsRoute(metrics, logger), health: createHealthRoute(routeDeps, socket) },
  }).catch((error: unknown) => {
    // Serving Slack matters more than being scraped: say so loudly and go on without metrics.
    logger.error('metrics server could not start; GET /metrics is not served', {
      port: options.metricsPort ?? config.metricsPort,
      host: config.metricsHost,
      error,
    });
    return undefined;
  });
  let closed: Promise<unknown> | undefined;
  return {
    url: http.url,
    metricsUrl: metricsHttp?.url,
    // Stops accepting requests at once; the requests in flight finish while the other parts stop.
    interrupt() {
      draining = true;
      closed = Promise.all([http.close(3000), metricsHttp?.close(1000)]);
    },
    stop: async () => void (await closed),
  };
}
