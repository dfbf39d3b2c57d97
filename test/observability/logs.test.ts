// Structured logs: one JSON object per line, request ids on every line of a request (also after the
// ack), secrets never written whether they sit in a field name, deep in an object or in a value.
import { afterEach, describe, expect, it } from 'vitest';

import { createLogger, withLogContext } from '../../src/config/logger.js';
import { type RunningHttpServer, startHttpServer } from '../../src/http/server.js';

function collector() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({
    level: 'debug',
    write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>),
  });
  return { lines, logger };
}

let server: RunningHttpServer | undefined;
afterEach(async () => {
  await server?.close(100);
  server = undefined;
});

describe('structured logs', () => {
  it('never writes secrets: secret-looking keys at any depth, Slack and bearer tokens in values and errors', () => {
    const { lines, logger } = collector();
    logger.child({ kudosId: 'k-1' }).error('call failed', {
      orderId: 'OR-1',
      request: {
        headers: { Authorization: 'Bearer abc.def', accept: 'json' },
        body: { client_secret: 'production-secret' },
      },
      note: 'used xoxb-1234-abcd for the call',
      error: new Error('auth failed for Bearer eyJhbGciOi'),
      list: [{ token: 'xoxb-9' }],
    });
    const text = JSON.stringify(lines);
    for (const secret of ['abc.def', 'production-secret', 'xoxb-1234-abcd', 'eyJhbGciOi', 'xoxb-9'])
      expect(text).not.toContain(secret);
    expect(lines[0]).toMatchObject({
      level: 'error',
      msg: 'call failed',
      kudosId: 'k-1',
      orderId: 'OR-1',
      note: 'used [redacted] for the call',
    });
    expect((lines[0]!.request as { headers: Record<string, string> }).headers.accept).toBe('json');
  });

  it('adds the context fields to every line inside withLogContext, including after an await', async () => {
    const { lines, logger } = collector();
    await withLogContext({ slackRequestId: 'r-1' }, async () => {
      logger.info('before');
      await new Promise((resolve) => setTimeout(resolve, 1));
      logger.info('after');
    });
    logger.info('outside');
    expect(lines.map((l) => l.slackRequestId)).toEqual(['r-1', 'r-1', undefined]);
  });

  it('gives each HTTP request an id, echoed in X-Request-Id and carried by the lines its route logs', async () => {
    const { lines, logger } = collector();
    server = await startHttpServer({
      logger,
      port: 0,
      host: '127.0.0.1',
      routes: {
        slackEvents: async (req, res) => {
          req.resume();
          res.writeHead(200).end();
          // Work after the answer (as listeners do after ack) still carries the id.
          await new Promise((resolve) => setTimeout(resolve, 1));
          logger.info('after the ack');
        },
        rewardsWebhooks: async (_req, res) => void res.writeHead(200).end(),
        health: async (_req, res) => {
          logger.info('health asked');
          res.writeHead(200).end();
        },
      },
    });
    const slack = await fetch(`${server.url}/slack/events`, { method: 'POST', body: 'x' });
    const health = await fetch(`${server.url}/healthz`);
    await expect.poll(() => lines.length, { timeout: 10_000 }).toBe(2);
    expect(lines.find((l) => l.msg === 'after the ack')!.slackRequestId).toBe(slack.headers.get('x-request-id'));
    expect(lines.find((l) => l.msg === 'health asked')!.requestId).toBe(health.headers.get('x-request-id'));
    expect(slack.headers.get('x-request-id')).not.toBe(health.headers.get('x-request-id'));
  });
});
