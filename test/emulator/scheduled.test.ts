import { describe, expect, it } from 'vitest';

import { cents, choiceOrder, useEmulator } from './helpers.js';

const t = useEmulator();

/** A wall time in the given zone `hours` from now, without offset (e.g. 2026-11-22T15:30:00). */
function wallTimeIn(zone: string, fromMs: number, hours: number): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(fromMs + hours * 3600_000));
  const get = (t: string) => parts.find((p) => p.type === t)!.value;
  return `${get('year')}-${get('month')}-${get('day')}T${get('hour')}:${get('minute')}:00`;
}

async function schedule(scheduledAt: string, timezone: string, extra: Record<string, unknown> = {}) {
  return t.api.post(
    '/orders/choice-cards',
    choiceOrder({ sendTiming: { type: 'SCHEDULED', scheduledAt, timezone }, ...extra }),
  );
}

describe('scheduled sends', () => {
  it('a scheduledAt with an offset is that instant, whatever the timezone', async () => {
    const now = Date.parse(await t.emu.now());
    const at = new Date(now + 2 * 3600_000);
    at.setUTCSeconds(0, 0);
    const res = await schedule(at.toISOString().replace('Z', '+00:00'), 'Asia/Tokyo');
    expect(res.status).toBe(201);
    const detail = (await t.api.get(`/orders/${res.body.data.orderId}`)).body.data;
    expect(Date.parse(detail.sendTiming.sendAt)).toBe(at.getTime());
  });

  it('a scheduledAt without offset is a wall time in the IANA timezone', async () => {
    const now = Date.parse(await t.emu.now());
    const wall = wallTimeIn('America/New_York', now, 3);
    const res = await schedule(wall, 'America/New_York');
    expect(res.status).toBe(201);
    const sendAt = Date.parse((await t.api.get(`/orders/${res.body.data.orderId}`)).body.data.sendTiming.sendAt);
    // The instant, seen in New York, shows the wall time given.
    expect(wallTimeIn('America/New_York', sendAt, 0)).toBe(wall);
    const tokyo = await schedule(wallTimeIn('Asia/Tokyo', now, 3), 'Asia/Tokyo');
    const tokyoAt = Date.parse((await t.api.get(`/orders/${tokyo.body.data.orderId}`)).body.data.sendTiming.sendAt);
    expect(Math.abs(tokyoAt - sendAt)).toBeLessThan(60_000);
  });

  it('DST edges: a wall time in the spring-forward gap moves forward; one in the fall-back overlap is the earlier instant', async () => {
    const sendAtOf = async (wall: string) => {
      const res = await schedule(wall, 'America/New_York');
      expect(res.status).toBe(201);
      return (await t.api.get(`/orders/${res.body.data.orderId}`)).body.data.sendTiming.sendAt;
    };
    expect(await sendAtOf('2027-03-14T01:30:00')).toBe('2027-03-14T06:30:00Z'); // EST
    expect(await sendAtOf('2027-03-14T02:30:00')).toBe('2027-03-14T07:30:00Z'); // does not exist: 03:30 EDT
    expect(await sendAtOf('2027-03-14T03:30:00')).toBe('2027-03-14T07:30:00Z'); // EDT
    expect(await sendAtOf('2027-11-07T01:30:00')).toBe('2027-11-07T05:30:00Z'); // twice: the EDT one
    expect(await sendAtOf('2027-11-07T02:30:00')).toBe('2027-11-07T07:30:00Z'); // EST
  });

  it('stays PENDING (nothing sent) until its time on the emulator clock, then is sent and completes', async () => {
    const now = Date.parse(await t.emu.now());
    const res = await schedule(new Date(now + 3600_000).toISOString(), 'UTC');
    const id = res.body.data.orderId;
    await t.emu.advance(3590);
    expect((await t.api.get(`/orders/${id}`)).body.data.status).toBe('PENDING');
    expect(((await t.emu.emails()) as any[]).filter((e) => e.orderId === id)).toHaveLength(0);
    await t.emu.advance(20);
    const done = (await t.api.get(`/orders/${id}`)).body.data;
    expect(done).toMatchObject({ status: 'COMPLETE', sentCount: 1 });
    expect(((await t.emu.emails()) as any[]).filter((e) => e.orderId === id)).toHaveLength(1);
  });

  it('refuses a send time in the past, an invalid date, and a non-IANA zone', async () => {
    const now = Date.parse(await t.emu.now());
    for (const [at, tz] of [
      [new Date(now - 60_000).toISOString(), 'UTC'],
      ['2030-02-30T10:00:00', 'UTC'],
      ['next tuesday', 'UTC'],
      ['2030-01-01T10:00:00', 'EST'],
    ] as const) {
      const res = await schedule(at, tz);
      expect([res.status, res.body.error.code], `${at} ${tz}`).toEqual([400, 'VALIDATION_ERROR']);
    }
  });
});

describe('cancel', () => {
  it('DELETE cancels a scheduled order at least 10 minutes ahead: CANCELED, refunded at once, integer refundOption, ledger REFUND row', async () => {
    const now = Date.parse(await t.emu.now());
    const before = cents((await t.api.get('/balance')).body.data.availableBalance.amount);
    const res = await schedule(new Date(now + 3600_000).toISOString(), 'UTC', {
      recipients: [{ email: 'a@example.com', amount: 40 }],
    });
    expect(cents((await t.api.get('/balance')).body.data.availableBalance.amount)).toBe(before - 4000);
    const id = res.body.data.orderId;
    const cancel = await t.api.del(`/orders/${id}`);
    expect(cancel.status).toBe(200);
    expect(cancel.body.data).toMatchObject({
      orderId: id,
      status: 'CANCELED',
      refundOption: 0,
      refundOptionDays: null,
      canceledAt: expect.any(String),
    });
    expect(cents((await t.api.get('/balance')).body.data.availableBalance.amount)).toBe(before);
    const ledger = (await t.api.get('/balance/ledger')).body.data;
    expect(ledger[0]).toMatchObject({
      referenceNumber: id,
      type: 'REFUND',
      source: 'choice',
      status: '2',
      statusLabel: 'Canceled',
      signedAmount: { amount: 40, currency: 'USD' },
    });
    expect(ledger[1]).toMatchObject({
      referenceNumber: id,
      type: 'USE',
      statusLabel: 'Balance Used',
      amount: { amount: -40 },
      signedAmount: { amount: -40 },
    });
    const detail = (await t.api.get(`/orders/${id}`)).body.data;
    expect(detail.status).toBe('CANCELED');
    expect(detail.refundOption).toBe(false);
    // Never sent, even when its time comes.
    await t.emu.advance(7200);
    expect((await t.api.get(`/orders/${id}`)).body.data.status).toBe('CANCELED');
    expect(((await t.emu.emails()) as any[]).filter((e) => e.orderId === id)).toHaveLength(0);
  });

  it('POST /orders/{id}/cancel does the same; refundOption 1 and the explicit window', async () => {
    const now = Date.parse(await t.emu.now());
    const res = await schedule(new Date(now + 3600_000).toISOString(), 'UTC', {
      refundOption: true,
      refundOptionDays: 60,
    });
    const cancel = await t.api.post(`/orders/${res.body.data.orderId}/cancel`);
    expect(cancel.status).toBe(200);
    expect(cancel.body.data).toMatchObject({ status: 'CANCELED', refundOption: 1, refundOptionDays: 60 });
    const implicit = await schedule(new Date(now + 3600_000).toISOString(), 'UTC', { refundOption: true });
    expect((await t.api.del(`/orders/${implicit.body.data.orderId}`)).body.data).toMatchObject({
      refundOption: 1,
      refundOptionDays: null,
    });
  });

  it('409 ORDER_NOT_CANCELABLE inside the 10-minute window, after dispatch, twice, and for immediate orders', async () => {
    const now = Date.parse(await t.emu.now());
    const res = await schedule(new Date(now + 30 * 60_000).toISOString(), 'UTC');
    const id = res.body.data.orderId;
    await t.emu.advance(20 * 60 + 1); // 9:59 before the send time
    const late = await t.api.del(`/orders/${id}`);
    expect([late.status, late.body.error.code]).toEqual([409, 'ORDER_NOT_CANCELABLE']);
    await t.emu.advance(3600);
    expect((await t.api.del(`/orders/${id}`)).body.error.code).toBe('ORDER_NOT_CANCELABLE');

    const immediate = await t.api.post('/orders/choice-cards', choiceOrder());
    const refused = await t.api.post(`/orders/${immediate.body.data.orderId}/cancel`);
    expect([refused.status, refused.body.error.code]).toEqual([409, 'ORDER_NOT_CANCELABLE']);

    const other = await schedule(new Date(Date.parse(await t.emu.now()) + 3600_000).toISOString(), 'UTC');
    expect((await t.api.del(`/orders/${other.body.data.orderId}`)).status).toBe(200);
    expect((await t.api.del(`/orders/${other.body.data.orderId}`)).body.error.code).toBe('ORDER_NOT_CANCELABLE');
    expect((await t.api.del('/orders/ORNOPE')).status).toBe(404);
  });

  it('cancels just before the 10-minute boundary (the emulator clock also follows real time)', async () => {
    const now = Date.parse(await t.emu.now());
    const sendAt = new Date(now + 3600_000);
    const res = await schedule(sendAt.toISOString(), 'UTC');
    await t.emu.advance((sendAt.getTime() - 10 * 60_000 - 5_000 - Date.parse(await t.emu.now())) / 1000);
    expect((await t.api.del(`/orders/${res.body.data.orderId}`)).status).toBe(200);
  });
});
