// The one HTTP transport of the client: undici with a keep-alive Agent, per-attempt timeouts, caller
// abort signals, the rate-limit budget, the 401 renew-once rule, the retry policy and the onCall hook.
import { setTimeout as delay } from 'node:timers/promises';

import { Agent, request } from 'undici';

import {
  errorFromResponse,
  RewardsAbortError,
  RewardsApiError,
  RewardsConnectionError,
  RewardsError,
  RewardsTimeoutError,
} from './errors.js';
import { RateLimitBudget, retryDelayMs, serverRetryDelayMs } from './rate-limit.js';
import type { CallInfo, RateGate } from './types.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * Which failures may be retried.
 * - `safe`: GET, DELETE, the token request, and order creation with an idempotency key: retried on
 *   connection errors, timeouts, 5xx and 429.
 * - `unsent-only`: other POST/PUT: retried only when the request certainly was not processed (429,
 *   connection refused).
 */
export type RetryPolicy = 'safe' | 'unsent-only';

/** Supplies bearer tokens; `invalidate` drops a token the API refused. */
export interface TokenSource {
  get(signal?: AbortSignal): Promise<string>;
  invalidate(token: string): void;
}

export interface HttpCall {
  method: HttpMethod;
  /** Path with parameters filled in, e.g. `/api/v1/orders/O-1`. */
  path: string;
  /** Route template for metrics and errors, e.g. `/api/v1/orders/{orderId}`. */
  endpoint: string;
  query?: Record<string, string | number | boolean | undefined> | undefined;
  json?: unknown;
  form?: Record<string, string>;
  retry: RetryPolicy;
  auth?: TokenSource | undefined;
  tokenEndpoint?: boolean;
  signal?: AbortSignal | undefined;
  timeoutMs?: number | undefined;
}

export interface HttpResult {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON, the raw text if not JSON, or undefined if empty. */
  body: unknown;
}

export interface TransportConfig {
  baseUrl: string;
  timeoutMs: number;
  maxRetries: number;
  retryBaseDelayMs: number;
  maxRetryDelayMs: number;
  connections: number;
  onCall?: ((info: CallInfo) => void) | undefined;
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
  rateGate?: RateGate | undefined;
  maxRateLimitRetries?: number | undefined;
}

/** Sleeps `ms`, rejecting with RewardsAbortError if the signal fires. */
export async function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0) {
    if (signal?.aborted) throw new RewardsAbortError(undefined, { cause: signal.reason });
    return;
  }
  try {
    await delay(ms, undefined, signal ? { signal } : undefined);
  } catch (error) {
    throw new RewardsAbortError(undefined, { cause: error });
  }
}

function normaliseHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function parseBody(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function lowLevelCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function isRetryable(error: RewardsError, policy: RetryPolicy): boolean {
  if (error instanceof RewardsAbortError) return false;
  if (error instanceof RewardsApiError) {
    if (error.status === 429) return true;
    return policy === 'safe' && error.status >= 500;
  }
  if (error instanceof RewardsConnectionError) return policy === 'safe' || error.notSent;
  if (error instanceof RewardsTimeoutError) return policy === 'safe';
  return false;
}

export class Transport {
  readonly budget: RateLimitBudget;
  private readonly agent: Agent;
  private readonly origin: URL;

  constructor(readonly config: TransportConfig) {
    this.origin = new URL(config.baseUrl.endsWith('/') ? config.baseUrl : `${config.baseUrl}/`);
    this.agent = new Agent({ connections: config.connections, keepAliveTimeout: 4_000, keepAliveMaxTimeout: 30_000 });
    this.budget = new RateLimitBudget(config.now, config.maxRetryDelayMs);
  }

  /** Sends the call with retries; resolves with a 2xx answer or throws a RewardsError. */
  async call(call: HttpCall): Promise<HttpResult> {
    let retries = 0;
    let rateLimitedRetries = 0;
    let renewedToken = false;
    const gate = call.tokenEndpoint ? undefined : this.config.rateGate;
    // Set once an attempt may have reached the server without us seeing the answer.
    let ambiguousAttempt = false;
    for (;;) {
      if (call.signal?.aborted) throw new RewardsAbortError(undefined, { cause: call.signal.reason });
      if (gate) await gate.acquire(call.signal);
      else await this.config.sleep(this.budget.reserve(), call.signal);
      const token = call.auth ? await call.auth.get(call.signal) : undefined;
      let error: RewardsError;
      try {
        const result = await this.attempt(call, token);
        if (gate) await gate.observe(result.status, result.headers);
        if (result.status >= 200 && result.status < 300) return result;
        if (result.status === 404 && call.method === 'DELETE' && ambiguousAttempt) {
          // The earlier, unanswered DELETE did its work: the resource is gone, as asked.
          return { status: 204, headers: result.headers, body: undefined };
        }
        if (result.status === 401 && call.auth && token !== undefined && !renewedToken) {
          // The token went stale (expired or revoked early): renew it once and try again.
          call.auth.invalidate(token);
          renewedToken = true;
          continue;
        }
        error = errorFromResponse({
          status: result.status,
          headers: result.headers,
          body: result.body,
          method: call.method,
          endpoint: call.endpoint,
          tokenEndpoint: call.tokenEndpoint ?? false,
          retryAfterMs: serverRetryDelayMs(result.status, result.headers, this.config.now()),
        });
      } catch (thrown) {
        if (!(thrown instanceof RewardsError)) throw thrown;
        error = thrown;
      }
      if (error instanceof RewardsTimeoutError || (error instanceof RewardsConnectionError && !error.notSent))
        ambiguousAttempt = true;
      if (
        gate &&
        error instanceof RewardsApiError &&
        error.status === 429 &&
        rateLimitedRetries < (this.config.maxRateLimitRetries ?? 20)
      ) {
        // The gate learned the reset from this answer: the retry waits for its turn there, behind
        // the requests already queued, one interval apart (never a burst at the window start).
        rateLimitedRetries += 1;
        continue;
      }
      if (retries >= this.config.maxRetries || !isRetryable(error, call.retry)) throw error;
      const wait = retryDelayMs(retries, error instanceof RewardsApiError ? error.retryAfterMs : undefined, {
        baseDelayMs: this.config.retryBaseDelayMs,
        maxDelayMs: this.config.maxRetryDelayMs,
        random: this.config.random,
      });
      retries += 1;
      const stop = gate?.stopSignal;
      await this.config.sleep(wait, stop ? (call.signal ? AbortSignal.any([call.signal, stop]) : stop) : call.signal);
    }
  }

  /** One HTTP exchange; non-2xx answers are returned, transport failures thrown as RewardsErrors. */
  private async attempt(call: HttpCall, token: string | undefined): Promise<HttpResult> {
    const url = new URL(call.path.replace(/^\//, ''), this.origin);
    for (const [name, value] of Object.entries(call.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = { accept: 'application/json' };
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    let body: string | undefined;
    if (call.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(call.form).toString();
    } else if (call.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(call.json);
    }

    const timeoutMs = call.timeoutMs ?? this.config.timeoutMs;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onCallerAbort = () => controller.abort();
    call.signal?.addEventListener('abort', onCallerAbort, { once: true });
    const started = performance.now();
    const report = (status: number | 'network', code?: string) => {
      try {
        this.config.onCall?.({
          method: call.method,
          endpoint: call.endpoint,
          status,
          ...(code ? { code } : {}),
          ms: performance.now() - started,
        });
      } catch {
        // a metrics hook must never break a call
      }
    };

    try {
      const response = await request(url, {
        method: call.method,
        headers,
        body: body ?? null,
        signal: controller.signal,
        dispatcher: this.agent,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const text = await response.body.text();
      const result: HttpResult = {
        status: response.statusCode,
        headers: normaliseHeaders(response.headers),
        body: parseBody(text),
      };
      this.budget.update(result.status, result.headers);
      report(result.status, result.status >= 400 ? errorCodeOf(result) : undefined);
      return result;
    } catch (cause) {
      let error: RewardsError;
      const code = lowLevelCode(cause);
      if (call.signal?.aborted) error = new RewardsAbortError(undefined, { cause });
      else if (timedOut || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
        error = new RewardsTimeoutError(`${call.method} ${call.endpoint} timed out after ${timeoutMs} ms`, timeoutMs);
      } else {
        error = new RewardsConnectionError(
          `${call.method} ${call.endpoint} failed: ${(cause as Error)?.message ?? String(cause)}`,
          {
            cause,
            causeCode: code,
            notSent: code === 'ECONNREFUSED',
          },
        );
      }
      report('network', error.code);
      throw error;
    } finally {
      clearTimeout(timer);
      call.signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  private closing: Promise<void> | undefined;

  /** Closes the keep-alive connections; calling it again is harmless. */
  close(): Promise<void> {
    this.closing ??= this.agent.close();
    return this.closing;
  }
}

function errorCodeOf(result: HttpResult): string {
  return errorFromResponse({
    status: result.status,
    headers: result.headers,
    body: result.body,
    method: '',
    endpoint: '',
  }).code;
}
