// A top-up request belongs to its workspace: an admin of another workspace clicking Approve or Reject
// with its id (a signed click of their own workspace) decides nothing, moves no money, and is answered
// as for a request that does not exist.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { auditEvents, topUpRequests } from '../../src/db/schema/index.js';
import { blockActionPayload, eventually, postSignedPayload, useAppPerTest } from '../support/app.js';
import { noticesSettled } from '../support/notices-settled.js';

const OTHER_TEAM = 'T_OTHER';
const e2e = useAppPerTest({ env: { KUDOS_ADMINS: 'U_ADMIN,U_APPROVER', KUDOS_ADMIN_CHANNEL: 'C_ADMIN' } });

const billing = {
  companyName: 'Acme',
  phoneNumber: '1',
  billingAddress: '1 Main St',
  city: 'X',
  state: 'IL',
  country: 'US',
  zipCode: '1',
  ein: '1',
};

describe("another workspace's admin and a top-up request", () => {
  for (const actionId of ['finance_topup_approve', 'finance_topup_reject']) {
    it(`${actionId === 'finance_topup_approve' ? 'Approve' : 'Reject'} with its id decides nothing and tells nothing of it`, async () => {
      const [request] = await e2e.db
        .insert(topUpRequests)
        .values({ teamId: 'T0KUDOS', requesterUserId: 'U_ADMIN', amountCents: 250_000, note: 'Q4', billing })
        .returning();
      // U_STRANGER is an admin of their own workspace only.
      await e2e.stack.app.settings.update({ teamId: OTHER_TEAM }, 'U_STRANGER', { adminUserIds: ['U_STRANGER'] });
      const before = e2e.stack.sim.calls.length;

      const answer = await postSignedPayload(
        e2e.stack.app.url,
        blockActionPayload({
          teamId: OTHER_TEAM,
          userId: 'U_STRANGER',
          actionId,
          value: request!.id,
          channel: 'C_OTHER',
        }),
      );
      expect(answer.status).toBe(200);
      // The click is handled once the stranger is answered (an ephemeral line in their own channel).
      const reply = await eventually(() =>
        e2e.stack.sim.calls.slice(before).find((c) => c.method === 'chat.postEphemeral'),
      );
      expect(JSON.stringify(reply)).toContain('no longer exists');
      await noticesSettled(e2e.db);

      const [after] = await e2e.db.select().from(topUpRequests).where(eq(topUpRequests.id, request!.id));
      expect(after).toMatchObject({ status: 'awaiting_approval', deciderUserId: null, fundingNo: null });
      expect((await e2e.db.select().from(auditEvents)).filter((a) => a.subjectId === request!.id)).toHaveLength(0);
      // Whatever the stranger was told says nothing of this workspace's request.
      const told = JSON.stringify(e2e.stack.sim.calls.slice(before));
      expect(told).not.toContain('U_ADMIN');
      expect(told).not.toContain('2,500');
    });
  }
});
