// Choice-card designs from the API's catalog, cached in memory for a short time so that every
// keystroke in the design picker does not call the API. Searchable by name. Read and cached per
// Rewards client, so each workspace sees its own account's catalog (distribution mode) and the
// single-workspace client's cache is shared by every request.
import { type ChoiceProduct, type RewardsClient, RewardsNotFoundError, toCents } from '../../rewards/index.js';
import type { Workspace } from '../common/workspace.js';
import type { RewardsAccounts } from './rewards-accounts.js';

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

/** The catalog of each workspace's Rewards account. */
export interface DesignCatalogs {
  of(ws: Workspace): DesignCatalog;
}

export function createDesignCatalogs(
  accounts: RewardsAccounts,
  opts: { ttlMs?: number; now?: () => number } = {},
): DesignCatalogs {
  // Keyed by the client itself: a client dropped from the accounts' cache takes its catalog with it.
  const byClient = new WeakMap<RewardsClient, DesignCatalog>();
  const forClient = (client: RewardsClient) => {
    let catalog = byClient.get(client);
    if (!catalog) byClient.set(client, (catalog = createDesignCatalog(client, opts)));
    return catalog;
  };
  return {
    of: (ws) => ({
      search: async (query) => forClient(await accounts.for(ws)).search(query),
      get: async (productId) => forClient(await accounts.for(ws)).get(productId),
    }),
  };
}

/** A catalog product as a design; undefined when it has no [min, max] range. */
export function designOf(product: ChoiceProduct): Design | undefined {
  const [min, max] = product.prices;
  if (min === undefined || max === undefined) return undefined;
  return {
    productId: product.productId,
    name: product.name ?? (product as { designName?: string }).designName ?? product.description ?? product.productId,
    minCents: toCents(min),
    maxCents: toCents(max),
  };
}

/**
 * One design read from the API now, not from the cache (a campaign's design may have been removed
 * from the catalog since): undefined when the catalog no longer has it (404).
 */
export async function readDesignNow(
  rewards: Pick<RewardsClient, 'catalog'>,
  productId: string,
  opts: { timeoutMs?: number } = {},
): Promise<Design | undefined> {
  try {
    return designOf(
      await rewards.catalog.getChoiceCard(productId, opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : undefined),
    );
  } catch (error) {
    if (error instanceof RewardsNotFoundError) return undefined;
    throw error;
  }
}

export function createDesignCatalog(
  rewards: RewardsClient,
  opts: { ttlMs?: number; now?: () => number } = {},
): DesignCatalog {
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
          const design = designOf(product);
          if (design) designs.push(design);
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
      return q === ''
        ? designs
        : designs.filter((d) => d.name.toLowerCase().includes(q) || d.productId.toLowerCase().includes(q));
    },
    async get(productId) {
      const designs = await load();
      return designs.find((d) => d.productId === productId);
    },
  };
}
