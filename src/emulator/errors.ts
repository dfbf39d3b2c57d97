/**
 * The emulator's error envelope: `{ error: { code, message, details? }, requestId }` with the same
 * request id in the `X-Request-Id` header. Business rules throw ApiError; the app turns it into JSON.
 */
export const ErrorCodes = {
  VALIDATION_ERROR: 400,
  INVALID_JSON: 400,
  INVALID_SCOPE: 400,
  UNSUPPORTED_GRANT_TYPE: 400,
  UNAUTHORIZED: 401,
  INVALID_CLIENT: 401,
  INSUFFICIENT_BALANCE: 402,
  INSUFFICIENT_SCOPE: 403,
  PRODUCTION_ONLY: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  DUPLICATE_IDEMPOTENCY_KEY: 409,
  RECIPIENT_HAS_PENDING_ORDER: 409,
  FUNDING_NOT_CANCELABLE: 409,
  STALE_LIMIT_SNAPSHOT: 409,
  ORDER_NOT_CANCELABLE: 409,
  GROUP_NAME_TAKEN: 409,
  EMAIL_TAKEN: 409,
  TEMPLATE_IN_USE: 409,
  DEFAULT_TEMPLATE: 409,
  ORDER_NOT_RESENDABLE: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  DAILY_LIMIT_EXCEEDED: 422,
  MONTHLY_LIMIT_EXCEEDED: 422,
  TEST_EMAIL_LIMIT_EXCEEDED: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  NOT_IMPLEMENTED: 501,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ErrorCodes;

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    status?: number,
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = status ?? ErrorCodes[code];
  }
}

export const fail = {
  validation: (message: string, details?: unknown) => new ApiError('VALIDATION_ERROR', message, details),
  notFound: (what: string) => new ApiError('NOT_FOUND', `${what} not found`),
};

export function errorBody(code: string, message: string, requestId: string, details?: unknown) {
  return {
    error: details === undefined ? { code, message } : { code, message, details },
    requestId,
  };
}
