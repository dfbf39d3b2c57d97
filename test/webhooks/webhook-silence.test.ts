// Webhooks not arriving: with REWARDS_WEBHOOKS=on, an order open past WEBHOOK_SILENCE_MS and no
// webhook in that time gives admins one health warning on App Home and one alert per episode; a
// webhook clears it; nothing with no order open, nor with REWARDS_WEBHOOKS=off. The app's clock
// follows the emulator's (advanced through its control route); the checks are the finance sweep's.
import { randomUUID } from 'node:crypto';

import { beforeEach, describe, expect, it } from 'vitest';

import { orderChecks } from '../../src/db/schema/index.js';
import { WEBHOOK_SILENCE_MS, WEBHOOKS_SILENT } from '../../src/domain/finance/webhook-silence.js';
import { openHealthWarnings } from '../../src/domain/notices/health-warnings.js';
import { type TestStack, useAppPerTest } from '../support/app.js';
import type { TestEmulator } from '../support/emulator.js';
import { noticesSettled } from '../support/notices-settled.js';
import { envelope, postWebhook, signed } from './support.js';

const TEAM = 'T0KUDOS';
let skewMs = 0;
const appClock = () => new Date(Date.now() + skewMs);

/** Moves the emulator's clock past the silence threshold, and the app's with it. */
async function silencePasses(emulator: TestEmulator): Promise<void> {
  const now = await emulator.advance(WEBHOOK_SILENCE_MS / 1000 + 60);
  skewMs = Date.parse(now) - Date.now();
}

async function openOrder(stack: TestStack): Promise<void> {
  // An order the app placed and still watches (its next completion check far ahead).
  await stack.app.db.insert(orderChecks).values({
    orderId: `ord-${randomUUID()}`,
    teamId: TEAM,
    source: 'kudos',
    nextCheckAt: new Date(Date.now() + 86_400_000),
  });
}

const silenceWarnings = async (stack: TestStack) =>
  (await openHealthWarnings(stack.app.db, TEAM)).filter((w) => w.kind === WEBHOOKS_SILENT);
const alerts = (stack: TestStack) =>
  stack.sim.messages('U_ADMIN').filter((m) => m.text.includes('Rewards webhooks are not arriving'));

const APP = { tuning: { financeSweepMs: 0, now: appClock } };
const ENV = { KUDOS_NOTIFY_CHANNEL: 'C_KUDOS', KUDOS_ADMINS: 'U_ADMIN' };

describe('REWARDS_WEBHOOKS=on: webhooks not arriving', () => {
  const t = useAppPerTest({ env: ENV, app: APP, emulatorEnv: { EMULATOR_BACKGROUND: 'off' } });
  beforeEach(() => {
    skewMs = 0;
  });

  it('an order open past the threshold with no webhook: one warning and one alert across several checks', async () => {
    const stack = t.stack;
    await openOrder(stack);
    await stack.app.finance.sweep();
    expect(await silenceWarnings(stack)).toEqual([]); // not yet past the threshold

    await silencePasses(t.emulator);
    for (let i = 0; i < 3; i++) await stack.app.finance.sweep();
    expect(await silenceWarnings(stack)).toHaveLength(1);
    await stack.sim.waitFor(() => alerts(stack)[0]);
    // The sweeps are done; every alert they recorded is posted: nothing is left to post another.
    await noticesSettled(stack.app.db);
    expect(alerts(stack)).toHaveLength(1);
    expect(alerts(stack)[0]!.text).toContain('1 order has been open');
  });

  it('a webhook arriving clears the warning; a later silence is a new episode with one new alert', async () => {
    const stack = t.stack;
    await openOrder(stack);
    await silencePasses(t.emulator);
    await stack.app.finance.sweep();
    expect(await silenceWarnings(stack)).toHaveLength(1);
    await stack.sim.waitFor(() => alerts(stack)[0]);

    const body = envelope('order.created', {
      orderId: `ord-${randomUUID()}`,
      cardType: 'CHOICE_CARD',
      totalAmount: '10.00',
      currency: 'USD',
      recipientCount: 1,
    });
    expect((await postWebhook(stack.app.url, body, signed(body))).status).toBe(200);
    await stack.app.finance.sweep();
    expect(await silenceWarnings(stack)).toEqual([]);

    await silencePasses(t.emulator);
    await stack.app.finance.sweep();
    await stack.app.finance.sweep();
    expect(await silenceWarnings(stack)).toHaveLength(1);
    await stack.sim.waitFor(() => alerts(stack).length === 2);
    await noticesSettled(stack.app.db);
    expect(alerts(stack)).toHaveLength(2);
  });

  it('no order open: no warning, however long the silence', async () => {
    const stack = t.stack;
    await silencePasses(t.emulator);
    await stack.app.finance.sweep();
    expect(await silenceWarnings(stack)).toEqual([]);
    expect(alerts(stack)).toEqual([]);
  });
});

describe('REWARDS_WEBHOOKS=off: polling is the mode, not a fault', () => {
  const t = useAppPerTest({
    env: { ...ENV, REWARDS_WEBHOOKS: 'off' },
    app: APP,
    emulatorEnv: { EMULATOR_BACKGROUND: 'off' },
  });
  beforeEach(() => {
    skewMs = 0;
  });

  it('an order open past the threshold raises nothing', async () => {
    const stack = t.stack;
    await openOrder(stack);
    await silencePasses(t.emulator);
    await stack.app.finance.sweep();
    expect(await silenceWarnings(stack)).toEqual([]);
    expect(alerts(stack)).toEqual([]);
  });
});
