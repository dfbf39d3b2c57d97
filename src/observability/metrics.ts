// The app's Prometheus metrics (prom-client), served by GET /metrics.
//
// One Registry per app instance (not prom-client's global one), so several instances in one process
// (tests, `npm run dev`) never clash. Counters and histograms are fed by hooks: the HTTP server
// (request latency by route), the Rewards client's onCall (calls and errors by endpoint and code),
// the webhook receiver/processor (events by type and outcome), the worker (pickup latency).
// Gauges that describe stored state (kudos by state, worker queue depth, age of the oldest job) are
// read from the database when scraped, so every instance reports the same truth and nothing drifts.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

import type { Database } from '../db/client.js';
import type { CallInfo } from '../rewards/types.js';
import { readNoticeBacklog, readQueueState, readStateCounts, readWebhookEventCounts } from './queries.js';

export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Latency buckets in seconds: fine below 100 ms, where Slack's and our targets sit. */
const LATENCY_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface AppMetrics {
  readonly registry: Registry;
  /** One finished HTTP request; `route` is the route template (bounded cardinality), never the raw path. */
  observeHttpRequest(info: { route: string; method: string; status: number; seconds: number }): void;
  /** The Rewards client's onCall hook: once per HTTP attempt, token requests and retries included. */
  observeRewardsCall(info: CallInfo): void;
  /** A webhook delivery or its processing: type = event type, outcome = stored / duplicate / rejected / processed / ... */
  recordWebhookEvent(type: string, outcome: string): void;
  /** Time from a send being recorded to the worker picking it up for its first attempt. */
  observePickupLatency(seconds: number): void;
  /** Socket Mode only: the connection's state (exported from the first call on). */
  setSlackSocketState(state: 'connecting' | 'connected' | 'failed' | 'stopped'): void;
  /** The exposition text, database gauges refreshed. */
  render(): Promise<string>;
}

export interface MetricsOptions {
  /** Where the state gauges are read from; without it they are not exported. */
  db?: Database;
  /** Node process metrics (memory, CPU, event loop lag); default true. */
  processMetrics?: boolean;
  /** Bounded: unknown webhook event types are folded into `other` after this many distinct ones. */
  maxWebhookTypes?: number;
}

export function createMetrics(opts: MetricsOptions = {}): AppMetrics {
  const registry = new Registry();
  if (opts.processMetrics !== false) collectDefaultMetrics({ register: registry, prefix: 'kudos_' });

  const httpDuration = new Histogram({
    name: 'kudos_http_request_duration_seconds',
    help: 'HTTP requests served, by route template, method and status, with their latency.',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const rewardsCalls = new Counter({
    name: 'kudos_rewards_api_calls_total',
    help: 'Rewards API HTTP attempts (token requests and retries included), by endpoint template, method, status and error code.',
    labelNames: ['endpoint', 'method', 'status', 'code'] as const,
    registers: [registry],
  });
  const rewardsErrors = new Counter({
    name: 'kudos_rewards_api_errors_total',
    help: 'Rewards API attempts that failed (non-2xx answer or network failure), by endpoint template and error code.',
    labelNames: ['endpoint', 'code'] as const,
    registers: [registry],
  });
  const rewardsDuration = new Histogram({
    name: 'kudos_rewards_api_call_duration_seconds',
    help: 'Latency of Rewards API attempts, by endpoint template.',
    labelNames: ['endpoint'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const webhookEvents = new Counter({
    name: 'kudos_webhook_events_total',
    help: 'Rewards API webhook events, by event type and outcome (stored, duplicate, rejected, processed, failed, ...).',
    labelNames: ['type', 'outcome'] as const,
    registers: [registry],
  });
  const pickupLatency = new Histogram({
    name: 'kudos_worker_pickup_latency_seconds',
    help: 'Time from a send being recorded to a worker claiming it for its first attempt.',
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });

  if (opts.db) registerStateGauges(registry, opts.db);

  let socketGauges: { connected: Gauge; refused: Gauge; connects: Counter } | undefined;

  const webhookTypes = new Set<string>();
  const maxWebhookTypes = opts.maxWebhookTypes ?? 50;

  return {
    registry,
    observeHttpRequest({ route, method, status, seconds }) {
      httpDuration.observe({ route, method, status: String(status) }, seconds);
    },
    observeRewardsCall(info) {
      const code = info.code ?? '';
      rewardsCalls.inc({ endpoint: info.endpoint, method: info.method, status: String(info.status), code });
      rewardsDuration.observe({ endpoint: info.endpoint }, info.ms / 1000);
      if (info.status === 'network' || info.status >= 400)
        rewardsErrors.inc({ endpoint: info.endpoint, code: code || String(info.status) });
    },
    recordWebhookEvent(type, outcome) {
      // Event types come from outside (any string a sender puts in the envelope): cap the label set.
      if (!webhookTypes.has(type)) {
        if (webhookTypes.size >= maxWebhookTypes) type = 'other';
        else webhookTypes.add(type);
      }
      webhookEvents.inc({ type, outcome });
    },
    observePickupLatency(seconds) {
      pickupLatency.observe(Math.max(0, seconds));
    },
    setSlackSocketState(state) {
      socketGauges ??= {
        connected: new Gauge({
          name: 'kudos_slack_socket_connected',
          help: 'Socket Mode: 1 while the WebSocket to Slack is connected (after its hello), 0 while connecting or refused.',
          registers: [registry],
        }),
        refused: new Gauge({
          name: 'kudos_slack_socket_refused',
          help: 'Socket Mode: 1 while Slack refuses the app token or has disabled Socket Mode (link_disabled); /healthz answers 503.',
          registers: [registry],
        }),
        connects: new Counter({
          name: 'kudos_slack_socket_connections_total',
          help: 'Socket Mode: connections established (the first, and every reconnect after a disconnect message or a dropped socket).',
          registers: [registry],
        }),
      };
      socketGauges.connected.set(state === 'connected' ? 1 : 0);
      socketGauges.refused.set(state === 'failed' ? 1 : 0);
      if (state === 'connected') socketGauges.connects.inc();
    },
    render: () => registry.metrics(),
  };
}

function registerStateGauges(registry: Registry, db: Database): void {
  new Gauge({
    name: 'kudos_sends',
    help: 'Kudos sends stored, by state (awaiting_approval, pending, placed, scheduled, failed, ...). Read from the database at scrape time.',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const { state, count } of await readStateCounts(db)) this.set({ state }, count);
    },
  });
  new Gauge({
    name: 'kudos_webhook_events_stored',
    help: 'Webhook events kept for de-duplication (8 days), by event type and processing outcome (pending until processed). Read from the database at scrape time.',
    labelNames: ['type', 'outcome'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const { type, outcome, count } of await readWebhookEventCounts(db)) this.set({ type, outcome }, count);
    },
  });
  // Queue depth and oldest age come from one query; the first gauge's collect feeds both.
  const readQueueOnce = onePerScrape(() => readQueueState(db));
  new Gauge({
    name: 'kudos_worker_queue_depth',
    help: 'Sends the worker still has to place or report: ready (due now), delayed (waiting for a retry backoff) or claimed (in progress under a lease).',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      const q = await readQueueOnce();
      this.set({ state: 'ready' }, q.ready);
      this.set({ state: 'delayed' }, q.delayed);
      this.set({ state: 'claimed' }, q.claimed);
    },
  });
  new Gauge({
    name: 'kudos_worker_oldest_job_age_seconds',
    help: 'How long the oldest ready job has been due without a worker picking it up (0 when the queue is empty).',
    registers: [registry],
    async collect() {
      this.set((await readQueueOnce()).oldestReadyAgeSeconds);
    },
  });
  // The notice outbox: Slack messages recorded but not posted yet. A growing `stalled` count or an old
  // oldest notice means people are not being told (Slack unreachable, or refusing).
  const readNoticesOnce = onePerScrape(() => readNoticeBacklog(db));
  new Gauge({
    name: 'kudos_notices_unposted',
    help: 'Slack notices recorded in the outbox and not posted yet: posting (held by a poster) or stalled (lease run out, to be resumed after checking Slack).',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      const n = await readNoticesOnce();
      this.set({ state: 'posting' }, n.posting);
      this.set({ state: 'stalled' }, n.stalled);
    },
  });
  new Gauge({
    name: 'kudos_notices_oldest_unposted_age_seconds',
    help: 'Age of the oldest Slack notice not posted yet (0 when every notice is posted or given up).',
    registers: [registry],
    async collect() {
      this.set((await readNoticesOnce()).oldestAgeSeconds);
    },
  });
}

/**
 * One database read shared by the gauges collected in the same scrape (they are collected
 * together): the first caller starts it, the others reuse it, and it is forgotten right after.
 */
function onePerScrape<T>(read: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => (pending ??= read().finally(() => setImmediate(() => (pending = undefined))));
}
