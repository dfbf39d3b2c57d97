// The send form's brand fields (shown in place of design and amount once "A brand" is picked): a
// category and the brand picker, then the brand's own amounts (a FIXED product's denominations, a
// RANGE product's rule), a line with the amount in its own currency and its USD estimate, and the
// brand's terms and redemption instructions one click away (a pushed modal).
import { formatDistance } from 'date-fns';

import type { Brand, BrandPage } from '../../domain/branded/brand-catalog.js';
import { BRAND_GONE, unknownCostReason } from '../../domain/branded/branded-card.js';
import { formatFace } from '../../domain/branded/currency.js';
import { describePrices } from '../../domain/branded/prices.js';
import type { UsdEstimate } from '../../domain/branded/usd-cost.js';
import { centsToDecimal, formatUsd } from '../../domain/common/money.js';
import { countryName } from '../../domain/workspaces/people-countries.js';
import { ANY_CATEGORY, SendBrand } from '../ids.js';
import { type Block, clip, context, plain, section } from '../kit/mrkdwn.js';
import { escapeMrkdwn } from '../kit/mrkdwn-escape.js';

/** The brand fields' state: what the catalog offers to narrow by, and the brand picked, if any. */
export interface BrandFields {
  /** The categories of the brands in the catalog's first pages. */
  categories: string[];
  category?: string | undefined;
  picked?: BrandPicked | undefined;
  /** The brand picked is no longer in the catalog. */
  gone?: boolean | undefined;
}

export interface BrandPicked {
  brand: Brand;
  /** The amount picked or typed, in cents of the brand's currency, when it is one the brand offers. */
  faceCents?: number | undefined;
  /** The USD estimate of `faceCents` (or of one unit of the currency when no amount is picked yet). */
  estimate?: UsdEstimate | undefined;
  /** The amount to show typed in (a RANGE product; the one-line command's Edit). */
  typed?: string | undefined;
}

/** Where a brand is offered, in words: a country's name ("United Kingdom"), `GLOBAL` as all countries. */
export function countryWords(countryCode: string | null): string {
  if (countryCode === null) return 'any country';
  return countryCode === 'GLOBAL' ? 'all countries' : countryName(countryCode);
}

/** "Tesco · GBP · United Kingdom": a brand as the picker lists it. */
export function brandLabel(brand: Brand): string {
  return `${brand.brandName} · ${brand.currency} · ${countryWords(brand.countryCode)}`;
}

function brandOption(brand: Brand) {
  const about = [brand.category, describePrices(brand.prices)].filter(Boolean).join(' · ');
  return {
    text: plain(clip(brandLabel(brand), 75)),
    description: plain(clip(about, 75)),
    value: brand.productId.slice(0, 150),
  };
}

/**
 * The picker's options: one group per catalog page read (Slack shows at most 100 options, two pages),
 * the last saying when more brands match than fit (typing narrows the search).
 */
export function buildBrandOptions(pages: BrandPage[]) {
  const groups = pages
    .filter((page) => page.brands.length > 0)
    .map((page, i, shown) => {
      const more = i === shown.length - 1 && page.hasMore;
      return {
        label: plain(more ? `Page ${i + 1} (more match: type to narrow)` : `Page ${i + 1}`, 75),
        options: page.brands.slice(0, 50).map(brandOption),
      };
    });
  return groups.length > 0 ? { option_groups: groups } : { options: [] };
}

/** The amount in the brand's currency and what it costs in USD, as far as Kudos can tell now. */
export function usdLine(brand: Brand, faceCents: number | undefined, estimate: UsdEstimate | undefined): string {
  if (brand.currency === 'USD') return 'USD: the amount is what it costs.';
  if (!estimate || estimate.basis === 'unknown')
    return `${unknownCostReason(brand.currency)} So a send of it waits for approval.`;
  if (estimate.basis === 'exact') return `about ${formatUsd(estimate.estimateCents)} in USD`;
  const age = rateAge(estimate.rateAgeMs);
  return faceCents === undefined
    ? `${formatFace(100, brand.currency)} is about $${estimate.usdPerUnit} in USD, from your last ${brand.currency} order (${age}).`
    : `about ${formatUsd(estimate.estimateCents)} in USD, at the rate of your last ${brand.currency} order (${age})`;
}

/** How old a learned rate is, in words: "less than a minute ago", "about 5 hours ago", "3 days ago". */
function rateAge(ms: number): string {
  return formatDistance(0, ms, { addSuffix: false }) + ' ago';
}

/** "£20 at Tesco, about $25 in USD …", or the brand and its rule before an amount is picked. */
export function brandInfoLine(picked: BrandPicked): string {
  const { brand, faceCents, estimate } = picked;
  const head =
    faceCents !== undefined
      ? `*${escapeMrkdwn(formatFace(faceCents, brand.currency))} at ${escapeMrkdwn(brand.brandName)}*`
      : `*${escapeMrkdwn(brand.brandName)}*: ${escapeMrkdwn(describePrices(brand.prices))}`;
  return `${head} · ${escapeMrkdwn(usdLine(brand, faceCents, estimate))}`;
}

/** The brand fields of the send form; `fill` renames the brand and amount blocks (a new pick shows afresh). */
export function brandBlocks(fields: BrandFields, fill: string | undefined): Block[] {
  const { blocks: B, actions: A } = SendBrand;
  const any = { text: plain('Any category'), value: ANY_CATEGORY };
  const categoryOptions = [any, ...fields.categories.map((c) => ({ text: plain(clip(c, 75)), value: c.slice(0, 75) }))];
  const category = categoryOptions.find((o) => o.value === fields.category);
  const picked = fields.picked;
  const blocks: Block[] = [
    {
      type: 'input',
      block_id: B.category,
      optional: true,
      label: plain('Brand category'),
      element: {
        type: 'static_select',
        action_id: A.category,
        options: categoryOptions.slice(0, 100),
        initial_option: category ?? any,
      },
    },
    {
      type: 'input',
      block_id: withFill(B.brand, fill),
      dispatch_action: true,
      label: plain('Brand'),
      hint: plain('Search by name or brand, within the category picked. The card is in the brand’s own currency.'),
      element: {
        type: 'external_select',
        action_id: A.brand,
        min_query_length: 0,
        placeholder: plain('Search brands'),
        ...(picked ? { initial_option: brandOption(picked.brand) } : {}),
      },
    },
  ];
  if (fields.gone) blocks.push(context(`:warning: ${escapeMrkdwn(BRAND_GONE)}`));
  if (!picked) return blocks;
  return [...blocks, faceBlock(picked, fill), brandInfoBlock(picked)];
}

function withFill(block: string, fill: string | undefined): string {
  return fill ? `${block}_${fill}` : block;
}

/** The block id of the brand picker or the amount, in the form whose metadata has `fill`. */
export function brandBlockId(block: 'brand' | 'face', fill: string | undefined): string {
  return withFill(SendBrand.blocks[block], fill);
}

/** A FIXED product's denominations to pick from; a RANGE product's amount typed in its currency. */
function faceBlock(picked: BrandPicked, fill: string | undefined): Block {
  const { brand, faceCents } = picked;
  const prices = brand.prices;
  const label = plain(`Amount per person (${brand.currency})`);
  const base = { type: 'input', block_id: withFill(SendBrand.blocks.face, fill), dispatch_action: true, label };
  if (prices.priceType === 'FIXED') {
    const options = prices.denominationsCents
      .slice(0, 100)
      .map((c) => ({ text: plain(formatFace(c, brand.currency)), value: centsToDecimal(c) }));
    const initial = options.find((o) => faceCents !== undefined && o.value === centsToDecimal(faceCents));
    return {
      ...base,
      hint: plain(`${brand.brandName} offers ${describePrices(prices)}.`),
      element: {
        type: 'static_select',
        action_id: SendBrand.actions.face,
        placeholder: plain('Pick an amount'),
        options,
        ...(initial ? { initial_option: initial } : {}),
      },
    } as Block;
  }
  return {
    ...base,
    hint: plain(`Any amount ${describePrices(prices)}. Press Enter to see it in USD.`),
    element: {
      type: 'plain_text_input',
      action_id: SendBrand.actions.face,
      max_length: 20,
      placeholder: plain(`e.g. ${formatFace(prices.minCents, brand.currency)}`),
      dispatch_action_config: { trigger_actions_on: ['on_enter_pressed'] },
      ...(picked.typed ? { initial_value: clip(picked.typed, 20) } : {}),
    },
  } as Block;
}

/** The amount at the brand and its USD estimate, with the brand's terms one click away. */
function brandInfoBlock(picked: BrandPicked): Block {
  return {
    type: 'section',
    block_id: SendBrand.blocks.info,
    text: { type: 'mrkdwn', text: brandInfoLine(picked), verbatim: true },
    accessory: {
      type: 'button',
      action_id: SendBrand.actions.terms,
      text: plain('Terms and how to redeem'),
      value: picked.brand.productId.slice(0, 150),
    },
  };
}

/** The pushed modal: the brand's terms and redemption instructions, as the catalog gives them. */
export function buildBrandTerms(brand: Brand | undefined): Record<string, unknown> {
  const blocks: Block[] = brand
    ? [
        section(`*${escapeMrkdwn(brand.name)}*\n${escapeMrkdwn(brandLabel(brand))}`),
        section(`*Terms*\n${escapeMrkdwn(brand.terms.trim() || 'The brand gives no terms.')}`),
        section(
          `*How to redeem*\n${escapeMrkdwn(brand.redemptionInstructions?.trim() || 'The brand gives no redemption instructions; the card’s e-mail says how.')}`,
        ),
      ]
    : [section(escapeMrkdwn(BRAND_GONE))];
  return { type: 'modal', title: plain('Brand terms', 24), close: plain('Back', 24), blocks };
}
