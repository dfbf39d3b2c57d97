import { describe, expect, it } from 'vitest';

import { cents, key, useEmulator } from './helpers.js';

const t = useEmulator();

const campaign = (extra: Record<string, unknown> = {}) => ({
  name: 'Quarterly thanks',
  cardType: 'CHOICE_CARD',
  productId: 'CC-THANK-YOU',
  amount: 50,
  subject: 'Thank you!',
  senderName: 'People Team',
  ...extra,
});

describe('templates', () => {
  it('creates a template with defaults and lists it beside the default template', async () => {
    const res = await t.api.post('/templates', { name: 'Brand', senderName: 'Kudos' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      templateId: expect.any(String),
      imageAlignment: 'center',
      imageSize: 40,
      isDefault: false,
    });
    const list = await t.api.get('/templates');
    expect(list.body.totalCount).toBe(2);
    expect(list.body.data.some((t: any) => t.isDefault)).toBe(true);
  });

  it('enforces every field rule', async () => {
    const bad = [
      { senderName: 'x' },
      { name: 'x' },
      { name: 'x'.repeat(101), senderName: 'x' },
      { name: 'x', senderName: 'x', imageAlignment: 'top' },
      { name: 'x', senderName: 'x', imageSize: 0 },
      { name: 'x', senderName: 'x', imageSize: 101 },
      { name: 'x', senderName: 'x', imageSize: 40.5 },
      { name: 'x', senderName: 'x', borderColor: 'red' },
      { name: 'x', senderName: 'x', buttonColor: '#12345' },
      { name: 'x', senderName: 'x', buttonFontColor: '#GGGGGG' },
    ];
    for (const body of bad) {
      const res = await t.api.post('/templates', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
    const edge = await t.api.post('/templates', {
      name: 'x'.repeat(100),
      senderName: 'x',
      imageSize: 100,
      imageAlignment: 'left',
      borderColor: '#aaBB00',
      buttonColor: '#000000',
      buttonFontColor: '#FFFFFF',
    });
    expect(edge.status).toBe(201);
  });

  it('the default template cannot be deleted; one used by an active campaign must be freed first', async () => {
    const def = (await t.api.get('/templates')).body.data.find((t: any) => t.isDefault);
    expect((await t.api.del(`/templates/${def.templateId}`)).body.error.code).toBe('DEFAULT_TEMPLATE');
    const tpl = (await t.api.post('/templates', { name: 'Brand', senderName: 'Kudos' })).body.data;
    const camp = (await t.api.post('/campaigns', campaign({ templateId: tpl.templateId }))).body.data;
    expect((await t.api.del(`/templates/${tpl.templateId}`)).body.error.code).toBe('TEMPLATE_IN_USE');
    await t.api.del(`/campaigns/${camp.campaignId}`);
    expect((await t.api.del(`/templates/${tpl.templateId}`)).status).toBe(204);
    expect((await t.api.get(`/templates/${tpl.templateId}`)).status).toBe(404);
  });

  it('update of a template is not shown by the spec: 501', async () => {
    const res = await t.api.put('/templates/TP-DEFAULT', { name: 'x', senderName: 'y' });
    expect([res.status, res.body.error.code]).toEqual([501, 'NOT_IMPLEMENTED']);
  });
});

describe('campaigns', () => {
  it('CRUD: create (CA- id), get, list with search, replace with PUT, soft delete', async () => {
    const created = await t.api.post('/campaigns', campaign());
    expect(created.status).toBe(201);
    const id = created.body.data.campaignId;
    expect(id).toMatch(/^CA-/);
    expect((await t.api.get(`/campaigns/${id}`)).body.data).toMatchObject({
      name: 'Quarterly thanks',
      amount: 50,
      refundOption: false,
    });
    await t.api.post('/campaigns', campaign({ name: 'Birthday' }));
    expect((await t.api.get('/campaigns', { search: 'quarter' })).body.data.map((c: any) => c.campaignId)).toEqual([
      id,
    ]);
    const put = await t.api.put(`/campaigns/${id}`, campaign({ name: 'Renamed', amount: 75 }));
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({ name: 'Renamed', amount: 75, message: null });
    expect((await t.api.put(`/campaigns/${id}`, { name: 'only a name' })).status).toBe(400);
    expect((await t.api.del(`/campaigns/${id}`)).status).toBe(204);
    expect((await t.api.get(`/campaigns/${id}`)).status).toBe(404);
    expect((await t.api.get('/campaigns')).body.totalCount).toBe(1);
    const exec = await t.api.post(`/campaigns/${id}/orders`, {
      idempotencyKey: key(),
      recipients: [{ email: 'a@example.com' }],
    });
    expect(exec.status).toBe(404);
  });

  it('validates the campaign fields', async () => {
    for (const body of [
      campaign({ cardType: 'BRANDED_CARD' }),
      campaign({ amount: 10.5 }),
      campaign({ amount: 0 }),
      campaign({ amount: 501 }),
      campaign({ subject: undefined }),
      campaign({ refundOptionDays: 30 }),
      campaign({ refundOption: true, refundOptionDays: 15 }),
    ]) {
      expect((await t.api.post('/campaigns', body)).status, JSON.stringify(body)).toBe(400);
    }
    expect((await t.api.post('/campaigns', campaign({ productId: 'CC-NOPE' }))).status).toBe(404);
    expect((await t.api.post('/campaigns', campaign({ templateId: 'TP-NOPE' }))).status).toBe(404);
  });

  it('executes with recipients: a CAMPAIGN order, charged amount x recipients, sent immediately with overrides', async () => {
    const id = (await t.api.post('/campaigns', campaign())).body.data.campaignId;
    const before = cents((await t.api.get('/balance')).body.data.availableBalance.amount);
    const res = await t.api.post(`/campaigns/${id}/orders`, {
      idempotencyKey: key(),
      recipients: [{ email: 'a@example.com', firstName: 'A' }, { email: 'b@example.com' }],
      subject: 'Override',
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      orderType: 'CAMPAIGN',
      cardType: 'CHOICE_CARD',
      totalCost: { amount: 100, currency: 'USD' },
      recipientCount: 2,
      campaignId: id,
    });
    expect(before - cents((await t.api.get('/balance')).body.data.availableBalance.amount)).toBe(10_000);
    await t.emu.advance(10);
    const emails = (await t.emu.emails()) as any[];
    expect(emails.map((e) => [e.to, e.subject, e.senderName, e.amount])).toEqual([
      ['a@example.com', 'Override', 'People Team', 50],
      ['b@example.com', 'Override', 'People Team', 50],
    ]);
  });

  it('executes with a recipient group', async () => {
    const id = (await t.api.post('/campaigns', campaign())).body.data.campaignId;
    const group = (await t.api.post('/recipient-groups', { groupName: 'Team' })).body.data;
    for (const email of ['x@example.com', 'y@example.com', 'z@example.com']) {
      const r = (await t.api.post('/recipients', { email })).body.data;
      await t.api.post(`/recipient-groups/${group.groupId}/members`, { recipientId: r.recipientId });
    }
    const res = await t.api.post(`/campaigns/${id}/orders`, { idempotencyKey: key(), recipientGroupId: group.groupId });
    expect(res.body.data).toMatchObject({ recipientCount: 3, totalCost: { amount: 150 } });
  });

  it('exactly one of recipients or recipientGroupId; key max 64; override length limits', async () => {
    const id = (await t.api.post('/campaigns', campaign())).body.data.campaignId;
    const r = [{ email: 'a@example.com' }];
    const cases: Array<[Record<string, unknown>, number]> = [
      [{ idempotencyKey: key() }, 400],
      [{ idempotencyKey: key(), recipients: r, recipientGroupId: 'GR-1' }, 400],
      [{ recipients: r }, 400],
      [{ idempotencyKey: 'k'.repeat(65), recipients: r }, 400],
      [{ idempotencyKey: key(), recipients: r, senderName: 's'.repeat(101) }, 400],
      [{ idempotencyKey: key(), recipients: r, subject: 's'.repeat(201) }, 400],
      [{ idempotencyKey: key(), recipients: r, message: 's'.repeat(2001) }, 400],
      [
        {
          idempotencyKey: 'k'.repeat(64),
          recipients: r,
          senderName: 's'.repeat(100),
          subject: 's'.repeat(200),
          message: 'm'.repeat(2000),
        },
        201,
      ],
    ];
    for (const [body, status] of cases)
      expect((await t.api.post(`/campaigns/${id}/orders`, body)).status, JSON.stringify(body).slice(0, 120)).toBe(
        status,
      );
  });

  it('a repeated execute key is 409 DUPLICATE_IDEMPOTENCY_KEY (shared with orders), the original untouched', async () => {
    const id = (await t.api.post('/campaigns', campaign())).body.data.campaignId;
    const k = key();
    const first = await t.api.post(`/campaigns/${id}/orders`, {
      idempotencyKey: k,
      recipients: [{ email: 'a@example.com' }],
    });
    const again = await t.api.post(`/campaigns/${id}/orders`, {
      idempotencyKey: k,
      recipients: [{ email: 'b@example.com' }],
    });
    expect([again.status, again.body.error.code]).toEqual([409, 'DUPLICATE_IDEMPOTENCY_KEY']);
    const found = (await t.api.get('/orders', { clientOrderId: k })).body.data;
    expect(found.map((o: any) => o.orderId)).toEqual([first.body.data.orderId]);
    const asOrder = await t.api.post('/orders/choice-cards', {
      idempotencyKey: k,
      productId: 'CC-THANK-YOU',
      recipients: [{ email: 'c@example.com', amount: 5 }],
    });
    expect(asOrder.status).toBe(409);
  });

  it('the balance must cover amount x recipients', async () => {
    const id = (await t.api.post('/campaigns', campaign())).body.data.campaignId;
    await t.emu.setBalance(99);
    const res = await t.api.post(`/campaigns/${id}/orders`, {
      idempotencyKey: key(),
      recipients: [{ email: 'a@example.com' }, { email: 'b@example.com' }],
    });
    expect([res.status, res.body.error.code]).toEqual([402, 'INSUFFICIENT_BALANCE']);
  });
});
