// The App Home tab, by role: everyone sees a "Give kudos" button, the kudos they received and sent;
// senders their scheduled sends (Cancel) and monthly budget; approvers the requests waiting for them
// (Approve / Reject); admins the balance, this month's spend, settings, the audit export and health
// warnings. Each list is one page with Newer / Older buttons, so the view stays under Slack's 100 blocks.
import type { HealthWarningRow, KudosRow } from '../../db/schema/index.js';
import { faceAmount, usdInAll } from '../../domain/branded/card-amounts.js';
import { formatUsd } from '../../domain/common/money.js';
import type { HomeData, HomeList, Page } from '../../domain/home/home-data.js';
import { allowanceLine, allowanceStanding } from '../../domain/sending/allowances.js';
import { placedRecipientCount } from '../../domain/sending/kudos-parts.js';
import { Approval, BounceFix, COMMAND, Home } from '../ids.js';
import { brandedCard, brandedOf, cardColumns, usdNote } from '../kit/card-amounts.js';
import { kudosValueLabel } from '../kit/company-value.js';
import { type Block, context, plain, section } from '../kit/mrkdwn.js';
import { escapeAndClip, escapeMrkdwn, mentionUser } from '../kit/mrkdwn-escape.js';
import { readerTime } from '../kit/reader-time.js';
import { cardCount, cardsTo, peopleCount } from '../kit/recipients.js';
import { cancelButton } from '../sending/scheduled-blocks.js';

/** Slack's limit for a Home view. */
export const HOME_MAX_BLOCKS = 100;

/** What the admin section shows of the Rewards account (fetched by the listener, may fail). */
export type HomeBalance = { availableCents: number; pendingCents: number; currency: string } | { error: string };

export interface HomeExtras {
  /** One line at the top after a click on Home (e.g. "Cancelled"), shown once. */
  flash?: string;
  balance?: HomeBalance;
  /** Distribution mode: the Rewards account section (rewards-connect.ts), shown first. */
  rewardsAccount?: Block[];
  /** The recognition stats section (stats.ts), after the person's own kudos. */
  stats?: Block[];
  /** Admins: the money section (money-section.ts: balance, top-ups, limits), after the admin section. */
  money?: Block[];
  /** Celebrations (automations-section.ts): the person's opt-outs; admins' rules and upcoming list. */
  automations?: Block[];
}

/** Slack renders this in the reader's own time zone and format. */
const when = readerTime;

/** A sentence's first letter in capitals ("A $25 Thank You card to …"). */
const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

function quoteLine(message: string): string {
  const text = message.trim();
  return text ? `\n>${escapeAndClip(text.replace(/\s*\n\s*/g, ' '), 200)}` : '';
}

/** Where a sent kudos is, in a few words: no internal states, no order ids. */
export function sentStatus(row: KudosRow, rejectReason: string | null, bounced: number): string {
  switch (row.status) {
    case 'awaiting_approval':
      return ':hourglass_flowing_sand: Waiting for approval';
    case 'pending':
      return ':arrows_counterclockwise: Sending';
    case 'scheduled':
      return row.scheduledAt ? `:calendar: Scheduled for ${when(row.scheduledAt)}` : ':calendar: Scheduled';
    case 'partial':
      return `:warning: Reached ${placedRecipientCount(row).toLocaleString('en-US')} of ${peopleCount(row.recipientCount)}; the others were not sent`;
    case 'placed':
      if (bounced > 0) return `:warning: ${cardCount(bounced)} bounced`;
      return row.orderStatus === 'COMPLETE' ? ':white_check_mark: Delivered' : ':outbox_tray: On its way';
    case 'canceled':
      return `:no_entry_sign: Cancelled${row.canceledBy ? ` by ${mentionUser(row.canceledBy)}` : ''}`;
    case 'rejected':
      return `:x: Rejected${rejectReason ? `: “${escapeAndClip(rejectReason, 150)}”` : ''}`;
    case 'expired':
      return ':hourglass: Expired: nobody approved it in time';
    case 'unknown':
      return ':grey_question: Not confirmed yet: Kudos keeps checking whether it went out';
    case 'failed':
      return `:warning: Not sent${row.errorMessage ? `: ${escapeAndClip(row.errorMessage, 150)}` : ''}`;
    default:
      return ':arrows_counterclockwise: Sending';
  }
}

function header(text: string): Block {
  return { type: 'header', text: plain(text, 150) };
}

/** "Showing 6–10 of 42" and the Newer / Older buttons, when the list has more than one page. */
function pager(list: HomeList, page: Page<unknown>): Block[] {
  if (page.total <= page.pageSize && page.page === 0) return [];
  const first = page.page * page.pageSize + 1;
  const last = Math.min(page.total, first + page.items.length - 1);
  const buttons = [];
  if (page.page > 0)
    buttons.push({
      type: 'button',
      action_id: `${Home.actions.page}_${list}_newer`,
      text: plain('← Newer', 75),
      value: `${list}:${page.page - 1}`,
    });
  if (last < page.total)
    buttons.push({
      type: 'button',
      action_id: `${Home.actions.page}_${list}_older`,
      text: plain('Older →', 75),
      value: `${list}:${page.page + 1}`,
    });
  const blocks: Block[] = [
    context(
      page.items.length ? `Showing ${first}–${last} of ${page.total}` : `Nothing on this page; ${page.total} in all`,
    ),
  ];
  if (buttons.length) blocks.push({ type: 'actions', elements: buttons } as Block);
  return blocks;
}

/** " ($50 in all)" for several people; a branded card, " (£50 in all, about $67)" or " (about $33)". */
function approvalTotal(row: KudosRow): string {
  const face = brandedOf(row);
  if (!face) return row.recipientCount > 1 ? ` (${formatUsd(row.totalCents)} in all)` : '';
  if (row.recipientCount <= 1) return usdNote(row, 1);
  const usd = face.currency === 'USD' ? '' : `, ${usdInAll(cardColumns(row), row.recipientCount)}`;
  return ` (${faceAmount(face, row.recipientCount)} in all${usd})`;
}

function approvalsSection(page: Page<KudosRow>): Block[] {
  const blocks: Block[] = [header('Waiting for your approval')];
  if (page.total === 0)
    return [...blocks, context('Nothing to decide. Requests above the approval threshold show up here.')];
  for (const row of page.items) {
    blocks.push(
      section(
        `${mentionUser(row.senderUserId)} wants to send ${cardsTo(row)}${forValue(row)}${approvalTotal(row)} · ${when(row.createdAt)}${quoteLine(row.message)}`,
      ),
    );
    blocks.push({
      type: 'actions',
      block_id: `${Approval.blockPrefix}home_${row.id}`,
      elements: [
        {
          type: 'button',
          action_id: Approval.actions.approve,
          text: plain('Approve', 75),
          style: 'primary',
          value: row.id,
        },
        {
          type: 'button',
          action_id: Approval.actions.reject,
          text: plain('Reject', 75),
          style: 'danger',
          value: row.id,
        },
      ],
    });
  }
  return [...blocks, ...pager('approvals', page)];
}

function scheduledSection(data: HomeData): Block[] {
  const page = data.scheduled;
  const blocks: Block[] = [header('Your scheduled kudos')];
  if (page.total === 0 && page.page === 0)
    return [
      ...blocks,
      context('Nothing scheduled. To have kudos go out later, pick *Schedule for later* in the send form.'),
    ];
  for (const { row, cancellable } of page.items) {
    const text = `${capitalized(cardsTo(row))}${usdNote(row, row.recipientCount)}${forValue(row)} · *${row.scheduledAt ? when(row.scheduledAt) : 'soon'}*`;
    if (!cancellable) {
      blocks.push(section(`${text}\n_Can’t be cancelled any more: it goes out in less than 10 minutes._`));
      continue;
    }
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text, verbatim: true },
      accessory: cancelButton(Home.actions.cancel, row.id),
    });
  }
  return [...blocks, ...pager('scheduled', page)];
}

function budgetLine(data: HomeData): Block[] {
  const { usedCents, budgetCents } = data.budget;
  if (budgetCents === null) return usedCents > 0 ? [context(`You have sent ${formatUsd(usedCents)} this month.`)] : [];
  const line = allowanceLine(allowanceStanding(budgetCents, usedCents, new Date()));
  return [context(`*Your monthly allowance:* ${line ?? ''} ${formatUsd(usedCents)} used so far.`)];
}

/** ` for :handshake: *Teamwork*`: the company value a kudos was sent for, as it was then; '' without one. */
function forValue(row: KudosRow): string {
  const value = kudosValueLabel(row);
  return value ? ` for ${value}` : '';
}

/** "$25 Thank You card"; a branded card by its face and brand, never its cost ("£25 Tesco Gift Card"). */
function receivedCard(row: KudosRow): string {
  const face = brandedOf(row);
  return face ? brandedCard(face) : `${formatUsd(row.amountCents)} ${escapeMrkdwn(row.designName)} card`;
}

function receivedSection(data: HomeData): Block[] {
  const page = data.received;
  const blocks: Block[] = [header('Kudos you received')];
  if (page.total === 0) return [...blocks, context('None yet. When someone thanks you with a card, it shows up here.')];
  for (const { row, delivery } of page.items) {
    const state =
      delivery === 'delivered'
        ? ':white_check_mark: Card delivered by e-mail'
        : delivery === 'bounced'
          ? ':warning: The e-mail bounced; the sender was asked to fix it'
          : ':outbox_tray: Card on its way';
    blocks.push(
      section(
        `${mentionUser(row.senderUserId)} sent you a ${receivedCard(row)}${forValue(row)} · ${when(row.createdAt)}\n${state}${quoteLine(row.message)}`,
      ),
    );
  }
  return [...blocks, ...pager('received', page)];
}

function sentSection(data: HomeData): Block[] {
  const page = data.sent;
  const blocks: Block[] = [header('Kudos you sent')];
  if (page.total === 0) return [...blocks, context('None yet. Press *Give kudos* to thank someone.')];
  for (const { row, bounces, rejectReason } of page.items) {
    const text = `${capitalized(cardsTo(row))}${usdNote(row, row.recipientCount)}${forValue(row)} · ${when(row.createdAt)}\n${sentStatus(row, rejectReason, bounces.length)}`;
    const bounce = bounces[0];
    if (bounce) {
      blocks.push({
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: `${text}: ${escapeMrkdwn(bounces.map((b) => b.email).join(', '))}`,
          verbatim: true,
        },
        accessory: {
          type: 'button',
          action_id: BounceFix.actions.open,
          text: plain('Fix address and resend', 75),
          style: 'primary',
          value: bounce.id,
        },
      });
    } else {
      blocks.push(section(text));
    }
  }
  return [...blocks, ...pager('sent', page)];
}

function adminSection(data: HomeData, extras: HomeExtras): Block[] {
  const admin = data.admin;
  if (!admin) return [];
  const blocks: Block[] = [header('Admin')];
  const balance = extras.balance;
  const balanceText = !balance
    ? 'Balance: not loaded'
    : 'error' in balance
      ? `Balance: ${escapeMrkdwn(balance.error)}`
      : `*Balance:* ${formatUsd(balance.availableCents, balance.currency)} available · ${formatUsd(balance.pendingCents, balance.currency)} pending top-ups`;
  const budgets = [
    `approval above ${formatUsd(admin.approvalThresholdCents)}`,
    admin.monthlyBudgetCents !== null
      ? `${formatUsd(admin.monthlyBudgetCents)} allowance per sender per month`
      : 'no monthly allowance',
  ];
  blocks.push(
    section(
      `${balanceText}\n*This month:* ${formatUsd(admin.spentThisMonthCents)} in ${admin.sendsThisMonth} ${admin.sendsThisMonth === 1 ? 'send' : 'sends'} · ${budgets.join(' · ')}`,
    ),
  );
  blocks.push({
    type: 'actions',
    elements: [{ type: 'button', action_id: Home.actions.openSettings, text: plain('Settings', 75) }],
  });
  blocks.push(
    context(`Audit trail: \`${COMMAND} audit\`, or all of it as a CSV file by DM with \`${COMMAND} audit csv\`.`),
  );
  const warnings: string[] = [];
  if (balance && 'error' in balance)
    warnings.push(':warning: The Rewards API did not answer the balance request. Sends may fail until it does.');
  if (admin.recentApiErrors > 0)
    warnings.push(
      `:warning: ${admin.recentApiErrors} ${admin.recentApiErrors === 1 ? 'send' : 'sends'} hit a Rewards API error in the last 24 hours.`,
    );
  for (const w of admin.warnings) warnings.push(warningText(w));
  blocks.push(header('Health'));
  if (warnings.length === 0) blocks.push(context(':large_green_circle: All good: no warnings.'));
  for (const w of warnings.slice(0, 8)) blocks.push(section(w));
  return blocks;
}

function warningText(w: HealthWarningRow): string {
  const seen = `${w.count === 1 ? 'once' : `${w.count} times`}, last ${when(w.lastAt)}`;
  switch (w.kind) {
    case 'channel.unreachable':
      return w.error === 'channel_not_found'
        ? `:warning: Kudos couldn’t post in <#${escapeMrkdwn(w.subject)}>: the channel was not found (deleted, or private without the app). Pick another one in *Settings*. (${seen})`
        : `:warning: Kudos couldn’t post in <#${escapeMrkdwn(w.subject)}> (\`${escapeMrkdwn(w.error)}\`). Invite the app there with \`/invite @kudos\`, or pick another channel in *Settings*. (${seen})`;
    case 'webhooks.silent':
      return `:warning: No Rewards webhooks have arrived although orders are open; outcomes come from polling meanwhile. Check the webhook registration. (${seen})`;
    default:
      return `:warning: ${escapeMrkdwn(w.kind)}: \`${escapeMrkdwn(w.error)}\` (${seen})`;
  }
}

export function buildHome(data: HomeData, extras: HomeExtras = {}): { type: 'home'; blocks: Block[] } {
  const intro: Block[] = [];
  if (extras.flash) intro.push(section(extras.flash));
  if (extras.rewardsAccount && extras.rewardsAccount.length > 0)
    intro.push(...extras.rewardsAccount, { type: 'divider' });
  intro.push(
    section('*Thank someone with a gift card*, right now or at a time you pick.'),
    {
      type: 'actions',
      elements: [
        { type: 'button', action_id: Home.actions.openSendModal, text: plain('Give kudos', 75), style: 'primary' },
      ],
    },
    context(`Also from any message: *More actions → Give kudos for this*, or \`${COMMAND}\`.`),
  );
  const sections: Block[][] = [
    data.approvals ? approvalsSection(data.approvals) : [],
    [...scheduledSection(data), ...budgetLine(data)],
    receivedSection(data),
    sentSection(data),
    extras.stats ?? [],
    adminSection(data, extras),
    data.admin ? (extras.money ?? []) : [],
    // Last: on a full Home (100 blocks) it is what gets cut, never the admin's health or money.
    extras.automations ?? [],
  ].filter((s) => s.length > 0);
  const blocks: Block[] = [...intro];
  for (const s of sections) blocks.push({ type: 'divider' }, ...s);
  return { type: 'home', blocks: fitBlocks(blocks) };
}

/** Never over Slack's limit: with the page sizes of domain/home/home-data.ts this only guards future growth. */
export function fitBlocks(blocks: Block[], max = HOME_MAX_BLOCKS): Block[] {
  if (blocks.length <= max) return blocks;
  return [
    ...blocks.slice(0, max - 1),
    context('Some items are not shown. Use the Older buttons or `/kudos` commands to see them.'),
  ];
}
