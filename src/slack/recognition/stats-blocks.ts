// The recognition feed in Block Kit: the monthly leaderboard (`/kudos stats`, the weekly digest) and
// App Home's stats section. Counts by default; dollar amounts beside them only when an admin turned
// them on in `/kudos settings`. Pure builders.
import { formatUsd } from '../../domain/common/money.js';
import type { MonthCampaignSpend } from '../../domain/finance/campaigns.js';
import type { Leaderboard, LeaderRow, MonthRef, PersonalMonth, ValueCount } from '../../domain/recognition/stats.js';
import { COMMAND, Home } from '../ids.js';
import { valueLabel } from '../kit/company-value.js';
import type { SlackMessageContent } from '../kit/mrkdwn.js';
import { type Block, context, plain, section } from '../kit/mrkdwn.js';
import { escapeMrkdwn, mentionUser } from '../kit/mrkdwn-escape.js';

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

export function monthTitle(month: MonthRef): string {
  return `${MONTHS[month.month - 1]} ${month.year}`;
}

/** What a leaderboard covers, as its title says it. */
export type LeaderboardLabel =
  { kind: 'workspace' } | { kind: 'channel'; channel: string } | { kind: 'group'; handle: string };

function scopeText(label: LeaderboardLabel): string {
  if (label.kind === 'channel') return ` in <#${label.channel}>`;
  if (label.kind === 'group') return ` for @${label.handle.replace(/[<>&*_~`]/g, '')}`; // not a <!subteam^…> mention: that would ping the group
  return '';
}

function leaderList(rows: LeaderRow[], amounts: boolean): string {
  return (
    rows
      .map((r, i) => `${i + 1}. ${mentionUser(r.userId)} · ${r.count}${amounts ? ` (${formatUsd(r.cents)})` : ''}`)
      .join('\n') || '_nobody yet_'
  );
}

// A section's text holds 3,000 characters; a workspace with more campaigns than fit is told how many were left off.
const CAMPAIGN_LINES_MAX = 25;

function campaignSpendList(rows: MonthCampaignSpend[]): string {
  const lines = rows
    .slice(0, CAMPAIGN_LINES_MAX)
    .map(
      (r) => `• *${escapeMrkdwn(r.name)}*${r.archived ? ' (archived)' : ''} · ${r.sends} kudos · ${formatUsd(r.cents)}`,
    );
  if (rows.length > CAMPAIGN_LINES_MAX) lines.push(`_and ${rows.length - CAMPAIGN_LINES_MAX} more_`);
  return lines.join('\n');
}

/** `:handshake: *Teamwork* · 3 · :bulb: *Ownership* · 1`: kudos per company value. */
function valueCountsText(rows: ValueCount[]): string {
  return rows.map((r) => `${valueLabel(r)} · ${r.count}`).join('\n');
}

export function buildLeaderboard(
  board: Leaderboard,
  opts: { amounts?: boolean; label?: LeaderboardLabel; campaigns?: MonthCampaignSpend[] } = {},
): SlackMessageContent & { blocks: Block[] } {
  const amounts = opts.amounts ?? false;
  const title = `${monthTitle(board.month)}${scopeText(opts.label ?? { kind: 'workspace' })}`;
  const campaigns =
    amounts && opts.campaigns && opts.campaigns.length > 0
      ? [section(`*Spend by campaign*\n${campaignSpendList(opts.campaigns)}`)]
      : [];
  if (board.kudosCount === 0)
    return {
      text: `No kudos in ${title} yet.`,
      blocks: [section(`*Kudos in ${title}*\nNone yet. Be the first: \`${COMMAND}\`.`), ...campaigns],
    };
  return {
    text: `Kudos in ${title}: ${board.kudosCount}`,
    blocks: [
      section(`*Kudos in ${title}:* ${board.kudosCount} sent · ${board.plusOnes} +1s`),
      section(`*Most kudos given*\n${leaderList(board.givers, amounts)}`),
      section(`*Most kudos received*\n${leaderList(board.receivers, amounts)}`),
      ...(board.byValue.length > 0 ? [section(`*Kudos by company value*\n${valueCountsText(board.byValue)}`)] : []),
      ...campaigns,
      context(
        `${amounts ? 'Counts, with amounts' : 'Counts only'}. Rather not appear here? \`${COMMAND} stats optout\`.`,
      ),
    ],
  };
}

/** The weekly digest in the announcement channel: last week's kudos and this month's leaders. */
export function buildWeeklyDigest(input: {
  weekLabel: string;
  weekCount: number;
  weekPlusOnes: number;
  weekValues: ValueCount[];
  board: Leaderboard;
  amounts: boolean;
}): SlackMessageContent & { blocks: Block[] } {
  const { board, amounts } = input;
  const lines = [
    section(
      `:trophy: *Kudos this past week (${input.weekLabel}):* ${input.weekCount} sent · ${input.weekPlusOnes} +1s`,
    ),
    ...(input.weekValues.length > 0 ? [section(`*By company value*\n${valueCountsText(input.weekValues)}`)] : []),
    ...(board.kudosCount > 0
      ? [
          section(
            `*${monthTitle(board.month)} so far: most kudos given*\n${leaderList(board.givers.slice(0, 3), amounts)}`,
          ),
          section(`*Most kudos received*\n${leaderList(board.receivers.slice(0, 3), amounts)}`),
        ]
      : []),
    context(
      input.weekCount === 0
        ? `Quiet week. Thank someone with \`${COMMAND}\`, or from any message: *More actions → Give kudos for this*.`
        : `Full board: \`${COMMAND} stats\`. Rather not appear? \`${COMMAND} stats optout\`.`,
    ),
  ];
  return { text: `Kudos this past week: ${input.weekCount}`, blocks: lines };
}

/** App Home's stats section: the person's own month, the top three, and the opt-out switch. */
export function buildHomeStatsSection(input: { board: Leaderboard; me: PersonalMonth; amounts: boolean }): Block[] {
  const { board, me, amounts } = input;
  const money = (cents: number) => (amounts ? ` (${formatUsd(cents)})` : '');
  const blocks: Block[] = [{ type: 'header', text: plain(`Kudos in ${monthTitle(board.month)}`, 150) }];
  blocks.push(
    section(
      `*You:* ${me.given} given${money(me.givenCents)} · ${me.received} received${money(me.receivedCents)} · ${me.plusOnes} +1s on them`,
    ),
  );
  if (board.kudosCount === 0) {
    blocks.push(context('No kudos this month yet. Be the first: press *Give kudos*.'));
  } else {
    blocks.push({
      type: 'section',
      fields: [
        { type: 'mrkdwn', text: `*Most kudos given*\n${leaderList(board.givers.slice(0, 3), amounts)}` },
        { type: 'mrkdwn', text: `*Most kudos received*\n${leaderList(board.receivers.slice(0, 3), amounts)}` },
      ],
    });
  }
  blocks.push({
    type: 'actions',
    elements: [
      me.optedOut
        ? {
            type: 'button',
            action_id: Home.actions.statsOptIn,
            text: plain('Show me on the leaderboard', 75),
            value: 'in',
          }
        : {
            type: 'button',
            action_id: Home.actions.statsOptOut,
            text: plain('Hide me from the leaderboard', 75),
            value: 'out',
          },
    ],
  });
  blocks.push(
    context(
      `${me.optedOut ? 'You don’t appear on the leaderboard; only you see your numbers. ' : ''}${board.kudosCount} kudos · ${board.plusOnes} +1s this month. More: \`${COMMAND} stats\`, \`${COMMAND} stats #channel\`, \`${COMMAND} stats @group\`.`,
    ),
  );
  return blocks;
}
