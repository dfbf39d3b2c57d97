// The send form's brand fields as they are now, for a rebuild of the form: the categories to narrow
// by, the brand picked (read from the catalog: one removed meanwhile is said so), the amount picked or
// typed when it is one the brand offers, and its USD estimate from the workspace's learned rate.
import type { Brand, BrandCatalog } from '../../domain/branded/brand-catalog.js';
import { parseFaceAmount } from '../../domain/branded/currency.js';
import { estimateUsdCents } from '../../domain/branded/exchange-rates.js';
import { checkBrandedAmount } from '../../domain/branded/prices.js';
import type { Workspace } from '../../domain/common/workspace.js';
import { ANY_CATEGORY, SendBrand, SendModal } from '../ids.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { type StateValues, textOf } from '../listening/payloads.js';
import { brandBlockId, type BrandFields } from './brand-blocks.js';

/** Catalog pages read for the category list: the categories of the brands seen there. */
const CATEGORY_PAGES = 3;

/** The categories of the brands in the catalog's first pages, sorted; none when the catalog cannot be read. */
export async function brandCategories(catalog: BrandCatalog): Promise<string[]> {
  const seen = new Set<string>();
  for (let page = 1; page <= CATEGORY_PAGES; page++) {
    const read = await catalog.search({ page });
    for (const brand of read.brands) if (brand.category) seen.add(brand.category);
    if (!read.hasMore) break;
  }
  return [...seen].sort((a, b) => a.localeCompare(b));
}

/** The category picked in the form's values (undefined: any). */
export function categoryIn(values: StateValues): string | undefined {
  const picked = values[SendBrand.blocks.category]?.[SendBrand.actions.category]?.selected_option?.value;
  return picked && picked !== ANY_CATEGORY ? picked : undefined;
}

/** The people picked one by one in the form so far (a group's members are checked on Send). */
export function recipientsIn(values: StateValues): string[] {
  return values[SendModal.blocks.recipients]?.[SendModal.actions.recipients]?.selected_users ?? [];
}

/** The amount in the brand's form field (a denomination picked, or typed), as typed. */
export function faceIn(values: StateValues, fill: string | undefined): string | undefined {
  const leaf = values[brandBlockId('face', fill)]?.[SendBrand.actions.face];
  const text = leaf?.selected_option?.value ?? textOf(leaf);
  return text.trim() === '' ? undefined : text;
}

/** The amount as cents of the brand's currency, when it is one the brand offers. */
function offeredCents(brand: Brand, typed: string | undefined): number | undefined {
  const parsed = parseFaceAmount(typed, brand.currency);
  if (!parsed.ok) return undefined;
  return checkBrandedAmount(brand.prices, parsed.faceCents).ok ? parsed.faceCents : undefined;
}

/**
 * The brand fields of a rebuilt form, from its values (read under the form's current `fill`).
 * `pickedId`: the brand just picked (its amount starts afresh); otherwise the one in the values.
 * `face`: the amount to show (the one-line command's Edit).
 */
export async function brandFieldsOf(
  deps: ListenerDeps,
  ws: Workspace,
  at: { values: StateValues; fill: string | undefined; pickedId?: string | undefined; face?: string | undefined },
): Promise<BrandFields> {
  const catalog = deps.brands.of(ws);
  const inValues = at.values[brandBlockId('brand', at.fill)]?.[SendBrand.actions.brand]?.selected_option?.value;
  const productId = at.pickedId ?? inValues;
  const [categories, brand] = await Promise.all([
    brandCategories(catalog).catch((error: unknown) => {
      deps.logger.warn('reading brand categories failed', { error });
      return [];
    }),
    productId ? catalog.get(productId).catch(() => undefined) : undefined,
  ]);
  const fields: BrandFields = { categories, category: categoryIn(at.values) };
  if (productId && !brand) return { ...fields, gone: true };
  if (!brand) return fields;
  const typed = at.face ?? (at.pickedId ? undefined : faceIn(at.values, at.fill));
  const faceCents = offeredCents(brand, typed);
  const estimate = await estimateUsdCents(deps.db, ws, brand.currency, faceCents ?? 100, deps.now()).catch(
    () => undefined,
  );
  return { ...fields, picked: { brand, faceCents, estimate, typed } };
}
