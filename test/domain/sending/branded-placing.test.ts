// The worker places branded cards (src/domain/sending/place-order-parts.ts) through the real app and the
// emulator: a branded order at face value in the brand's currency, its USD cost recorded and the
// rate learned from it; a card whose cost was unknown counted at its cost once placed; a rate that rose
// beyond the safety margin since the send was judged stops it before anything more is charged; a
// brand removed from the catalog while the send waited is not ordered.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { kudos, type KudosRow, type NewKudosRow } from '../../../src/db/schema/index.js';
import { learnedRate, learnRate } from '../../../src/domain/branded/exchange-rates.js';
import { RECIPIENTS_PER_ORDER } from '../../../src/domain/sending/kudos-parts.js';
import { eventually, useAppPerTest } from '../../support/app.js';
import { pendingKudosValues } from '../../support/kudos-row.js';

const t = useAppPerTest();
const WS = { teamId: 'T0KUDOS', enterpriseId: null };

function people(count: number): NewKudosRow['recipients'] {
  return Array.from({ length: count }, (_, i) => ({
    slackUserId: null,
    recipientId: null,
    email: `brand-${i}-${Math.random().toString(36).slice(2, 8)}@example.com`,
    name: `Person ${i}`,
  }));
}

/** A pending send of £20 Tesco cards, judged at `judgedCents` USD per card. */
function tescoSend(count: number, judgedCents: number, basis: 'learned' | 'unknown'): NewKudosRow {
  return pendingKudosValues({
    recipients: people(count),
    recipientCount: count,
    productId: 'BR-TESCO',
    designName: 'Tesco Gift Card',
    amountCents: judgedCents,
    totalCents: judgedCents * count,
    cardType: 'BRANDED_CARD',
    faceCurrency: 'GBP',
    faceCents: 2000,
    usdBasis: basis,
  });
}

async function settled(id: string): Promise<KudosRow> {
  return eventually(async () => {
    const [row] = await t.db.select().from(kudos).where(eq(kudos.id, id));
    return row && row.notifiedAt && row.status !== 'pending' ? row : undefined;
  }, 20_000);
}

async function ordersOf(row: KudosRow) {
  return (await t.stack.app.rewards.orders.list({ cardType: 'BRANDED_CARD' }).all()).filter((o) =>
    row.orderIds.includes(o.orderId),
  );
}

describe('placing branded cards', () => {
  it('orders the brand at face value, records the USD charged and learns the rate from it', async () => {
    await learnRate(t.db, WS, { currency: 'GBP', faceCents: 10_000, costCents: 12_700, learnedAt: new Date(0) });
    // £20 at 1.27 is $25.40; judged with the 5% margin: $26.67 a card.
    const [row] = await t.db
      .insert(kudos)
      .values(tescoSend(2, 2667, 'learned'))
      .returning();
    const placed = await settled(row!.id);

    expect(placed.status).toBe('placed');
    expect(placed.costCents).toBe(5080);
    expect(placed.costCurrency).toBe('USD');
    expect(placed.totalCents).toBe(5334);
    const [order] = await ordersOf(placed);
    expect(order).toMatchObject({ cardType: 'BRANDED_CARD', totalCost: { amount: '50.80', currency: 'USD' } });
    const rate = await learnedRate(t.db, WS, 'GBP');
    expect(rate).toMatchObject({ faceCents: 4000, costCents: 5080, orderId: placed.orderId });
  });

  it('a card whose USD cost was unknown is counted at its cost once placed', async () => {
    const [row] = await t.db
      .insert(kudos)
      .values(tescoSend(1, 0, 'unknown'))
      .returning();
    const placed = await settled(row!.id);

    expect([placed.status, placed.errorMessage]).toEqual(['placed', null]);
    expect(placed.costCents).toBe(2540);
    expect(placed.totalCents).toBe(2540);
    expect(await learnedRate(t.db, WS, 'GBP')).toMatchObject({ faceCents: 2000, costCents: 2540 });
  });

  it('a rate learned since the send was judged, beyond the margin: nothing is ordered and the sender is told', async () => {
    // Judged at 1.00 GBP/USD with the margin ($21 a card); a later order taught 1.27.
    await learnRate(t.db, WS, { currency: 'GBP', faceCents: 10_000, costCents: 12_700, learnedAt: new Date() });
    const [row] = await t.db
      .insert(kudos)
      .values(tescoSend(2, 2100, 'learned'))
      .returning();
    const failed = await settled(row!.id);

    expect(failed.status).toBe('failed');
    expect(failed.errorCode).toBe('RATE_MOVED');
    expect(failed.orderIds).toEqual([]);
    expect(await ordersOf(failed)).toEqual([]);
    const told = t.stack.sim.messages('U_MANAGER').map((m) => m.text);
    expect(told.join('\n')).toContain('the GBP rate rose by more than the safety margin');
    expect(told.join('\n')).toContain('Nothing was charged');
  });

  it('a send in parts stops after the first order when that order shows the rate rose beyond the margin', async () => {
    // Learned long ago at 1.00; the API now charges 1.27. The first part's cost teaches the new rate.
    await learnRate(t.db, WS, { currency: 'GBP', faceCents: 10_000, costCents: 10_000, learnedAt: new Date(0) });
    const count = RECIPIENTS_PER_ORDER + 5;
    const [row] = await t.db
      .insert(kudos)
      .values(tescoSend(count, 2100, 'learned'))
      .returning();
    const partial = await settled(row!.id);

    expect(partial.status).toBe('partial');
    expect(partial.errorCode).toBe('RATE_MOVED');
    expect(partial.partsPlaced).toBe(1);
    const orders = await ordersOf(partial);
    expect(orders).toHaveLength(1);
    expect(partial.costCents).toBe(RECIPIENTS_PER_ORDER * 2540);
    expect(partial.errorMessage).toContain('Orders 1 to 1 of 2 went out');
  });

  it('a brand removed from the catalog while the send waited: nothing is ordered and the sender is told', async () => {
    await t.emulator.removeBrand('BR-TESCO');
    const [row] = await t.db
      .insert(kudos)
      .values(tescoSend(1, 0, 'unknown'))
      .returning();
    const failed = await settled(row!.id);

    expect(failed.status).toBe('failed');
    expect(failed.errorCode).toBe('BRAND_GONE');
    expect(failed.orderIds).toEqual([]);
    const told = t.stack.sim.messages('U_MANAGER').map((m) => m.text);
    expect(told.join('\n')).toContain('Tesco Gift Card is no longer in the Rewards catalog. Nothing was charged');
  });
});
