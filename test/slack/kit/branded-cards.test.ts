// A branded card in every message that names a kudos or a reward-link request: its face value and
// brand ("£25 Tesco Gift Card"), and where money is the reader's business, its USD: the actual cost
// once charged, "about" the judged estimate before, or "USD cost known after ordering". Each builder
// is checked against Slack's limits too.
import { describe, expect, it } from 'vitest';

import type { ApprovalRequestRow, KudosRow, RewardLinkRequestRow } from '../../../src/db/schema/index.js';
import { checkMessageContent } from '../../../src/simulator/limits.js';
import { buildApprovalMessage, buildWaitingNotice } from '../../../src/slack/approvals/approval-blocks.js';
import { buildLedgerList } from '../../../src/slack/finance/finance-blocks.js';
import { buildHome } from '../../../src/slack/home/home-blocks.js';
import type { Block } from '../../../src/slack/kit/mrkdwn.js';
import {
  buildLinkApprovalRequest,
  buildLinksWaiting,
  buildRewardLinksDm,
} from '../../../src/slack/reward-links/link-messages.js';
import { buildRecipientDm } from '../../../src/slack/sending/recipient-messages.js';
import { buildScheduledList } from '../../../src/slack/sending/scheduled-blocks.js';
import {
  buildAnnouncement,
  buildFailure,
  buildOutcomeUnknown,
  buildPartial,
} from '../../../src/slack/sending/send-messages.js';
import { buildSenderDm } from '../../../src/slack/sending/sender-dm-blocks.js';
import { buildKudosRow, tescoCardColumns } from '../../support/kudos-row.js';

const TWO = [
  { slackUserId: 'U_ELI', recipientId: null, email: 'eli@example.com', name: 'Eli' },
  { slackUserId: 'U_SAM', recipientId: null, email: 'sam@example.com', name: 'Sam' },
];

/** A £25 Tesco Gift Card each to Eli and Sam, judged at $33.34 a card (a learned 1.27 plus 5%). */
function branded(overrides: Partial<KudosRow> = {}): KudosRow {
  return buildKudosRow({
    recipients: TWO,
    recipientCount: 2,
    ...tescoCardColumns(2),
    ...overrides,
  });
}

/** Everything a person reads in a message: its fallback text and its blocks' text. */
function shown(content: { text: string; blocks?: Block[] }): string {
  expect(checkMessageContent(content, { requireContent: true })).toMatchObject({ ok: true });
  return `${content.text}\n${JSON.stringify(content.blocks ?? [])}`;
}

function approvalRequest(overrides: Partial<ApprovalRequestRow> = {}): ApprovalRequestRow {
  return {
    id: 'ar-1',
    teamId: 'T0KUDOS',
    kudosId: '00000000-0000-4000-8000-000000000001',
    status: 'pending',
    reason: 'the total is above the $50 approval threshold',
    expiresAt: new Date('2026-11-25T12:00:00Z'),
    ...overrides,
  } as ApprovalRequestRow;
}

describe('the announcement and the recipients: the card by its face and brand, never its cost', () => {
  it('announces "a £25 Tesco Gift Card each"', () => {
    const text = shown(buildAnnouncement(branded({ status: 'placed', costCents: 6350 })));
    expect(text).toContain('with a £25 Tesco Gift Card each!');
    expect(text).not.toMatch(/\$\d/);
  });

  it('tells a recipient "sent you a £25 Tesco Gift Card"', () => {
    const row = branded({ status: 'placed' });
    const dm = shown(buildRecipientDm({ type: 'kudos.recipient', kudos: row, userId: 'U_ELI' }));
    expect(dm).toContain('sent you a £25 Tesco Gift Card.');
    const delivered = buildRecipientDm({
      type: 'kudos.recipient',
      kudos: row,
      userId: 'U_ELI',
      deliveredTo: 'eli@example.com',
    });
    expect(delivered.text).toBe("Maya's £25 Tesco Gift Card was delivered: check your inbox at eli@example.com.");
    expect(shown(delivered)).not.toMatch(/\$\d/);
  });
});

describe("the sender's messages: the face and the USD", () => {
  const dm = (row: KudosRow) =>
    shown(buildSenderDm({ type: 'kudos.sender_dm', kudos: row, delivered: false, bounces: [], untold: [] }));

  it('on its way, before the charge is known: the estimate', () => {
    const text = dm(branded({ status: 'placed' }));
    expect(text).toContain('is on its way: a £25 Tesco Gift Card each.');
    expect(text).toContain('Cost about $67');
  });

  it('once charged: the actual cost', () => {
    expect(dm(branded({ status: 'placed', costCents: 6350 }))).toContain('Cost $63.50');
  });

  it('a currency never ordered: no USD figure', () => {
    const text = dm(branded({ status: 'placed', usdBasis: 'unknown' }));
    expect(text).toContain('USD cost known after ordering');
    expect(text).not.toMatch(/\$\d/);
  });

  it('a send that went out in part: the card and what those cards cost', () => {
    const partial = branded({
      recipients: Array.from({ length: 12 }, (_, i) => ({ ...TWO[0]!, slackUserId: `U_${i}` })),
      recipientCount: 12,
      status: 'partial',
      partsPlaced: 1,
      orderId: 'O-1',
      orderIds: ['O-1'],
    });
    const text = shown(buildPartial(partial, 'the balance ran out.'));
    expect(text).toMatch(/people get a £25 Tesco Gift Card each \(cost about \$\d[\d,]*\)/);
    expect(shown(buildPartial({ ...partial, costCents: 317_500 }, 'the balance ran out.'))).toContain(
      'a £25 Tesco Gift Card each (cost $3,175)',
    );
  });

  it('a failure and an unknown outcome name the face and the USD', () => {
    expect(shown(buildFailure(branded({ status: 'failed' }), 'the product is out of stock.'))).toContain(
      '(£25 each (about $67 in all)) could not be sent',
    );
    expect(buildOutcomeUnknown(branded({ status: 'unknown' })).text).toContain(
      'Your kudos (£50 (about $67) to 2 people)',
    );
  });
});

describe('approvals: an approver sees the face value and the USD estimate', () => {
  it('the request, with its estimate and what approving spends', () => {
    const content = buildApprovalMessage({
      kudos: branded({ status: 'awaiting_approval' }),
      request: approvalRequest(),
    });
    const text = shown(content);
    expect(text).toContain(
      'wants to send a £25 Tesco Gift Card each to <@U_ELI> and <@U_SAM>. *£50* in all, about $67.',
    );
    expect(text).toContain('About $67 will be spent from the Rewards balance.');
    expect(content.text).toContain('wants to send £50 (about $67) to 2 people');
  });

  it('one person: the estimate alone', () => {
    const one = branded({ recipients: TWO.slice(0, 1), recipientCount: 1, totalCents: 3334 });
    expect(shown(buildApprovalMessage({ kudos: one, request: approvalRequest() }))).toContain(
      'wants to send a £25 Tesco Gift Card to <@U_ELI>. About $33.',
    );
  });

  it('a currency never ordered: "known after ordering", no USD figure', () => {
    const content = buildApprovalMessage({
      kudos: branded({ status: 'awaiting_approval', usdBasis: 'unknown' }),
      request: approvalRequest(),
    });
    const text = shown(content);
    expect(text).toContain('*£50* in all, USD cost known after ordering.');
    expect(text).toContain('£50: the USD cost is known after ordering, and is taken from the Rewards balance.');
    expect(text.replace('$50 approval threshold', '')).not.toMatch(/\$\d/);
  });

  it('the sender waiting', () => {
    const text = shown(
      buildWaitingNotice({ kudos: branded({ status: 'awaiting_approval' }), request: approvalRequest() }, {
        kind: 'unknown',
      } as never),
    );
    expect(text).toContain('Your kudos, a £25 Tesco Gift Card each to <@U_ELI> and <@U_SAM> (*£50* in all, about $67)');
  });
});

describe('lists: /kudos scheduled and App Home', () => {
  it('/kudos scheduled names the card and its USD', () => {
    const row = branded({ status: 'scheduled', scheduledAt: new Date('2026-11-30T14:00:00Z') });
    const text = shown(buildScheduledList([{ row, cancellable: true }], { showSender: false }));
    expect(text).toContain('a £25 Tesco Gift Card each (about $67 in all)');
  });

  it('App Home: received by face, sent and scheduled with their USD, approvals with the estimate', () => {
    const sent = branded({ status: 'placed', costCents: 6350 });
    const scheduled = branded({ status: 'scheduled', scheduledAt: new Date('2026-11-30T14:00:00Z') });
    const waiting = branded({ status: 'awaiting_approval', usdBasis: 'unknown' });
    const page = <T>(items: T[]) => ({ items, total: items.length, page: 0, pageSize: 5 });
    const home = buildHome({
      teamId: 'T0KUDOS',
      userId: 'U_MANAGER',
      roles: { approver: true, admin: false },
      received: page([{ row: sent, delivery: 'delivered' as const }]),
      sent: page([{ row: sent, bounces: [], rejectReason: null }]),
      scheduled: page([{ row: scheduled, cancellable: true }]),
      budget: { usedCents: 0, budgetCents: null },
      approvals: page([waiting]),
    });
    const text = JSON.stringify(home.blocks);
    expect(text).toContain('sent you a £25 Tesco Gift Card ·');
    expect(text).toContain('A £25 Tesco Gift Card each to <@U_ELI> and <@U_SAM> ($63.50 in all)');
    expect(text).toContain('A £25 Tesco Gift Card each to <@U_ELI> and <@U_SAM> (about $67 in all)');
    expect(text).toContain(
      'wants to send a £25 Tesco Gift Card each to <@U_ELI> and <@U_SAM> (£50 in all, USD cost known after ordering)',
    );
  });
});

describe('the ledger list names a branded send by its card', () => {
  it('"from <@U1> to 2 people, a £25 Tesco Gift Card each"', () => {
    const content = buildLedgerList({
      month: '2026-11',
      movements: [
        {
          kind: 'order',
          label: 'Order',
          referenceNumber: 'O-1',
          signedCents: -6350,
          currency: 'USD',
          credited: true,
          occurredAt: new Date('2026-11-22T12:00:00Z'),
        } as never,
      ],
      totals: { inCents: 0, outCents: 6350, orderSpendCents: 6350, pendingTopUpCents: 0, byKind: {} },
      reconciliation: {
        ok: true,
        kudosOrders: 1,
        kudosCents: 6350,
        ledgerCents: 6350,
        missing: [],
        differing: [],
        otherOrders: 0,
        earlierRefunds: { orders: 0, cents: 0 },
        sends: {
          'O-1': {
            senderUserId: 'U_MANAGER',
            recipientCount: 2,
            branded: { currency: 'GBP', faceCents: 2500, brand: 'Tesco Gift Card' },
          },
        },
      },
      truncated: false,
    });
    expect(shown(content)).toContain('Kudos from <@U_MANAGER> to 2 people, a £25 Tesco Gift Card each · *-$63.50*');
  });
});

describe('reward links', () => {
  const request = (overrides: Partial<RewardLinkRequestRow> = {}): RewardLinkRequestRow =>
    ({
      id: 'rl-1',
      teamId: 'T0KUDOS',
      enterpriseId: null,
      requesterUserId: 'U_MANAGER',
      productId: 'BR-TESCO',
      designName: 'Tesco Gift Card',
      quantity: 10,
      amountCents: 3334,
      cardType: 'BRANDED_CARD',
      faceCurrency: 'GBP',
      faceCents: 2500,
      costCents: null,
      status: 'awaiting_approval',
      orderIds: [],
      partsCreated: 0,
      createdQuantity: 0,
      approvalReason: 'the total is above the $100 approval threshold',
      decidedBy: null,
      ...overrides,
    }) as RewardLinkRequestRow;

  it('the approvers see the face and the estimate', () => {
    const text = shown(buildLinkApprovalRequest(request()));
    expect(text).toContain(
      'reward links of £25 (Tesco Gift Card), £250 in total, up to $333.40 in USD (the learned GBP rate plus a 5% safety margin)',
    );
    expect(text).toContain('The Rewards balance pays for them: £250 in total, up to $333.40 in USD');
  });

  it('the requester waiting, and the links when ready', () => {
    expect(shown(buildLinksWaiting(request(), 1))).toContain(
      'Your 10 reward links of £25 (Tesco Gift Card), £250 in total, up to $333.40 in USD',
    );
    expect(shown(buildLinksWaiting(request({ amountCents: 0 }), 1))).toContain(
      '£250 in total; the USD total is known only after charging',
    );
    const dm = buildRewardLinksDm(request({ status: 'placed', costCents: 31750 }), 'O-9', ['https://l.example/1'], {
      index: 0,
      count: 1,
    });
    expect(shown(dm)).toContain('Your 10 reward links of £25 (Tesco Gift Card) are ready');
  });
});
