// How much company money one sender may spend in a calendar month (UTC): the pure rules. A person's
// own allowance wins over their user groups'; among several groups, the most generous (no limit beats
// any figure); with none of those, the workspace's default; null everywhere: no allowance. What is
// counted against it is what the sender spent or has waiting (approvals/approval-policy.ts,
// monthlySpendCents): a send waiting for approval counts from the moment it is recorded, and stops
// counting when it is rejected, cancelled or expires.
import { formatUsd } from '../common/money.js';

/** Whose allowance applies to a sender. */
export type AllowanceSource = 'person' | 'usergroup' | 'default' | 'none';

export interface ResolvedAllowance {
  /** Cents a month; null: no limit. */
  cents: number | null;
  source: AllowanceSource;
}

/**
 * The allowance that applies: the person's override (undefined: none; null cents: no limit), else the
 * most generous of their groups' overrides, else the default.
 */
export function resolveAllowance(
  defaultCents: number | null,
  person: { cents: number | null } | undefined,
  groups: ReadonlyArray<number | null>,
): ResolvedAllowance {
  if (person) return { cents: person.cents, source: 'person' };
  if (groups.length > 0)
    return { cents: groups.includes(null) ? null : Math.max(...(groups as number[])), source: 'usergroup' };
  return defaultCents === null ? { cents: null, source: 'none' } : { cents: defaultCents, source: 'default' };
}

/** What is left of an allowance after what is counted against it; never below zero. */
export function allowanceLeftCents(allowanceCents: number, countedCents: number): number {
  return Math.max(0, allowanceCents - countedCents);
}

/** Does a send of `totalCents` fit what is left? */
export function fitsAllowance(allowanceCents: number | null, countedCents: number, totalCents: number): boolean {
  return allowanceCents === null || countedCents + totalCents <= allowanceCents;
}

/** The first instant of the next calendar month in UTC: when allowances start again. */
export function nextMonthStartUtc(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

/** "Jan 1": the day allowances start again. */
export function resetDay(now: Date): string {
  return nextMonthStartUtc(now).toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
}

/** The refusal of a send over the sender's allowance: by how much, what is left, until when, what to do. */
export function overAllowanceMessage(input: {
  allowanceCents: number;
  countedCents: number;
  totalCents: number;
  now: Date;
}): string {
  const over = input.countedCents + input.totalCents - input.allowanceCents;
  const left = allowanceLeftCents(input.allowanceCents, input.countedCents);
  const until = resetDay(input.now);
  const leftPart = left === 0 ? `nothing is left until ${until}` : `${formatUsd(left)} is left until ${until}`;
  return `That is ${formatUsd(over)} over your ${formatUsd(input.allowanceCents)} monthly allowance; ${leftPart}. Send less, or ask a Kudos admin for a higher allowance.`;
}

/** The sender's standing this month: the line of the send form and App Home. */
export interface AllowanceStanding {
  allowanceCents: number | null;
  countedCents: number;
  /** null: no allowance. */
  leftCents: number | null;
  resetDay: string;
}

export function allowanceStanding(allowanceCents: number | null, countedCents: number, now: Date): AllowanceStanding {
  return {
    allowanceCents,
    countedCents,
    leftCents: allowanceCents === null ? null : allowanceLeftCents(allowanceCents, countedCents),
    resetDay: resetDay(now),
  };
}

/** "You have $75 left this month" (of a $100 monthly allowance, until Jan 1); undefined with no allowance. */
export function allowanceLine(standing: AllowanceStanding): string | undefined {
  if (standing.allowanceCents === null || standing.leftCents === null) return undefined;
  return `You have ${formatUsd(standing.leftCents)} left this month (of your ${formatUsd(standing.allowanceCents)} monthly allowance; it starts again on ${standing.resetDay}).`;
}
