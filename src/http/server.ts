// The one HTTP server of the app (the README's HTTP routes): Slack, Rewards webhooks, health.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { type Logger, withLogContext } from '../config/logger.js';
import { sendJson } from './body.js';

export type RouteHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export interface HttpRoutes {
  /** POST /slack/events; absent in Socket Mode without a signing secret (404). */
  slackEvents?: RouteHandler;
  /** POST /webhooks/rewards; absent with REWARDS_WEBHOOKS=off (404). */
  rewardsWebhooks?: RouteHandler;
  /** POST /webhooks/rewards/{connectionId}: a connected workspace's webhooks (distribution mode). */
  connectionWebhooks?: RouteHandler;
  health?: RouteHandler;
  /** GET /readyz: still served while draining, so that it can say so. */
  ready?: RouteHandler;
  /** Distribution mode (the README's installation modes): the "Add to Slack" page and the OAuth redirect. */
  slackInstall?: RouteHandler;
  slackOAuthRedirect?: RouteHandler;
  /** GET /metrics (src/observability/metrics-route.ts); 404 when not given. */
  metrics?: RouteHandler;
}

/** One finished request, for the latency histogram; `route` is the table's path or `unmatched`. */
export type RequestObserver = (info: { route: string; method: string; status: number; seconds: number }) => void;

export interface RunningHttpServer {
  url: string;
  server: Server;
  /** Stops accepting connections and waits for open requests (at most `graceMs`). */
  close(graceMs?: number): Promise<void>;
}

/**
 * `prefix`: the path is followed by one more segment (an id), which the route reads itself.
 * `whileDraining`: the route answers even once close() has begun (it says so itself).
 */
const TABLE: Array<{
  method: string;
  path: string;
  route: keyof HttpRoutes;
  prefix?: boolean;
  label?: string;
  whileDraining?: boolean;
}> = [
  { method: 'POST', path: '/slack/events', route: 'slackEvents' },
  { method: 'POST', path: '/webhooks/rewards', route: 'rewardsWebhooks' },
  {
    method: 'POST',
    path: '/webhooks/rewards/',
    route: 'connectionWebhooks',
    prefix: true,
    label: '/webhooks/rewards/{connectionId}',
  },
  { method: 'GET', path: '/healthz', route: 'health' },
  { method: 'GET', path: '/readyz', route: 'ready', whileDraining: true },
  { method: 'GET', path: '/slack/install', route: 'slackInstall' },
  { method: 'GET', path: '/slack/oauth_redirect', route: 'slackOAuthRedirect' },
  { method: 'GET', path: '/metrics', route: 'metrics' },
];

/** Every route the server knows, as `METHOD /path` (docs/reference.md lists each). */
export const HTTP_ROUTE_NAMES: readonly string[] = TABLE.map((entry) => `${entry.method} ${entry.label ?? entry.path}`);

export async function startHttpServer(opts: {
  routes: HttpRoutes;
  logger: Logger;
  port: number;
  host?: string;
  onRequestDone?: RequestObserver;
}): Promise<RunningHttpServer> {
  const { routes, logger } = opts;
  // Set by close(): requests still arriving on open keep-alive connections get 503 and a closed
  // connection, so a load balancer retries them on another instance.
  let draining = false;
  const server = createServer((req, res) => {
    // Every log line of this request (and of the listener work after Slack's ack) carries its id;
    // Slack sends none of its own, so ours is echoed in X-Request-Id for correlation.
    const requestId = randomBytes(6).toString('hex');
    res.setHeader('X-Request-Id', requestId);
    const isSlack = req.url?.startsWith('/slack/') ?? false;
    withLogContext(isSlack ? { slackRequestId: requestId } : { requestId }, () => handle(req, res));
  });
  function handle(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const matches = TABLE.filter(
      (entry) =>
        (entry.prefix
          ? path.startsWith(entry.path) &&
            path.length > entry.path.length &&
            !path.slice(entry.path.length).includes('/')
          : entry.path === path) && routes[entry.route],
    );
    const match = matches.find((entry) => entry.method === req.method);
    if (opts.onRequestDone) {
      const started = process.hrtime.bigint();
      const observe = opts.onRequestDone;
      res.once('finish', () => {
        observe({
          route: match?.label ?? match?.path ?? 'unmatched',
          method: req.method ?? '',
          status: res.statusCode,
          seconds: Number(process.hrtime.bigint() - started) / 1e9,
        });
      });
    }
    if (draining && !match?.whileDraining) {
      req.resume();
      res.setHeader('Connection', 'close');
      return sendJson(res, 503, { error: { code: 'SHUTTING_DOWN' } });
    }
    if (!match) {
      req.resume();
      if (matches.length > 0) {
        res.setHeader('Allow', matches.map((m) => m.method).join(', '));
        return sendJson(res, 405, { error: { code: 'METHOD_NOT_ALLOWED' } });
      }
      return sendJson(res, 404, { error: { code: 'NOT_FOUND' } });
    }
    routes[match.route]!(req, res).catch((error: unknown) => {
      logger.error('http route failed', { path, error });
      if (!res.headersSent) sendJson(res, 500, { error: { code: 'INTERNAL' } });
      else res.end();
    });
  }
  server.headersTimeout = 10_000;
  server.requestTimeout = 15_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? '0.0.0.0', () => resolve());
  });
  const address = server.address() as AddressInfo;
  // A wildcard bind is reached on loopback.
  const host = !opts.host || opts.host === '0.0.0.0' ? '127.0.0.1' : opts.host === '::' ? '::1' : opts.host;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`,
    server,
    close: (graceMs = 5000) =>
      new Promise<void>((resolve) => {
        draining = true;
        const force = setTimeout(() => server.closeAllConnections(), graceMs);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
