// Catalog (spec 4.2, scope catalog.read).
import { brandedProductSchema, choiceProductSchema } from '../schemas.js';
import type { CatalogResource } from '../types.js';
import { listFor, type ResourceContext, segment, sendFor } from './context.js';

export function catalogResource(ctx: ResourceContext): CatalogResource {
  return {
    listChoiceCards: (query = {}, options) =>
      listFor(
        ctx,
        { path: '/api/v1/catalog/choice-cards', endpoint: '/api/v1/catalog/choice-cards' },
        choiceProductSchema,
        { ...query },
        options,
      ),
    getChoiceCard: async (productId, options) =>
      sendFor(
        ctx,
        {
          method: 'GET',
          path: `/api/v1/catalog/choice-cards/${segment('productId', productId)}`,
          endpoint: '/api/v1/catalog/choice-cards/{productId}',
        },
        choiceProductSchema,
        options,
      ),
    listBrandedCards: (query = {}, options) =>
      listFor(
        ctx,
        { path: '/api/v1/catalog/branded-cards', endpoint: '/api/v1/catalog/branded-cards' },
        brandedProductSchema,
        { ...query },
        options,
      ),
    getBrandedCard: async (productId, options) =>
      sendFor(
        ctx,
        {
          method: 'GET',
          path: `/api/v1/catalog/branded-cards/${segment('productId', productId)}`,
          endpoint: '/api/v1/catalog/branded-cards/{productId}',
        },
        brandedProductSchema,
        options,
      ),
  };
}
