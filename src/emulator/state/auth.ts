import type { Clock } from '../clock.js';
import type { EmulatorConfig } from '../config.js';
import { ApiError } from '../errors.js';
import { newId } from '../ids.js';

export type EnvName = 'sandbox' | 'production';

/** Scopes of spec part 5. */
export const ALL_SCOPES = [
  'catalog.read',
  'orders.read',
  'orders.write',
  'orders.cancel',
  'campaigns.read',
  'campaigns.write',
  'recipients.read',
  'recipients.write',
  'balance.read',
  'balance.write',
] as const;
export type Scope = (typeof ALL_SCOPES)[number];

/** Token lifetimes of spec part 8, seconds. */
export const TOKEN_LIFETIME_S: Record<EnvName, number> = { sandbox: 24 * 3600, production: 3600 };

export interface ClientApp {
  clientId: string;
  clientSecret: string;
  env: EnvName;
}

export interface Grant {
  token: string;
  clientId: string;
  env: EnvName;
  scopes: ReadonlySet<string>;
  expiresAtMs: number;
}

export class AuthState {
  private readonly apps: ClientApp[];
  private readonly grants = new Map<string, Grant>();

  constructor(
    config: EmulatorConfig,
    private readonly clock: Clock,
  ) {
    this.apps = [
      { clientId: config.sandboxClientId, clientSecret: config.sandboxClientSecret, env: 'sandbox' },
      { clientId: config.productionClientId, clientSecret: config.productionClientSecret, env: 'production' },
    ];
  }

  issueToken(input: {
    grantType?: string | undefined;
    clientId?: string | undefined;
    clientSecret?: string | undefined;
    scope?: string | undefined;
  }) {
    if (input.grantType !== 'client_credentials') {
      throw new ApiError('UNSUPPORTED_GRANT_TYPE', 'grant_type must be client_credentials');
    }
    const app = this.apps.find((a) => a.clientId === input.clientId);
    if (!app || !input.clientSecret || app.clientSecret !== input.clientSecret) {
      throw new ApiError('INVALID_CLIENT', 'Unknown client id or wrong client secret');
    }
    const requested = (input.scope ?? '').split(/\s+/).filter(Boolean);
    const unknown = requested.filter((s) => !(ALL_SCOPES as readonly string[]).includes(s));
    if (unknown.length > 0) {
      throw new ApiError('INVALID_SCOPE', `Unknown scope: ${unknown.join(' ')}`, { unknownScopes: unknown });
    }
    // No scope requested: every scope the app may have (OAuth's "default scope").
    const scopes = requested.length > 0 ? [...new Set(requested)] : [...ALL_SCOPES];
    const lifetime = TOKEN_LIFETIME_S[app.env];
    const grant: Grant = {
      token: newId.token(),
      clientId: app.clientId,
      env: app.env,
      scopes: new Set(scopes),
      expiresAtMs: this.clock.nowMs() + lifetime * 1000,
    };
    this.grants.set(grant.token, grant);
    return { access_token: grant.token, token_type: 'Bearer', expires_in: lifetime, scope: scopes.join(' ') };
  }

  /** Whether one of this organization's apps has this client id (the multi-organization router asks). */
  hasClient(clientId: string): boolean {
    return this.apps.some((a) => a.clientId === clientId);
  }

  /** Whether this organization issued the token (the multi-organization router asks). */
  issued(token: string): boolean {
    return this.grants.has(token);
  }

  /** The grant of a bearer token, or a 401. */
  authenticate(authorization: string | undefined): Grant {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    if (!match) throw new ApiError('UNAUTHORIZED', 'Missing or malformed Authorization header');
    const grant = this.grants.get(match[1]!);
    if (!grant) throw new ApiError('UNAUTHORIZED', 'Invalid access token');
    // Expiry is checked against the emulator clock; the grant is kept so a reset (clock back) revives it.
    if (this.clock.nowMs() >= grant.expiresAtMs) throw new ApiError('UNAUTHORIZED', 'Access token expired');
    return grant;
  }
}

export function requireScopes(grant: Grant, scopes: readonly Scope[]): void {
  const missing = scopes.filter((s) => !grant.scopes.has(s));
  if (missing.length > 0) {
    throw new ApiError('INSUFFICIENT_SCOPE', `Token lacks scope ${missing.join(' and ')}`, {
      requiredScopes: scopes,
      missingScopes: missing,
    });
  }
}
