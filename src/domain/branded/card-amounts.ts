// What people read about a card's amount, from a row's columns (a kudos or a reward-link request).
// A choice card reads as today: "$25". A branded card reads as its face value in its own currency
// with its brand ("£25 Tesco Gift Card"), plus what it costs in USD: the actual cost once charged
// ("$31.75"), before that the judged estimate ("about $33": the figure approvals and budgets count),
// or, for a currency Kudos has never ordered, "USD cost known after ordering" and no USD figure at all.
// Pure. docs/money.md, "Estimating the cost of a branded card".
import { formatUsd } from '../common/money.js';
import { formatFace, minorUnitDigits } from './currency.js';

/** The columns that say what a card is worth; `usdBasis` is absent on reward-link requests. */
export interface CardAmountColumns {
  cardType: string;
  designName: string;
  /** Per card, USD cents: a choice card's amount, a branded card's judged cost. */
  amountCents: number;
  faceCurrency: string | null;
  faceCents: number | null;
  /** What the cards that went out were charged, USD cents, once known. */
  costCents: number | null;
  usdBasis?: string | null;
}

/** A branded card's face: its currency, its value per card (cents of that currency) and its brand. */
export interface BrandedFace {
  currency: string;
  faceCents: number;
  brand: string;
}

/** What a card's USD cost is, as far as Kudos knows. */
export type UsdFigure = { kind: 'actual'; cents: number } | { kind: 'estimate'; cents: number } | { kind: 'unknown' };

export const USD_KNOWN_AFTER_ORDERING = 'USD cost known after ordering';

/** The branded face of a row, or null for a choice card (or a branded row without its face columns). */
export function brandedFace(row: CardAmountColumns): BrandedFace | null {
  if (row.cardType !== 'BRANDED_CARD' || row.faceCurrency === null || row.faceCents === null) return null;
  return { currency: row.faceCurrency, faceCents: row.faceCents, brand: row.designName };
}

/** A USD face value is its own USD cost: nothing to add beside it. */
function inUsd(face: BrandedFace): boolean {
  return face.currency === 'USD';
}

/** "£25" for `count` cards of a branded face ("£50" for two); `count` defaults to one. */
export function faceAmount(face: BrandedFace, count = 1): string {
  return formatFace(face.faceCents * count, face.currency);
}

/** "£25 Tesco Gift Card": the face value and the brand, as on the card. */
export function brandedCardName(face: BrandedFace): string {
  return `${faceAmount(face)} ${face.brand}`;
}

/**
 * The USD cost of `count` cards of the row (all of them by default: the actual cost covers the cards
 * that went out). A choice card is exact: its amount. A branded card: the charged cost once known,
 * else the judged cost when a rate was known (or the face is USD), else unknown.
 */
export function usdOf(row: CardAmountColumns, count: number): UsdFigure {
  const face = brandedFace(row);
  if (!face) return { kind: 'actual', cents: row.amountCents * count };
  if (row.costCents !== null) return { kind: 'actual', cents: row.costCents };
  if (inUsd(face) || row.usdBasis === 'exact') return { kind: 'actual', cents: row.amountCents * count };
  if (row.usdBasis === 'unknown') return { kind: 'unknown' };
  return { kind: 'estimate', cents: row.amountCents * count };
}

/** The USD cost of one card: the charged cost shared out (to the cent) once known. */
export function usdEach(row: CardAmountColumns, cardsCharged: number): UsdFigure {
  const face = brandedFace(row);
  if (!face || row.costCents === null || cardsCharged <= 0) return usdOf(row, 1);
  const cents = Math.round(row.costCents / cardsCharged);
  // An uneven share is not what any one card cost: say "about".
  return row.costCents % cardsCharged === 0 ? { kind: 'actual', cents } : { kind: 'estimate', cents };
}

/** "$31.75", "about $33" (an estimate, to the dollar), or "USD cost known after ordering". */
export function formatUsdFigure(figure: UsdFigure): string {
  if (figure.kind === 'unknown') return USD_KNOWN_AFTER_ORDERING;
  if (figure.kind === 'actual') return formatUsd(figure.cents);
  return `about ${roundedUsd(figure.cents)}`;
}

/** An estimate to the whole dollar (half up), or to the cent under $1 (a ¥100 card is not "about $0"). */
export function roundedUsd(cents: number): string {
  return formatUsd(cents < 100 ? cents : Math.floor((cents + 50) / 100) * 100);
}

/**
 * A card's value per person as people read it: "$25" (choice, or a USD branded card), "£25 (about
 * $33)", "£25 ($31.75)", "£25 (USD cost known after ordering)".
 */
export function valueEach(row: CardAmountColumns, cardsCharged = 1): string {
  const face = brandedFace(row);
  if (!face) return formatUsd(row.amountCents);
  if (inUsd(face)) return faceAmount(face);
  return `${faceAmount(face)} (${formatUsdFigure(usdEach(row, cardsCharged))})`;
}

/** `count` cards' value in all: "$50", "£50 (about $67)", "£50 ($63.50)", "£50 (USD cost known after ordering)". */
export function valueInAll(row: CardAmountColumns, count: number): string {
  const face = brandedFace(row);
  if (!face) return formatUsd(row.amountCents * count);
  if (inUsd(face)) return faceAmount(face, count);
  return `${faceAmount(face, count)} (${formatUsdFigure(usdOf(row, count))})`;
}

/** The USD cost in all, alone: "$50", "$63.50", "about $67", "USD cost known after ordering". */
export function usdInAll(row: CardAmountColumns, count: number): string {
  return formatUsdFigure(usdOf(row, count));
}

/** A face amount as a CSV cell: a plain decimal with the currency's decimals ("25.00", "1000"). */
export function faceDecimal(faceCents: number, currency: string): string {
  const digits = minorUnitDigits(currency);
  const negative = faceCents < 0 ? '-' : '';
  const abs = Math.abs(faceCents);
  const whole = Math.floor(abs / 100);
  if (digits === 0 && abs % 100 === 0) return `${negative}${whole}`;
  return `${negative}${whole}.${String(abs % 100).padStart(2, '0')}`;
}
