// Shared plumbing of the resource modules: authenticated calls, request and response validation,
// list endpoints.
import { z } from 'zod';

import { RewardsRequestValidationError, RewardsResponseValidationError } from '../errors.js';
import { createListResult, type RawPage } from '../pagination.js';
import { pageSchema } from '../schemas.js';
import type { HttpCall, TokenSource, Transport } from '../transport.js';
import type { ListResult, PageQuery, RequestOptions } from '../types.js';

export interface ResourceContext {
  transport: Transport;
  auth: TokenSource;
  /** Per-attempt timeout of order creation when the call names none (createRewardsClient's orderTimeoutMs). */
  orderTimeoutMs: number;
  recoveryAttempts: number;
  retryBaseDelayMs: number;
  maxRetryDelayMs: number;
  random: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export type ApiCall = Omit<HttpCall, 'auth' | 'signal' | 'timeoutMs' | 'retry'> & { retry?: HttpCall['retry'] };

/** Encodes one path segment; an empty id would silently hit the list route, so it is refused. */
export function segment(name: string, value: string): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new RewardsRequestValidationError(`${name} must be a non-empty string`, [
      { path: [name], message: 'required' },
    ]);
  }
  // encodeURIComponent leaves dots alone, and URL resolution would turn `groups/../members` into
  // `members`: a path segment of dots alone is never an id.
  if (/^\.{1,2}$/.test(value)) {
    throw new RewardsRequestValidationError(`${name} must be an id, not a dot segment`, [
      { path: [name], message: 'dot segment' },
    ]);
  }
  return encodeURIComponent(value);
}

/** Validates call parameters before anything is sent. */
export function parseParams<S extends z.ZodType>(schema: S, params: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(params);
  if (!parsed.success) {
    throw new RewardsRequestValidationError(`Invalid ${what}: ${z.prettifyError(parsed.error)}`, parsed.error.issues);
  }
  return parsed.data;
}

/** `{data: {...}}` -> the inner object; anything else unchanged (single resources may come bare). */
export function unwrapData(body: unknown): unknown {
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
    const data = (body as { data?: unknown }).data;
    if (typeof data === 'object' && data !== null && !Array.isArray(data)) return data;
  }
  return body;
}

export function validateResponse<S extends z.ZodType>(schema: S, body: unknown, endpoint: string): z.output<S> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    throw new RewardsResponseValidationError(endpoint, z.prettifyError(parsed.error), body, parsed.error.issues);
  }
  return parsed.data;
}

/** Sends an authenticated call. GET/DELETE are retried on transient failures; others only if unsent. */
export async function send(ctx: ResourceContext, call: ApiCall, options: RequestOptions = {}): Promise<unknown> {
  const retry = call.retry ?? (call.method === 'GET' || call.method === 'DELETE' ? 'safe' : 'unsent-only');
  const result = await ctx.transport.call({
    ...call,
    retry,
    auth: ctx.auth,
    signal: options.signal,
    timeoutMs: options.timeoutMs,
  });
  return result.body;
}

/** Sends an authenticated call and validates the (possibly `{data}`-wrapped) single resource. */
export async function sendFor<S extends z.ZodType>(
  ctx: ResourceContext,
  call: ApiCall,
  schema: S,
  options?: RequestOptions,
): Promise<z.output<S>> {
  const body = await send(ctx, call, options);
  return validateResponse(schema, unwrapData(body), call.endpoint);
}

type QueryValue = string | number | boolean | undefined;

/** A list endpoint as a ListResult; `query` holds the filters besides page and pageSize. */
export function listFor<S extends z.ZodType>(
  ctx: ResourceContext,
  route: { path: string; endpoint: string },
  itemSchema: S,
  query: PageQuery & Record<string, QueryValue | Date>,
  options: RequestOptions = {},
): ListResult<z.output<S>> {
  const schema = pageSchema(itemSchema);
  const filters: Record<string, QueryValue> = {};
  for (const [name, value] of Object.entries(query)) {
    if (name === 'page' || name === 'pageSize') continue;
    filters[name] = value instanceof Date ? value.toISOString().slice(0, 10) : value;
  }
  return createListResult(async (page, pageSize): Promise<RawPage<z.output<S>>> => {
    const body = await send(ctx, { method: 'GET', ...route, query: { ...filters, page, pageSize } }, options);
    // Tolerate a bare array as a single, complete page.
    const raw = Array.isArray(body) ? { data: body, totalCount: body.length } : body;
    return validateResponse(schema, raw, route.endpoint);
  }, query);
}
