// Campaigns (spec 4.4). Execution is an order creation: exactly once by idempotency key.
import { toApiNumber } from '../money.js';
import { type CampaignParams, campaignParamsSchema, campaignSchema, executeCampaignParamsSchema } from '../schemas.js';
import type { CampaignsResource } from '../types.js';
import { listFor, parseParams, type ResourceContext, segment, send, sendFor } from './context.js';
import { createOrderOnce } from './idempotency.js';

function campaignBody(params: CampaignParams): Record<string, unknown> {
  const parsed = parseParams(campaignParamsSchema, params, 'campaign parameters');
  return { ...parsed, amount: toApiNumber(parsed.amount) };
}

export function campaignsResource(ctx: ResourceContext): CampaignsResource {
  const one = (campaignId: string) => `/api/v1/campaigns/${segment('campaignId', campaignId)}`;
  return {
    list: (query = {}, options) =>
      listFor(ctx, { path: '/api/v1/campaigns', endpoint: '/api/v1/campaigns' }, campaignSchema, { ...query }, options),
    get: async (campaignId, options) =>
      sendFor(
        ctx,
        { method: 'GET', path: one(campaignId), endpoint: '/api/v1/campaigns/{campaignId}' },
        campaignSchema,
        options,
      ),
    create: async (params, options) =>
      sendFor(
        ctx,
        { method: 'POST', path: '/api/v1/campaigns', endpoint: '/api/v1/campaigns', json: campaignBody(params) },
        campaignSchema,
        options,
      ),
    update: async (campaignId, params, options) =>
      sendFor(
        ctx,
        {
          method: 'PUT',
          path: one(campaignId),
          endpoint: '/api/v1/campaigns/{campaignId}',
          json: campaignBody(params),
        },
        campaignSchema,
        options,
      ),
    async delete(campaignId, options) {
      await send(ctx, { method: 'DELETE', path: one(campaignId), endpoint: '/api/v1/campaigns/{campaignId}' }, options);
    },
    execute: async (campaignId, params, options) =>
      createOrderOnce(
        ctx,
        {
          path: `${one(campaignId)}/orders`,
          endpoint: '/api/v1/campaigns/{campaignId}/orders',
          body: parseParams(executeCampaignParamsSchema, params, 'campaign execution parameters'),
        },
        options,
      ),
  };
}
