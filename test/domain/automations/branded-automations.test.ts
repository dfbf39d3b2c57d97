// Automations that send a brand: a recurring series and a celebration rule hold a branded product
// with an amount in its own currency, each run reads the brand again and is judged in USD like any
// branded send (approval when no rate is learned), and a brand gone from the catalog refuses the run
// with a plain message to the automation's owner.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { approvalRequests, kudos } from '../../../src/db/schema/index.js';
import { createSeries, saveCelebrationRule } from '../../../src/domain/automations/automation-runner.js';
import { learnRate } from '../../../src/domain/branded/exchange-rates.js';
import { eventually, useAppPerTest } from '../../support/app.js';
import { BIRTHDAY_RULE, CELEBRATING_WORKSPACE, importDatesCsv } from '../../support/celebrations.js';

const env = useAppPerTest({ env: { KUDOS_NOTIFY_CHANNEL: 'C_GENERAL' }, app: { tuning: { automationsMs: 0 } } });
const WS = CELEBRATING_WORKSPACE;

const tick = (iso: string) => env.stack.app.automations.tick(new Date(iso));
const sends = () => env.db.select().from(kudos);

function weeklyTesco(overrides: Partial<Parameters<typeof createSeries>[1]> = {}) {
  return createSeries(env.db, {
    ...WS,
    senderUserId: 'U_MANAGER',
    recipientUserIds: ['U_EMP1'],
    productId: 'BR-TESCO',
    cardType: 'BRANDED_CARD',
    currency: 'GBP',
    // £20
    amountCents: 2000,
    message: 'Thanks for the week!',
    cadence: 'weekly',
    weekday: 5,
    timeOfDay: '16:00',
    timezone: 'America/New_York',
    startsAt: new Date('2027-01-01T00:00:00Z'),
    ...overrides,
  });
}

describe('automations with a brand', () => {
  it('a recurring series of a GBP brand places a branded order at face value, judged in USD on the learned rate', async () => {
    // The workspace learned the GBP rate from an earlier order: $127 for £100.
    await learnRate(env.db, WS, { currency: 'GBP', faceCents: 10_000, costCents: 12_700, learnedAt: new Date() });
    await weeklyTesco();
    expect((await tick('2027-01-08T21:00:00Z')).sent).toBe(1);
    const [row] = await eventually(async () => {
      const rows = await sends();
      return rows.every((r) => r.status === 'placed') && rows.length > 0 ? rows : undefined;
    });
    // Judged: £20 at 1.27 plus the 5% margin, rounded up.
    expect(row).toMatchObject({
      cardType: 'BRANDED_CARD',
      productId: 'BR-TESCO',
      faceCurrency: 'GBP',
      faceCents: 2000,
      amountCents: 2667,
      totalCents: 2667,
    });
    const order = await env.stack.app.rewards.orders.get(row!.orderId!);
    expect(order).toMatchObject({ cardType: 'BRANDED_CARD', totalCost: { amount: '25.40', currency: 'USD' } });
    expect(order.recipients[0]).toMatchObject({ amount: '20.00' });
  });

  it('a birthday rule with a brand sends it; with no rate learned the send waits for an approver', async () => {
    await importDatesCsv(env, 'email,birthday,start_date\neli@example.com,03-15,\n');
    await saveCelebrationRule(
      env.db,
      WS,
      'birthday',
      { ...BIRTHDAY_RULE, productId: 'BR-TESCO', cardType: 'BRANDED_CARD', currency: 'GBP', amountCents: 1000 },
      'U_ADMIN',
    );
    // 09:00 in Chicago (CDT) is 14:00 UTC.
    expect((await tick('2027-03-15T14:00:00Z')).sent).toBe(1);
    const [row] = await sends();
    expect(row).toMatchObject({
      status: 'awaiting_approval',
      cardType: 'BRANDED_CARD',
      faceCurrency: 'GBP',
      faceCents: 1000,
      usdBasis: 'unknown',
    });
    const [approval] = await env.db.select().from(approvalRequests).where(eq(approvalRequests.kudosId, row!.id));
    expect(approval!.reason).toContain('not yet learned what GBP cards cost in USD');
  });

  it('a brand gone from the catalog refuses the run and tells the series’ sender in plain words; nothing is ordered', async () => {
    await weeklyTesco({ productId: 'BR-REMOVED' });
    expect(await tick('2027-01-08T21:00:00Z')).toMatchObject({ sent: 0, refused: 1 });
    expect(await sends()).toHaveLength(0);
    const dm = await env.stack.sim.waitFor(() =>
      env.stack.sim.messages('D_U_MANAGER').find((m) => m.text.includes('was not sent')),
    );
    expect(dm.text).toContain('That brand is no longer in the Rewards catalog');
  });
});
