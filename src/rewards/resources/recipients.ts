// Address book (spec 4.6).
import { recipientParamsSchema, recipientSchema } from '../schemas.js';
import type { RecipientsResource } from '../types.js';
import { listFor, parseParams, type ResourceContext, segment, send, sendFor } from './context.js';

export function recipientsResource(ctx: ResourceContext): RecipientsResource {
  const one = (recipientId: string) => `/api/v1/recipients/${segment('recipientId', recipientId)}`;
  const endpoint = '/api/v1/recipients/{recipientId}';
  return {
    list: (query = {}, options) =>
      listFor(
        ctx,
        { path: '/api/v1/recipients', endpoint: '/api/v1/recipients' },
        recipientSchema,
        { ...query },
        options,
      ),
    get: async (recipientId, options) =>
      sendFor(ctx, { method: 'GET', path: one(recipientId), endpoint }, recipientSchema, options),
    create: async (params, options) =>
      sendFor(
        ctx,
        {
          method: 'POST',
          path: '/api/v1/recipients',
          endpoint: '/api/v1/recipients',
          json: parseParams(recipientParamsSchema, params, 'recipient'),
        },
        recipientSchema,
        options,
      ),
    update: async (recipientId, params, options) =>
      sendFor(
        ctx,
        {
          method: 'PUT',
          path: one(recipientId),
          endpoint,
          json: parseParams(recipientParamsSchema, params, 'recipient'),
        },
        recipientSchema,
        options,
      ),
    async delete(recipientId, options) {
      await send(ctx, { method: 'DELETE', path: one(recipientId), endpoint }, options);
    },
  };
}
