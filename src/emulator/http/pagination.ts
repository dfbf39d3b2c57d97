import { z } from 'zod';

import { validate } from './body.js';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

const intParam = (name: string) =>
  z
    .string()
    .regex(/^\d+$/, `${name} must be a positive integer`)
    .transform(Number)
    .refine((n) => n >= 1 && Number.isSafeInteger(n), `${name} must be a positive integer`)
    .optional();

const PageQuery = z.object({ page: intParam('page'), pageSize: intParam('pageSize') });

export interface PageRequest {
  page: number;
  pageSize: number;
}

/** page defaults to 1; pageSize to 20, and a pageSize above 100 is silently clamped to 20 (spec part 8). */
export function pageRequest(query: Record<string, string | undefined>): PageRequest {
  const q = validate(PageQuery, { page: query.page, pageSize: query.pageSize }, 'Query');
  const requested = q.pageSize ?? DEFAULT_PAGE_SIZE;
  return { page: q.page ?? 1, pageSize: requested > MAX_PAGE_SIZE ? DEFAULT_PAGE_SIZE : requested };
}

export function paginate<T, U>(items: readonly T[], req: PageRequest, serialize: (item: T) => U) {
  const start = (req.page - 1) * req.pageSize;
  return {
    data: items.slice(start, start + req.pageSize).map(serialize),
    page: req.page,
    pageSize: req.pageSize,
    totalCount: items.length,
  };
}
