// The approval message and modals as pure builders, checked against Slack's limits (the simulator's
// checker) at their largest: 100 recipients, a 1000-character message, every state.
import { describe, expect, it } from 'vitest';

import type { ApprovalRequestRow, KudosRow } from '../../../src/db/schema/index.js';
import { seedFromConfig, type WorkspaceSettings } from '../../../src/domain/workspaces/settings.js';
import { checkMessageContent, checkView } from '../../../src/simulator/limits.js';
import {
  buildApprovalMessage,
  buildDecisionNotice,
  buildRejectModal,
  buildReopenedNotice,
  buildWaitingNotice,
  rejectSummary,
} from '../../../src/slack/approvals/approval-blocks.js';
import { buildSettingsModal, buildSettingsSaved } from '../../../src/slack/workspaces/settings-blocks.js';
import { buildKudosRow } from '../../support/kudos-row.js';

const now = new Date('2026-11-22T05:30:00Z');

function kudosRow(over: Partial<KudosRow> = {}): KudosRow {
  const recipients = Array.from({ length: 100 }, (_, i) => ({
    slackUserId: `U_R${i}`,
    recipientId: null,
    email: `r${i}@example.com`,
    name: `R ${i}`,
  }));
  return buildKudosRow({
    senderName: 'Maya <Manager>',
    sourceViewId: 'V1',
    recipients,
    designName: 'Thank you',
    amountCents: 50_000,
    totalCents: 5_000_000,
    message: `${'<!channel> '.repeat(90)}`.slice(0, 1000),
    scheduledAt: new Date('2026-11-23T14:00:00Z'),
    scheduleTimezone: 'America/New_York',
    scheduleLocal: '2026-11-23T09:00:00-05:00',
    status: 'awaiting_approval',
    createdAt: now,
    ...over,
  });
}

function request(over: Partial<ApprovalRequestRow> = {}): ApprovalRequestRow {
  return {
    id: 'r1',
    teamId: 'T0KUDOS',
    enterpriseId: null,
    kudosId: '00000000-0000-4000-8000-000000000001',
    senderUserId: 'U_MANAGER',
    status: 'awaiting_approval',
    reason: 'the total $50,000 is above the $100 approval threshold',
    messages: [],
    postedAt: now,
    postClaimedUntil: null,
    decidedBy: null,
    decidedAt: null,
    rejectReason: null,
    sentNowInsteadOf: null,
    lastFailureCode: null,
    lastFailureMessage: null,
    reopenCount: 0,
    reopenedAt: null,
    expiresAt: new Date('2026-11-25T05:30:00Z'),
    createdAt: now,
    updatedAt: now,
    ...over,
  };
}

const states: Array<[string, Partial<ApprovalRequestRow>]> = [
  ['open', {}],
  ['approved', { status: 'approved', decidedBy: 'U_APPROVER', decidedAt: now }],
  [
    'approved, sent now',
    { status: 'approved', decidedBy: 'U_APPROVER', decidedAt: now, sentNowInsteadOf: new Date('2026-11-22T05:35:00Z') },
  ],
  [
    'rejected',
    { status: 'rejected', decidedBy: 'U_APPROVER', decidedAt: now, rejectReason: `<!here> ${'no '.repeat(166)}` },
  ],
  ['expired', { status: 'expired', decidedAt: now }],
  [
    're-opened',
    {
      decidedBy: 'U_APPROVER',
      decidedAt: now,
      lastFailureCode: 'DAILY_LIMIT_EXCEEDED',
      lastFailureMessage: 'it would go over the daily spending limit.',
      reopenCount: 1,
    },
  ],
];

describe('approval message', () => {
  it.each(states)('%s: within Slack message limits, user text escaped, buttons only while open', (state, over) => {
    const message = buildApprovalMessage({ kudos: kudosRow(), request: request(over) });
    expect(checkMessageContent(message, { requireContent: true })).toMatchObject({ ok: true });
    const json = JSON.stringify(message);
    expect(json).not.toContain('<!channel>');
    expect(json).not.toContain('<!here>');
    expect(json).not.toContain('<Manager>');
    expect(json.includes('approval_approve')).toBe(state === 'open' || state === 're-opened');
    for (const notice of [
      buildDecisionNotice({ kudos: kudosRow(), request: request(over) }),
      buildReopenedNotice({ kudos: kudosRow(), request: request(over) }, 'sender'),
    ]) {
      expect(checkMessageContent(notice, { requireContent: true })).toMatchObject({ ok: true });
      expect(JSON.stringify(notice)).not.toContain('<!here>');
    }
  });

  it('shows the schedule in the sender’s zone, and the expiry and decisions in each reader’s own zone', () => {
    const open = JSON.stringify(buildApprovalMessage({ kudos: kudosRow(), request: request() }));
    expect(open).toContain('scheduled for Mon 23 Nov 2026, 09:00 EST');
    expect(open).toMatch(
      /Expires <!date\^\d+\^\{date_short_pretty\} at \{time\}\|\w{3} \d+ \w{3} \d{4}, \d\d:\d\d UTC> if nobody decides/,
    );
    const approved = JSON.stringify(buildApprovalMessage({ kudos: kudosRow(), request: request(states[1]![1]) }));
    expect(approved).toContain(
      `Approved* by <@U_APPROVER> on <!date^${now.getTime() / 1000}^{date_short_pretty} at {time}|Sun 22 Nov 2026, 05:30 UTC>`,
    );
  });

  it('shows the company value the sender picked, as it was when sent; none when none was picked', () => {
    const withValue = buildApprovalMessage({
      kudos: kudosRow({ valueName: 'Customer <first>', valueEmoji: 'rocket' }),
      request: request(),
    });
    expect(JSON.stringify(withValue.blocks[0])).toContain('for :rocket: *Customer &lt;first&gt;*.');
    expect(withValue.text).toContain('for Customer &lt;first&gt;');
    expect(checkMessageContent(withValue, { requireContent: true })).toMatchObject({ ok: true });
    const without = buildApprovalMessage({ kudos: kudosRow(), request: request() });
    expect(JSON.stringify(without)).not.toContain(' for :');
  });
});

describe('the sender told while it waits', () => {
  it('reads as a sentence: the card, the total for several people, the expiry in the reader’s zone', () => {
    const asked = { kind: 'channel' as const, channel: 'C_APPROVALS' };
    const several = JSON.stringify(buildWaitingNotice({ kudos: kudosRow(), request: request() }, asked).blocks);
    expect(several).toContain('Your kudos, a $500 Thank you card each to 100 people (*$50,000* in all), scheduled for');
    expect(several).toMatch(
      /it expires <!date\^\d+\^\{date_short_pretty\} at \{time\}\|Wed 25 Nov 2026, 05:30 UTC> if/,
    );
    expect(several).not.toContain('card of');
    const one = buildKudosRow({ recipientCount: 1, amountCents: 2500, totalCents: 2500, designName: 'Thank You' });
    const single = JSON.stringify(buildWaitingNotice({ kudos: one, request: request() }, asked).blocks);
    expect(single).toContain('Your kudos, a $25 Thank You card to ');
    expect(single).not.toContain('in all');
    expect(single).not.toContain('right away');
  });
});

describe('modals', () => {
  it('the reject modal and the settings modal pass Slack’s view checks', () => {
    expect(checkView(buildRejectModal({ kudosId: 'k', summary: rejectSummary(kudosRow()) }), 'modal')).toEqual([]);
    const settings: WorkspaceSettings = {
      teamId: 'T',
      enterpriseId: null,
      ...(seedFromConfig({
        notifyChannel: 'C1',
        approvalChannel: 'C2',
        approvers: ['U1'],
        approvalThresholdCents: 9950,
        admins: ['U2'],
      }) as Required<ReturnType<typeof seedFromConfig>>),
      approverUsergroupId: 'S_GONE',
      defaultProductId: 'CC-RENAMED',
      updatedBy: null,
      updatedAt: now,
    };
    const designs = Array.from({ length: 150 }, (_, i) => ({
      productId: `CC-${i}`,
      name: `Design ${i}`,
      minCents: 500,
      maxCents: 50_000,
    }));
    const modal = buildSettingsModal({
      settings,
      usergroups: [{ id: 'S_TEAM', handle: 'team', name: 'The Team' }],
      designs,
    });
    expect(checkView(modal, 'modal')).toEqual([]);
    const json = JSON.stringify(modal);
    // Values Slack or the catalog did not list stay selected, so saving does not clear them.
    expect(json).toContain(
      '"initial_option":{"text":{"type":"plain_text","text":"S_GONE","emoji":true},"value":"S_GONE"}',
    );
    expect(json).toContain('"value":"CC-RENAMED"}');
    expect(json).toContain('"initial_value":"99.50"');
  });

  it('the change summary names each field with old and new values', () => {
    const saved = buildSettingsSaved({
      approvalThresholdCents: { from: 10_000, to: 0 },
      approverUserIds: { from: ['U1'], to: null },
      approvalChannel: { from: null, to: 'C_APPROVALS' },
    });
    const text = JSON.stringify(saved);
    expect(text).toContain('approval threshold*: $100 → $0');
    expect(text).toContain('approvers*: <@U1> → none');
    expect(text).toContain('approval channel*: none → <#C_APPROVALS>');
  });
});
