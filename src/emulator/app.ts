import { type Context, Hono, type MiddlewareHandler, type Next } from 'hono';

import { ApiError, errorBody } from './errors.js';
import type { EmulatorApp, EmulatorEnv } from './http/types.js';
import { newId } from './ids.js';
import { registerBalanceRoutes } from './routes/balance.js';
import { registerCampaignRoutes } from './routes/campaigns.js';
import { registerCatalogRoutes } from './routes/catalog.js';
import { registerControlRoutes } from './routes/control.js';
import { registerGroupRoutes } from './routes/groups.js';
import { registerOrderRoutes } from './routes/orders.js';
import { registerRecipientRoutes } from './routes/recipients.js';
import { registerTemplateRoutes } from './routes/templates.js';
import { registerTokenRoutes } from './routes/token.js';
import type { EmulatorCore } from './state/core.js';
import type { FaultRule } from './state/faults.js';
import { randomFaultsOf } from './state/random-faults.js';
import { rateLimitedHeaders, rateLimitHeaders } from './state/rate-limit.js';

/** Route wiring: request id, faults, body cap, auth, rate limit; then one file per resource. */
export function createEmulatorApp(core: EmulatorCore): EmulatorApp {
  const app = new Hono<EmulatorEnv>();

  app.use('*', async (c, next) => {
    c.set('requestId', newId.request());
    await next();
    c.res.headers.set('X-Request-Id', c.get('requestId'));
  });

  app.use('/api/*', faultInjection(core));
  app.use('/oauth2/*', faultInjection(core));

  app.use('*', async (c, next) => {
    const declared = Number(c.req.header('content-length') ?? '0');
    if (declared > core.config.bodyLimitBytes)
      throw new ApiError('PAYLOAD_TOO_LARGE', `Request body exceeds ${core.config.bodyLimitBytes} bytes`);
    await next();
  });

  app.use('/api/*', async (c, next) => {
    const grant = core.auth.authenticate(c.req.header('authorization'));
    c.set('grant', grant);
    const verdict = core.rateLimiter.hit(grant.clientId);
    if (!verdict.allowed) {
      return c.json(
        errorBody('RATE_LIMITED', 'Too Many Requests', c.get('requestId')),
        429,
        rateLimitedHeaders(verdict),
      );
    }
    await next();
    for (const [k, v] of Object.entries(rateLimitHeaders(verdict))) c.res.headers.set(k, v);
  });

  registerTokenRoutes(app, core);
  registerCatalogRoutes(app, core);
  registerOrderRoutes(app, core);
  registerCampaignRoutes(app, core);
  registerTemplateRoutes(app, core);
  registerRecipientRoutes(app, core);
  registerGroupRoutes(app, core);
  registerBalanceRoutes(app, core);
  registerControlRoutes(app, core);

  app.notFound((c) => {
    const requestId = c.get('requestId') ?? newId.request();
    if (c.req.path.startsWith('/api/')) {
      return c.json(
        errorBody('NOT_IMPLEMENTED', `${c.req.method} ${c.req.path} is not implemented by the emulator`, requestId),
        501,
      );
    }
    return c.json(errorBody('NOT_FOUND', `No route ${c.req.method} ${c.req.path}`, requestId), 404);
  });

  app.onError((err, c) => {
    const requestId = c.get('requestId') ?? newId.request();
    if (err instanceof ApiError) {
      return c.json(errorBody(err.code, err.message, requestId, err.details), err.status as 400);
    }
    console.error('[emulator] unexpected error', err);
    return c.json(errorBody('INTERNAL_ERROR', 'Unexpected emulator error', requestId), 500);
  });

  return app;
}

/** Faults apply to API and token routes only, never to control routes. */
function faultInjection(core: EmulatorCore): MiddlewareHandler<EmulatorEnv> {
  return async (c, next) => {
    const rule = core.faults.take(c.req.method, c.req.path) ?? randomFaultsOf(core).take(c.req.method, c.req.path);
    if (!rule) return next();
    if (!rule.delayMs) return applyFault(core, c, next, rule);
    // Counted as held until applied: a test waits for none held before counting what requests did.
    const release = core.faults.hold();
    try {
      await new Promise((resolve) => setTimeout(resolve, rule.delayMs));
      return await applyFault(core, c, next, rule);
    } finally {
      release();
    }
  };
}

/** The fault's answer: its status without applying the request, or the request applied (then cut, for a drop). */
async function applyFault(
  core: EmulatorCore,
  c: Context<EmulatorEnv>,
  next: Next,
  rule: FaultRule,
): Promise<Response | void> {
  if (rule.status !== undefined) return faultResponse(core, c, rule.status);
  if (rule.drop) {
    // The request is processed, then the connection is cut before any answer: a lost response.
    await next();
    c.env.incoming.socket.destroy();
    return;
  }
  return next();
}

/** Injected statuses carry the code the real API would plausibly send with them. */
const FAULT_CODES: Record<number, string> = {
  400: 'VALIDATION_ERROR',
  401: 'UNAUTHORIZED',
  402: 'INSUFFICIENT_BALANCE',
  403: 'INSUFFICIENT_SCOPE',
  404: 'NOT_FOUND',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  500: 'INTERNAL_ERROR',
  501: 'NOT_IMPLEMENTED',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
  504: 'GATEWAY_TIMEOUT',
};

function faultResponse(core: EmulatorCore, c: Context<EmulatorEnv>, status: number): Response {
  const requestId = c.get('requestId');
  if (status === 429) {
    let key = 'anonymous';
    try {
      key = core.auth.authenticate(c.req.header('authorization')).clientId;
    } catch {
      /* unauthenticated: headers of an empty window */
    }
    const v = core.rateLimiter.peek(key);
    return c.json(errorBody('RATE_LIMITED', 'Too Many Requests', requestId), 429, rateLimitedHeaders(v));
  }
  if (status < 200 || status === 204 || status === 304) return new Response(null, { status });
  const code = FAULT_CODES[status] ?? 'INJECTED_FAULT';
  return c.json(errorBody(code, `Injected fault: status ${status}`, requestId, { injected: true }), status as 400);
}
