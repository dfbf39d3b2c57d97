import type { Context } from 'hono';
import { z } from 'zod';

import { readBody, readJson, validate } from '../http/body.js';
import { pageRequest, paginate } from '../http/pagination.js';
import { Amount, CardTypeField, Email, IdempotencyKey } from '../http/schemas.js';
import { scoped } from '../http/scoped.js';
import type { EmulatorApp, EmulatorEnv } from '../http/types.js';
import type { EmulatorCore } from '../state/core.js';
import { serializeCanceled, serializeOrderDetail, serializeOrderSummary } from '../state/orders.js';
import { isoUtc, parseDay } from '../time.js';

const RecipientSchema = z.object({
  email: Email,
  amount: Amount,
  firstName: z.string().max(100).optional(),
  lastName: z.string().max(100).optional(),
  company: z.string().max(200).optional(),
  department: z.string().max(200).optional(),
});

const SendTiming = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('IMMEDIATE'),
    scheduledAt: z.undefined({ message: 'is forbidden for IMMEDIATE' }).optional(),
    timezone: z.undefined({ message: 'is forbidden for IMMEDIATE' }).optional(),
  }),
  z.object({
    type: z.literal('SCHEDULED'),
    scheduledAt: z.string({ message: 'is required for SCHEDULED' }).min(1),
    timezone: z.string({ message: 'is required for SCHEDULED' }).min(1),
  }),
]);

const EmailSettingSchema = z.object({
  senderName: z.string().min(1).max(100),
  subject: z.string().min(1).max(200),
  message: z.string().max(2000).optional(),
  templateId: z.string().min(1).optional(),
});

const CardOrderSchema = z
  .object({
    idempotencyKey: IdempotencyKey,
    productId: z.string().min(1),
    sendTiming: SendTiming.optional(),
    emailSetting: EmailSettingSchema.optional(),
    recipients: z.array(RecipientSchema).optional(),
    recipientGroupId: z.string().min(1).optional(),
    amount: Amount.optional(),
    refundOption: z.boolean().optional(),
    refundOptionDays: z.number().int().optional(),
  })
  .refine((b) => (b.recipients === undefined) !== (b.recipientGroupId === undefined), {
    message: 'exactly one of recipients or recipientGroupId must be given',
    path: ['recipients'],
  })
  .refine((b) => b.recipientGroupId === undefined || b.amount !== undefined, {
    message: 'amount is required with recipientGroupId',
    path: ['amount'],
  });

const RewardLinkSchema = z.object({
  idempotencyKey: IdempotencyKey,
  cardType: CardTypeField,
  productId: z.string().min(1),
  quantity: z.number().int('must be an integer').min(1).max(500, 'at most 500 links per request'),
  amountPerLink: Amount,
  refundOption: z.boolean().optional(),
  refundOptionDays: z.number().int().optional(),
});

const ListQuery = z.object({
  orderType: z.enum(['ONE_TIME', 'SMART', 'LINK', 'CAMPAIGN', 'REWARD']).optional(),
  cardType: CardTypeField.optional(),
  status: z.enum(['PENDING', 'IN_PROGRESS', 'COMPLETE', 'CANCELED']).optional(),
  startDate: z
    .string()
    .refine((s) => parseDay(s) !== undefined, 'must be a date YYYY-MM-DD')
    .optional(),
  endDate: z
    .string()
    .refine((s) => parseDay(s) !== undefined, 'must be a date YYYY-MM-DD')
    .optional(),
  searchKeyword: z.string().max(200).optional(),
  clientOrderId: z.string().max(255).optional(),
});

const ResendSchema = z.object({
  recipients: z
    .array(z.object({ email: Email, updatedEmail: Email.optional() }))
    .min(1)
    .max(500),
});

const TestEmailSchema = z.object({
  email: Email,
  productId: z.string().min(1),
  amount: Amount,
  emailSubject: z.string().min(1).max(200),
  senderName: z.string().min(1).max(100).optional(),
  emailMessage: z.string().max(2000).optional(),
  templateId: z.string().min(1).optional(),
});

const Usd = z.number().finite().nonnegative();
const LimitIncreaseSchema = z.object({
  currentDailyLimitUsd: Usd,
  currentMonthlyLimitUsd: Usd,
  requestedDailyLimitUsd: Usd,
  requestedMonthlyLimitUsd: Usd,
});

/** Spec 4.3. */
export function registerOrderRoutes(app: EmulatorApp, core: EmulatorCore): void {
  const orders = core.orders;
  const limit = core.config.bodyLimitBytes;
  const envOf = (c: Context<EmulatorEnv>) => core.env(c.get('grant').env);
  const base = '/api/v1/orders';

  /** Idempotency first: a reused key is a 409 whatever the rest of the body says. */
  async function orderBody<S extends z.ZodType>(c: Context<EmulatorEnv>, schema: S): Promise<z.infer<S>> {
    const raw = await readJson(c, limit);
    if (typeof raw === 'object' && raw !== null)
      orders.assertKeyUnused(envOf(c), (raw as { idempotencyKey?: unknown }).idempotencyKey);
    return validate(schema, raw);
  }

  app.get(base, scoped('orders.read'), (c) => {
    const q = validate(ListQuery, c.req.query(), 'Query');
    return c.json(paginate(orders.list(envOf(c), q), pageRequest(c.req.query()), serializeOrderSummary));
  });

  app.post(`${base}/branded-cards`, scoped('orders.write'), async (c) => {
    const body = await orderBody(c, CardOrderSchema);
    return c.json({ data: serializeOrderSummary(orders.createCardOrder(envOf(c), 'BRANDED_CARD', body)) }, 201);
  });
  app.post(`${base}/choice-cards`, scoped('orders.write'), async (c) => {
    const body = await orderBody(c, CardOrderSchema);
    return c.json({ data: serializeOrderSummary(orders.createCardOrder(envOf(c), 'CHOICE_CARD', body)) }, 201);
  });
  app.post(`${base}/reward-links`, scoped('orders.write'), async (c) => {
    const body = await orderBody(c, RewardLinkSchema);
    return c.json({ data: serializeOrderSummary(orders.createRewardLinks(envOf(c), body)) }, 201);
  });

  app.post(`${base}/test-email`, scoped('orders.write'), async (c) => {
    const body = await readBody(c, limit, TestEmailSchema);
    const sent = orders.sendTestEmail(envOf(c), body);
    return c.json({
      data: { sentTo: sent.sentTo, status: 'SENT', remainingToday: sent.remainingToday, sentAt: isoUtc(sent.sentAtMs) },
    });
  });

  app.post(`${base}/limit-increase-requests`, scoped('orders.write'), async (c) => {
    const body = await readBody(c, limit, LimitIncreaseSchema);
    const request = orders.requestLimitIncrease(envOf(c), body);
    return c.json(
      {
        data: {
          limitRequestId: request.requestId,
          status: 'PENDING_REVIEW',
          message: 'Your limit increase request was received and will be reviewed within 1-2 business days.',
          requestedDailyLimitUsd: request.requestedDailyCents / 100,
          requestedMonthlyLimitUsd: request.requestedMonthlyCents / 100,
        },
      },
      201,
    );
  });

  app.get(`${base}/:orderId`, scoped('orders.read'), (c) =>
    c.json({ data: serializeOrderDetail(orders.get(envOf(c), c.req.param('orderId'))) }),
  );

  // Cancel: DELETE on the order, and POST on its /cancel path (our choice of method); same answer.
  app.delete(`${base}/:orderId`, scoped('orders.cancel'), (c) =>
    c.json({ data: serializeCanceled(orders.cancel(envOf(c), c.req.param('orderId'))) }),
  );
  app.post(`${base}/:orderId/cancel`, scoped('orders.cancel'), (c) =>
    c.json({ data: serializeCanceled(orders.cancel(envOf(c), c.req.param('orderId'))) }),
  );

  app.post(`${base}/:orderId/resend`, scoped('orders.write'), async (c) => {
    const body = await readBody(c, limit, ResendSchema);
    const { order, resentTo } = orders.resend(envOf(c), c.req.param('orderId'), body.recipients);
    return c.json({ data: { orderId: order.orderId, requeued: true, resentToEmails: resentTo } });
  });
}
