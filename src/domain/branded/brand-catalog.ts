// Branded products from the API's catalog (spec 2.11 and 4.2), as brands people can pick: searched by
// name or brand and by category page by page (the catalog is large and paged), each page kept a short
// while so that typing in a picker does not call the API at every keystroke. Read and cached per
// Rewards client, so each workspace sees its own account's catalog. A product whose prices cannot be
// trusted (brandedPricesOf) is never offered.
import { LRUCache } from 'lru-cache';

import { type BrandedProduct, type RewardsClient, RewardsNotFoundError } from '../../rewards/index.js';
import type { RewardsAccounts } from '../accounts/rewards-accounts.js';
import type { Workspace } from '../common/workspace.js';
import { type BrandedPrices, brandedPricesOf } from './prices.js';

/** A branded product as Kudos offers it. */
export interface Brand {
  productId: string;
  /** The product's name as people read it ("Tesco Gift Card"). */
  name: string;
  /** The brand ("Tesco"), or the name when the catalog gives none. */
  brandName: string;
  category: string | null;
  /** ISO-3166-1 alpha-3, `GLOBAL` (many countries) or null (not said). */
  countryCode: string | null;
  currency: string;
  prices: BrandedPrices;
  terms: string;
  redemptionInstructions: string | null;
}

export interface BrandSearch {
  /** Name or brand, as the API searches it. */
  query?: string | undefined;
  category?: string | undefined;
  /** 1-based. */
  page?: number | undefined;
}

export interface BrandPage {
  brands: Brand[];
  /** Whether a next page exists. */
  hasMore: boolean;
}

export interface BrandCatalog {
  /** One page of brands matching the search (the API's paging). */
  search(search: BrandSearch): Promise<BrandPage>;
  /** One brand, from a recent read when there is one; undefined when the catalog no longer has it. */
  get(productId: string): Promise<Brand | undefined>;
  /**
   * One brand read from the API now (a send that waited, or a form open a while: the product may have
   * been removed); undefined when the catalog no longer has it or its prices cannot be trusted.
   */
  readNow(productId: string, opts?: { timeoutMs?: number }): Promise<Brand | undefined>;
}

/** The brand catalog of each workspace's Rewards account. */
export interface BrandCatalogs {
  of(ws: Workspace): BrandCatalog;
}

/** Brands per page: what one Slack options list shows. */
export const BRANDS_PER_PAGE = 50;

export function createBrandCatalogs(accounts: RewardsAccounts, opts: { ttlMs?: number } = {}): BrandCatalogs {
  // Keyed by the client itself: a client dropped from the accounts' cache takes its catalog with it.
  const byClient = new WeakMap<RewardsClient, BrandCatalog>();
  const forClient = (client: RewardsClient) => {
    let catalog = byClient.get(client);
    if (!catalog) byClient.set(client, (catalog = createBrandCatalog(client, opts)));
    return catalog;
  };
  return {
    of: (ws) => ({
      search: async (search) => forClient(await accounts.for(ws)).search(search),
      get: async (productId) => forClient(await accounts.for(ws)).get(productId),
      readNow: async (productId, o) => forClient(await accounts.for(ws)).readNow(productId, o),
    }),
  };
}

/** A catalog product as a brand; undefined when its prices or currency cannot be trusted. */
export function brandOf(product: BrandedProduct): Brand | undefined {
  const prices = brandedPricesOf(product);
  if (!prices) return undefined;
  // The spec's fields have no name; catalogs carry one (`name`), else the brand, else the description.
  const named = (product as { name?: unknown }).name;
  const name =
    (typeof named === 'string' && named.trim()) ||
    product.brandName?.trim() ||
    product.description?.trim() ||
    product.productId;
  return {
    productId: product.productId,
    name,
    brandName: product.brandName?.trim() || name,
    category: product.category ?? null,
    countryCode: product.countryCode ?? null,
    currency: prices.currency,
    prices,
    terms: product.terms ?? '',
    redemptionInstructions: product.redemptionInstructions ?? null,
  };
}

export function createBrandCatalog(rewards: RewardsClient, opts: { ttlMs?: number } = {}): BrandCatalog {
  const ttl = opts.ttlMs ?? 5 * 60_000;
  const pages = new LRUCache<string, BrandPage>({
    max: 200,
    ttl,
    fetchMethod: async (key) => {
      const { query, category, page } = JSON.parse(key) as { query: string; category: string; page: number };
      const answer = await rewards.catalog.listBrandedCards({
        ...(query ? { search: query } : {}),
        ...(category ? { category } : {}),
        page,
        pageSize: BRANDS_PER_PAGE,
      });
      const brands = answer.data.flatMap((product) => brandOf(product) ?? []);
      for (const brand of brands) known.set(brand.productId, brand);
      return { brands, hasMore: answer.page * answer.pageSize < answer.totalCount };
    },
  });
  const known = new LRUCache<string, Brand>({ max: 2000, ttl });

  async function readNow(productId: string, o: { timeoutMs?: number } = {}): Promise<Brand | undefined> {
    try {
      const product = await rewards.catalog.getBrandedCard(productId, o.timeoutMs ? { timeoutMs: o.timeoutMs } : {});
      const brand = brandOf(product);
      if (brand) known.set(productId, brand);
      else known.delete(productId);
      return brand;
    } catch (error) {
      if (error instanceof RewardsNotFoundError) {
        known.delete(productId);
        return undefined;
      }
      throw error;
    }
  }

  return {
    async search(search) {
      const key = JSON.stringify({
        query: (search.query ?? '').trim(),
        category: (search.category ?? '').trim(),
        page: Math.max(1, Math.floor(search.page ?? 1)),
      });
      return (await pages.fetch(key)) ?? { brands: [], hasMore: false };
    },
    async get(productId) {
      return known.get(productId) ?? readNow(productId);
    },
    readNow,
  };
}
