import type { MiddlewareHandler } from 'hono';

import { requireScopes, type Scope } from '../state/auth.js';
import type { EmulatorEnv } from './types.js';

/** Route guard: the token must carry every scope listed. */
export function scoped(...scopes: Scope[]): MiddlewareHandler<EmulatorEnv> {
  return async (c, next) => {
    requireScopes(c.get('grant'), scopes);
    await next();
  };
}
