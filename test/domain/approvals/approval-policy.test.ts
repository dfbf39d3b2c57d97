import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { decideRoute, monthStartUtc } from '../../../src/domain/approvals/approval-policy.js';
import { costAtRate, judgedAtRate } from '../../../src/domain/branded/usd-cost.js';
import { diffSettings, seedFromConfig, type WorkspaceSettings } from '../../../src/domain/workspaces/settings.js';

const cents = fc.integer({ min: 1, max: 10_000_000 });

describe('approval routing (threshold and monthly budget)', () => {
  it('needs approval exactly when the total is above the threshold (no budget)', () => {
    fc.assert(
      fc.property(cents, cents, (total, threshold) => {
        const route = decideRoute(
          { totalCents: total },
          { approvalThresholdCents: threshold, monthlyBudgetCents: null },
          0,
        );
        expect(route.kind).toBe(total > threshold ? 'needs_approval' : 'send');
      }),
    );
  });

  it('a branded send is judged on its USD estimate plus the margin: a rate risen by up to the margin never passes a threshold its cost is over', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 1_000_000 }),
        fc.integer({ min: 50, max: 20_000 }),
        fc.integer({ min: 0, max: 5 }),
        cents,
        (faceCents, learnedPer100, risePercent, threshold) => {
          const learned = { faceCents: 10_000, costCents: learnedPer100 * 100 };
          const charged = costAtRate(faceCents, {
            faceCents: 10_000 * 100,
            costCents: learned.costCents * (100 + risePercent),
          });
          const route = decideRoute(
            { totalCents: judgedAtRate(faceCents, learned), estimated: true },
            { approvalThresholdCents: threshold, monthlyBudgetCents: null },
            0,
          );
          if (charged > threshold) expect(route.kind).toBe('needs_approval');
        },
      ),
    );
    // £40 at a learned 1.27: $50.80, judged $53.34, over a $50 threshold that £40 is under.
    const route = decideRoute(
      { totalCents: judgedAtRate(4000, { faceCents: 10_000, costCents: 12_700 }), estimated: true },
      { approvalThresholdCents: 5000, monthlyBudgetCents: null },
      0,
    );
    expect(route).toEqual({
      kind: 'needs_approval',
      reason:
        'the total, judged at $53.34 in USD (the estimate plus the safety margin on the exchange rate), is above the $50 approval threshold',
    });
  });

  it('a threshold of 0 sends every order to approvers, whatever the budget', () => {
    fc.assert(
      fc.property(cents, fc.option(cents, { nil: null }), (total, budget) => {
        expect(
          decideRoute({ totalCents: total }, { approvalThresholdCents: 0, monthlyBudgetCents: budget }, 0).kind,
        ).toBe('needs_approval');
      }),
    );
  });

  it('under the threshold, needs approval exactly when spent + total would exceed the budget', () => {
    fc.assert(
      fc.property(cents, cents, fc.integer({ min: 0, max: 10_000_000 }), (total, budget, spent) => {
        const route = decideRoute(
          { totalCents: total },
          { approvalThresholdCents: 100_000_000, monthlyBudgetCents: budget },
          spent,
        );
        expect(route.kind).toBe(spent + total > budget ? 'needs_approval' : 'send');
        if (route.kind === 'needs_approval') expect(route.reason).toContain('monthly allowance');
      }),
    );
  });

  it('a send split in parts: needs approval exactly when it and what went to the same people in 24 hours exceed the threshold', () => {
    fc.assert(
      fc.property(cents, cents, fc.integer({ min: 0, max: 10_000_000 }), (total, threshold, recent) => {
        const route = decideRoute(
          { totalCents: total },
          { approvalThresholdCents: threshold, monthlyBudgetCents: null },
          0,
          recent,
        );
        expect(route.kind).toBe(total + recent > threshold ? 'needs_approval' : 'send');
      }),
    );
  });

  it('months start on the 1st at 00:00 UTC', () => {
    expect(monthStartUtc(new Date('2026-03-31T23:59:59-05:00')).toISOString()).toBe('2026-04-01T00:00:00.000Z');
    expect(monthStartUtc(new Date('2026-01-01T00:00:00Z')).toISOString()).toBe('2026-01-01T00:00:00.000Z');
  });
});

describe('settings changes', () => {
  const base: WorkspaceSettings = {
    teamId: 'T',
    enterpriseId: null,
    ...(seedFromConfig({
      notifyChannel: 'C1',
      approvalChannel: undefined,
      approvers: ['U1', 'U2'],
      approvalThresholdCents: 10_000,
      admins: undefined,
    }) as Required<ReturnType<typeof seedFromConfig>>),
    updatedBy: null,
    updatedAt: new Date(),
  };

  it('records only what changed, lists as sets, empty lists as none', () => {
    const changes = diffSettings(base, {
      notifyChannel: 'C1',
      approverUserIds: ['U2', 'U1'],
      adminUserIds: [],
      approvalThresholdCents: 20_000,
      monthlyBudgetCents: null,
    });
    expect(changes).toEqual({ approvalThresholdCents: { from: 10_000, to: 20_000 } });
  });
});
