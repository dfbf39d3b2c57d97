// App Home's stats section, read and rendered apart from the rest of Home (its own queries, its own
// builder in recognition/stats-blocks.ts): the person's month, this month's leaders and the opt-out switch.
import type { Database } from '../../db/client.js';
import { monthlyLeaderboard, personalMonth } from '../../domain/recognition/stats.js';
import type { Block } from '../kit/mrkdwn.js';
import { buildHomeStatsSection } from '../recognition/stats-blocks.js';

export async function homeStatsSection(
  db: Database,
  input: { teamId: string; userId: string; now: Date; amounts: boolean },
): Promise<Block[]> {
  const month = { year: input.now.getUTCFullYear(), month: input.now.getUTCMonth() + 1 };
  const [board, me] = await Promise.all([
    monthlyLeaderboard(db, input.teamId, month, 3),
    personalMonth(db, input.teamId, input.userId, month),
  ]);
  return buildHomeStatsSection({ board, me, amounts: input.amounts });
}
