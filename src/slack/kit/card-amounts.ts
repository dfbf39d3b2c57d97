// A card's amount in mrkdwn, for every message that names a kudos: a choice card as always ("$25
// Thank You card", "$50"), a branded card by its face value and brand with its USD cost beside it
// ("£25 Tesco Gift Card", "£50 (about $67)"). The wording rules are domain/branded/card-amounts.ts.
import type { KudosRow } from '../../db/schema/index.js';
import {
  brandedCardName,
  type BrandedFace,
  brandedFace,
  type CardAmountColumns,
  faceAmount,
  formatUsdFigure,
  roundedUsd,
  USD_KNOWN_AFTER_ORDERING,
  usdInAll,
  usdOf,
  valueInAll,
} from '../../domain/branded/card-amounts.js';
import { formatUsd } from '../../domain/common/money.js';
import { escapeMrkdwn } from './mrkdwn-escape.js';

/** A row that may be branded: builders of choice-card shapes (automations, one-line sends) leave the columns out. */
export type MaybeBrandedRow = Pick<KudosRow, 'amountCents'> &
  Partial<Pick<KudosRow, 'cardType' | 'faceCurrency' | 'faceCents' | 'usdBasis' | 'costCents' | 'designName'>>;

export function cardColumns(row: MaybeBrandedRow): CardAmountColumns {
  return {
    cardType: row.cardType ?? 'CHOICE_CARD',
    designName: row.designName ?? '',
    amountCents: row.amountCents,
    faceCurrency: row.faceCurrency ?? null,
    faceCents: row.faceCents ?? null,
    costCents: row.costCents ?? null,
    usdBasis: row.usdBasis ?? null,
  };
}

/** The row's branded face, or null for a choice card. */
export function brandedOf(row: MaybeBrandedRow): BrandedFace | null {
  return brandedFace(cardColumns(row));
}

/** "£25 Tesco Gift Card", escaped for mrkdwn. */
export function brandedCard(face: BrandedFace): string {
  return escapeMrkdwn(brandedCardName(face));
}

/** What the whole send is worth: "$50" (choice: its total), "£50 (about $67)", "£50 ($63.50)". */
export function valueTotal(row: MaybeBrandedRow & Pick<KudosRow, 'totalCents' | 'recipientCount'>): string {
  return brandedOf(row) ? valueInAll(cardColumns(row), row.recipientCount) : formatUsd(row.totalCents);
}

/**
 * The USD beside a branded card's face, in parentheses: " (about $33)", " (about $67 in all)",
 * " (USD cost known after ordering)"; nothing for a choice card or a USD face (its face is its cost).
 */
export function usdNote(row: MaybeBrandedRow, count: number): string {
  const face = brandedOf(row);
  if (!face || face.currency === 'USD') return '';
  const usd = usdInAll(cardColumns(row), count);
  if (usd === USD_KNOWN_AFTER_ORDERING || count <= 1) return ` (${usd})`;
  return ` (${usd} in all)`;
}

/**
 * What approving `count` cards spends, for a confirm dialog: "$50 will be spent from the Rewards
 * balance.", "About $67 will be spent…", or for a currency never ordered "£50: the USD cost is known
 * after ordering, and is taken from the Rewards balance."
 */
export function spendSentence(row: MaybeBrandedRow, count: number): string {
  const face = brandedOf(row);
  const figure = face && face.currency !== 'USD' ? usdOf(cardColumns(row), count) : undefined;
  if (figure?.kind === 'unknown')
    return `${faceAmount(face!, count)}: the USD cost is known after ordering, and is taken from the Rewards balance.`;
  if (figure?.kind === 'estimate') return `About ${roundedUsd(figure.cents)} will be spent from the Rewards balance.`;
  return `${figure ? formatUsdFigure(figure) : formatUsd(row.amountCents * count)} will be spent from the Rewards balance.`;
}
