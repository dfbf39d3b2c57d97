// A kudos row as the database returns it, for tests of pure builders: every column at a neutral
// value (nothing placed, nothing scheduled), so a test states only what matters to it.
import { randomUUID } from 'node:crypto';

import type { KudosRow, NewKudosRow } from '../../src/db/schema/index.js';

export function buildKudosRow(overrides: Partial<KudosRow> = {}): KudosRow {
  const at = overrides.createdAt ?? new Date('2026-11-22T12:00:00Z');
  const recipients = overrides.recipients ?? [
    { slackUserId: 'U_EMP1', recipientId: null, email: 'eli@example.com', name: 'Eli' },
  ];
  return {
    id: '00000000-0000-4000-8000-000000000001',
    teamId: 'T0KUDOS',
    enterpriseId: null,
    senderUserId: 'U_MANAGER',
    senderName: 'Maya',
    originChannelId: null,
    sourceViewId: null,
    recipients,
    recipientCount: recipients.length,
    slackUsergroupId: null,
    recipientGroupId: null,
    recipientGroupName: null,
    productId: 'CC-THANK-YOU',
    designName: 'Thank You',
    amountCents: 2500,
    totalCents: 2500 * recipients.length,
    currency: 'USD',
    cardType: 'CHOICE_CARD',
    faceCurrency: null,
    faceCents: null,
    usdBasis: null,
    message: '',
    sourceMessageUrl: null,
    announceTo: null,
    campaignId: null,
    valueId: null,
    valueName: null,
    valueEmoji: null,
    emailTemplateId: null,
    emailSenderName: null,
    emailSubject: null,
    refundOptionDays: null,
    scheduledAt: null,
    scheduleTimezone: null,
    scheduleLocal: null,
    status: 'pending',
    idempotencyKey: '00000000-0000-4000-8000-000000000002',
    attempts: 0,
    failedCalls: 0,
    nextAttemptAt: at,
    claimedUntil: null,
    claimedBy: null,
    orderId: null,
    orderIds: [],
    partsPlaced: 0,
    partsCompleted: {},
    orderStatus: null,
    costCents: null,
    costCurrency: null,
    errorCode: null,
    errorMessage: null,
    announcementChannel: null,
    announcementTs: null,
    confirmationChannel: null,
    confirmationTs: null,
    notifiedAt: null,
    canceledBy: null,
    cancelRequestedBy: null,
    cancelRequestedAt: null,
    canceledAt: null,
    placedAt: null,
    createdAt: at,
    updatedAt: at,
    ...overrides,
  };
}

/** Values of a send recorded and waiting for the worker ($10 to one address-book e-mail), to insert. */
export function pendingKudosValues(overrides: Partial<NewKudosRow> = {}): NewKudosRow {
  return {
    teamId: 'T0KUDOS',
    senderUserId: 'U_MANAGER',
    senderName: 'Maya Manager',
    recipients: [
      {
        slackUserId: null,
        recipientId: null,
        email: `person-${randomUUID().slice(0, 8)}@example.com`,
        name: 'Someone',
      },
    ],
    recipientCount: 1,
    productId: 'CC-THANK-YOU',
    designName: 'Thank You',
    amountCents: 1000,
    totalCents: 1000,
    status: 'pending',
    ...overrides,
  };
}

/**
 * The branded columns of a £25 Tesco Gift Card per person for `count` people, judged at $33.34 a card
 * (a learned 1.27 GBP rate plus the 5% margin), as the worker and the messages read them.
 */
export function tescoCardColumns(count: number) {
  return {
    productId: 'BR-TESCO',
    designName: 'Tesco Gift Card',
    cardType: 'BRANDED_CARD' as const,
    faceCurrency: 'GBP',
    faceCents: 2500,
    amountCents: 3334,
    totalCents: 3334 * count,
    usdBasis: 'learned' as const,
  };
}
