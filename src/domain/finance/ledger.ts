// Reading the Rewards ledger (spec 2.10) the way the spec says it must be read: `type` alone cannot
// tell a pending top-up from a processed one, nor a promotion from a refund, so every row is
// classified by `source` + `status` (or `statusLabel` when the code is unknown). Rows labelled
// Pending or Unapproved are listed but not credited. Sums use `signedAmount`, in cents.
import { and, eq, gte, inArray, isNotNull, lt, or, sql } from 'drizzle-orm';

import type { Database } from '../../db/client.js';
import { kudos } from '../../db/schema/index.js';
import { type LedgerRow, type RequestOptions, type RewardsClient, toCents } from '../../rewards/index.js';
import { type BrandedFace, brandedFace } from '../branded/card-amounts.js';
import { orderIdsOf } from '../sending/kudos-parts.js';

export type MovementKind =
  | 'top_up_pending'
  | 'top_up_completed'
  | 'top_up_unapproved'
  | 'promotion'
  | 'reward_refund'
  | 'transfer_sent'
  | 'transfer_received'
  | 'order'
  | 'order_canceled'
  | 'other';

export interface Movement {
  referenceNumber: string;
  kind: MovementKind;
  /** What an admin reads: e.g. "Top-up (pending)", "Promotion", "Order". */
  label: string;
  type: string;
  source: string | undefined;
  status: string | undefined;
  statusLabel: string | undefined;
  /** Signed: negative for money out. */
  signedCents: number;
  currency: string;
  /** False for top-ups still pending or unapproved: listed, not in the balance. */
  credited: boolean;
  occurredAt: Date | undefined;
}

const LABELS: Record<MovementKind, string> = {
  top_up_pending: 'Top-up (pending)',
  top_up_completed: 'Top-up (completed)',
  top_up_unapproved: 'Top-up (not approved)',
  promotion: 'Promotion',
  reward_refund: 'Refund (reward)',
  transfer_sent: 'Transfer sent',
  transfer_received: 'Transfer received',
  order: 'Order',
  order_canceled: 'Order canceled (refund)',
  other: 'Other',
};

/** Classifies one row by source + status, falling back to the label (codes may arrive as "03" or 3). */
export function classifyLedgerRow(row: Pick<LedgerRow, 'type' | 'source' | 'status' | 'statusLabel'>): MovementKind {
  const source = row.source?.toLowerCase();
  const status = row.status === undefined ? undefined : String(Number(row.status));
  const label = row.statusLabel?.toLowerCase() ?? '';
  switch (source) {
    case 'funding':
      if (status === '90' || label === 'pending') return 'top_up_pending';
      if (status === '99' || label === 'processed') return 'top_up_completed';
      if (status === '3' || label === 'unapproved') return 'top_up_unapproved';
      return 'top_up_pending';
    case 'reward':
      if (status === '3' || label === 'refund') return 'reward_refund';
      return 'promotion';
    case 'transfer':
      if (status === '20' || label.includes('sent')) return 'transfer_sent';
      return 'transfer_received';
    case 'branded':
    case 'choice':
      // choice status 3 appears under both "Balance Used" and "Canceled": the label decides.
      if (label === 'canceled' || label === 'cancelled') return 'order_canceled';
      if (label === 'balance used') return 'order';
      return status === '2' ? 'order_canceled' : 'order';
    default:
      break;
  }
  switch (row.type) {
    case 'USE':
      return 'order';
    case 'REWARD':
      return 'promotion';
    case 'CHARGE':
      return label === 'processed'
        ? 'top_up_completed'
        : label === 'unapproved'
          ? 'top_up_unapproved'
          : 'top_up_pending';
    default:
      return 'other';
  }
}

export function toMovement(row: LedgerRow): Movement {
  const kind = classifyLedgerRow(row);
  const money = row.signedAmount ?? row.amount;
  let cents = toCents(money.amount, { rounding: 'half-up' });
  // Without signedAmount, the sign comes from the kind (USE amounts are negative already).
  if (!row.signedAmount) cents = OUTFLOWS.has(kind) ? -Math.abs(cents) : Math.abs(cents);
  return {
    referenceNumber: row.referenceNumber,
    kind,
    label: LABELS[kind],
    type: row.type,
    source: row.source,
    status: row.status === undefined ? undefined : String(row.status),
    statusLabel: row.statusLabel,
    signedCents: cents,
    currency: money.currency,
    credited: kind !== 'top_up_pending' && kind !== 'top_up_unapproved',
    occurredAt: row.occurredAt,
  };
}

const OUTFLOWS: ReadonlySet<MovementKind> = new Set(['order', 'transfer_sent']);

/** A calendar month in UTC: `2026-11` -> [start, end). */
export function monthRange(month: string): { start: Date; end: Date } {
  const match = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(month);
  if (!match) throw new RangeError(`not a month: ${month}`);
  const year = Number(match[1]);
  const index = Number(match[2]) - 1;
  return { start: new Date(Date.UTC(year, index, 1)), end: new Date(Date.UTC(year, index + 1, 1)) };
}

export function monthOf(date: Date): string {
  return `${date.getUTCFullYear()}-${String(date.getUTCMonth() + 1).padStart(2, '0')}`;
}

const day = (d: Date) => d.toISOString().slice(0, 10);

/** Every movement between two instants (the API filters by whole UTC days, inclusive), newest first, page by page as it is read. */
export async function* movementsIn(
  rewards: Pick<RewardsClient, 'balance'>,
  range: { start: Date; end: Date },
  request: RequestOptions = {},
): AsyncGenerator<Movement> {
  const lastDay = new Date(range.end.getTime() - 1);
  for await (const row of rewards.balance.ledger(
    { startDate: day(range.start), endDate: day(lastDay), pageSize: 100 },
    request,
  )) {
    const movement = toMovement(row);
    if (movement.occurredAt && (movement.occurredAt < range.start || movement.occurredAt >= range.end)) continue;
    yield movement;
  }
}

/** Every movement between two instants, newest first, up to `maxRows` (a list for people to read). */
export async function readMovements(
  rewards: Pick<RewardsClient, 'balance'>,
  range: { start: Date; end: Date },
  opts: RequestOptions & { maxRows?: number } = {},
): Promise<{ movements: Movement[]; truncated: boolean }> {
  const { maxRows = 5000, ...request } = opts;
  const movements: Movement[] = [];
  let truncated = false;
  for await (const movement of movementsIn(rewards, range, request)) {
    if (movements.length >= maxRows) {
      truncated = true;
      break;
    }
    movements.push(movement);
  }
  return { movements, truncated };
}

export interface LedgerTotals {
  /** Credited money in (top-ups completed, promotions, refunds, transfers received). */
  inCents: number;
  /** Money out (orders, transfers sent), as a positive number. */
  outCents: number;
  /** Net spend on orders: orders minus their cancellations. */
  orderSpendCents: number;
  /** Top-ups still pending (not credited). */
  pendingTopUpCents: number;
  byKind: Partial<Record<MovementKind, { count: number; cents: number }>>;
}

export function totalsOf(movements: Movement[]): LedgerTotals {
  const totals: LedgerTotals = { inCents: 0, outCents: 0, orderSpendCents: 0, pendingTopUpCents: 0, byKind: {} };
  for (const m of movements) {
    const entry = (totals.byKind[m.kind] ??= { count: 0, cents: 0 });
    entry.count += 1;
    entry.cents += m.signedCents;
    if (m.kind === 'top_up_pending') totals.pendingTopUpCents += m.signedCents;
    if (!m.credited) continue;
    if (m.signedCents >= 0) totals.inCents += m.signedCents;
    else totals.outCents += -m.signedCents;
    if (m.kind === 'order' || m.kind === 'order_canceled') totals.orderSpendCents -= m.signedCents;
  }
  return totals;
}

/** Net spend on orders (orders minus cancellations) since `since`, from the ledger. */
export async function orderSpendSince(
  rewards: Pick<RewardsClient, 'balance'>,
  since: Date,
  now: Date,
  opts: RequestOptions = {},
): Promise<number> {
  const { movements } = await readMovements(rewards, { start: since, end: new Date(now.getTime() + 1) }, opts);
  return totalsOf(movements).orderSpendCents;
}

export interface Reconciliation {
  /** Orders Kudos placed in the month, with what Kudos recorded they cost. */
  kudosOrders: number;
  /** What Kudos expects the month's ledger to show for them: their cost, less the refunds booked this month of those it recorded cancelled. */
  kudosCents: number;
  /** The ledger's net for those same orders. */
  ledgerCents: number;
  /** Refunds booked this month of Kudos sends placed in an earlier month and recorded cancelled (their cost, as a positive number). */
  earlierRefunds: { orders: number; cents: number };
  /** Kudos orders the ledger does not show, and ledger amounts that differ from Kudos' record. */
  missing: string[];
  differing: Array<{ orderId: string; kudosCents: number; ledgerCents: number }>;
  /** Orders in the ledger that Kudos did not place (other tools on the same account): listed, not flagged. */
  otherOrders: number;
  ok: boolean;
  /** The send each Kudos order (of the month's sends and of the refunds it shows) belongs to, by order id: whom it was from and for. */
  sends: Record<string, LedgerSend>;
}

/** A Kudos send as the ledger list names it, instead of its order id. */
export interface LedgerSend {
  senderUserId: string;
  recipientCount: number;
  /** A branded card's face per card and brand (the ledger's amount is its USD); null for a choice card. */
  branded: BrandedFace | null;
}

const RECONCILED_STATUSES = ['placed', 'scheduled', 'partial', 'canceled'] as const;
const sendColumns = {
  orderId: kudos.orderId,
  orderIds: kudos.orderIds,
  costCents: kudos.costCents,
  totalCents: kudos.totalCents,
  status: kudos.status,
  orderStatus: kudos.orderStatus,
  senderUserId: kudos.senderUserId,
  recipientCount: kudos.recipientCount,
  cardType: kudos.cardType,
  designName: kudos.designName,
  amountCents: kudos.amountCents,
  faceCurrency: kudos.faceCurrency,
  faceCents: kudos.faceCents,
};

/**
 * Matches the month's ledger rows of Kudos orders with what Kudos recorded, each row in the month the
 * ledger booked it: every order Kudos placed in the month must be charged its cost there, and every
 * refund the month shows of a Kudos order must be of a send Kudos recorded cancelled, for its cost.
 * A send cancelled in a later month is charged in this one and refunded in that one's ledger, so each
 * month reconciles on its own (a send booked and cancelled in one month nets to zero there).
 */
export async function reconcileWithKudos(
  db: Database,
  ws: { teamId: string },
  movements: Movement[],
  range: { start: Date; end: Date },
): Promise<Reconciliation> {
  const placed = await db
    .select(sendColumns)
    .from(kudos)
    .where(
      and(
        eq(kudos.teamId, ws.teamId),
        isNotNull(kudos.orderId),
        gte(kudos.placedAt, range.start),
        lt(kudos.placedAt, range.end),
        inArray(kudos.status, [...RECONCILED_STATUSES]),
      ),
    );
  const charged = new Map<string, number>();
  const refunded = new Map<string, number>();
  for (const m of movements) {
    if (m.kind === 'order') charged.set(m.referenceNumber, (charged.get(m.referenceNumber) ?? 0) - m.signedCents);
    if (m.kind === 'order_canceled')
      refunded.set(m.referenceNumber, (refunded.get(m.referenceNumber) ?? 0) + m.signedCents);
  }
  const missing: string[] = [];
  const differing: Reconciliation['differing'] = [];
  let kudosCents = 0;
  let ledgerCents = 0;
  const ours = new Set<string>();
  const sends: Record<string, LedgerSend> = {};
  const named = (row: (typeof placed)[number]): LedgerSend => ({
    senderUserId: row.senderUserId,
    recipientCount: row.recipientCount,
    branded: brandedFace(row),
  });
  for (const row of placed) {
    // A send of several orders (kudos-parts.ts) is matched as a whole: its orders' charges against its cost.
    const orderIds = orderIdsOf(row);
    for (const id of orderIds) {
      ours.add(id);
      sends[id] = named(row);
    }
    const expected = row.costCents ?? row.totalCents;
    kudosCents += expected;
    const absent = orderIds.filter((id) => !charged.has(id));
    if (absent.length > 0) {
      missing.push(...absent);
      continue;
    }
    const inLedger = orderIds.reduce((sum, id) => sum + charged.get(id)!, 0);
    ledgerCents += inLedger;
    if (inLedger !== expected) differing.push({ orderId: row.orderId!, kudosCents: expected, ledgerCents: inLedger });
  }
  // The month's refunds of Kudos orders, whenever they were placed.
  const placedThisMonth = new Set(ours);
  const earlierRefunds = { orders: 0, cents: 0 };
  for (const row of await sendsOfOrders(db, ws, [...refunded.keys()])) {
    const orderIds = orderIdsOf(row);
    for (const id of orderIds) {
      ours.add(id);
      sends[id] = named(row);
    }
    const inLedger = orderIds.reduce((sum, id) => sum + (refunded.get(id) ?? 0), 0);
    const cancelled = row.status === 'canceled' || row.orderStatus === 'CANCELED';
    const expected = cancelled ? (row.costCents ?? row.totalCents) : 0;
    if (inLedger !== expected) differing.push({ orderId: row.orderId!, kudosCents: -expected, ledgerCents: -inLedger });
    if (orderIds.some((id) => placedThisMonth.has(id))) {
      kudosCents -= expected;
      ledgerCents -= inLedger;
    } else {
      earlierRefunds.orders += 1;
      earlierRefunds.cents += inLedger;
    }
  }
  const otherOrders = new Set([...charged.keys(), ...refunded.keys()].filter((id) => !ours.has(id))).size;
  return {
    kudosOrders: placed.length,
    kudosCents,
    ledgerCents,
    earlierRefunds,
    missing,
    differing,
    otherOrders,
    ok: missing.length === 0 && differing.length === 0,
    sends,
  };
}

/** The workspace's sends (of the reconciled statuses) that own any of these order ids. */
async function sendsOfOrders(db: Database, ws: { teamId: string }, orderIds: string[]) {
  if (orderIds.length === 0) return [];
  const ids = sql.join(
    orderIds.map((id) => sql`${id}`),
    sql`, `,
  );
  return db
    .select(sendColumns)
    .from(kudos)
    .where(
      and(
        eq(kudos.teamId, ws.teamId),
        inArray(kudos.status, [...RECONCILED_STATUSES]),
        or(inArray(kudos.orderId, orderIds), sql`${kudos.orderIds} ?| array[${ids}]::text[]`),
      ),
    );
}
