import { PgDialect, pgTable, text } from 'drizzle-orm/pg-core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { fromStatuses, moveGuard, type StatusTransitions } from '../../../src/domain/common/status-transitions.js';

const rows = pgTable('rows', { status: text('status').notNull() });
const dialect = new PgDialect();
const render = (condition: ReturnType<typeof moveGuard>) => dialect.sqlToQuery(condition);

const DOOR = {
  closed: ['open', 'locked'],
  open: ['closed'],
  locked: ['closed', 'locked'],
  broken: [],
} as const satisfies StatusTransitions<'closed' | 'open' | 'locked' | 'broken'>;

/** Random tables over a few statuses: each status lists some of them (itself included at times). */
const tables = fc
  .uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e'), { minLength: 1 })
  .chain((statuses) =>
    fc
      .record(Object.fromEntries(statuses.map((s) => [s, fc.subarray(statuses)])))
      .map((table) => ({ statuses, table })),
  );

describe('fromStatuses', () => {
  it('gives the statuses that list the target, in the order of the constant', () => {
    expect(fromStatuses(DOOR, 'closed')).toEqual(['open', 'locked']);
    expect(fromStatuses(DOOR, 'locked')).toEqual(['closed', 'locked']);
    expect(fromStatuses(DOOR, 'open')).toEqual(['closed']);
    expect(fromStatuses(DOOR, 'broken')).toEqual([]);
  });

  it('given several targets, gives the statuses that list every one of them', () => {
    expect(fromStatuses(DOOR, ['open', 'locked'])).toEqual(['closed']);
    expect(fromStatuses(DOOR, ['closed', 'locked'])).toEqual(['locked']);
    expect(fromStatuses(DOOR, ['open', 'broken'])).toEqual([]);
  });

  it('returns exactly the listed sources of any table (property)', () => {
    fc.assert(
      fc.property(tables, ({ statuses, table }) => {
        for (const to of statuses) {
          const sources = fromStatuses(table, to);
          expect(sources).toEqual(statuses.filter((from) => table[from]!.includes(to)));
        }
      }),
    );
  });

  it('given several targets, returns the sources common to each target (property)', () => {
    fc.assert(
      fc.property(
        tables.chain(({ statuses, table }) =>
          fc.subarray(statuses, { minLength: 1 }).map((targets) => ({ table, targets })),
        ),
        ({ table, targets }) => {
          const each = targets.map((to) => new Set(fromStatuses(table, to)));
          const common = fromStatuses(table, targets);
          expect(new Set(common)).toEqual(new Set(Object.keys(table).filter((s) => each.every((set) => set.has(s)))));
        },
      ),
    );
  });
});

describe('moveGuard', () => {
  it('guards on every legal source when none is named', () => {
    expect(render(moveGuard(rows.status, DOOR, 'closed'))).toMatchObject({
      sql: '"rows"."status" in ($1, $2)',
      params: ['open', 'locked'],
    });
  });

  it('guards on one source with an equality, as a hand-written guard would', () => {
    expect(render(moveGuard(rows.status, DOOR, 'open'))).toMatchObject({
      sql: '"rows"."status" = $1',
      params: ['closed'],
    });
    expect(render(moveGuard(rows.status, DOOR, 'closed', ['locked']))).toMatchObject({
      sql: '"rows"."status" = $1',
      params: ['locked'],
    });
  });

  it('keeps a narrower guard as it is named, in its order', () => {
    expect(render(moveGuard(rows.status, DOOR, 'closed', ['locked', 'open']))).toMatchObject({
      sql: '"rows"."status" in ($1, $2)',
      params: ['locked', 'open'],
    });
  });

  it('refuses a move the table does not list, and a target nothing moves to', () => {
    expect(() => moveGuard(rows.status, DOOR, 'open', ['locked' as never])).toThrow(
      /no legal move from locked to open/,
    );
    expect(() => moveGuard(rows.status, DOOR, ['open', 'locked'], ['locked' as never])).toThrow(/from locked/);
    expect(() => moveGuard(rows.status, DOOR, 'broken')).toThrow(/from any status to broken/);
  });

  it('matches exactly the rows whose status may move to the target (property)', () => {
    fc.assert(
      fc.property(tables, ({ statuses, table }) => {
        for (const to of statuses) {
          const sources = fromStatuses(table, to);
          if (sources.length === 0) {
            expect(() => moveGuard(rows.status, table, to)).toThrow();
            continue;
          }
          expect(render(moveGuard(rows.status, table, to)).params).toEqual(sources);
        }
      }),
    );
  });
});
