import { z } from 'zod';

import { fail } from '../errors.js';
import { validate } from '../http/body.js';
import { pageRequest, paginate } from '../http/pagination.js';
import { scoped } from '../http/scoped.js';
import type { EmulatorApp } from '../http/types.js';
import { serializeBranded, serializeChoice } from '../state/catalog.js';
import type { EmulatorCore } from '../state/core.js';

const Search = z.object({ search: z.string().max(200).optional(), category: z.string().max(100).optional() });

/** Spec 4.2. */
export function registerCatalogRoutes(app: EmulatorApp, core: EmulatorCore): void {
  const base = '/api/v1/catalog';
  app.get(`${base}/branded-cards`, scoped('catalog.read'), (c) => {
    const q = validate(Search, c.req.query(), 'Query');
    return c.json(
      paginate(core.catalog.searchBranded(q.search, q.category), pageRequest(c.req.query()), serializeBranded),
    );
  });
  app.get(`${base}/branded-cards/:productId`, scoped('catalog.read'), (c) => {
    const p = core.catalog.findBranded(c.req.param('productId'));
    if (!p) throw fail.notFound(`Product ${c.req.param('productId')}`);
    return c.json({ data: serializeBranded(p) });
  });
  app.get(`${base}/choice-cards`, scoped('catalog.read'), (c) => {
    const q = validate(Search, c.req.query(), 'Query');
    return c.json(paginate(core.catalog.searchChoice(q.search), pageRequest(c.req.query()), serializeChoice));
  });
  app.get(`${base}/choice-cards/:productId`, scoped('catalog.read'), (c) => {
    const p = core.catalog.findChoice(c.req.param('productId'));
    if (!p) throw fail.notFound(`Product ${c.req.param('productId')}`);
    return c.json({ data: serializeChoice(p) });
  });
}
