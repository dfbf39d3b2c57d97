import type { Clock } from '../clock.js';
import { ApiError, fail } from '../errors.js';
import { newId } from '../ids.js';
import { money } from '../money.js';
import { isoUtc } from '../time.js';
import type { EnvState, Funding, LedgerRow, LedgerSource, LedgerType } from './model.js';

/** The source/status table of spec part 2.10: label, sign, and whether the row is credited yet. */
interface LedgerKind {
  type: LedgerType;
  source: LedgerSource;
  status: string;
  statusLabel: string;
  sign: 1 | -1;
  credited: boolean;
}

const kind = (
  type: LedgerType,
  source: LedgerSource,
  status: string,
  statusLabel: string,
  sign: 1 | -1,
  credited = true,
): LedgerKind => ({
  type,
  source,
  status,
  statusLabel,
  sign,
  credited,
});

export const LEDGER_KINDS = {
  promotion: kind('REWARD', 'reward', '1', 'Promotion', 1),
  rewardRefund: kind('REFUND', 'reward', '3', 'Refund', 1),
  transferSent: kind('TRANSFER', 'transfer', '20', 'Transfer (sent)', -1),
  transferReceived: kind('TRANSFER', 'transfer', '21', 'Transfer (received)', 1),
  fundingPending: kind('CHARGE', 'funding', '90', 'Pending', 1, false),
  fundingProcessed: kind('CHARGE', 'funding', '99', 'Processed', 1),
  fundingUnapproved: kind('CHARGE', 'funding', '03', 'Unapproved', 1, false),
  brandedUsed: kind('USE', 'branded', '1', 'Balance Used', -1),
  brandedCanceled: kind('REFUND', 'branded', '2', 'Canceled', 1),
  choiceUsed: kind('USE', 'choice', '1', 'Balance Used', -1),
  choiceCanceled: kind('REFUND', 'choice', '2', 'Canceled', 1),
} as const satisfies Record<string, LedgerKind>;

export type LedgerKindName = keyof typeof LEDGER_KINDS;

/** Movements the control route can add (the spec's other ledger sources; no API endpoint makes them). */
export const MOVEMENT_KINDS = ['promotion', 'rewardRefund', 'transferSent', 'transferReceived'] as const;
export type MovementKind = (typeof MOVEMENT_KINDS)[number];
const MOVEMENT_PREFIX: Record<MovementKind, string> = {
  promotion: 'PM',
  rewardRefund: 'RF',
  transferSent: 'TS',
  transferReceived: 'TR',
};

function kindOf(row: LedgerRow): LedgerKind {
  const k = Object.values(LEDGER_KINDS).find((x) => x.source === row.source && x.status === row.status);
  if (!k) throw new Error(`unknown ledger kind ${row.source}/${row.status}`);
  return k;
}

/** Sources the sandbox ledger returns (spec 2.10). */
const SANDBOX_SOURCES: ReadonlySet<LedgerSource> = new Set(['branded', 'choice', 'transfer']);

export const TOP_UP_MIN_CENTS = 10_000;

export class BalanceLedger {
  /** Tie-breaker for rows written in the same millisecond (newest first). */
  private seq = 0;

  constructor(private readonly clock: Clock) {}

  addRow(env: EnvState, kindName: LedgerKindName, referenceNumber: string, amountCents: number): LedgerRow {
    const k = LEDGER_KINDS[kindName];
    const row: LedgerRow = {
      ledgerId: newId.ledger(),
      seq: this.seq++,
      referenceNumber,
      type: k.type,
      source: k.source,
      status: k.status,
      statusLabel: k.statusLabel,
      amountCents,
      occurredAtMs: this.clock.nowMs(),
    };
    env.ledger.push(row);
    return row;
  }

  /**
   * Takes an order's cost from the balance (production) and writes the USE row. Sandbox orders are
   * not charged: the row is written for the record, the balance does not move.
   */
  chargeOrder(env: EnvState, source: 'branded' | 'choice', orderId: string, cents: number): void {
    this.ensureFunds(env, cents);
    if (env.name === 'production') env.availableCents -= cents;
    this.addRow(env, source === 'branded' ? 'brandedUsed' : 'choiceUsed', orderId, cents);
  }

  ensureFunds(env: EnvState, cents: number): void {
    if (env.name === 'production' && cents > env.availableCents) {
      throw new ApiError('INSUFFICIENT_BALANCE', 'Available balance does not cover this order', {
        required: money(cents),
        available: money(env.availableCents),
      });
    }
  }

  refundOrder(env: EnvState, source: 'branded' | 'choice', orderId: string, cents: number): void {
    if (env.name === 'production') env.availableCents += cents;
    this.addRow(env, source === 'branded' ? 'brandedCanceled' : 'choiceCanceled', orderId, cents);
  }

  /**
   * An operator-side movement (control route, extension): a promotion credited by the Rewards
   * provider, a reward refund, or a transfer to or from another account. Production moves the balance
   * (a transfer out needs the funds); the sandbox records the row only, as it does orders.
   */
  movement(env: EnvState, kindName: MovementKind, amountCents: number, referenceNumber?: string): LedgerRow {
    const k = LEDGER_KINDS[kindName];
    if (k.sign < 0) this.ensureFunds(env, amountCents);
    if (env.name === 'production') env.availableCents += k.sign * amountCents;
    return this.addRow(
      env,
      kindName,
      referenceNumber ?? MOVEMENT_PREFIX[kindName] + newId.ledger().slice(2),
      amountCents,
    );
  }

  pendingCents(env: EnvState): number {
    if (env.name === 'sandbox') return 0;
    let sum = 0;
    for (const f of env.fundings.values()) if (f.status === 'PENDING') sum += f.amountCents;
    return sum;
  }

  topUp(env: EnvState, amountCents: number, company: Record<string, string>): Funding {
    requireProduction(env, 'Top-up');
    const fundingNo = newId.funding();
    const row = this.addRow(env, 'fundingPending', fundingNo, amountCents);
    const funding: Funding = {
      fundingNo,
      amountCents,
      status: 'PENDING',
      company,
      createdAtMs: row.occurredAtMs,
      ledgerId: row.ledgerId,
    };
    env.fundings.set(fundingNo, funding);
    return funding;
  }

  cancelTopUp(env: EnvState, fundingNo: string): Funding {
    requireProduction(env, 'Top-up cancel');
    const funding = env.fundings.get(fundingNo);
    if (!funding) throw fail.notFound(`Funding request ${fundingNo}`);
    if (funding.status !== 'PENDING') {
      throw new ApiError(
        'FUNDING_NOT_CANCELABLE',
        `Funding request ${fundingNo} is ${funding.status} and can no longer be canceled`,
      );
    }
    funding.status = 'CANCELED';
    funding.canceledAtMs = this.clock.nowMs();
    this.restatus(env, funding, 'fundingUnapproved');
    return funding;
  }

  /** Operator review (control route): approve credits the balance, reject leaves it. */
  processTopUp(env: EnvState, fundingNo: string, outcome: 'approve' | 'reject'): Funding {
    const funding = env.fundings.get(fundingNo);
    if (!funding) throw fail.notFound(`Funding request ${fundingNo}`);
    if (funding.status !== 'PENDING')
      throw new ApiError('FUNDING_NOT_CANCELABLE', `Funding request ${fundingNo} is ${funding.status}`);
    if (outcome === 'approve') {
      funding.status = 'COMPLETED';
      env.availableCents += funding.amountCents;
      this.restatus(env, funding, 'fundingProcessed');
    } else {
      funding.status = 'REJECTED';
      this.restatus(env, funding, 'fundingUnapproved');
    }
    return funding;
  }

  /** Ledger rows newest first, filtered by UTC day (inclusive) and by what the environment shows. */
  ledgerRows(env: EnvState, startDay?: string, endDay?: string): LedgerRow[] {
    return env.ledger
      .filter((r) => env.name === 'production' || SANDBOX_SOURCES.has(r.source))
      .filter((r) => {
        const day = new Date(r.occurredAtMs).toISOString().slice(0, 10);
        return (!startDay || day >= startDay) && (!endDay || day <= endDay);
      })
      .sort((a, b) => b.occurredAtMs - a.occurredAtMs || b.seq - a.seq);
  }

  private restatus(env: EnvState, funding: Funding, kindName: LedgerKindName): void {
    const row = env.ledger.find((r) => r.ledgerId === funding.ledgerId);
    if (!row) return;
    const k = LEDGER_KINDS[kindName];
    row.status = k.status;
    row.statusLabel = k.statusLabel;
    row.type = k.type;
  }
}

function requireProduction(env: EnvState, what: string): void {
  if (env.name !== 'production') throw new ApiError('PRODUCTION_ONLY', `${what} is available in production only`);
}

export function serializeLedgerRow(row: LedgerRow) {
  const k = kindOf(row);
  const signed = k.sign * row.amountCents;
  return {
    ledgerId: row.ledgerId,
    referenceNumber: row.referenceNumber,
    type: row.type,
    source: row.source,
    status: row.status,
    statusLabel: row.statusLabel,
    amount: money(row.type === 'USE' ? -row.amountCents : row.amountCents),
    signedAmount: money(signed),
    credited: k.credited,
    occurredAt: isoUtc(row.occurredAtMs),
  };
}

export function serializeFunding(f: Funding) {
  return {
    fundingNo: f.fundingNo,
    amount: money(f.amountCents),
    status: f.status,
    message:
      f.status === 'PENDING'
        ? 'Your top-up request was received and is awaiting review.'
        : `Top-up request ${f.status.toLowerCase()}.`,
    estimatedProcessingTime: '1-3 business days after the wire is confirmed',
    createdAt: isoUtc(f.createdAtMs),
    ...(f.canceledAtMs !== undefined ? { canceledAt: isoUtc(f.canceledAtMs) } : {}),
  };
}
