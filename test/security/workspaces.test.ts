// Workspaces are kept apart (security issue, findings 1 and 2): settings, admins and approvers are
// read for the workspace of each request; a request of another workspace changes nothing here.
// Every request below is a real signed request into the app.
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

import { auditEvents, kudos, workspaceSettings } from '../../src/db/schema/index.js';
import type { Message } from '../../src/simulator/slack.js';
import {
  blockActionPayload,
  commandFields,
  eventually,
  postSignedCommand,
  postSignedPayload,
  sendModalValues,
  submitSendForm,
  useAppPerTest,
} from '../support/app.js';
import { pendingKudosValues } from '../support/kudos-row.js';

const HOME = { teamId: 'T0KUDOS' };
const OTHER_TEAM = 'T_OTHER';

const e2e = useAppPerTest({
  env: {
    KUDOS_ADMINS: 'U_MANAGER,U_ADMIN',
    KUDOS_NOTIFY_CHANNEL: 'C_KUDOS',
    KUDOS_APPROVAL_CHANNEL: 'C_APPROVALS',
    KUDOS_APPROVERS: 'U_APPROVER',
    KUDOS_APPROVAL_THRESHOLD: '100',
  },
  app: { tuning: { approvalsSweepMs: 0 } },
});

function lastEphemeral(userId: string): Message | undefined {
  return e2e.stack.sim
    .messages('C_GENERAL')
    .filter((m) => m.ephemeral && m.visible_to === userId)
    .at(-1);
}

describe('settings and admins are per workspace', () => {
  it('a request from another workspace neither gives a removed admin power back nor moves announcements', async () => {
    // The real admin removes U_MANAGER from the admins and moves announcements to #general.
    await e2e.stack.app.settings.update(HOME, 'U_ADMIN', { adminUserIds: ['U_ADMIN'], notifyChannel: 'C_GENERAL' });
    // One signed request from another workspace: its settings are seeded from the environment.
    const foreign = await postSignedCommand(e2e.stack.app.url, commandFields('U_STRANGER', 'settings', OTHER_TEAM));
    expect(foreign.status).toBe(200);
    const seeded = await e2e.db.select().from(workspaceSettings).where(eq(workspaceSettings.teamId, OTHER_TEAM));
    expect(seeded[0]?.adminUserIds).toEqual(['U_MANAGER', 'U_ADMIN']);

    // The removed admin: no reward links, no admin view of the scheduled sends.
    await e2e.stack.sim.slashCommand('U_MANAGER', 'links 1 25', 'C_GENERAL');
    expect(lastEphemeral('U_MANAGER')?.text).toContain('Only Kudos admins');
    await e2e.stack.sim.slashCommand('U_MANAGER', 'scheduled', 'C_GENERAL');
    expect(JSON.stringify(lastEphemeral('U_MANAGER'))).not.toContain('As an admin');
    // The real admin keeps both.
    await e2e.stack.sim.slashCommand('U_ADMIN', 'scheduled', 'C_GENERAL');
    expect(JSON.stringify(lastEphemeral('U_ADMIN'))).toContain('As an admin');

    // Announcements of this workspace still go where its admin put them.
    const row = await submitSendForm(
      e2e.stack,
      e2e.db,
      'U_EMP3',
      sendModalValues({ users: ['U_EMP1'], design: 'CC-THANK-YOU', amount: '25' }),
    );
    const placed = await eventually(
      async () => (await e2e.db.select().from(kudos).where(eq(kudos.id, row.id)))[0]?.announcementChannel,
    );
    expect(placed).toBe('C_GENERAL');
    expect(e2e.stack.sim.messages('C_KUDOS')).toHaveLength(0);
  });

  it('an admin list set in one workspace does not make its admins admins of another', async () => {
    await e2e.stack.app.settings.update({ teamId: OTHER_TEAM }, 'U_EMP1', { adminUserIds: ['U_EMP1'] });
    await e2e.stack.sim.slashCommand('U_EMP1', 'scheduled', 'C_GENERAL');
    expect(JSON.stringify(lastEphemeral('U_EMP1'))).not.toContain('As an admin');
    const answer = await postSignedCommand(e2e.stack.app.url, commandFields('U_EMP1', 'audit', 'T0KUDOS'));
    expect(answer.text).toContain('Only Kudos admins');
  });
});

describe('approvals are decided only in their own workspace', () => {
  it("an approver's click carrying another workspace is refused and decides nothing", async () => {
    const row = await submitSendForm(
      e2e.stack,
      e2e.db,
      'U_EMP3',
      sendModalValues({ users: ['U_EMP1', 'U_EMP2'], design: 'CC-THANK-YOU', amount: '100' }),
    );
    expect(row.status).toBe('awaiting_approval');
    await e2e.stack.sim.waitFor(() =>
      e2e.stack.sim.messages('C_APPROVALS').find((m) => JSON.stringify(m.blocks).includes(row.id)),
    );

    for (const actionId of ['approval_approve', 'approval_reject']) {
      const answer = await postSignedPayload(
        e2e.stack.app.url,
        blockActionPayload({
          teamId: OTHER_TEAM,
          userId: 'U_APPROVER',
          actionId,
          value: row.id,
          channel: 'C_APPROVALS',
        }),
      );
      expect(answer.status).toBe(200);
    }
    // One refusal per click: both clicks have been handled before anything is read.
    const refusals = await e2e.stack.sim.waitFor(() => {
      const told = e2e.stack.sim.messages('C_APPROVALS').filter((m) => m.ephemeral && m.visible_to === 'U_APPROVER');
      return told.length >= 2 ? told : undefined;
    });
    expect(refusals).toHaveLength(2);
    for (const refusal of refusals) expect(refusal.text).toContain('no longer exists');
    const [after] = await e2e.db.select().from(kudos).where(eq(kudos.id, row.id));
    expect(after!.status).toBe('awaiting_approval');
    expect(e2e.stack.sim.openViews('U_APPROVER')).toHaveLength(0);
  });
});

describe('the audit trail is per workspace', () => {
  it("/kudos audit copies and lists only its own workspace's orders, never another's", async () => {
    const placed = {
      status: 'sent' as const,
      orderStatus: 'COMPLETED',
      costCents: 1000,
      costCurrency: 'USD',
      placedAt: new Date(),
    };
    const [home] = await e2e.db
      .insert(kudos)
      .values(pendingKudosValues({ ...placed, orderId: 'ord-home', senderUserId: 'U_MANAGER' }))
      .returning();
    const [foreign] = await e2e.db
      .insert(kudos)
      .values(pendingKudosValues({ ...placed, teamId: OTHER_TEAM, orderId: 'ord-foreign', senderUserId: 'U_STRANGER' }))
      .returning();
    const [foreignFailed] = await e2e.db
      .insert(kudos)
      .values(
        pendingKudosValues({
          status: 'failed',
          teamId: OTHER_TEAM,
          errorCode: 'INSUFFICIENT_FUNDS',
          errorMessage: 'Balance too low',
          senderUserId: 'U_STRANGER',
        }),
      )
      .returning();

    const answer = await postSignedCommand(e2e.stack.app.url, commandFields('U_ADMIN', 'audit', HOME.teamId));
    expect(answer.status).toBe(200);
    expect(answer.text).toContain(home!.id.slice(0, 8));
    expect(answer.text).not.toContain(foreign!.id.slice(0, 8));
    expect(answer.text).not.toContain(foreignFailed!.id.slice(0, 8));

    // The other workspace's orders were not even read: its trail is untouched until it asks.
    expect(await e2e.db.select().from(auditEvents).where(eq(auditEvents.teamId, OTHER_TEAM))).toEqual([]);
    const homeRows = await e2e.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.teamId, HOME.teamId), eq(auditEvents.action, 'kudos.order_placed')));
    expect(homeRows.map((r) => r.subjectId)).toEqual([home!.id]);
  });
});
