import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { choiceOrder, key, useEmulator } from './helpers.js';

const t = useEmulator();

describe('recipients', () => {
  it('CRUD with RE- ids, search by name or e-mail', async () => {
    const created = await t.api.post('/recipients', {
      email: 'ann@example.com',
      firstName: 'Ann',
      lastName: 'Lee',
      company: 'ACME',
      department: 'Ops',
    });
    expect(created.status).toBe(201);
    const id = created.body.data.recipientId;
    expect(id).toMatch(/^RE-/);
    await t.api.post('/recipients', { email: 'bob@example.com', firstName: 'Bob' });
    expect((await t.api.get(`/recipients/${id}`)).body.data).toMatchObject({
      email: 'ann@example.com',
      firstName: 'Ann',
      company: 'ACME',
    });
    expect((await t.api.get('/recipients', { searchKeyword: 'lee' })).body.data.map((r: any) => r.recipientId)).toEqual(
      [id],
    );
    expect((await t.api.get('/recipients', { searchKeyword: 'BOB@' })).body.totalCount).toBe(1);
    const put = await t.api.put(`/recipients/${id}`, { email: 'ann.lee@example.com' });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({ email: 'ann.lee@example.com', firstName: null });
    expect((await t.api.put(`/recipients/${id}`, { firstName: 'no email' })).status).toBe(400);
    expect((await t.api.del(`/recipients/${id}`)).status).toBe(204);
    expect((await t.api.get(`/recipients/${id}`)).status).toBe(404);
  });

  it('e-mail is unique in the organization (case-insensitive), also on update; per environment', async () => {
    const a = (await t.api.post('/recipients', { email: 'dup@example.com' })).body.data;
    const again = await t.api.post('/recipients', { email: 'DUP@example.com' });
    expect([again.status, again.body.error.code]).toEqual([409, 'EMAIL_TAKEN']);
    const b = (await t.api.post('/recipients', { email: 'other@example.com' })).body.data;
    expect((await t.api.put(`/recipients/${b.recipientId}`, { email: 'dup@example.com' })).body.error.code).toBe(
      'EMAIL_TAKEN',
    );
    expect(
      (await t.api.put(`/recipients/${a.recipientId}`, { email: 'dup@example.com', firstName: 'Same' })).status,
    ).toBe(200);
    expect((await t.sandbox.post('/recipients', { email: 'dup@example.com' })).status).toBe(201);
    expect((await t.api.post('/recipients', { email: 'not-an-email' })).status).toBe(400);
  });

  it('409 RECIPIENT_HAS_PENDING_ORDER while a scheduled order for them is active; deletable after cancel', async () => {
    const r = (await t.api.post('/recipients', { email: 'sched@example.com' })).body.data;
    const now = Date.parse(await t.emu.now());
    const order = (
      await t.api.post(
        '/orders/choice-cards',
        choiceOrder({
          recipients: [{ email: 'sched@example.com', amount: 10 }],
          sendTiming: { type: 'SCHEDULED', scheduledAt: new Date(now + 3600_000).toISOString(), timezone: 'UTC' },
        }),
      )
    ).body.data;
    const refused = await t.api.del(`/recipients/${r.recipientId}`);
    expect([refused.status, refused.body.error.code]).toEqual([409, 'RECIPIENT_HAS_PENDING_ORDER']);
    await t.api.del(`/orders/${order.orderId}`);
    expect((await t.api.del(`/recipients/${r.recipientId}`)).status).toBe(204);
  });
});

describe('recipient groups', () => {
  it('create (empty), get with memberCount, rename, list; names unique', async () => {
    const g = await t.api.post('/recipient-groups', { groupName: 'Engineering' });
    expect(g.status).toBe(201);
    expect(g.body.data).toMatchObject({ groupId: expect.any(String), groupName: 'Engineering', memberCount: 0 });
    const dup = await t.api.post('/recipient-groups', { groupName: 'engineering' });
    expect([dup.status, dup.body.error.code]).toEqual([409, 'GROUP_NAME_TAKEN']);
    const other = (await t.api.post('/recipient-groups', { groupName: 'Sales' })).body.data;
    expect((await t.api.put(`/recipient-groups/${other.groupId}`, { groupName: 'Engineering' })).body.error.code).toBe(
      'GROUP_NAME_TAKEN',
    );
    const renamed = await t.api.put(`/recipient-groups/${g.body.data.groupId}`, { groupName: 'Eng' });
    expect([renamed.status, renamed.body.data.groupName]).toEqual([200, 'Eng']);
    expect((await t.api.post('/recipient-groups', {})).status).toBe(400);
    expect((await t.api.post('/recipient-groups', { groupName: '  ' })).status).toBe(400);
    expect((await t.api.get('/recipient-groups')).body.totalCount).toBe(2);
  });

  it('members: add (re-add is a silent 201), list, remove; unknown recipient 404', async () => {
    const g = (await t.api.post('/recipient-groups', { groupName: 'Team' })).body.data;
    const r1 = (await t.api.post('/recipients', { email: 'm1@example.com' })).body.data;
    const r2 = (await t.api.post('/recipients', { email: 'm2@example.com' })).body.data;
    expect((await t.api.post(`/recipient-groups/${g.groupId}/members`, { recipientId: r1.recipientId })).status).toBe(
      201,
    );
    expect((await t.api.post(`/recipient-groups/${g.groupId}/members`, { recipientId: r2.recipientId })).status).toBe(
      201,
    );
    const again = await t.api.post(`/recipient-groups/${g.groupId}/members`, { recipientId: r1.recipientId });
    expect(again.status).toBe(201);
    expect((await t.api.get(`/recipient-groups/${g.groupId}`)).body.data.memberCount).toBe(2);
    expect((await t.api.get(`/recipient-groups/${g.groupId}/members`)).body.data.map((m: any) => m.email)).toEqual([
      'm1@example.com',
      'm2@example.com',
    ]);
    expect((await t.api.post(`/recipient-groups/${g.groupId}/members`, { recipientId: 'RE-NOPE' })).status).toBe(404);
    expect((await t.api.post(`/recipient-groups/GR-NOPE/members`, { recipientId: r1.recipientId })).status).toBe(404);
    expect((await t.api.del(`/recipient-groups/${g.groupId}/members/${r1.recipientId}`)).status).toBe(204);
    expect((await t.api.del(`/recipient-groups/${g.groupId}/members/${r1.recipientId}`)).status).toBe(404);
    // Removing membership keeps the recipient.
    expect((await t.api.get(`/recipients/${r1.recipientId}`)).status).toBe(200);
    expect((await t.api.get(`/recipient-groups/${g.groupId}`)).body.data.memberCount).toBe(1);
  });

  it('card orders may name a group (with one amount); a deleted group cannot be used, its members and earlier orders stay', async () => {
    const g = (await t.api.post('/recipient-groups', { groupName: 'Team' })).body.data;
    const r = (await t.api.post('/recipients', { email: 'member@example.com' })).body.data;
    await t.api.post(`/recipient-groups/${g.groupId}/members`, { recipientId: r.recipientId });
    const order = await t.api.post('/orders/choice-cards', {
      idempotencyKey: key(),
      productId: 'CC-THANK-YOU',
      recipientGroupId: g.groupId,
      amount: 20,
    });
    expect(order.status).toBe(201);
    expect(order.body.data).toMatchObject({
      recipientCount: 1,
      totalCost: { amount: 20 },
      recipientGroupId: g.groupId,
    });
    expect((await t.api.del(`/recipient-groups/${g.groupId}`)).status).toBe(204);
    expect((await t.api.get(`/recipient-groups/${g.groupId}`)).status).toBe(404);
    expect((await t.api.get(`/recipients/${r.recipientId}`)).status).toBe(200);
    const refused = await t.api.post('/orders/choice-cards', {
      idempotencyKey: key(),
      productId: 'CC-THANK-YOU',
      recipientGroupId: g.groupId,
      amount: 20,
    });
    expect([refused.status, refused.body.error.code]).toEqual([404, 'NOT_FOUND']);
    await t.emu.advance(10);
    expect((await t.api.get(`/orders/${order.body.data.orderId}`)).body.data.status).toBe('COMPLETE');
    const empty = (await t.api.post('/recipient-groups', { groupName: 'Empty' })).body.data;
    expect(
      (
        await t.api.post('/orders/choice-cards', {
          idempotencyKey: key(),
          productId: 'CC-THANK-YOU',
          recipientGroupId: empty.groupId,
          amount: 20,
        })
      ).status,
    ).toBe(400);
  });
});

describe('pagination of address-book lists', () => {
  it('property: recipients and members pages cover totalCount exactly; pageSize > 100 is clamped to 20', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 45 }),
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 101, max: 5000 }),
        async (n, pageSize, tooBig) => {
          await t.emu.reset();
          const group = (await t.api.post('/recipient-groups', { groupName: 'All' })).body.data;
          const emails: string[] = [];
          for (let i = 0; i < n; i++) {
            const r = (await t.api.post('/recipients', { email: `p${i}@example.com` })).body.data;
            await t.api.post(`/recipient-groups/${group.groupId}/members`, { recipientId: r.recipientId });
            emails.push(r.email);
          }
          for (const path of ['/recipients', `/recipient-groups/${group.groupId}/members`]) {
            const seen: string[] = [];
            const pages = Math.max(1, Math.ceil(n / pageSize));
            for (let page = 1; page <= pages; page++) {
              const res = await t.api.get(path, { page, pageSize });
              expect(res.body).toMatchObject({ page, pageSize, totalCount: n });
              seen.push(...res.body.data.map((r: any) => r.email));
            }
            expect(seen).toEqual(emails);
            const clamped = await t.api.get(path, { pageSize: tooBig });
            expect(clamped.body.pageSize).toBe(20);
            expect(clamped.body.data).toHaveLength(Math.min(20, n));
          }
        },
      ),
      { numRuns: 6 },
    );
  });
});
