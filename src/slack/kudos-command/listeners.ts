// /kudos and its subcommands. Answers that need data are computed before ack (well inside Slack's
// 3 s) and returned as the ack body, i.e. an ephemeral reply; the modal is opened right after ack.
import type { AckFn, App, RespondArguments, RespondFn } from '@slack/bolt';

import { isChatRefusal } from '../../domain/common/ports.js';
import { COMMAND } from '../ids.js';
import { ANSWER_BUDGET_MS, answerByAnswered, secondsToWait } from '../listening/deadline.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import { parseAtEdge, slashCommand, type SlashCommandPayload } from '../listening/payloads.js';
import { answerOneLineCommand } from '../sending/one-line-command.js';
import { openCommandSendForm, openNotConnectedModal, type SendFormPrefill } from '../sending/open-send-modal.js';
import { notConnectedText } from '../workspaces/rewards-connect-blocks.js';
import { parseKudosCommand } from './parse.js';
import { subcommandOf } from './subcommands.js';
import { commandValue } from './value-tag.js';

export function register(app: App, deps: ListenerDeps): void {
  // A global middleware rather than app.command: Bolt runs every registered listener's matchers for
  // every request (some 60 here: actions, views, options, events), which cost more CPU than the rest
  // of `/kudos`'s ack; the command goes straight to its handler, and anything else on to the listeners.
  app.use(async (args) => {
    // As app.command(COMMAND) matches: a slash command (Bolt's onlyCommands), by its name.
    if (!('command' in args) || args.command.command !== COMMAND) return args.next();
    const { ack, respond, body, context } = args;
    // Slack always sends a response_url (and parseAtEdge refuses a command without one first).
    return kudosCommand(deps, {
      ack,
      body,
      respond: respond ?? (() => Promise.reject(new Error('no response_url'))),
      botUserId: context.botUserId,
    });
  });
}

async function kudosCommand(
  deps: ListenerDeps,
  {
    ack: answer,
    body,
    respond,
    botUserId,
  }: { ack: AckFn<string | RespondArguments>; body: unknown; respond: RespondFn; botUserId: string | undefined },
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
      return answerCommand(deps, { command, ack, respond, botUserId });
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

const ONE_GROUP_AT_A_TIME =
  'The send form takes one user group at a time: name one group (and any people), then send to the next group the same way.';

/** A lookup before the answer was refused by Slack's rate limit (deadline.ts): when to try again. */
function slackBusyText(retryAfterSeconds: number | undefined): string {
  return `Slack is busy right now (its rate limit), so Kudos could not look up what this needs. Try again in ${secondsToWait(retryAfterSeconds)} s.`;
}

async function answerCommand(
  deps: ListenerDeps,
  {
    command,
    ack,
    respond,
    botUserId,
  }: {
    command: SlashCommandPayload;
    ack: AckFn<string | RespondArguments>;
    respond: RespondFn;
    botUserId: string | undefined;
  },
): Promise<void> {
  const parsed = parseKudosCommand(command.text);
  const sub = parsed.kind === 'open' ? 'open' : parsed.word.toLowerCase();
  const log = deps.logger.child({ command: COMMAND, sub, user: command.user_id });
  // `/kudos` that opens the send form answers with a modal whatever the workspace's Rewards account
  // is: ack at once (before any lookup of ours but a `#value`'s, which may be the answer), then ask
  // once whether the account is connected.
  if (parsed.kind === 'open') {
    if (parsed.groups && parsed.groups.length > 1) {
      return ack({ response_type: 'ephemeral', text: ONE_GROUP_AT_A_TIME });
    }
    const ws = workspaceOf(command);
    const tagged = await commandValue(deps.db, ws.teamId, command.text, parsed);
    if (!tagged.ok) return ack({ response_type: 'ephemeral', text: tagged.message });
    const prefill: SendFormPrefill & { userIds: string[] } = {
      userIds: tagged.parsed.userIds,
      groups: tagged.parsed.groups,
      amountDollars: tagged.parsed.amountDollars,
      brand: tagged.parsed.brand,
      message: tagged.parsed.message,
      ...(tagged.value ? { value: tagged.value } : {}),
    };
    const named = parsed.userIds.length > 0 || (parsed.groups?.length ?? 0) > 0;
    // Distribution mode, no Rewards account yet: the explanation where the send form would be, as
    // Home's button and the shortcuts do.
    const connected = async () => !deps.rewardsSetup || (await deps.rewardsSetup.isConnected(ws));
    if (named && (await connected())) {
      // People named: one confirmation to send with a click (or the form, filled in, when it cannot be).
      return answerOneLineCommand(deps, { command, parsed: prefill, ack, respond, botUserId, log });
    }
    await ack();
    if (!(await connected())) {
      return openNotConnectedModal(deps, { ws, userId: command.user_id, triggerId: command.trigger_id });
    }
    return openCommandSendForm(deps, { command, parsed: prefill, respond, log });
  }
  const subcommand = subcommandOf(parsed.word);
  // Distribution mode: until an admin connects the workspace's Rewards account, whatever else needs
  // it explains in the ack what an admin must do (and, to anyone else, whom to ask).
  if (deps.rewardsSetup && subcommand.needsRewards) {
    const ws = workspaceOf(command);
    if (!(await deps.rewardsSetup.isConnected(ws))) {
      const [admin, settings] = await Promise.all([deps.isAdmin(ws, command.user_id), deps.settings.get(ws)]);
      return ack({ response_type: 'ephemeral', text: notConnectedText(admin, settings.adminUserIds ?? undefined) });
    }
  }
  return subcommand.handler(deps, { ack, command, respond, word: parsed.word, args: parsed.args, log });
}
