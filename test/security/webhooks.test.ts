// Poison webhooks (security issue, finding 6): a validly signed delivery that can never be stored
// (a lone surrogate in a string, nesting 20,000 deep) is refused with a 4xx, so the service stops
// retrying it, and the next good event is stored as usual. Real signed HTTP into the app.
import { describe, expect, it } from 'vitest';

import { useAppPerTest } from '../support/app.js';
import { countRows, envelope, postWebhook, signed } from '../webhooks/support.js';

const e2e = useAppPerTest({ app: { tuning: { approvalsSweepMs: 0, webhooks: { enabled: false } } } });

describe('poison webhooks', () => {
  it('a lone surrogate or 20,000 levels of nesting: 400 UNSTORABLE_PAYLOAD, nothing stored, good events still stored', async () => {
    const surrogate = envelope('ORDER_CREATED', { orderId: 'O-1', note: 'x' }).replace('"x"', '"\\ud800"');
    const deep = envelope('ORDER_CREATED', { orderId: 'O-2', nested: '__DEEP__' }).replace(
      '"__DEEP__"',
      `${'['.repeat(20_000)}${']'.repeat(20_000)}`,
    );
    for (const body of [surrogate, deep]) {
      const answer = await postWebhook(e2e.stack.app.url, body, signed(body));
      expect(answer.status).toBe(400);
      expect(answer.json).toMatchObject({ error: { code: 'UNSTORABLE_PAYLOAD' } });
    }
    expect(await countRows(e2e.db, 'webhook_events')).toBe(0);
    const good = envelope('ORDER_CREATED', { orderId: 'O-3' });
    expect((await postWebhook(e2e.stack.app.url, good, signed(good))).status).toBe(200);
    expect(await countRows(e2e.db, 'webhook_events')).toBe(1);
  });
});
