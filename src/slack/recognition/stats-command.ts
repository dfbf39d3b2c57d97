// `/kudos stats [month] [#channel | @group]`: the month's leaderboard (counts; amounts when an admin
// turned them on), for the workspace, one channel or one user group; `/kudos stats optout|optin`.
import type { AckFn, RespondArguments } from '@slack/bolt';

import { isChatRefusal } from '../../domain/common/ports.js';
import {
  type LeaderboardScope,
  monthlyCampaignSpend,
  monthlyLeaderboard,
  parseMonth,
  setStatsOptOut,
} from '../../domain/recognition/stats.js';
import { secondsToWait } from '../listening/deadline.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import { buildLeaderboard, type LeaderboardLabel } from './stats-blocks.js';

export type StatsCommand =
  | { kind: 'board'; month: string; channel?: string; group?: { id: string; handle: string } }
  | { kind: 'optout' | 'optin' };

// With should_escape, Slack sends a channel as <#C123|name> and a user group as <!subteam^S123|@handle>.
const CHANNEL_TOKEN = /<#([CG][A-Z0-9_]+)(?:\|[^>]*)?>/;
const GROUP_TOKEN = /<!subteam\^(S[A-Z0-9_]+)(?:\|@?([^>]*))?>/;

export function parseStatsCommand(text: string): StatsCommand | undefined {
  const match = /^\s*stats(?:\s+([\s\S]*))?$/i.exec(text);
  if (!match) return undefined;
  let rest = (match[1] ?? '').trim();
  const arg = rest.toLowerCase();
  if (arg === 'optout' || arg === 'opt-out') return { kind: 'optout' };
  if (arg === 'optin' || arg === 'opt-in') return { kind: 'optin' };
  const channel = CHANNEL_TOKEN.exec(rest);
  if (channel) rest = rest.replace(channel[0], ' ');
  const group = GROUP_TOKEN.exec(rest);
  if (group) rest = rest.replace(group[0], ' ');
  return {
    kind: 'board',
    month: rest.trim().toLowerCase(),
    ...(channel ? { channel: channel[1]! } : {}),
    ...(group ? { group: { id: group[1]!, handle: group[2] || group[1]! } } : {}),
  };
}

export async function handleStatsCommand(
  deps: ListenerDeps,
  input: {
    ack: AckFn<string | RespondArguments>;
    command: { text: string; user_id: string; team_id?: string | undefined; enterprise_id?: string | undefined };
    stats: StatsCommand;
  },
): Promise<void> {
  const { ack, command, stats } = input;
  const ws = workspaceOf(command);
  if (stats.kind !== 'board') {
    await setStatsOptOut(deps.db, ws, command.user_id, stats.kind === 'optout');
    return ack({
      text:
        stats.kind === 'optout'
          ? 'Done: you won’t appear on the leaderboard. `/kudos stats optin` brings you back.'
          : 'Welcome back: you appear on the leaderboard again.',
    });
  }
  const month = parseMonth(stats.month, deps.now());
  if (!month)
    return ack({
      text: 'Which month? Try `/kudos stats`, `/kudos stats 2026-10`, `/kudos stats october`, `/kudos stats #channel` or `/kudos stats @group`.',
    });
  const scope: LeaderboardScope = {};
  let label: LeaderboardLabel = { kind: 'workspace' };
  if (stats.channel) {
    scope.channel = stats.channel;
    label = { kind: 'channel', channel: stats.channel };
  }
  if (stats.group) {
    // Under /kudos's deadline (kudos-command/listeners.ts): a read whose Slack slot comes too late is refused at once.
    let members: string[];
    try {
      members = await deps.slack.usergroupMembers(ws, stats.group.id);
    } catch (error) {
      if (isChatRefusal(error, 'not_found'))
        return ack({ text: 'I couldn’t find that user group. Pick one from the list as you type `@`.' });
      if (isChatRefusal(error, 'rate_limited')) {
        return ack({
          text: `Slack is busy right now (its rate limit), so the members of that user group could not be read. Try \`/kudos stats @group\` again in ${secondsToWait(error.retryAfterSeconds)} s.`,
        });
      }
      deps.logger.warn('reading a user group for stats failed', { usergroup: stats.group.id, error });
      return ack({ text: 'Slack did not give the members of that user group just now. Try again.' });
    }
    scope.members = members;
    label = { kind: 'group', handle: stats.group.handle };
  }
  const [board, settings] = await Promise.all([
    monthlyLeaderboard(deps.db, ws.teamId, month, 5, scope),
    deps.settings.get(ws),
  ]);
  // Spend per campaign is money, so it shows only where amounts do; it is the workspace's, so only on the workspace board.
  const campaigns =
    settings.leaderboardAmounts && label.kind === 'workspace'
      ? await monthlyCampaignSpend(deps.db, ws.teamId, month)
      : [];
  return ack(buildLeaderboard(board, { amounts: settings.leaderboardAmounts, label, campaigns }));
}
