// Exactly-once order creation. The caller persists an idempotency key before calling; every retry
// (connection error, timeout, 5xx, 429) reuses it, and a 409 DUPLICATE_IDEMPOTENCY_KEY means "an order
// with this key exists": we look it up by clientOrderId (spec part 7) and return it, flagged recovered.
import { createHash } from 'node:crypto';

import {
  ErrorCodes,
  RewardsConflictError,
  RewardsOrderRecoveryError,
  RewardsRequestValidationError,
} from '../errors.js';
import { retryDelayMs } from '../rate-limit.js';
import { type OrderSummary, orderSummarySchema } from '../schemas.js';
import type { CreatedOrder, CreateOrderOptions, RequestOptions } from '../types.js';
import { type ResourceContext, send, unwrapData, validateResponse } from './context.js';

/** Longest idempotency key the API accepts (spec part 8, campaign execution); we keep all keys within it. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 64;

export function checkIdempotencyKey(key: unknown): string {
  if (typeof key !== 'string' || key.trim().length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw new RewardsRequestValidationError(
      `idempotencyKey must be a non-empty string of at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`,
      [{ path: ['idempotencyKey'], message: 'invalid' }],
    );
  }
  return key;
}

/**
 * Key of part `part` (1-based) of a split request: `${key}-${part}`; if that would exceed 64
 * characters, the first 48 hex digits of SHA-256(key) stand in for the key. Deterministic, so a
 * retried batch reuses the same keys.
 */
export function deriveIdempotencyKey(key: string, part: number): string {
  const suffix = `-${part}`;
  if (key.length + suffix.length <= MAX_IDEMPOTENCY_KEY_LENGTH) return `${key}${suffix}`;
  return `${createHash('sha256').update(key).digest('hex').slice(0, 48)}${suffix}`;
}

function keyOf(order: OrderSummary): string | undefined {
  return order.clientOrderId ?? order.idempotencyKey;
}

/** GET /api/v1/orders?clientOrderId=<key>: the order created with this key, if any. */
export async function findOrderByKey(
  ctx: ResourceContext,
  key: string,
  options: RequestOptions = {},
): Promise<OrderSummary | undefined> {
  const body = await send(
    ctx,
    { method: 'GET', path: '/api/v1/orders', endpoint: '/api/v1/orders', query: { clientOrderId: key } },
    options,
  );
  const list = Array.isArray(body) ? body : (body as { data?: unknown } | undefined)?.data;
  const orders = validateResponse(orderSummarySchema.array(), list ?? [], '/api/v1/orders');
  const exact = orders.find((order) => keyOf(order) === key);
  if (exact) return exact;
  // Without key fields in the rows we trust the filter only when it matched exactly one order.
  if (orders.length === 1 && keyOf(orders[0]!) === undefined) return orders[0];
  return undefined;
}

export interface CreateCall {
  path: string;
  endpoint: string;
  body: Record<string, unknown>;
}

export async function createOrderOnce(
  ctx: ResourceContext,
  call: CreateCall,
  options: CreateOrderOptions,
): Promise<CreatedOrder> {
  const key = checkIdempotencyKey(options?.idempotencyKey);
  try {
    // The order's own (longer) timeout: a retry after a timeout is a second POST of an order the
    // server is most likely still placing (then a 409 and a lookup): three requests for one order.
    const body = await send(
      ctx,
      {
        method: 'POST',
        path: call.path,
        endpoint: call.endpoint,
        json: { ...call.body, idempotencyKey: key },
        retry: 'safe',
      },
      { ...options, timeoutMs: options.timeoutMs ?? ctx.orderTimeoutMs },
    );
    return { order: validateResponse(orderSummarySchema, unwrapData(body), call.endpoint), recovered: false };
  } catch (error) {
    if (!(error instanceof RewardsConflictError && error.code === ErrorCodes.DUPLICATE_IDEMPOTENCY_KEY)) throw error;
  }
  // The key is taken: our own earlier attempt (or an earlier run) created the order. It may not be
  // visible yet if that attempt is still being processed, so look a few times with backoff.
  for (let attempt = 0; attempt < ctx.recoveryAttempts; attempt++) {
    if (attempt > 0) {
      await ctx.sleep(
        retryDelayMs(attempt - 1, undefined, {
          baseDelayMs: ctx.retryBaseDelayMs,
          maxDelayMs: ctx.maxRetryDelayMs,
          random: ctx.random,
        }),
        options.signal,
      );
    }
    const order = await findOrderByKey(ctx, key, options);
    if (order) return { order, recovered: true };
  }
  throw new RewardsOrderRecoveryError(key, ctx.recoveryAttempts);
}
