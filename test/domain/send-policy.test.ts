import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { routeSend } from '../../src/domain/send-policy.js';
import { isAdmin } from '../../src/domain/admins.js';

const draft = (totalCents: number) => ({ teamId: 'T', senderUserId: 'U', amountCents: totalCents, recipientCount: 1, totalCents });

describe('routeSend (until approvals exist)', () => {
  it('lets totals up to the threshold through and refuses above it (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 1, max: 1_000_000 }), (total, threshold) => {
        expect(routeSend(draft(total), threshold).kind).toBe(total > threshold ? 'refuse' : 'send');
      }),
    );
  });

  it('a threshold of 0 means every send needs approval', () => {
    expect(routeSend(draft(100), 0).kind).toBe('refuse');
  });
});

describe('isAdmin', () => {
  it('uses KUDOS_ADMINS when configured, else Slack admins and owners', () => {
    expect(isAdmin('U1', ['U1'], undefined)).toBe(true);
    expect(isAdmin('U2', ['U1'], { is_admin: true })).toBe(false);
    expect(isAdmin('U2', undefined, { is_admin: true })).toBe(true);
    expect(isAdmin('U2', undefined, { is_owner: true })).toBe(true);
    expect(isAdmin('U2', undefined, {})).toBe(false);
  });
});
