// Lists (spec 4 and 8): `await` gives one page, `for await` walks every item 100 per request.
import type { ListResult, Page, PageQuery } from './types.js';

/** The API's maximum page size; a larger one is silently clamped to 20 by the API, so never ask more. */
export const MAX_PAGE_SIZE = 100;
const API_DEFAULT_PAGE_SIZE = 20;

/** A page as the API answered it; counters it left out are undefined. */
export interface RawPage<T> {
  data: T[];
  page?: number | undefined;
  pageSize?: number | undefined;
  totalCount?: number | undefined;
}

export type PageFetcher<T> = (page: number, pageSize: number | undefined) => Promise<RawPage<T>>;

function clampPageSize(pageSize: number | undefined): number | undefined {
  if (pageSize === undefined) return undefined;
  return Math.min(MAX_PAGE_SIZE, Math.max(1, Math.floor(pageSize)));
}

function toPage<T>(raw: RawPage<T>, page: number, pageSize: number | undefined): Page<T> {
  const size = raw.pageSize ?? pageSize ?? API_DEFAULT_PAGE_SIZE;
  const number = raw.page ?? page;
  return {
    data: raw.data,
    page: number,
    pageSize: size,
    totalCount: raw.totalCount ?? (number - 1) * size + raw.data.length,
  };
}

export function createListResult<T>(fetchPage: PageFetcher<T>, query: PageQuery = {}): ListResult<T> {
  const firstPage = query.page ?? 1;

  async function* iterate(): AsyncGenerator<T> {
    const requested = clampPageSize(query.pageSize) ?? MAX_PAGE_SIZE;
    let seen = 0;
    for (let page = firstPage; ; page++) {
      const raw = await fetchPage(page, requested);
      if (raw.data.length === 0) return;
      yield* raw.data;
      seen += raw.data.length;
      const size = raw.pageSize ?? requested;
      if (raw.totalCount !== undefined) {
        if (page * size >= raw.totalCount || (firstPage === 1 && seen >= raw.totalCount)) return;
      } else if (raw.data.length < size) {
        return; // no total to go by: a short page is the last one
      }
    }
  }

  const result: ListResult<T> = {
    then(onFulfilled, onRejected) {
      const pageSize = clampPageSize(query.pageSize);
      return fetchPage(firstPage, pageSize)
        .then((raw) => toPage(raw, firstPage, pageSize))
        .then(onFulfilled, onRejected);
    },
    [Symbol.asyncIterator]: () => iterate(),
    async all() {
      const items: T[] = [];
      for await (const item of iterate()) items.push(item);
      return items;
    },
  };
  return result;
}
