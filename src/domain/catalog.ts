// Choice-card designs from the API's catalog, cached in memory for a short time so that every
// keystroke in the design picker does not call the API. Searchable by name.
import type { RewardsClient } from '../rewards/index.js';
import { toCents } from '../rewards/index.js';

export interface Design {
  productId: string;
  name: string;
  minCents: number;
  maxCents: number;
}

export interface DesignCatalog {
  search(query: string): Promise<Design[]>;
  get(productId: string): Promise<Design | undefined>;
}

export function createDesignCatalog(rewards: RewardsClient, opts: { ttlMs?: number; now?: () => number } = {}): DesignCatalog {
  const ttlMs = opts.ttlMs ?? 5 * 60_000;
  const now = opts.now ?? Date.now;
  let cached: { at: number; designs: Design[] } | undefined;
  let loading: Promise<Design[]> | undefined;

  async function load(): Promise<Design[]> {
    if (cached && now() - cached.at < ttlMs) return cached.designs;
    // One load for concurrent callers.
    loading ??= (async () => {
      try {
        const designs: Design[] = [];
        for await (const product of rewards.catalog.listChoiceCards()) {
          const [min, max] = product.prices;
          if (min === undefined || max === undefined) continue;
          designs.push({
            productId: product.productId,
            name: product.name ?? (product as { designName?: string }).designName ?? product.description ?? product.productId,
            minCents: toCents(min),
            maxCents: toCents(max),
          });
        }
        cached = { at: now(), designs };
        return designs;
      } finally {
        loading = undefined;
      }
    })();
    return loading;
  }

  return {
    async search(query) {
      const q = query.trim().toLowerCase();
      const designs = await load();
      return q === '' ? designs : designs.filter((d) => d.name.toLowerCase().includes(q) || d.productId.toLowerCase().includes(q));
    },
    async get(productId) {
      const designs = await load();
      return designs.find((d) => d.productId === productId);
    },
  };
}
