// GET /metrics as an operator's scraper sees it: request latency by route, kudos by state, Rewards
// API calls and errors by endpoint and code, webhook events, worker queue depth and oldest job age.
import { eq, sql } from 'drizzle-orm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { kudos, notifications } from '../../src/db/schema/index.js';
import { parseExposition, type Sample, sumOf } from '../../src/observability/exposition.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { eventually, sendModalValues, TEST_SIGNING_SECRET, type TestStack, useAppPerTest } from '../support/app.js';
import type { TestDatabase } from '../support/db.js';

const e2e = useAppPerTest({ startEach: false });
/** The app of the test at hand (started by the test; closed by useAppPerTest after it). */

async function scrape(url: string): Promise<{ contentType: string; text: string; samples: Sample[] }> {
  const res = await fetch(`${url}/metrics`);
  expect(res.status).toBe(200);
  const text = await res.text();
  return { contentType: res.headers.get('content-type') ?? '', text, samples: parseExposition(text) };
}

async function sendKudos(s: TestStack, recipient: string): Promise<void> {
  await s.sim.slashCommand('U_MANAGER', '');
  const view = await s.sim.waitFor(() => s.sim.openViews('U_MANAGER').at(-1));
  const answer = await s.sim.submitView(
    view.id,
    sendModalValues({ users: [recipient], design: 'CC-THANK-YOU', amount: '10' }),
    'U_MANAGER',
  );
  expect(answer.status).toBe(200);
}

describe('GET /metrics', () => {
  it('reports request latency by route, kudos by state and Rewards API calls, without secrets', async () => {
    await e2e.start();
    await sendKudos(e2e.stack, 'U_EMP1');
    await eventually(async () =>
      (await e2e.db.select().from(kudos)).find((r) => r.status === 'placed' && r.notifiedAt),
    );

    const { contentType, text, samples } = await scrape(e2e.stack.app.metricsUrl!);
    expect(contentType).toContain('text/plain');
    expect(contentType).toContain('version=0.0.4');
    // The slash command and the view submission: both through the one Slack route, answered 200.
    expect(
      sumOf(samples, 'kudos_http_request_duration_seconds_count', {
        route: '/slack/events',
        method: 'POST',
        status: '200',
      }),
    ).toBeGreaterThanOrEqual(2);
    expect(sumOf(samples, 'kudos_sends', { state: 'placed' })).toBe(1);
    expect(
      sumOf(samples, 'kudos_rewards_api_calls_total', { endpoint: '/api/v1/orders/choice-cards', method: 'POST' }),
    ).toBe(1);
    expect(sumOf(samples, 'kudos_rewards_api_calls_total', { endpoint: '/oauth2/token' })).toBeGreaterThanOrEqual(1);
    expect(sumOf(samples, 'kudos_rewards_api_errors_total')).toBe(0);
    expect(sumOf(samples, 'kudos_worker_queue_depth')).toBe(0);
    expect(sumOf(samples, 'kudos_worker_pickup_latency_seconds_count')).toBe(1);
    expect(sumOf(samples, 'kudos_process_resident_memory_bytes')).toBeGreaterThan(0);
    // Counts and latencies only: no secrets, tokens, e-mails.
    for (const secret of [
      TEST_SIGNING_SECRET,
      'production-secret',
      'emulator-signing-secret',
      e2e.stack.sim.botToken,
      '@',
    ])
      expect(text).not.toContain(secret);
  });

  it('counts Rewards API errors by endpoint and code', async () => {
    await e2e.start({ app: { tuning: { worker: { pollIntervalMs: 100, backoffMs: () => 0 } } } });
    await e2e.emulator.faults({ method: 'POST', path: '^/api/v1/orders/choice-cards$', status: 503, count: 1 });
    await sendKudos(e2e.stack, 'U_EMP2');
    await eventually(async () => (await e2e.db.select().from(kudos)).find((r) => r.status === 'placed'));

    const { samples } = await scrape(e2e.stack.app.metricsUrl!);
    expect(
      sumOf(samples, 'kudos_rewards_api_errors_total', {
        endpoint: '/api/v1/orders/choice-cards',
        code: 'SERVICE_UNAVAILABLE',
      }),
    ).toBe(1);
    expect(
      sumOf(samples, 'kudos_rewards_api_calls_total', {
        endpoint: '/api/v1/orders/choice-cards',
        status: '503',
        code: 'SERVICE_UNAVAILABLE',
      }),
    ).toBe(1);
  });

  it('shows the worker queue depth and the age of the oldest waiting job', async () => {
    await e2e.start({ app: { tuning: { worker: { enabled: false } } } });
    await sendKudos(e2e.stack, 'U_EMP3');
    const [row] = await eventually(async () => {
      const rows = await e2e.db.select().from(kudos);
      return rows.length === 1 ? rows : undefined;
    });
    // Due for a minute without any worker to pick it up.
    await e2e.db
      .update(kudos)
      .set({ nextAttemptAt: new Date(Date.now() - 60_000), createdAt: new Date(Date.now() - 60_000) })
      .where(eq(kudos.id, row!.id));

    const { samples } = await scrape(e2e.stack.app.metricsUrl!);
    expect(sumOf(samples, 'kudos_sends', { state: 'pending' })).toBe(1);
    expect(sumOf(samples, 'kudos_worker_queue_depth', { state: 'ready' })).toBe(1);
    expect(sumOf(samples, 'kudos_worker_queue_depth', { state: 'claimed' })).toBe(0);
    expect(sumOf(samples, 'kudos_worker_oldest_job_age_seconds')).toBeGreaterThanOrEqual(59);
  });

  it('shows Slack notices waiting in the outbox, and how old the oldest one is', async () => {
    await e2e.start({ app: { tuning: { worker: { enabled: false } } } });
    const before = await scrape(e2e.stack.app.metricsUrl!);
    expect(sumOf(before.samples, 'kudos_notices_unposted', {})).toBe(0);
    expect(sumOf(before.samples, 'kudos_notices_oldest_unposted_age_seconds')).toBe(0);
    // One notice being posted right now, one whose poster died two minutes ago, one posted, one given up.
    const ago = (s: number) => sql`now() - ${`${s} seconds`}::interval`;
    await e2e.db.insert(notifications).values([
      {
        kind: 'kudos.announcement',
        subject: 'a',
        channel: 'C_KUDOS',
        message: { text: 'a' },
        claimedUntil: sql`now() + interval '60 seconds'`,
      },
      {
        kind: 'kudos.announcement',
        subject: 'b',
        channel: 'C_KUDOS',
        message: { text: 'b' },
        claimedUntil: ago(60),
        createdAt: ago(120),
      },
      { kind: 'kudos.announcement', subject: 'c', channel: 'C_KUDOS', ts: '1.000001', postedAt: new Date() },
      {
        kind: 'kudos.announcement',
        subject: 'd',
        channel: 'C_KUDOS',
        failedAt: new Date(),
        error: 'channel_not_found',
      },
    ]);
    const { samples } = await scrape(e2e.stack.app.metricsUrl!);
    expect(sumOf(samples, 'kudos_notices_unposted', { state: 'posting' })).toBe(1);
    expect(sumOf(samples, 'kudos_notices_unposted', { state: 'stalled' })).toBe(1);
    expect(sumOf(samples, 'kudos_notices_oldest_unposted_age_seconds')).toBeGreaterThanOrEqual(119);
  });

  it('reports 503 (not a partial page) when the database does not answer', async () => {
    const broken = {
      execute: async () => Promise.reject(new Error('connection refused')),
    } as unknown as TestDatabase['db'];
    const metrics = createMetrics({ db: broken, processMetrics: false });
    await expect(metrics.render()).rejects.toThrow('connection refused');
  });
});

describe('webhook event counter', () => {
  it('counts events by type and outcome and keeps the label set bounded whatever types arrive', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.string({ maxLength: 12 }), fc.constantFrom('stored', 'duplicate', 'processed')), {
          maxLength: 80,
        }),
        async (events) => {
          const metrics = createMetrics({ processMetrics: false, maxWebhookTypes: 5 });
          for (const [type, outcome] of events) metrics.recordWebhookEvent(type, outcome);
          const m = await metrics.registry.getSingleMetric('kudos_webhook_events_total')!.get();
          const total = m.values.reduce((sum, v) => sum + v.value, 0);
          const types = new Set(m.values.map((v) => v.labels.type));
          return total === events.length && types.size <= 6;
        },
      ),
      { numRuns: 50 },
    );
  });
});
