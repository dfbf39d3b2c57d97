// A table's legal status moves, kept as one constant beside the store that owns the table (e.g.
// KUDOS_STATUS_TRANSITIONS in sending/kudos-store.ts): each status maps to the statuses a row in it
// may be written with. A status that lists itself is rewritten in place (another part recorded, a
// retry, a lease taken over); a terminal status maps to []. A conditional UPDATE names its move with
// moveGuard, so a move the table does not list does not compile.
import { type Column, eq, inArray, type SQL } from 'drizzle-orm';

/** From each status, the statuses a row may be written with next. */
export type StatusTransitions<S extends string = string> = { readonly [K in S]: readonly S[] };

/** The statuses from which a row may move to every one of `To`. */
export type SourcesOf<M extends StatusTransitions, To extends string> = {
  [K in keyof M]: [To] extends [M[K][number]] ? K : never;
}[keyof M] &
  string;

function targetsOf<To extends string>(to: To | readonly To[]): readonly To[] {
  return typeof to === 'string' ? [to] : to;
}

/** Every status that may move to `to` (to each of them, given several), in the order of the constant. */
export function fromStatuses<M extends StatusTransitions, To extends keyof M & string>(
  transitions: M,
  to: To | readonly To[],
): SourcesOf<M, To>[] {
  const targets = targetsOf(to);
  return Object.keys(transitions).filter((from) =>
    targets.every((target) => transitions[from]!.includes(target)),
  ) as SourcesOf<M, To>[];
}

/**
 * The status condition of an UPDATE that writes `to` (one of `to`, given several): the row is in one
 * of `from`, every legal source when it is left out. A narrower `from` keeps an update to the move it
 * means (only awaiting_approval is decided); a source that does not list `to` does not compile, and
 * throws should a widened type let one through.
 */
export function moveGuard<M extends StatusTransitions, To extends keyof M & string>(
  column: Column,
  transitions: M,
  to: To | readonly To[],
  from: readonly SourcesOf<M, To>[] = fromStatuses(transitions, to),
): SQL {
  const targets = targetsOf(to);
  const illegal = from.filter((source) => !targets.every((target) => transitions[source]?.includes(target)));
  if (from.length === 0 || illegal.length > 0)
    throw new Error(`no legal move from ${illegal.join(', ') || 'any status'} to ${targets.join(', ')}`);
  return from.length === 1 ? eq(column, from[0]) : inArray(column, [...from]);
}
