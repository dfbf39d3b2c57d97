// One error family for the Rewards API client. Every failure a caller can see is a RewardsError with a
// stable `name` and a string `code`; `errorFromResponse` is the only place an HTTP answer becomes one.

/** Codes of spec part 7 and the codes the emulator documents where the spec is silent. */
export const ErrorCodes = {
  // spec part 7
  DUPLICATE_IDEMPOTENCY_KEY: 'DUPLICATE_IDEMPOTENCY_KEY',
  RECIPIENT_HAS_PENDING_ORDER: 'RECIPIENT_HAS_PENDING_ORDER',
  FUNDING_NOT_CANCELABLE: 'FUNDING_NOT_CANCELABLE',
  STALE_LIMIT_SNAPSHOT: 'STALE_LIMIT_SNAPSHOT',
  NOT_FOUND: 'NOT_FOUND',
  ORDER_NOT_CANCELABLE: 'ORDER_NOT_CANCELABLE',
  RATE_LIMITED: 'RATE_LIMITED',
  // documented by the emulator (team notes)
  INSUFFICIENT_BALANCE: 'INSUFFICIENT_BALANCE',
  DAILY_LIMIT_EXCEEDED: 'DAILY_LIMIT_EXCEEDED',
  MONTHLY_LIMIT_EXCEEDED: 'MONTHLY_LIMIT_EXCEEDED',
  TEST_EMAIL_LIMIT_EXCEEDED: 'TEST_EMAIL_LIMIT_EXCEEDED',
  VALIDATION_ERROR: 'VALIDATION_ERROR',
  INVALID_JSON: 'INVALID_JSON',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  UNAUTHORIZED: 'UNAUTHORIZED',
  INVALID_CLIENT: 'INVALID_CLIENT',
  INVALID_SCOPE: 'INVALID_SCOPE',
  UNSUPPORTED_GRANT_TYPE: 'UNSUPPORTED_GRANT_TYPE',
  FORBIDDEN: 'FORBIDDEN',
  INSUFFICIENT_SCOPE: 'INSUFFICIENT_SCOPE',
  PRODUCTION_ONLY: 'PRODUCTION_ONLY',
  GROUP_NAME_TAKEN: 'GROUP_NAME_TAKEN',
  EMAIL_TAKEN: 'EMAIL_TAKEN',
  // raised by the client itself, never sent by the API
  CONNECTION_ERROR: 'CONNECTION_ERROR',
  TIMEOUT: 'TIMEOUT',
  ABORTED: 'ABORTED',
  INVALID_RESPONSE: 'INVALID_RESPONSE',
  INVALID_REQUEST: 'INVALID_REQUEST',
  ORDER_RECOVERY_FAILED: 'ORDER_RECOVERY_FAILED',
  INVALID_WEBHOOK_PAYLOAD: 'INVALID_WEBHOOK_PAYLOAD',
} as const;

export type KnownErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

/** Base of every error the client throws. */
export class RewardsError extends Error {
  override name = 'RewardsError';
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

export interface ApiErrorInit {
  status: number;
  code: string;
  message: string;
  requestId?: string | undefined;
  body: unknown;
  headers: Record<string, string>;
  method: string;
  endpoint: string;
  /** Milliseconds the server asked us to wait (Retry-After / X-RateLimit-Reset), if it said. */
  retryAfterMs?: number | undefined;
}

/** The API answered with a non-2xx status. Subclasses per status family; match on `code`. */
export class RewardsApiError extends RewardsError {
  override name = 'RewardsApiError';
  readonly status: number;
  readonly requestId: string | undefined;
  readonly body: unknown;
  readonly headers: Record<string, string>;
  readonly method: string;
  readonly endpoint: string;
  readonly retryAfterMs: number | undefined;
  constructor(init: ApiErrorInit) {
    super(init.code, `${init.method} ${init.endpoint} -> ${init.status} ${init.code}: ${init.message}`);
    this.status = init.status;
    this.requestId = init.requestId;
    this.body = init.body;
    this.headers = init.headers;
    this.method = init.method;
    this.endpoint = init.endpoint;
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** 400, 413, 415: the request was malformed or invalid. */
export class RewardsBadRequestError extends RewardsApiError {
  override name = 'RewardsBadRequestError';
}
/** 401, or any failure of the token endpoint: credentials or token rejected. */
export class RewardsAuthError extends RewardsApiError {
  override name = 'RewardsAuthError';
}
/** 402: e.g. INSUFFICIENT_BALANCE. */
export class RewardsPaymentRequiredError extends RewardsApiError {
  override name = 'RewardsPaymentRequiredError';
}
/** 403: e.g. INSUFFICIENT_SCOPE, PRODUCTION_ONLY. */
export class RewardsPermissionError extends RewardsApiError {
  override name = 'RewardsPermissionError';
}
/** 404: NOT_FOUND. */
export class RewardsNotFoundError extends RewardsApiError {
  override name = 'RewardsNotFoundError';
}
/** 409: the conflicts of spec part 7, ORDER_NOT_CANCELABLE, GROUP_NAME_TAKEN, EMAIL_TAKEN. */
export class RewardsConflictError extends RewardsApiError {
  override name = 'RewardsConflictError';
}
/** 422: e.g. DAILY_LIMIT_EXCEEDED, MONTHLY_LIMIT_EXCEEDED, TEST_EMAIL_LIMIT_EXCEEDED. */
export class RewardsUnprocessableError extends RewardsApiError {
  override name = 'RewardsUnprocessableError';
}
/** 429 after the client's retries (if any) were used up. */
export class RewardsRateLimitError extends RewardsApiError {
  override name = 'RewardsRateLimitError';
}
/** 5xx after the client's retries (if any) were used up. */
export class RewardsServerError extends RewardsApiError {
  override name = 'RewardsServerError';
}

/** The connection failed or was dropped (ECONNRESET, socket closed, refused) before an answer. */
export class RewardsConnectionError extends RewardsError {
  override name = 'RewardsConnectionError';
  /** Low-level code such as ECONNRESET, ECONNREFUSED, UND_ERR_SOCKET. */
  readonly causeCode: string | undefined;
  /** True when the request certainly never reached the server (connection refused). */
  readonly notSent: boolean;
  constructor(message: string, options: { cause?: unknown; causeCode?: string | undefined; notSent?: boolean } = {}) {
    super(ErrorCodes.CONNECTION_ERROR, message, { cause: options.cause });
    this.causeCode = options.causeCode;
    this.notSent = options.notSent ?? false;
  }
}

/** No complete answer within the request timeout. The request may or may not have been processed. */
export class RewardsTimeoutError extends RewardsError {
  override name = 'RewardsTimeoutError';
  readonly timeoutMs: number;
  constructor(message: string, timeoutMs: number) {
    super(ErrorCodes.TIMEOUT, message);
    this.timeoutMs = timeoutMs;
  }
}

/** The caller's AbortSignal fired. */
export class RewardsAbortError extends RewardsError {
  override name = 'RewardsAbortError';
  constructor(message = 'Request aborted by the caller', options?: { cause?: unknown }) {
    super(ErrorCodes.ABORTED, message, options);
  }
}

/** A 2xx answer whose body does not have the shape the spec describes. */
export class RewardsResponseValidationError extends RewardsError {
  override name = 'RewardsResponseValidationError';
  readonly body: unknown;
  readonly issues: unknown;
  readonly endpoint: string;
  constructor(endpoint: string, message: string, body: unknown, issues: unknown) {
    super(ErrorCodes.INVALID_RESPONSE, `Unexpected response from ${endpoint}: ${message}`);
    this.endpoint = endpoint;
    this.body = body;
    this.issues = issues;
  }
}

/** Parameters rejected by the client before anything was sent. */
export class RewardsRequestValidationError extends RewardsError {
  override name = 'RewardsRequestValidationError';
  readonly issues: unknown;
  constructor(message: string, issues: unknown) {
    super(ErrorCodes.INVALID_REQUEST, message);
    this.issues = issues;
  }
}

/**
 * An order creation answered 409 DUPLICATE_IDEMPOTENCY_KEY (so an order with this key exists or is
 * being created) but the lookup by clientOrderId found none after several attempts. Retry later with
 * the SAME key; never with a new one.
 */
export class RewardsOrderRecoveryError extends RewardsError {
  override name = 'RewardsOrderRecoveryError';
  readonly idempotencyKey: string;
  constructor(idempotencyKey: string, attempts: number) {
    super(
      ErrorCodes.ORDER_RECOVERY_FAILED,
      `Order creation with idempotency key ${JSON.stringify(idempotencyKey)} was refused as a duplicate, ` +
        `but no order with that clientOrderId was found after ${attempts} lookups; retry later with the same key`,
    );
    this.idempotencyKey = idempotencyKey;
  }
}

/** A webhook body that is not JSON, or not a challenge or a valid event envelope. */
export class RewardsWebhookPayloadError extends RewardsError {
  override name = 'RewardsWebhookPayloadError';
  readonly issues: unknown;
  constructor(message: string, issues?: unknown) {
    super(ErrorCodes.INVALID_WEBHOOK_PAYLOAD, message);
    this.issues = issues;
  }
}

/** True if `error` is a RewardsError, optionally with the given code. */
export function isRewardsError(error: unknown, code?: string): error is RewardsError {
  return error instanceof RewardsError && (code === undefined || error.code === code);
}

// ---------------------------------------------------------------------------------------------------
// The single response -> error factory.

export interface ErrorResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  method: string;
  endpoint: string;
  /** The answer came from the OAuth token endpoint: every 4xx there is an auth failure. */
  tokenEndpoint?: boolean;
  retryAfterMs?: number | undefined;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function stringField(record: Record<string, unknown> | undefined, ...keys: string[]): string | undefined {
  for (const key of keys) {
    const value = record?.[key];
    if (typeof value === 'string' && value.length > 0) return value;
  }
  return undefined;
}

function defaultCode(status: number): string {
  switch (status) {
    case 400:
      return ErrorCodes.VALIDATION_ERROR;
    case 401:
      return ErrorCodes.UNAUTHORIZED;
    case 403:
      return ErrorCodes.FORBIDDEN;
    case 404:
      return ErrorCodes.NOT_FOUND;
    case 413:
      return ErrorCodes.PAYLOAD_TOO_LARGE;
    case 415:
      return ErrorCodes.UNSUPPORTED_MEDIA_TYPE;
    case 429:
      return ErrorCodes.RATE_LIMITED;
    default:
      return `HTTP_${status}`;
  }
}

/**
 * Maps a non-2xx answer to its error class. Understands the emulator's envelope
 * `{error: {code, message}, requestId}`, a flat `{code, message}`, OAuth's `{error, error_description}`,
 * plain text and an empty body.
 */
export function errorFromResponse(response: ErrorResponse): RewardsApiError {
  const body = asRecord(response.body);
  const nested = asRecord(body?.error);
  const rawCode = stringField(nested, 'code') ?? stringField(body, 'code', 'errorCode') ?? stringField(body, 'error');
  // OAuth codes are lower_snake ("invalid_client"); the rest of the API uses UPPER_SNAKE.
  const code = rawCode ? (/^[a-z_]+$/.test(rawCode) ? rawCode.toUpperCase() : rawCode) : defaultCode(response.status);
  const message =
    stringField(nested, 'message') ??
    stringField(body, 'message', 'error_description', 'detail') ??
    (typeof response.body === 'string' && response.body.length > 0 ? response.body.slice(0, 200) : undefined) ??
    `HTTP ${response.status}`;
  const requestId = response.headers['x-request-id'] ?? stringField(body, 'requestId', 'request_id');
  const init: ApiErrorInit = {
    status: response.status,
    code,
    message,
    requestId,
    body: response.body,
    headers: response.headers,
    method: response.method,
    endpoint: response.endpoint,
    retryAfterMs: response.retryAfterMs,
  };
  const status = response.status;
  if (response.tokenEndpoint && status >= 400 && status < 500 && status !== 429) return new RewardsAuthError(init);
  if (status === 401) return new RewardsAuthError(init);
  if (status === 402) return new RewardsPaymentRequiredError(init);
  if (status === 403) return new RewardsPermissionError(init);
  if (status === 404) return new RewardsNotFoundError(init);
  if (status === 409) return new RewardsConflictError(init);
  if (status === 422) return new RewardsUnprocessableError(init);
  if (status === 429) return new RewardsRateLimitError(init);
  if (status >= 500) return new RewardsServerError(init);
  if (status >= 400) return new RewardsBadRequestError(init);
  return new RewardsApiError(init); // 3xx and other unexpected statuses
}
