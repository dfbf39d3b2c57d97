// /kudos and its subcommands. Answers that need data are computed before ack (well inside Slack's
// 3 s) and returned as the ack body, i.e. an ephemeral reply; the modal is opened right after ack.
import type { AckFn, App, RespondArguments, RespondFn, SlackCommandMiddlewareArgs } from '@slack/bolt';
import type { Logger } from '../../config/logger.js';
import { listScheduled } from '../../domain/sending/kudos-store.js';
import { isCancellable } from '../../domain/sending/cancel-scheduled.js';
import { describeForUser } from '../../domain/accounts/rewards-failures.js';
import { isValidTimeZone } from '../../domain/common/zoned-time.js';
import { toCents } from '../../rewards/index.js';
import { buildBalance, buildHelp, buildScheduledList } from '../blocks/messages.js';
import { buildSendModal } from '../sending/send-modal-blocks.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import {
  ANSWER_BUDGET_MS,
  answerByAnswered,
  OPEN_LOOKUP_BUDGET_MS,
  secondsToWait,
  withinBudget,
} from '../listening/deadline.js';
import { isChatRefusal } from '../../domain/common/ports.js';
import { COMMAND } from '../ids.js';
import { parseAtEdge, slashCommand, type SlashCommandPayload } from '../listening/payloads.js';
import { handleLinksCommand, isLinksCommand } from '../reward-links/links-command.js';
import { handleAuditCommand, parseAuditCommand } from '../workspaces/audit-command.js';
import { parseKudosCommand, type KudosCommand } from '../kudos-command/parse.js';
import { todayInCached } from '../sending/today.js';
import { handleSettingsCommand } from '../workspaces/settings-command.js';
import { handleStatsCommand, parseStatsCommand } from '../recognition/stats-command.js';
import { handleAdminBalance, handleFinanceCommand, parseFinanceCommand } from '../finance/finance-command.js';
import { handleTemplatesCommand, isTemplatesCommand } from '../finance/email-templates.js';
import { handleCampaignsCommand, isCampaignsCommand } from '../finance/campaigns.js';
import { handleCelebrationsCommand, handleRecurringCommand } from '../automations/automations-command.js';
import { notConnectedText } from '../workspaces/rewards-connect-blocks.js';
import { openNotConnectedModal } from '../sending/open-send-modal.js';

const BALANCE_TIMEOUT_MS = 2000;

/** Subcommands that work without a Rewards account (they read or change only what Kudos stores). */
const WITHOUT_REWARDS = new Set(['help', 'settings', 'stats', 'audit', 'scheduled']);

export function needsRewards(text: string): boolean {
  const first = text.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
  return !WITHOUT_REWARDS.has(first);
}

export function register(app: App, deps: ListenerDeps): void {
  // A global middleware rather than app.command: Bolt runs every registered listener's matchers for
  // every request (some 60 here: actions, views, options, events), which cost more CPU than the rest
  // of `/kudos`'s ack; the command goes straight to its handler, and anything else on to the listeners.
  app.use(async (args) => {
    // As app.command(COMMAND) matches: a slash command (Bolt's onlyCommands), by its name.
    if (!('command' in args) || args.command.command !== COMMAND) return args.next();
    const { ack, respond, body } = args as SlackCommandMiddlewareArgs;
    // Slack always sends a response_url (and parseAtEdge refuses a command without one first).
    return kudosCommand(deps, { ack, body, respond: respond ?? (() => Promise.reject(new Error('no response_url'))) });
  });
}

async function kudosCommand(
  deps: ListenerDeps,
  { ack: answer, body, respond }: { ack: AckFn<string | RespondArguments>; body: unknown; respond: RespondFn },
): Promise<void> {
  const command = parseAtEdge(slashCommand, body, COMMAND);
  // Every subcommand answers in its ack, inside Slack's 3 s: a paced Slack lookup made before it (a
  // user group's members, the admin check's users.info) books only a slot it can use in time
  // (deadline.ts); otherwise the person is told when to try again, instead of no answer at all.
  let answered = false;
  try {
    await answerByAnswered(Date.now() + ANSWER_BUDGET_MS, (endDeadline) => {
      const ack: AckFn<string | RespondArguments> = async (response) => {
        answered = true;
        endDeadline();
        await answer(response);
      };
      return answerCommand(deps, command, ack, respond);
    });
  } catch (error) {
    if (answered || !isChatRefusal(error, 'rate_limited')) throw error;
    deps.logger.info('a /kudos lookup waits for Slack rate limit', {
      user: command.user_id,
      retryAfterSeconds: error.retryAfterSeconds,
    });
    await answer({ response_type: 'ephemeral', text: slackBusyText(error.retryAfterSeconds) });
  }
}

/** A lookup before the answer was refused by Slack's rate limit (deadline.ts): when to try again. */
function slackBusyText(retryAfterSeconds: number | undefined): string {
  return `Slack is busy right now (its rate limit), so Kudos could not look up what this needs. Try again in ${secondsToWait(retryAfterSeconds)} s.`;
}

async function answerCommand(
  deps: ListenerDeps,
  command: SlashCommandPayload,
  ack: AckFn<string | RespondArguments>,
  respond: RespondFn,
): Promise<void> {
  const parsed = parseKudosCommand(command.text);
  const log = deps.logger.child({ command: COMMAND, sub: parsed.kind, user: command.user_id });
  // `/kudos` that opens the send form answers with a modal whatever the workspace's Rewards account
  // is: ack at once (before any lookup of ours), then ask once whether the account is connected.
  if (parsed.kind === 'open') {
    await ack();
    const ws = workspaceOf(command);
    // Distribution mode, no Rewards account yet: the explanation where the send form would be, as
    // Home's button and the shortcuts do.
    if (deps.rewardsSetup && !(await deps.rewardsSetup.isConnected(ws))) {
      return openNotConnectedModal(deps, { ws, userId: command.user_id, triggerId: command.trigger_id });
    }
    return openSendForm(deps, { command, parsed, respond, log });
  }
  // Distribution mode: until an admin connects the workspace's Rewards account, whatever else needs
  // it explains in the ack what an admin must do (and, to anyone else, whom to ask).
  if (deps.rewardsSetup && needsRewards(command.text)) {
    const ws = workspaceOf(command);
    if (!(await deps.rewardsSetup.isConnected(ws))) {
      const [admin, settings] = await Promise.all([deps.isAdmin(ws, command.user_id), deps.settings.get(ws)]);
      return ack({ response_type: 'ephemeral', text: notConnectedText(admin, settings.adminUserIds ?? undefined) });
    }
  }
  if (isLinksCommand(command.text)) return handleLinksCommand(ack, command, deps, respond);
  const audit = parseAuditCommand(command.text);
  if (audit) return handleAuditCommand(deps, { ack, command, csv: audit.csv });
  const stats = parseStatsCommand(command.text);
  if (stats) return handleStatsCommand(deps, { ack, command, stats });
  if (isTemplatesCommand(command.text)) return handleTemplatesCommand(deps, { ack, command, respond });
  if (isCampaignsCommand(command.text)) return handleCampaignsCommand(deps, { ack, command, respond });
  const finance = parseFinanceCommand(command.text);
  if (finance) return handleFinanceCommand(deps, finance, { ack, command, respond });
  switch (parsed.kind) {
    case 'help':
      return ack(buildHelp());
    case 'unknown':
      return ack(buildHelp(`I don't know "${parsed.word.replace(/[<>&]/g, '')}".`));
    case 'settings':
      return handleSettingsCommand(deps, { ack, command });
    case 'celebrations':
      return handleCelebrationsCommand(deps, { ack, command, arg: parsed.arg });
    case 'recurring':
      return handleRecurringCommand(deps, { ack, command, arg: parsed.arg });
    case 'balance': {
      // Both at once: the plain answer must still fit in the ack.
      const [admin, read] = await Promise.allSettled([
        deps.isAdmin(workspaceOf(command), command.user_id),
        deps.rewards
          .for(workspaceOf(command))
          .then((rewards) => rewards.balance.get({ timeoutMs: BALANCE_TIMEOUT_MS })),
      ]);
      if (admin.status === 'fulfilled' && admin.value) return handleAdminBalance(deps, { ack, command, respond });
      try {
        if (read.status === 'rejected') throw read.reason;
        const balance = read.value;
        return ack(
          buildBalance({
            availableCents: toCents(balance.availableBalance.amount, { rounding: 'half-up' }),
            pendingCents: toCents(balance.pendingBalance.amount, { rounding: 'half-up' }),
            currency: balance.availableBalance.currency,
          }),
        );
      } catch (error) {
        log.warn('balance lookup failed', { error });
        return ack({ text: describeForUser(error, 'get the balance') });
      }
    }
    case 'scheduled': {
      const admin = await deps.isAdmin(workspaceOf(command), command.user_id);
      const now = deps.now();
      const rows = await listScheduled(deps.db, {
        teamId: workspaceOf(command).teamId,
        ...(admin ? {} : { senderUserId: command.user_id }),
        now,
      });
      return ack(
        buildScheduledList(
          rows.map((row) => ({ row, cancellable: isCancellable(row, now) })),
          { showSender: admin, ...(admin ? { note: 'As an admin you see everyone’s scheduled sends.' } : {}) },
        ),
      );
    }
  }
}

/** The send form of `/kudos` (already acked), filled from the command's text and the workspace's defaults. */
async function openSendForm(
  deps: ListenerDeps,
  input: {
    command: SlashCommandPayload;
    parsed: Extract<KudosCommand, { kind: 'open' }>;
    respond: RespondFn;
    log: Logger;
  },
): Promise<void> {
  const { command, parsed, respond, log } = input;
  try {
    // The trigger_id dies 3 s after the command: open without the extras rather than not at all.
    const [sender, defaults] = await withinBudget(
      () =>
        Promise.all([
          deps.slack.userInfo(workspaceOf(command), command.user_id),
          deps.settings.get(workspaceOf(command)).catch(() => undefined),
        ]),
      OPEN_LOOKUP_BUDGET_MS,
      [undefined, undefined] as const,
    );
    const timezone = sender?.tz && isValidTimeZone(sender.tz) ? sender.tz : undefined;
    const defaultDollars = defaults?.defaultAmountCents ? defaults.defaultAmountCents / 100 : undefined;
    // The catalog is cached, so this rarely costs a call; a design gone from the catalog is not offered.
    const defaultProductId = defaults?.defaultProductId;
    const design = defaultProductId
      ? await withinBudget(
          () =>
            deps.catalog
              .of(workspaceOf(command))
              .get(defaultProductId)
              .catch(() => undefined),
          OPEN_LOOKUP_BUDGET_MS / 2,
          undefined,
        )
      : undefined;
    await deps.slack.for(workspaceOf(command)).openView(
      command.trigger_id,
      buildSendModal({
        userIds: parsed.userIds,
        ...((parsed.amountDollars ?? defaultDollars) !== undefined
          ? { amountDollars: (parsed.amountDollars ?? defaultDollars)! }
          : {}),
        ...(parsed.message ? { message: parsed.message } : {}),
        ...(design ? { design: { productId: design.productId, name: design.name } } : {}),
        ...(timezone ? { timezone, today: todayInCached(timezone, deps.now()) } : {}),
        ...(sender && !timezone ? { noTimezone: true, today: todayInCached('UTC', deps.now()) } : {}),
        metadata: { channelId: command.channel_id },
      }),
    );
  } catch (error) {
    // The ack is gone already: tell the user through the command's response_url, never silence.
    log.warn('opening the send form failed', { error });
    await respond({
      response_type: 'ephemeral',
      text: `Could not open the send form (Slack answered: ${slackErrorCode(error)}). Try /kudos again.`,
    });
  }
}

function slackErrorCode(error: unknown): string {
  const data = (error as { data?: { error?: string } }).data;
  return data?.error ?? (error as { code?: string }).code ?? 'no answer';
}
