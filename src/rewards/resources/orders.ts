// Orders (spec 4.3): list, detail, branded/choice/reward-link creation (exactly once), cancel, resend,
// test e-mail and limit-increase requests.
import { ErrorCodes, RewardsConflictError } from '../errors.js';
import { toApiNumber } from '../money.js';
import {
  type CanceledOrder,
  canceledOrderSchema,
  type CardOrderParams,
  cardOrderParamsSchema,
  type LimitIncreaseParams,
  limitIncreaseParamsSchema,
  type LimitIncreaseResult,
  limitIncreaseResultSchema,
  orderSchema,
  orderSummarySchema,
  resendParamsSchema,
  resendResultSchema,
  type RewardLinkParams,
  rewardLinkParamsSchema,
  type TestEmailParams,
  testEmailParamsSchema,
  type TestEmailResult,
  testEmailResultSchema,
} from '../schemas.js';
import { tryParseApiTimestamp } from '../time.js';
import type { CreatedOrder, CreatedRewardLinks, CreateOrderOptions, OrdersResource, RequestOptions } from '../types.js';
import { listFor, parseParams, type ResourceContext, segment, sendFor } from './context.js';
import { checkIdempotencyKey, createOrderOnce, deriveIdempotencyKey, findOrderByKey } from './idempotency.js';

/** Largest reward-link quantity per request (spec 4.3 and 8). */
export const MAX_LINKS_PER_REQUEST = 500;

/** Request body of a card order: amounts as JSON numbers, a Date `scheduledAt` as an ISO instant. */
function cardOrderBody(params: CardOrderParams): Record<string, unknown> {
  const parsed = parseParams(cardOrderParamsSchema, params, 'order parameters');
  const body: Record<string, unknown> = { ...parsed };
  if (parsed.recipients) {
    body.recipients = parsed.recipients.map((recipient) => ({ ...recipient, amount: toApiNumber(recipient.amount) }));
  }
  if (parsed.sendTiming?.type === 'SCHEDULED') {
    const { scheduledAt } = parsed.sendTiming;
    body.sendTiming = {
      ...parsed.sendTiming,
      scheduledAt: scheduledAt instanceof Date ? scheduledAt.toISOString() : scheduledAt,
    };
  }
  return body;
}

/** Splits a quantity into request-sized parts: 1200 -> [500, 500, 200]. */
export function splitQuantity(quantity: number): number[] {
  const parts: number[] = [];
  for (let left = quantity; left > 0; left -= MAX_LINKS_PER_REQUEST) parts.push(Math.min(MAX_LINKS_PER_REQUEST, left));
  return parts;
}

export function ordersResource(ctx: ResourceContext): OrdersResource {
  return {
    list: (query = {}, options) =>
      listFor(ctx, { path: '/api/v1/orders', endpoint: '/api/v1/orders' }, orderSummarySchema, { ...query }, options),

    get: async (orderId, options) =>
      sendFor(
        ctx,
        { method: 'GET', path: `/api/v1/orders/${segment('orderId', orderId)}`, endpoint: '/api/v1/orders/{orderId}' },
        orderSchema,
        options,
      ),

    findByClientOrderId: async (idempotencyKey, options) => findOrderByKey(ctx, idempotencyKey, options),

    createChoice: async (params, options) =>
      createOrderOnce(
        ctx,
        { path: '/api/v1/orders/choice-cards', endpoint: '/api/v1/orders/choice-cards', body: cardOrderBody(params) },
        options,
      ),

    createBranded: async (params, options) =>
      createOrderOnce(
        ctx,
        { path: '/api/v1/orders/branded-cards', endpoint: '/api/v1/orders/branded-cards', body: cardOrderBody(params) },
        options,
      ),

    createRewardLinks: (params, options) => createRewardLinks(ctx, params, options),

    cancel: (orderId, options) => cancelOrder(ctx, orderId, options),

    resend: async (orderId, params, options) =>
      sendFor(
        ctx,
        {
          method: 'POST',
          path: `/api/v1/orders/${segment('orderId', orderId)}/resend`,
          endpoint: '/api/v1/orders/{orderId}/resend',
          json: parseParams(resendParamsSchema, params, 'resend parameters'),
        },
        resendResultSchema,
        options,
      ),

    sendTestEmail: (params, options) => sendTestEmail(ctx, params, options),

    requestLimitIncrease: (params, options) => requestLimitIncrease(ctx, params, options),
  };
}

async function createRewardLinks(
  ctx: ResourceContext,
  params: RewardLinkParams,
  options: CreateOrderOptions,
): Promise<CreatedRewardLinks> {
  const parsed = parseParams(rewardLinkParamsSchema, params, 'reward-link parameters');
  const key = checkIdempotencyKey(options?.idempotencyKey);
  const parts = splitQuantity(parsed.quantity);
  const orders: CreatedOrder[] = [];
  // Sequential, so a failure leaves a prefix done; calling again with the same key recovers the
  // finished parts (409 -> lookup) and creates the rest.
  for (const [index, quantity] of parts.entries()) {
    const partKey = parts.length === 1 ? key : deriveIdempotencyKey(key, index + 1);
    orders.push(
      await createOrderOnce(
        ctx,
        {
          path: '/api/v1/orders/reward-links',
          endpoint: '/api/v1/orders/reward-links',
          body: { ...parsed, quantity, amountPerLink: toApiNumber(parsed.amountPerLink) },
        },
        { ...options, idempotencyKey: partKey },
      ),
    );
  }
  return { order: orders[0]!.order, recovered: orders.some((order) => order.recovered), orders };
}

async function cancelOrder(
  ctx: ResourceContext,
  orderId: string,
  options: RequestOptions | undefined,
): Promise<CanceledOrder> {
  const path = `/api/v1/orders/${segment('orderId', orderId)}`;
  try {
    const canceled = await sendFor(
      ctx,
      { method: 'DELETE', path, endpoint: '/api/v1/orders/{orderId}' },
      canceledOrderSchema,
      options,
    );
    return { ...canceled, alreadyCanceled: false };
  } catch (error) {
    if (!(error instanceof RewardsConflictError && error.code === ErrorCodes.ORDER_NOT_CANCELABLE)) throw error;
    // A retried DELETE whose first answer was lost (or a double click) meets "not cancelable"
    // because the order IS canceled: report the cancellation instead of an error.
    const order = await sendFor(
      ctx,
      { method: 'GET', path, endpoint: '/api/v1/orders/{orderId}' },
      orderSchema,
      options,
    );
    if (order.status !== 'CANCELED') throw error;
    const canceledAt = (order as Record<string, unknown>).canceledAt;
    const refundOption = order.refundOption ?? false;
    return {
      ...order,
      orderId: order.orderId,
      status: order.status,
      canceledAt: typeof canceledAt === 'string' ? tryParseApiTimestamp(canceledAt) : undefined,
      refundOption,
      refundOptionDays: refundOption ? (order.refundOptionDays ?? 30) : null,
      alreadyCanceled: true,
    };
  }
}

async function sendTestEmail(
  ctx: ResourceContext,
  params: TestEmailParams,
  options: RequestOptions | undefined,
): Promise<TestEmailResult> {
  const parsed = parseParams(testEmailParamsSchema, params, 'test e-mail parameters');
  return sendFor(
    ctx,
    {
      method: 'POST',
      path: '/api/v1/orders/test-email',
      endpoint: '/api/v1/orders/test-email',
      json: { ...parsed, amount: toApiNumber(parsed.amount) },
    },
    testEmailResultSchema,
    options,
  );
}

async function requestLimitIncrease(
  ctx: ResourceContext,
  params: LimitIncreaseParams,
  options: RequestOptions | undefined,
): Promise<LimitIncreaseResult> {
  const parsed = parseParams(limitIncreaseParamsSchema, params, 'limit-increase parameters');
  return sendFor(
    ctx,
    {
      method: 'POST',
      path: '/api/v1/orders/limit-increase-requests',
      endpoint: '/api/v1/orders/limit-increase-requests',
      json: {
        ...parsed,
        currentDailyLimitUsd: toApiNumber(parsed.currentDailyLimitUsd),
        currentMonthlyLimitUsd: toApiNumber(parsed.currentMonthlyLimitUsd),
        requestedDailyLimitUsd: toApiNumber(parsed.requestedDailyLimitUsd),
        requestedMonthlyLimitUsd: toApiNumber(parsed.requestedMonthlyLimitUsd),
      },
    },
    limitIncreaseResultSchema,
    options,
  );
}
