// GET /metrics: the Prometheus exposition of this instance (src/observability/metrics.ts).
// No auth, like most exporters: expose it on an internal port or block it at the load balancer
// (docs/operations.md). It reveals counts and latencies, never ids, e-mails or secrets.
import type { IncomingMessage, ServerResponse } from 'node:http';

import type { Logger } from '../config/logger.js';
import { type AppMetrics, METRICS_CONTENT_TYPE } from './metrics.js';

export function createMetricsRoute(
  metrics: AppMetrics,
  logger: Logger,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    req.resume();
    let text: string;
    try {
      text = await metrics.render();
    } catch (error) {
      // A database gauge failing (database down) must not hide the rest: answer 503 so the scrape is marked failed.
      logger.warn('collecting metrics failed', { error });
      res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8' }).end('metrics unavailable\n');
      return;
    }
    res.writeHead(200, { 'Content-Type': METRICS_CONTENT_TYPE, 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
  };
}
