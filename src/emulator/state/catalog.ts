import { money } from '../money.js';
import { BRANDED_SEED, type BrandedProduct, CHOICE_SEED, type ChoiceDesign } from './catalog-seed.js';

/** The organization's allowed per-recipient choice-card amount, in cents ([5, 500] USD, as docs/architecture/emulator.md documents). */
export const CHOICE_RANGE_CENTS = { min: 500, max: 50_000 } as const;

export function isValidBrandedAmount(product: BrandedProduct, cents: number): boolean {
  if (!Number.isInteger(cents) || cents <= 0) return false;
  if (product.priceType === 'FIXED') return product.pricesCents.includes(cents);
  const [min, max] = product.pricesCents as [number, number];
  const step = product.priceStepCents ?? 1;
  return cents >= min && cents <= max && (cents - min) % step === 0;
}

export function isValidChoiceAmount(cents: number, range: { min: number; max: number } = CHOICE_RANGE_CENTS): boolean {
  return Number.isInteger(cents) && cents % 100 === 0 && cents >= range.min && cents <= range.max;
}

export class Catalog {
  /** Designs and branded products the operator took out of the catalog (control routes); reset puts them back. */
  private readonly removed = new Set<string>();

  get branded(): readonly BrandedProduct[] {
    return this.removed.size === 0 ? BRANDED_SEED : BRANDED_SEED.filter((p) => !this.removed.has(p.productId));
  }

  get choice(): readonly ChoiceDesign[] {
    return this.removed.size === 0 ? CHOICE_SEED : CHOICE_SEED.filter((d) => !this.removed.has(d.productId));
  }

  /** Takes a design out of the catalog: gone from list and get; orders and campaigns naming it are 404. False if unknown. */
  removeChoice(productId: string): boolean {
    if (!this.findChoice(productId)) return false;
    this.removed.add(productId);
    return true;
  }

  /** Takes a branded product out of the catalog: gone from list and get; orders naming it are 404. False if unknown. */
  removeBranded(productId: string): boolean {
    if (!this.findBranded(productId)) return false;
    this.removed.add(productId);
    return true;
  }

  restore(): void {
    this.removed.clear();
  }

  findBranded(productId: string): BrandedProduct | undefined {
    return this.branded.find((p) => p.productId === productId);
  }

  findChoice(productId: string): ChoiceDesign | undefined {
    return this.choice.find((p) => p.productId === productId);
  }

  searchBranded(search?: string, category?: string): BrandedProduct[] {
    const s = search?.trim().toLowerCase();
    const c = category?.trim().toLowerCase();
    return this.branded.filter(
      (p) =>
        (!s || p.name.toLowerCase().includes(s) || p.brandName.toLowerCase().includes(s)) &&
        (!c || p.category.toLowerCase() === c),
    );
  }

  searchChoice(search?: string): ChoiceDesign[] {
    const s = search?.trim().toLowerCase();
    return this.choice.filter((p) => !s || p.designName.toLowerCase().includes(s));
  }
}

const unit = (cents: number) => cents / 100;

export function serializeBranded(p: BrandedProduct) {
  const prices = p.pricesCents.map(unit);
  return {
    productId: p.productId,
    name: p.name,
    brandName: p.brandName,
    category: p.category,
    description: p.description,
    terms: p.terms,
    redemptionInstructions: p.redemptionInstructions,
    countryCode: p.countryCode,
    currencyCode: p.currencyCode,
    // No exchange rate: the catalog gives none (spec 2.11); the order's totalCost tells the USD charged.
    priceType: p.priceType,
    prices,
    priceStep: p.priceStepCents === null ? null : unit(p.priceStepCents),
    // Quick-start listing shape (spec 2.11).
    faceValueType: p.priceType === 'FIXED' ? 'FIXED_VALUE' : 'VARIABLE_VALUE',
    denominations: p.priceType === 'FIXED' ? prices : [],
    minAmount: p.priceType === 'RANGE' ? prices[0] : Math.min(...prices),
    maxAmount: p.priceType === 'RANGE' ? prices[1] : Math.max(...prices),
  };
}

export function serializeChoice(p: ChoiceDesign) {
  return {
    productId: p.productId,
    designName: p.designName,
    name: p.designName,
    description: p.description,
    cardType: 'CHOICE_CARD',
    currencyCode: 'USD',
    priceType: 'RANGE' as const,
    prices: [unit(CHOICE_RANGE_CENTS.min), unit(CHOICE_RANGE_CENTS.max)],
    priceStep: 1,
    minAmount: money(CHOICE_RANGE_CENTS.min).amount,
    maxAmount: money(CHOICE_RANGE_CENTS.max).amount,
  };
}
