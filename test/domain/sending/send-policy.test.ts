import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { routeSend } from '../../../src/domain/sending/send-policy.js';
import { isWorkspaceAdmin, type WorkspaceSettings } from '../../../src/domain/workspaces/settings.js';

const draft = (totalCents: number) => ({
  teamId: 'T',
  senderUserId: 'U',
  amountCents: totalCents,
  recipientCount: 1,
  totalCents,
});

describe('routeSend (until approvals exist)', () => {
  it('lets totals up to the threshold through and refuses above it (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 1, max: 1_000_000 }),
        (total, threshold) => {
          expect(routeSend(draft(total), threshold).kind).toBe(total > threshold ? 'refuse' : 'send');
        },
      ),
    );
  });

  it('a threshold of 0 means every send needs approval', () => {
    expect(routeSend(draft(100), 0).kind).toBe('refuse');
  });
});

describe('isWorkspaceAdmin (the one admin rule)', () => {
  const check = (
    adminUserIds: string[] | null,
    userId: string,
    slackUser?: { isAdmin: boolean; isOwner: boolean; deleted?: boolean },
  ) =>
    isWorkspaceAdmin(
      {
        settings: { get: async () => ({ adminUserIds }) as WorkspaceSettings },
        users: { userInfo: async () => slackUser },
      },
      { teamId: 'T' },
      userId,
    );
  it("uses the workspace's admin list when set, else its Slack admins and owners", async () => {
    expect(await check(['U1'], 'U1')).toBe(true);
    expect(await check(['U1'], 'U2', { isAdmin: true, isOwner: false })).toBe(false);
    expect(await check(null, 'U2', { isAdmin: true, isOwner: false })).toBe(true);
    expect(await check([], 'U2', { isAdmin: false, isOwner: true })).toBe(true);
    expect(await check(null, 'U2', { isAdmin: false, isOwner: false })).toBe(false);
    expect(await check(null, 'U2', { isAdmin: true, isOwner: false, deleted: true })).toBe(false);
  });
});
