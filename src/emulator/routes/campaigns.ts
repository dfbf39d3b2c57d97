import type { Context } from 'hono';
import { z } from 'zod';

import { readBody, readJson, validate } from '../http/body.js';
import { pageRequest, paginate } from '../http/pagination.js';
import { Amount, Email } from '../http/schemas.js';
import { scoped } from '../http/scoped.js';
import type { EmulatorApp, EmulatorEnv } from '../http/types.js';
import { serializeCampaign } from '../state/campaigns.js';
import type { EmulatorCore } from '../state/core.js';
import { serializeOrderSummary } from '../state/orders.js';

const CampaignSchema = z.object({
  name: z.string().min(1).max(200),
  cardType: z.literal('CHOICE_CARD', { message: 'must be CHOICE_CARD' }),
  productId: z.string().min(1),
  amount: Amount,
  subject: z.string().min(1).max(200),
  senderName: z.string().min(1).max(100),
  message: z.string().max(2000).optional(),
  templateId: z.string().min(1).optional(),
  refundOption: z.boolean().optional(),
  refundOptionDays: z.number().int().optional(),
});

const ExecuteSchema = z
  .object({
    idempotencyKey: z.string().min(1, 'is required').max(64, 'at most 64 characters'),
    recipients: z
      .array(
        z.object({ email: Email, firstName: z.string().max(100).optional(), lastName: z.string().max(100).optional() }),
      )
      .min(1)
      .optional(),
    recipientGroupId: z.string().min(1).optional(),
    senderName: z.string().min(1).max(100, 'at most 100 characters').optional(),
    subject: z.string().min(1).max(200, 'at most 200 characters').optional(),
    message: z.string().max(2000, 'at most 2000 characters').optional(),
  })
  .refine((b) => (b.recipients === undefined) !== (b.recipientGroupId === undefined), {
    message: 'exactly one of recipients or recipientGroupId must be given',
    path: ['recipients'],
  });

/** Spec 4.4. */
export function registerCampaignRoutes(app: EmulatorApp, core: EmulatorCore): void {
  const limit = core.config.bodyLimitBytes;
  const envOf = (c: Context<EmulatorEnv>) => core.env(c.get('grant').env);
  const base = '/api/v1/campaigns';

  app.get(base, scoped('campaigns.read'), (c) => {
    const q = validate(z.object({ search: z.string().max(200).optional() }), c.req.query(), 'Query');
    return c.json(paginate(core.campaigns.list(envOf(c), q.search), pageRequest(c.req.query()), serializeCampaign));
  });
  app.get(`${base}/:campaignId`, scoped('campaigns.read'), (c) =>
    c.json({ data: serializeCampaign(core.campaigns.get(envOf(c), c.req.param('campaignId'))) }),
  );
  app.post(base, scoped('campaigns.write'), async (c) => {
    const body = await readBody(c, limit, CampaignSchema);
    return c.json({ data: serializeCampaign(core.campaigns.create(envOf(c), body)) }, 201);
  });
  app.put(`${base}/:campaignId`, scoped('campaigns.write'), async (c) => {
    const body = await readBody(c, limit, CampaignSchema);
    return c.json({ data: serializeCampaign(core.campaigns.update(envOf(c), c.req.param('campaignId'), body)) });
  });
  app.delete(`${base}/:campaignId`, scoped('campaigns.write'), (c) => {
    core.campaigns.delete(envOf(c), c.req.param('campaignId'));
    return c.body(null, 204);
  });
  app.post(`${base}/:campaignId/orders`, scoped('campaigns.write', 'orders.write'), async (c) => {
    const raw = await readJson(c, limit);
    // A repeated key is a 409 like every other order creation (our choice; see docs/architecture/emulator.md).
    if (typeof raw === 'object' && raw !== null)
      core.orders.assertKeyUnused(envOf(c), (raw as { idempotencyKey?: unknown }).idempotencyKey);
    const body = validate(ExecuteSchema, raw);
    return c.json(
      { data: serializeOrderSummary(core.campaigns.execute(envOf(c), c.req.param('campaignId'), body)) },
      201,
    );
  });
}
