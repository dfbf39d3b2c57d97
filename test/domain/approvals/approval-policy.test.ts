import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { decideRoute, monthStartUtc } from '../../../src/domain/approvals/approval-policy.js';
import { auditToCsv, csvCell } from '../../../src/domain/workspaces/audit-trail.js';
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
        if (route.kind === 'needs_approval') expect(route.reason).toContain('monthly budget');
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

describe('audit CSV', () => {
  it('quotes separators and neutralises spreadsheet formulas', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    const csv = auditToCsv([
      {
        id: 1,
        teamId: 'T',
        enterpriseId: null,
        actorUserId: 'U1',
        action: 'approval.rejected',
        subjectType: 'kudos',
        subjectId: 'k1',
        details: { reason: 'no,\nthanks' },
        createdAt: new Date('2026-01-02T03:04:05Z'),
      },
    ]);
    expect(csv).toBe(
      'id,at,actor_user_id,action,subject_type,subject_id,details,campaign,value\r\n1,2026-01-02T03:04:05.000Z,U1,approval.rejected,kudos,k1,"{""reason"":""no,\\nthanks""}",,\r\n',
    );
  });
});
