// Admin subcommands of the money side: `/kudos balance` (admins see top-ups and limits too),
// `/kudos topup`, `/kudos limits`, `/kudos ledger [YYYY-MM] [csv]`. Admins only (the one admin rule,
// deps.isAdmin); anyone else gets a short refusal. Slow answers (ledger reads) come after the
// ack through the command's response_url.
import type { AckFn, RespondArguments, RespondFn } from '@slack/bolt';
import { z } from 'zod';

import type { Logger } from '../../config/logger.js';
import { describeForUser } from '../../domain/accounts/rewards-failures.js';
import { ledgerCsv } from '../../domain/finance/csv-exports.js';
import { monthOf, monthRange, readMovements, reconcileWithKudos, totalsOf } from '../../domain/finance/ledger.js';
import { knownLimits } from '../../domain/finance/spending-limits.js';
import { isKnownSandbox, SANDBOX_TOP_UP_MESSAGE } from '../../domain/finance/top-ups.js';
import { toCents } from '../../rewards/index.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import type { SlashCommandPayload as SlashCommand } from '../listening/payloads.js';
import { sendExportFile } from '../workspaces/export-file.js';
import { topUpModalFor } from './finance-actions.js';
import { buildBalance, buildFinanceOverview, buildLedgerList, buildLimitsModal } from './finance-blocks.js';

export type FinanceCommand =
  | { kind: 'topup' }
  | { kind: 'limits' }
  | { kind: 'ledger'; month: string | undefined; csv: boolean }
  | { kind: 'ledger_invalid'; text: string };

const ledgerArgs = z.tuple([z.literal('ledger')]).rest(z.string());

export function parseFinanceCommand(text: string): FinanceCommand | undefined {
  const words = text.trim().split(/\s+/).filter(Boolean);
  const first = words[0]?.toLowerCase();
  if (first === 'topup' || first === 'top-up') return { kind: 'topup' };
  if (first === 'limits') return { kind: 'limits' };
  const ledger = ledgerArgs.safeParse(words.map((w, i) => (i === 0 ? w.toLowerCase() : w)));
  if (!ledger.success) return undefined;
  let month: string | undefined;
  let csv = false;
  for (const word of ledger.data.slice(1)) {
    if (/^csv$/i.test(word)) csv = true;
    else if (/^\d{4}-(0[1-9]|1[0-2])$/.test(word) && month === undefined) month = word;
    else return { kind: 'ledger_invalid', text: word.replace(/[<>&]/g, '') };
  }
  return { kind: 'ledger', month, csv };
}

type Input = { ack: AckFn<string | RespondArguments>; command: SlashCommand; respond: RespondFn };

const NOT_ADMIN = ':no_entry: Only Kudos admins can see the money side (balance details, top-ups, limits, ledger).';
const OVERVIEW_TIMEOUT_MS = 4000;

export async function handleFinanceCommand(deps: ListenerDeps, parsed: FinanceCommand, input: Input): Promise<void> {
  const { ack, command, respond } = input;
  const ws = workspaceOf(command);
  if (!(await deps.isAdmin(ws, command.user_id))) return ack({ text: NOT_ADMIN });
  const log = deps.logger.child({ command: 'finance', sub: parsed.kind, user: command.user_id });
  switch (parsed.kind) {
    case 'topup': {
      if (await isKnownSandbox(deps.db, ws)) return ack({ text: SANDBOX_TOP_UP_MESSAGE });
      await ack();
      await deps.slack.for(ws).openView(command.trigger_id, await topUpModalFor(deps, ws));
      return;
    }
    case 'limits': {
      await ack();
      // Opens the request form straight away (trigger_id lives 3 s); the overview shows usage.
      await deps.slack
        .for(ws)
        .openView(command.trigger_id, buildLimitsModal({ limits: await knownLimits(deps.db, ws) }));
      return;
    }
    case 'ledger_invalid':
      return ack({
        text: `I don't understand "${parsed.text}". Use \`/kudos ledger\`, \`/kudos ledger 2026-11\` or \`/kudos ledger 2026-11 csv\`.`,
      });
    case 'ledger': {
      await ack({
        text: parsed.csv ? 'Reading the ledger; the CSV file comes by direct message.' : 'Reading the ledger…',
      });
      const month = parsed.month ?? monthOf(deps.now());
      const range = monthRange(month);
      try {
        const { movements, truncated } = await readMovements(await deps.rewards.for(ws), range);
        const reconciliation = await reconcileWithKudos(deps.db, ws, movements, range);
        const list = buildLedgerList({ month, movements, totals: totalsOf(movements), reconciliation, truncated });
        if (parsed.csv) {
          await sendExportFile(
            deps.slack.for(ws),
            command.user_id,
            {
              filename: `kudos-ledger-${month}.csv`,
              title: `Rewards ledger ${month}`,
              content: await ledgerCsv(deps.db, ws, movements),
              comment: `The Rewards ledger of ${month}, ${movements.length} rows, newest first.`,
            },
            log,
          );
        }
        await respond({ response_type: 'ephemeral', replace_original: true, ...list });
      } catch (error) {
        log.warn('reading the ledger failed', { error });
        await respond({
          response_type: 'ephemeral',
          replace_original: true,
          text: describeForUser(error, 'read the ledger'),
        });
      }
      return;
    }
  }
}

const BALANCE_TIMEOUT_MS = 2000;

/** `/kudos balance`: an admin gets the overview (handleAdminBalance), anyone else the balance in the ack. */
export async function handleBalanceCommand(deps: ListenerDeps, input: Input & { log: Logger }): Promise<void> {
  const { ack, command, log } = input;
  // Both at once: the plain answer must still fit in the ack.
  const [admin, read, settings] = await Promise.allSettled([
    deps.isAdmin(workspaceOf(command), command.user_id),
    deps.rewards.for(workspaceOf(command)).then((rewards) => rewards.balance.get({ timeoutMs: BALANCE_TIMEOUT_MS })),
    deps.settings.get(workspaceOf(command)),
  ]);
  if (admin.status === 'fulfilled' && admin.value) return handleAdminBalance(deps, input);
  try {
    if (read.status === 'rejected') throw read.reason;
    const balance = read.value;
    return ack(
      buildBalance({
        availableCents: toCents(balance.availableBalance.amount, { rounding: 'half-up' }),
        pendingCents: toCents(balance.pendingBalance.amount, { rounding: 'half-up' }),
        currency: balance.availableBalance.currency,
        thresholdCents: settings.status === 'fulfilled' ? settings.value.lowBalanceThresholdCents : null,
      }),
    );
  } catch (error) {
    log.warn('balance lookup failed', { error });
    return ack({ text: describeForUser(error, 'get the balance') });
  }
}

/** `/kudos balance` for an admin: the overview, after the ack (it may read the ledger). */
async function handleAdminBalance(deps: ListenerDeps, input: Input): Promise<void> {
  const { ack, command, respond } = input;
  await ack({ text: 'Reading the balance…' });
  try {
    const overview = await deps.finance.overview(workspaceOf(command), { timeoutMs: OVERVIEW_TIMEOUT_MS });
    await respond({ response_type: 'ephemeral', replace_original: true, ...buildFinanceOverview(overview) });
  } catch (error) {
    deps.logger.warn('balance overview failed', { error });
    await respond({
      response_type: 'ephemeral',
      replace_original: true,
      text: describeForUser(error, 'get the balance'),
    });
  }
}
