// A brand named in words (the one-line command's `at Tesco`): exactly one brand of the catalog whose
// brand or name is those words, case-insensitive. None or several is a short answer naming the
// choices, never a guess (money is never sent to a brand the sender did not name).
import { type Refused, refused } from '../common/refusal.js';
import type { Brand, BrandCatalog } from './brand-catalog.js';

export type NamedBrand = { ok: true; brand: Brand } | Refused<'no_brand' | 'several_brands'>;

/** Choices named in an answer, at most. */
const CHOICES_NAMED = 5;

export async function findNamedBrand(catalog: BrandCatalog, words: string): Promise<NamedBrand> {
  const wanted = words.trim().toLowerCase();
  const { brands } = await catalog.search({ query: words.trim() });
  const exact = brands.filter((b) => b.brandName.toLowerCase() === wanted || b.name.toLowerCase() === wanted);
  if (exact.length === 1) return { ok: true, brand: exact[0]! };
  const quoted = `“${words.trim()}”`;
  if (exact.length > 1) {
    const named = exact.slice(0, CHOICES_NAMED).map((b) => `“${b.name}” (${b.currency})`);
    return refused(
      'several_brands',
      `Several brands are called ${quoted}: ${list(named)}. Name one of them in quotes, e.g. at "${exact[0]!.name}".`,
    );
  }
  const near = [...new Set(brands.map((b) => b.brandName))].slice(0, CHOICES_NAMED);
  return refused(
    'no_brand',
    near.length > 0
      ? `No brand is called ${quoted}; did you mean ${list(near, 'disjunction')}?`
      : `No brand called ${quoted} is in the catalog; the send form searches the brands by name and category.`,
  );
}

function list(items: string[], type: 'conjunction' | 'disjunction' = 'conjunction'): string {
  return new Intl.ListFormat('en', { type }).format(items);
}
