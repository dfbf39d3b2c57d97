// E-mail templates (spec 4.5): create and list are the only documented endpoints.
import { templateParamsSchema, templateSchema } from '../schemas.js';
import type { TemplatesResource } from '../types.js';
import { listFor, parseParams, type ResourceContext, sendFor } from './context.js';

export function templatesResource(ctx: ResourceContext): TemplatesResource {
  return {
    list: (query = {}, options) =>
      listFor(ctx, { path: '/api/v1/templates', endpoint: '/api/v1/templates' }, templateSchema, { ...query }, options),
    create: async (params, options) =>
      sendFor(
        ctx,
        {
          method: 'POST',
          path: '/api/v1/templates',
          endpoint: '/api/v1/templates',
          json: parseParams(templateParamsSchema, params, 'template parameters'),
        },
        templateSchema,
        options,
      ),
  };
}
