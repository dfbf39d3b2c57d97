// The money side for admins: alerts, the top-up request and its decided forms, the top-up and
// limit-increase modals, the balance overview, the ledger. Pure functions of plain values.
import type { BillingDetails, TopUpRequestRow } from '../../db/schema/index.js';
import { centsToDecimal, formatUsd } from '../../domain/common/money.js';
import type { FinanceNotice, TopUpRequest } from '../../domain/finance/finance-notices.js';
import type { FinanceOverviewData } from '../../domain/finance/finance-service.js';
import type { LedgerSend, LedgerTotals, Movement, Reconciliation } from '../../domain/finance/ledger.js';
import { RUNWAY_WINDOW_DAYS } from '../../domain/finance/runway.js';
import type { KnownLimits, LimitUsage } from '../../domain/finance/spending-limits.js';
import { describeStatus } from '../../domain/finance/top-ups.js';
import { Finance } from '../ids.js';
import { brandedCard } from '../kit/card-amounts.js';
import type { SlackMessageContent } from '../kit/mrkdwn.js';
import { type Block, context, plain, plainTextInput, section } from '../kit/mrkdwn.js';
import { escapeAndClip, escapeMrkdwn, mentionUser } from '../kit/mrkdwn-escape.js';
import { readerTime } from '../kit/reader-time.js';
import { peopleCount } from '../kit/recipients.js';

const topUpButton = (label = 'Request a top-up') => ({
  type: 'button' as const,
  action_id: Finance.actions.openTopUp,
  text: plain(label, 75),
  value: 'open',
});

export function renderFinanceNotice(notice: FinanceNotice): SlackMessageContent {
  switch (notice.kind) {
    case 'low_balance':
      return buildLowBalanceAlert(notice);
    case 'insufficient_funds':
      return buildInsufficientFundsAlert(notice);
    case 'webhooks_silent':
      return buildWebhooksSilentAlert(notice);
    case 'top_up_request':
      return buildTopUpRequestMessage(notice.request);
    case 'top_up_outcome':
      return buildTopUpOutcome(notice.request);
  }
}

/** How long a balance lasts, in words: "less than a day", "about 1 day", "about 12 days". */
export function lastsFor(days: number): string {
  return days < 1 ? 'less than a day' : `about ${days.toLocaleString('en-US')} ${days === 1 ? 'day' : 'days'}`;
}

export function buildLowBalanceAlert(n: Extract<FinanceNotice, { kind: 'low_balance' }>): SlackMessageContent {
  const threshold = formatUsd(n.thresholdCents, n.currency);
  const runway =
    n.spend30dCents === undefined
      ? 'How long it lasts is not known right now: the spending of the last 30 days could not be read.'
      : n.daysLeft === undefined
        ? 'Nothing was spent in the last 30 days.'
        : `At the last 30 days' rate (${formatUsd(n.spend30dCents, n.currency)} spent), it lasts ${lastsFor(n.daysLeft)}.`;
  const text = `Kudos balance is low: ${formatUsd(n.balanceCents, n.currency)} available, under the alert level of ${threshold}.`;
  return {
    text,
    blocks: [
      section(
        `:warning: *Low Rewards balance*\n*${formatUsd(n.balanceCents, n.currency)}* available, under the alert level of ${threshold}. Top up before sends start to fail.`,
      ),
      section(runway),
      { type: 'actions', block_id: `${Finance.blockPrefix}low_balance`, elements: [topUpButton()] } as unknown as Block,
      context(
        `The next alert comes once the balance has been back above ${threshold} and falls under it again. \`/kudos balance\` shows the balance now.`,
      ),
    ],
  };
}

export function buildWebhooksSilentAlert(n: Extract<FinanceNotice, { kind: 'webhooks_silent' }>): SlackMessageContent {
  const last = n.lastWebhookAt ? `the last one arrived ${readerTime(n.lastWebhookAt)}` : 'none has arrived yet';
  const orders = `${n.openOrders} order${n.openOrders === 1 ? ' has' : 's have'} been open since ${readerTime(n.oldestOpenSince)}`;
  return {
    text: `Rewards webhooks are not arriving: ${orders} and ${last}. Outcomes come from polling meanwhile.`,
    blocks: [
      section(
        `:warning: *Rewards webhooks are not arriving*\n${orders} and no webhook came in that time (${last}). Order outcomes come from polling the API meanwhile, more slowly.`,
      ),
      context(
        'Check the webhook registration and the public URL in front of `/webhooks/rewards`. One alert per episode: the warning on App Home clears when a webhook arrives.',
      ),
    ],
  };
}

export function buildInsufficientFundsAlert(
  n: Extract<FinanceNotice, { kind: 'insufficient_funds' }>,
): SlackMessageContent {
  const balance = n.balanceCents === undefined ? '' : ` Available now: *${formatUsd(n.balanceCents, n.currency)}*.`;
  return {
    text: `A kudos of ${formatUsd(n.totalCents)} was refused: not enough Rewards balance.`,
    blocks: [
      section(
        `:rotating_light: *A kudos was refused for lack of funds*\n${mentionUser(n.senderUserId)} tried to send ${formatUsd(n.totalCents)} and the Rewards API answered that the balance does not cover it.${balance}`,
      ),
      {
        type: 'actions',
        block_id: `${Finance.blockPrefix}insufficient`,
        elements: [topUpButton()],
      } as unknown as Block,
    ],
  };
}

/** The request's details for the approver; the EIN only by its last digits (the message is kept a week). */
function billingLine(b: BillingDetails | undefined): string {
  if (!b) return 'the details can no longer be read (their key was removed from KUDOS_ENCRYPTION_KEY)';
  return escapeAndClip(
    `${b.companyName} · ${b.billingAddress}, ${b.zipCode} ${b.city}, ${b.state}, ${b.country} · EIN ending ${b.ein.slice(-4)}`,
    500,
  );
}

/** The request as admins see it: open (buttons) or decided (outcome). */
export function buildTopUpRequestMessage(r: TopUpRequest): SlackMessageContent {
  const blocks: Block[] = [
    section(
      `:bank: *Top-up request*\n${mentionUser(r.requesterUserId)} asks for an ACH top-up of *${formatUsd(r.amountCents)}*.`,
    ),
  ];
  if (r.note.trim() !== '') blocks.push(section(`>${escapeAndClip(r.note, 1000).replace(/\n/g, '\n>')}`));
  blocks.push(context(`Billing: ${billingLine(r.billing)} · asked ${readerTime(r.createdAt)}`));
  if (r.status === 'awaiting_approval') {
    blocks.push({
      type: 'actions',
      block_id: `${Finance.blockPrefix}topup_${r.id}`,
      elements: [
        {
          type: 'button',
          action_id: Finance.actions.approveTopUp,
          text: plain('Approve', 75),
          style: 'primary',
          value: r.id,
          confirm: {
            title: plain('Request this top-up?', 100),
            text: plain(`Kudos will ask the Rewards API for an ACH top-up of ${formatUsd(r.amountCents)}.`, 300),
            confirm: plain('Approve', 30),
            deny: plain('Not yet', 30),
          },
        },
        {
          type: 'button',
          action_id: Finance.actions.rejectTopUp,
          text: plain('Reject', 75),
          style: 'danger',
          value: r.id,
        },
      ],
    } as unknown as Block);
    blocks.push(context('A second admin approves: the requester cannot approve their own request.'));
  } else {
    blocks.push(section(outcomeLine(r)), ...topUpDetails(r));
  }
  return {
    text: `Top-up request of ${formatUsd(r.amountCents)} from ${r.requesterUserId}: ${describeStatus(r.status)}`,
    blocks,
  };
}

function outcomeLine(r: TopUpRequest): string {
  const by = r.deciderUserId ? mentionUser(r.deciderUserId) : 'an admin';
  switch (r.status) {
    case 'rejected':
      return `:no_entry_sign: Rejected by ${by}. Nothing was requested.`;
    case 'approved':
      return `:hourglass_flowing_sand: Approved by ${by}; requesting it from the Rewards API…`;
    case 'submitted':
      return `:hourglass_flowing_sand: Approved by ${by} and requested from the Rewards provider. The money shows as *pending* until the provider confirms the bank transfer; then it is added to the balance.`;
    case 'completed':
      return `:white_check_mark: Completed: the money is added to the balance (approved by ${by}).`;
    case 'unapproved':
      return `:x: The Rewards provider did not accept this top-up. The balance did not change.`;
    case 'failed':
      return `:x: Approved by ${by}, but: ${escapeMrkdwn(r.errorMessage ?? 'the Rewards API refused it.')}`;
    case 'unknown':
      return `:grey_question: Approved by ${by}. ${escapeMrkdwn(r.errorMessage ?? 'The outcome is unknown.')}`;
    default:
      return describeStatus(r.status);
  }
}

/** The one line of ids, for admins who look the top-up up in the Rewards portal. */
function topUpDetails(r: TopUpRequest): Block[] {
  return r.fundingNo ? [context(`Details: funding reference \`${escapeMrkdwn(r.fundingNo)}\``)] : [];
}

export function buildTopUpOutcome(r: TopUpRequest): SlackMessageContent {
  return {
    text: `Your top-up request of ${formatUsd(r.amountCents)}: ${describeStatus(r.status)}`,
    blocks: [section(`*Your top-up request of ${formatUsd(r.amountCents)}*\n${outcomeLine(r)}`), ...topUpDetails(r)],
  };
}

function textInput(
  blockId: string,
  label: string,
  initial: string | undefined,
  opts: Parameters<typeof plainTextInput>[4] = {},
): Block {
  return plainTextInput(Finance.topUpModal.action, blockId, label, initial, opts);
}

/** private_metadata of the top-up form: whether it asks for the billing details or uses the remembered ones. */
export interface TopUpModalMetadata {
  billing: 'form' | 'remembered';
}

/** The remembered details in one line; the EIN only by its last digits. */
function billingSummary(b: BillingDetails): string {
  const place = [b.billingAddress, `${b.city} ${b.state} ${b.zipCode}`.trim(), b.country].filter(Boolean).join(', ');
  return `*Billing details:* ${escapeMrkdwn(b.companyName)} · ${escapeMrkdwn(place)} · ${escapeMrkdwn(b.phoneNumber)} · EIN ending ${escapeMrkdwn(b.ein.slice(-4))}`;
}

/**
 * The top-up form. With `remembered` details (sealed in the database) it asks only for the amount and
 * a note, and shows the details with *Change billing details*; otherwise every billing field, prefilled
 * with `billing` (the remembered details being changed, or the last request's). `keepsBilling`: the
 * details entered are remembered for next time (a key ring is configured).
 */
export function buildTopUpModal(input: {
  billing: BillingDetails | undefined;
  remembered?: BillingDetails | undefined;
  keepsBilling?: boolean;
  suggestedCents?: number;
  /** What was typed already (kept when the form turns to the billing fields). */
  amount?: string | undefined;
  note?: string | undefined;
}): Record<string, unknown> {
  const B = Finance.topUpModal.blocks;
  const b = input.billing;
  const metadata: TopUpModalMetadata = { billing: input.remembered ? 'remembered' : 'form' };
  const amount = input.amount || (input.suggestedCents ? centsToDecimal(input.suggestedCents) : undefined);
  const billingBlocks: Block[] = input.remembered
    ? [
        {
          type: 'section',
          block_id: B.rememberedBilling,
          text: { type: 'mrkdwn', text: billingSummary(input.remembered) },
          accessory: {
            type: 'button',
            action_id: Finance.actions.changeBilling,
            text: plain('Change billing details', 75),
            value: 'change',
          },
        } as unknown as Block,
      ]
    : [
        { type: 'header', text: plain('Billing details (required by the Rewards API)', 150) } as unknown as Block,
        ...(input.keepsBilling
          ? [
              context(
                'Kudos remembers them, encrypted, for this workspace’s next top-ups: then it asks only for the amount.',
              ),
            ]
          : []),
        textInput(B.companyName, 'Company name', b?.companyName, { max: 200 }),
        textInput(B.phoneNumber, 'Phone number', b?.phoneNumber, { max: 40 }),
        textInput(B.billingAddress, 'Billing address', b?.billingAddress, { max: 300 }),
        textInput(B.city, 'City', b?.city, { max: 100 }),
        textInput(B.state, 'State', b?.state, { max: 100 }),
        textInput(B.country, 'Country code', b?.country, { max: 3, placeholder: 'US' }),
        textInput(B.zipCode, 'ZIP code', b?.zipCode, { max: 20 }),
        textInput(B.ein, 'EIN', b?.ein, { max: 20 }),
        textInput(B.companyWebsite, 'Company website', b?.companyWebsite, { optional: true, max: 200 }),
      ];
  return {
    type: 'modal',
    callback_id: Finance.topUpModal.callbackId,
    private_metadata: JSON.stringify(metadata),
    title: plain('Request a top-up', 24),
    submit: plain('Ask for approval', 24),
    close: plain('Cancel', 24),
    blocks: [
      context(
        'An ACH top-up of the Rewards balance. A second admin approves it before Kudos asks the Rewards API; the balance is credited once the operator confirms the wire.',
      ),
      textInput(B.amount, 'Amount (USD)', amount, {
        max: 16,
        hint: 'At least $100.00; cents allowed.',
        placeholder: '2500.00',
      }),
      textInput(B.note, 'Note for the approver', input.note || undefined, {
        optional: true,
        multiline: true,
        max: 500,
      }),
      ...billingBlocks,
    ],
  };
}

function numberInput(blockId: string, label: string, initialCents: number | undefined, hint?: string): Block {
  return {
    type: 'input',
    block_id: blockId,
    label: plain(label, 2000),
    element: {
      type: 'plain_text_input',
      action_id: Finance.limitsModal.action,
      max_length: 12,
      ...(initialCents !== undefined ? { initial_value: String(Math.round(initialCents / 100)) } : {}),
    },
    ...(hint ? { hint: plain(hint, 2000) } : {}),
  } as unknown as Block;
}

export function buildLimitsModal(input: { limits: KnownLimits | undefined; notice?: string }): Record<string, unknown> {
  const B = Finance.limitsModal.blocks;
  const blocks: Block[] = [];
  if (input.notice) blocks.push(section(input.notice));
  blocks.push(
    context(
      'The Rewards API checks the current limits against its records before queueing the request for review (typically 1-2 business days).',
    ),
    numberInput(
      B.currentDaily,
      'Current daily limit (USD)',
      input.limits?.dailyCents,
      input.limits ? undefined : 'As the Rewards portal shows it.',
    ),
    numberInput(B.currentMonthly, 'Current monthly limit (USD)', input.limits?.monthlyCents),
    numberInput(B.requestedDaily, 'Requested daily limit (USD)', undefined),
    numberInput(B.requestedMonthly, 'Requested monthly limit (USD)', undefined),
  );
  return {
    type: 'modal',
    callback_id: Finance.limitsModal.callbackId,
    title: plain('Higher spending limits', 24),
    submit: plain('Send request', 24),
    close: plain('Cancel', 24),
    blocks,
  };
}

function bar(used: number, limit: number): string {
  const share = limit > 0 ? Math.min(1, used / limit) : 1;
  const filled = Math.round(share * 10);
  return `${'▰'.repeat(filled)}${'▱'.repeat(10 - filled)} ${Math.round(share * 100)}%`;
}

export function limitsLines(limits: KnownLimits | undefined, usage: LimitUsage): string {
  if (!limits) {
    return `*Spending limits:* not known yet (the Rewards API has no endpoint that reads them). Kudos sends used ${formatUsd(usage.todayCents)} today and ${formatUsd(usage.monthCents)} this month (UTC). Enter them with *Request higher limits*, or they are learnt from the API's answers.`;
  }
  return [
    `*Daily limit* ${formatUsd(limits.dailyCents)}: ${formatUsd(usage.todayCents)} used today ${bar(usage.todayCents, limits.dailyCents)}`,
    `*Monthly limit* ${formatUsd(limits.monthlyCents)}: ${formatUsd(usage.monthCents)} used this month ${bar(usage.monthCents, limits.monthlyCents)}`,
  ].join('\n');
}

/**
 * Under the alert level, and how long the balance lasts at the last 30 days' rate ("about 12 days");
 * without spend in those days nothing is said about days.
 */
function runwayLines(
  o: Pick<FinanceOverviewData, 'availableCents' | 'currency' | 'thresholdCents' | 'runway'>,
): string {
  const lines: string[] = [];
  if (o.runway.belowThreshold && o.thresholdCents !== null)
    lines.push(
      `:warning: *Under the alert level* of ${formatUsd(o.thresholdCents, o.currency)}: sends may soon be refused for lack of funds. Top up below.`,
    );
  const days = o.runway.daysLeft;
  if (days !== undefined && o.runway.spentCents !== undefined) {
    const perDay = formatUsd(Math.round(o.runway.spentCents / RUNWAY_WINDOW_DAYS), o.currency);
    const lasts = lastsFor(days);
    lines.push(
      `:hourglass_flowing_sand: ${lasts.charAt(0).toUpperCase()}${lasts.slice(1)} at the last 30 days' rate (${perDay} a day).`,
    );
  }
  return lines.join('\n');
}

/** `/kudos balance` for admins (and the admin section of App Home): balance, top-ups, limits. */
export function buildFinanceOverview(o: FinanceOverviewData): SlackMessageContent {
  const threshold =
    o.thresholdCents === null
      ? 'no low-balance alert set (`/kudos settings`)'
      : `alert under ${formatUsd(o.thresholdCents, o.currency)}`;
  const blocks: Block[] = [
    section(
      `:moneybag: *Rewards balance:* ${formatUsd(o.availableCents, o.currency)} available · ${formatUsd(o.pendingCents, o.currency)} pending top-ups\n${threshold}`,
    ),
  ];
  const runway = runwayLines(o);
  if (runway) blocks.push(section(runway));
  if (o.sandbox)
    blocks.push(context('Connected to the Rewards *sandbox*: orders are not charged and top-ups are production only.'));
  const topUpLine = (r: TopUpRequestRow) =>
    `• ${formatUsd(r.amountCents)} by ${mentionUser(r.requesterUserId)}: ${describeStatus(r.status)}`;
  if (o.topUps.length > 0) blocks.push(section(`*Top-ups not completed yet*\n${o.topUps.map(topUpLine).join('\n')}`));
  if (o.recentTopUps.length > 0)
    blocks.push(section(`*Top-ups settled in the last 7 days*\n${o.recentTopUps.map(topUpLine).join('\n')}`));
  // The provider's references, for an admin who looks a top-up up in the Rewards portal: one line.
  const references = [...o.topUps, ...o.recentTopUps].flatMap((r) =>
    r.fundingNo ? [`${formatUsd(r.amountCents)}: \`${escapeMrkdwn(r.fundingNo)}\``] : [],
  );
  if (references.length > 0) blocks.push(context(`Details: funding references ${references.join(', ')}`));
  blocks.push(section(limitsLines(o.limits, o.usage)));
  if (o.pendingLimitRequest) {
    const p = o.pendingLimitRequest;
    blocks.push(
      context(
        `Limit increase pending review since ${readerTime(p.createdAt)}: ${formatUsd(p.requestedDailyCents)} a day, ${formatUsd(p.requestedMonthlyCents)} a month.`,
      ),
    );
  }
  blocks.push({
    type: 'actions',
    block_id: `${Finance.blockPrefix}overview`,
    elements: [
      topUpButton(),
      {
        type: 'button',
        action_id: Finance.actions.openLimits,
        text: plain('Request higher limits', 75),
        value: 'open',
      },
    ],
  } as unknown as Block);
  return { text: `Rewards balance: ${formatUsd(o.availableCents, o.currency)} available`, blocks };
}

export const LEDGER_LIST_ROWS = 25;

/** "November 2026" for `2026-11`. */
function monthName(month: string): string {
  const [year, index] = month.split('-').map(Number);
  if (!year || !index) return month;
  return new Date(Date.UTC(year, index - 1, 1)).toLocaleString('en-US', {
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });
}

const count = (n: number, one: string, many: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/**
 * Whose a Kudos send was, by its people: "from <@U1> to 3 people"; a branded card's face and brand too
 * (the ledger's amount is its USD): "from <@U1> to 3 people, a £25 Tesco Gift Card each".
 */
function sendName(send: LedgerSend): string {
  const card = send.branded ? `, a ${brandedCard(send.branded)}${send.recipientCount > 1 ? ' each' : ''}` : '';
  return `from ${mentionUser(send.senderUserId)} to ${peopleCount(send.recipientCount)}${card}`;
}

/** What a movement was, in words: a Kudos send by its people, never its order id. */
function movementText(m: Movement, sends: Reconciliation['sends']): string {
  const send = sends[m.referenceNumber];
  if (m.kind === 'order') return send ? `Kudos ${sendName(send)}` : 'Order placed outside Kudos';
  if (m.kind === 'order_canceled')
    return send ? `Refund: cancelled kudos ${sendName(send)}` : 'Refund of an order placed outside Kudos';
  return escapeMrkdwn(m.label);
}

export function buildLedgerList(input: {
  month: string;
  movements: Movement[];
  totals: LedgerTotals;
  reconciliation: Reconciliation;
  truncated: boolean;
}): SlackMessageContent {
  const { totals: t, reconciliation: r } = input;
  const month = monthName(input.month);
  const blocks: Block[] = [{ type: 'header', text: plain(`Ledger for ${month}`, 150) } as unknown as Block];
  if (input.movements.length === 0) {
    blocks.push(section('No movements this month.'));
  } else {
    const lines = input.movements.slice(0, LEDGER_LIST_ROWS).map((m) => {
      const when = m.occurredAt ? `${readerTime(m.occurredAt)} · ` : '';
      const pending = m.credited ? '' : ' _(not credited yet)_';
      return `${when}${movementText(m, r.sends)} · *${formatUsd(m.signedCents, m.currency)}*${pending}`;
    });
    blocks.push(section(lines.join('\n')));
    blocks.push(
      context(
        input.movements.length > LEDGER_LIST_ROWS
          ? `…and ${(input.movements.length - LEDGER_LIST_ROWS).toLocaleString('en-US')} more: \`/kudos ledger ${input.month} csv\` sends them all, with the provider's reference numbers.`
          : `The provider's reference numbers are in the CSV file: \`/kudos ledger ${input.month} csv\`.`,
      ),
    );
  }
  blocks.push(
    section(
      `*In:* ${formatUsd(t.inCents)} · *Out:* ${formatUsd(t.outCents)} · *Net order spend:* ${formatUsd(t.orderSpendCents)}${t.pendingTopUpCents ? ` · *Pending top-ups:* ${formatUsd(t.pendingTopUpCents)}` : ''}`,
    ),
  );
  if (r.ok) {
    blocks.push(
      context(
        `:white_check_mark: Reconciled: the ledger shows the ${count(r.kudosOrders, 'order', 'orders')} Kudos placed this month for ${formatUsd(r.kudosCents)}, as Kudos recorded.${r.earlierRefunds.orders ? ` It also refunds ${count(r.earlierRefunds.orders, 'Kudos send', 'Kudos sends')} of earlier months cancelled since (${formatUsd(r.earlierRefunds.cents)}).` : ''}${r.otherOrders ? ` ${count(r.otherOrders, 'other order', 'other orders')} came from outside Kudos.` : ''}`,
      ),
    );
  } else {
    const named = (orderId: string) => {
      const send = r.sends[orderId];
      return send ? `kudos ${sendName(send)}` : 'Kudos send';
    };
    const problems = [
      ...r.missing.slice(0, 5).map((id) => `The ${named(id)} is not in the ledger.`),
      ...r.differing
        .slice(0, 5)
        .map(
          (d) =>
            `The ${named(d.orderId)}: Kudos recorded ${formatUsd(d.kudosCents)}, the ledger shows ${formatUsd(d.ledgerCents)}.`,
        ),
    ];
    const ids = [...r.missing.slice(0, 5), ...r.differing.slice(0, 5).map((d) => d.orderId)];
    blocks.push(
      section(
        `:warning: *Mismatch with the orders Kudos placed:* Kudos recorded ${formatUsd(r.kudosCents)} for ${count(r.kudosOrders, 'order', 'orders')}, the ledger shows ${formatUsd(r.ledgerCents)}.\n${problems.map((p) => `• ${p}`).join('\n')}`,
      ),
      context(`Details: order ids ${ids.map((id) => `\`${escapeMrkdwn(id)}\``).join(', ')}`),
    );
  }
  if (input.truncated) blocks.push(context('Only the first 5,000 rows were read.'));
  return {
    text: `Ledger for ${month}: ${count(input.movements.length, 'movement', 'movements')}${r.ok ? '' : ' (mismatch with Kudos orders)'}`,
    blocks,
  };
}

/** `/kudos balance` for anyone but an admin (an admin gets buildFinanceOverview). */
export function buildBalance(balance: {
  availableCents: number;
  pendingCents: number;
  currency: string;
  /** The low-balance alert level; under it, the answer says so (sends may be refused). */
  thresholdCents?: number | null;
}): SlackMessageContent {
  const text = `Available balance: ${formatUsd(balance.availableCents, balance.currency)} · pending top-ups: ${formatUsd(balance.pendingCents, balance.currency)}`;
  const low =
    balance.thresholdCents !== null &&
    balance.thresholdCents !== undefined &&
    balance.availableCents < balance.thresholdCents;
  return {
    text: low ? `${text} · under the alert level` : text,
    blocks: [
      section(
        `:moneybag: *Available:* ${formatUsd(balance.availableCents, balance.currency)}\n*Pending top-ups:* ${formatUsd(balance.pendingCents, balance.currency)}`,
      ),
      ...(low
        ? [
            context(
              `:warning: Under the alert level of ${formatUsd(balance.thresholdCents!, balance.currency)}: sends may be refused until a Kudos admin tops up.`,
            ),
          ]
        : []),
    ],
  };
}
