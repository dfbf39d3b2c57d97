// App Home's money section for admins, read and rendered apart from the rest of Home: the same overview
// as `/kudos balance` (balance, threshold, top-ups not completed yet, limits and their use, a pending
// limit request) with its Request a top-up / Request higher limits buttons. Shown to admins only; if
// the Rewards API does not answer, the section is left out (the admin section says the balance failed).
import type { Workspace } from '../../domain/common/workspace.js';
import type { FinanceService } from '../../domain/finance/finance-service.js';
import { buildFinanceOverview } from '../finance/finance-blocks.js';
import { type Block, plain } from '../kit/mrkdwn.js';

export const HOME_MONEY_TIMEOUT_MS = 2_000;

export async function homeMoneySection(finance: Pick<FinanceService, 'overview'>, ws: Workspace): Promise<Block[]> {
  const overview = await finance.overview(ws, { timeoutMs: HOME_MONEY_TIMEOUT_MS });
  return [{ type: 'header', text: plain('Money', 150) }, ...buildFinanceOverview(overview).blocks];
}
