// OAuth 2.0 client credentials (spec 4.1 and part 5): one token, reused until shortly before it
// expires, renewed by a single request however many calls need it at the same moment.
import { RewardsAbortError, RewardsResponseValidationError } from './errors.js';
import { tokenResponseSchema } from './schemas.js';
import type { TokenSource, Transport } from './transport.js';

export const TOKEN_PATH = '/oauth2/token';
/** Lifetime assumed when the token response leaves out expires_in (production tokens last 1 h). */
const DEFAULT_LIFETIME_S = 3600;

export interface TokenManagerOptions {
  clientId: string;
  clientSecret: string;
  scopes: readonly string[];
  /** Renew min(this, 10% of the lifetime) before expiry. */
  refreshMarginMs: number;
  now: () => number;
}

interface CachedToken {
  accessToken: string;
  refreshAt: number;
}

export class TokenManager implements TokenSource {
  private cached: CachedToken | undefined;
  private pending: Promise<string> | undefined;

  constructor(
    private readonly transport: Transport,
    private readonly options: TokenManagerOptions,
  ) {}

  async get(signal?: AbortSignal): Promise<string> {
    if (this.cached && this.options.now() < this.cached.refreshAt) return this.cached.accessToken;
    // Single flight: every caller waits for the same request. It runs without any one caller's
    // signal, so one caller giving up does not fail the others.
    this.pending ??= this.fetchToken().finally(() => {
      this.pending = undefined;
    });
    return signal ? raceAbort(this.pending, signal) : this.pending;
  }

  /** Drops `token` if it is still the cached one (a 401 showed it is stale). */
  invalidate(token: string): void {
    if (this.cached?.accessToken === token) this.cached = undefined;
  }

  private async fetchToken(): Promise<string> {
    const requestedAt = this.options.now();
    const result = await this.transport.call({
      method: 'POST',
      path: TOKEN_PATH,
      endpoint: TOKEN_PATH,
      form: {
        grant_type: 'client_credentials',
        client_id: this.options.clientId,
        client_secret: this.options.clientSecret,
        scope: this.options.scopes.join(' '),
      },
      retry: 'safe', // issuing a token changes nothing on the server
      tokenEndpoint: true,
    });
    const parsed = tokenResponseSchema.safeParse(result.body);
    if (!parsed.success) {
      throw new RewardsResponseValidationError(TOKEN_PATH, parsed.error.message, result.body, parsed.error.issues);
    }
    const lifetimeMs = (parsed.data.expires_in ?? DEFAULT_LIFETIME_S) * 1000;
    const marginMs = Math.min(this.options.refreshMarginMs, lifetimeMs * 0.1);
    // Measured from when we asked, so network time cannot make us overestimate the lifetime.
    this.cached = { accessToken: parsed.data.access_token, refreshAt: requestedAt + lifetimeMs - marginMs };
    return parsed.data.access_token;
  }
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new RewardsAbortError(undefined, { cause: signal.reason }));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new RewardsAbortError(undefined, { cause: signal.reason }));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
