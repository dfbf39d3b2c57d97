// createRewardsClient: wires the transport, the token manager and the resource modules together.
import { TokenManager } from './auth.js';
import { RewardsRequestValidationError } from './errors.js';
import { balanceResource } from './resources/balance.js';
import { campaignsResource } from './resources/campaigns.js';
import { catalogResource } from './resources/catalog.js';
import type { ResourceContext } from './resources/context.js';
import { groupsResource } from './resources/groups.js';
import { ordersResource } from './resources/orders.js';
import { recipientsResource } from './resources/recipients.js';
import { templatesResource } from './resources/templates.js';
import { abortableSleep, Transport } from './transport.js';
import { ALL_SCOPES, type RewardsClient, type RewardsClientOptions } from './types.js';

export const DEFAULTS = {
  timeoutMs: 10_000,
  orderTimeoutMs: 30_000,
  maxRetries: 3,
  retryBaseDelayMs: 200,
  maxRetryDelayMs: 30_000,
  tokenRefreshMarginMs: 60_000,
  recoveryAttempts: 5,
  connections: 32,
} as const;

export function createRewardsClient(opts: RewardsClientOptions): RewardsClient {
  for (const name of ['baseUrl', 'clientId', 'clientSecret'] as const) {
    if (typeof opts[name] !== 'string' || opts[name].length === 0) {
      throw new RewardsRequestValidationError(`createRewardsClient: ${name} is required`, [
        { path: [name], message: 'required' },
      ]);
    }
  }
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? abortableSleep;
  const random = opts.random ?? Math.random;
  const retryBaseDelayMs = opts.retryBaseDelayMs ?? DEFAULTS.retryBaseDelayMs;
  const maxRetryDelayMs = opts.maxRetryDelayMs ?? DEFAULTS.maxRetryDelayMs;

  const transport = new Transport({
    baseUrl: opts.baseUrl,
    timeoutMs: opts.timeoutMs ?? DEFAULTS.timeoutMs,
    maxRetries: opts.maxRetries ?? DEFAULTS.maxRetries,
    retryBaseDelayMs,
    maxRetryDelayMs,
    connections: opts.connections ?? DEFAULTS.connections,
    onCall: opts.onCall,
    now,
    sleep,
    random,
    rateGate: opts.rateGate,
    maxRateLimitRetries: opts.maxRateLimitRetries,
  });
  const auth = new TokenManager(transport, {
    clientId: opts.clientId,
    clientSecret: opts.clientSecret,
    scopes: opts.scopes ?? ALL_SCOPES,
    refreshMarginMs: opts.tokenRefreshMarginMs ?? DEFAULTS.tokenRefreshMarginMs,
    now,
  });
  const ctx: ResourceContext = {
    transport,
    auth,
    orderTimeoutMs: Math.max(opts.orderTimeoutMs ?? DEFAULTS.orderTimeoutMs, opts.timeoutMs ?? DEFAULTS.timeoutMs),
    recoveryAttempts: opts.recoveryAttempts ?? DEFAULTS.recoveryAttempts,
    retryBaseDelayMs,
    maxRetryDelayMs,
    random,
    sleep,
  };
  return {
    catalog: catalogResource(ctx),
    orders: ordersResource(ctx),
    campaigns: campaignsResource(ctx),
    templates: templatesResource(ctx),
    recipients: recipientsResource(ctx),
    groups: groupsResource(ctx),
    balance: balanceResource(ctx),
    rateLimit: () => transport.budget.snapshot(),
    close: () => transport.close(),
  };
}
