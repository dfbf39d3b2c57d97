// `/kudos stats [month]`: the month's leaderboard (counts, not amounts); `/kudos stats optout|optin`.
import type { AckFn, RespondArguments } from '@slack/bolt';
import { mentionUser } from '../../domain/escape.js';
import { monthlyLeaderboard, parseMonth, setStatsOptOut, type Leaderboard } from '../../domain/stats.js';
import type { ListenerDeps } from '../deps.js';
import { workspaceOf } from '../deps.js';
import { context, section } from '../blocks/text.js';

export type StatsCommand = { kind: 'board'; month: string } | { kind: 'optout' | 'optin' };

export function parseStatsCommand(text: string): StatsCommand | undefined {
  const match = /^\s*stats(?:\s+(.*))?$/i.exec(text);
  if (!match) return undefined;
  const arg = (match[1] ?? '').trim().toLowerCase();
  if (arg === 'optout' || arg === 'opt-out') return { kind: 'optout' };
  if (arg === 'optin' || arg === 'opt-in') return { kind: 'optin' };
  return { kind: 'board', month: arg };
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

export function buildLeaderboard(board: Leaderboard): { text: string; blocks: ReturnType<typeof section>[] } {
  const title = `${MONTHS[board.month.month - 1]} ${board.month.year}`;
  if (board.kudosCount === 0) return { text: `No kudos in ${title} yet.`, blocks: [section(`*Kudos in ${title}*\nNone yet. Be the first: \`/kudos\`.`)] };
  const list = (rows: Array<{ userId: string; count: number }>) => rows.map((r, i) => `${i + 1}. ${mentionUser(r.userId)} · ${r.count}`).join('\n') || '_nobody yet_';
  return {
    text: `Kudos in ${title}: ${board.kudosCount}`,
    blocks: [
      section(`*Kudos in ${title}:* ${board.kudosCount} sent · ${board.plusOnes} +1s`),
      section(`*Most kudos given*\n${list(board.givers)}`),
      section(`*Most kudos received*\n${list(board.receivers)}`),
      context('Counts only. Rather not appear here? `/kudos stats optout`.'),
    ],
  };
}

export async function handleStatsCommand(
  deps: ListenerDeps,
  input: { ack: AckFn<string | RespondArguments>; command: { text: string; user_id: string; team_id?: string; enterprise_id?: string }; stats: StatsCommand },
): Promise<void> {
  const { ack, command, stats } = input;
  const ws = workspaceOf(command as never);
  if (stats.kind !== 'board') {
    await setStatsOptOut(deps.db, ws, command.user_id, stats.kind === 'optout');
    return ack({ text: stats.kind === 'optout' ? 'Done: you won’t appear on the leaderboard. `/kudos stats optin` brings you back.' : 'Welcome back: you appear on the leaderboard again.' });
  }
  const month = parseMonth(stats.month, deps.now());
  if (!month) return ack({ text: 'Which month? Try `/kudos stats`, `/kudos stats 2026-10` or `/kudos stats october`.' });
  return ack(buildLeaderboard(await monthlyLeaderboard(deps.db, ws.teamId, month)));
}
