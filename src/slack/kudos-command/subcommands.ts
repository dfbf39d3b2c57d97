// `/kudos <word> …`: the one table of subcommands. Each says whether it needs the workspace's Rewards
// account (distribution mode: until an admin connects it, those answer what an admin must do) and
// answers in its ack (listeners.ts holds it to Slack's 3 s). A word the table does not know gets one
// short line pointing at the help; so does a known word whose own parser refuses the rest (`audit foo`).
import type { AckFn, RespondArguments, RespondFn } from '@slack/bolt';

import type { Logger } from '../../config/logger.js';
import { handleCelebrationsCommand, handleRecurringCommand } from '../automations/automations-command.js';
import { handleCampaignsCommand, isCampaignsCommand } from '../finance/campaigns.js';
import { handleTemplatesCommand, isTemplatesCommand } from '../finance/email-templates.js';
import { handleBalanceCommand, handleFinanceCommand, parseFinanceCommand } from '../finance/finance-command.js';
import { COMMAND } from '../ids.js';
import { clip } from '../kit/mrkdwn-escape.js';
import { type ListenerDeps, workspaceOf } from '../listening/listener-deps.js';
import type { SlashCommandPayload } from '../listening/payloads.js';
import { handleStatsCommand, parseStatsCommand } from '../recognition/stats-command.js';
import { handleLinksCommand } from '../reward-links/links-command.js';
import { handleScheduledCommand } from '../sending/scheduled-command.js';
import { handleAuditCommand, parseAuditCommand } from '../workspaces/audit-command.js';
import { handleDesignPictureCommand } from '../workspaces/design-picture-command.js';
import { handleSettingsCommand } from '../workspaces/settings-command.js';
import { buildHelp } from './help-blocks.js';

export interface SubcommandInput {
  ack: AckFn<string | RespondArguments>;
  command: SlashCommandPayload;
  respond: RespondFn;
  /** The subcommand's word as typed. */
  word: string;
  /** The text after the word, trimmed. */
  args: string;
  log: Logger;
}

export interface Subcommand {
  /** False for what reads or changes only what Kudos stores. */
  needsRewards: boolean;
  handler(deps: ListenerDeps, input: SubcommandInput): Promise<void>;
}

/** One short line: the word is clipped and stripped of Slack's markup, the help is one command away. */
const unknown: Subcommand['handler'] = (_deps, { ack, word, args }) =>
  ack({
    response_type: 'ephemeral',
    text: `I don't know “${clip(`${word} ${args}`.trim().replace(/[<>&*~`]/g, ''), 40)}”. \`${COMMAND} help\` lists what I do.`,
  });

const templates: Subcommand = {
  needsRewards: true,
  handler: (deps, input) =>
    isTemplatesCommand(input.command.text) ? handleTemplatesCommand(deps, input) : unknown(deps, input),
};
const campaigns: Subcommand = {
  needsRewards: true,
  handler: (deps, input) =>
    isCampaignsCommand(input.command.text) ? handleCampaignsCommand(deps, input) : unknown(deps, input),
};
const finance: Subcommand = {
  needsRewards: true,
  handler: (deps, input) => {
    const parsed = parseFinanceCommand(input.command.text);
    return parsed ? handleFinanceCommand(deps, parsed, input) : unknown(deps, input);
  },
};

/** By the word, lower case. A Map: a word such as `constructor` must not find an object's own members. */
const SUBCOMMANDS = new Map<string, Subcommand>([
  [
    'help',
    {
      needsRewards: false,
      handler: async (deps, { ack, command }) =>
        ack(buildHelp(await deps.isAdmin(workspaceOf(command), command.user_id))),
    },
  ],
  ['settings', { needsRewards: false, handler: handleSettingsCommand }],
  [
    'stats',
    {
      needsRewards: false,
      handler: (deps, input) => {
        const stats = parseStatsCommand(input.command.text);
        return stats ? handleStatsCommand(deps, { ...input, stats }) : unknown(deps, input);
      },
    },
  ],
  [
    'audit',
    {
      needsRewards: false,
      handler: (deps, input) => {
        const audit = parseAuditCommand(input.command.text);
        return audit ? handleAuditCommand(deps, { ...input, csv: audit.csv }) : unknown(deps, input);
      },
    },
  ],
  ['scheduled', { needsRewards: false, handler: handleScheduledCommand }],
  ['picture', { needsRewards: true, handler: handleDesignPictureCommand }],
  ['balance', { needsRewards: true, handler: handleBalanceCommand }],
  [
    'links',
    {
      needsRewards: true,
      handler: (deps, { ack, command, respond }) => handleLinksCommand(ack, command, deps, respond),
    },
  ],
  ['template', templates],
  ['templates', templates],
  ['campaign', campaigns],
  ['campaigns', campaigns],
  ['topup', finance],
  ['top-up', finance],
  ['limits', finance],
  ['ledger', finance],
  [
    'celebrations',
    { needsRewards: true, handler: (deps, input) => handleCelebrationsCommand(deps, { ...input, arg: input.args }) },
  ],
  [
    'recurring',
    { needsRewards: true, handler: (deps, input) => handleRecurringCommand(deps, { ...input, arg: input.args }) },
  ],
]);

/** Every word `/kudos` knows (docs/reference.md lists each). */
export const SUBCOMMAND_WORDS: readonly string[] = [...SUBCOMMANDS.keys()];

/**
 * The subcommand `word` names (any case). An unknown word is a typo whatever the Rewards account is:
 * its one line needs no lookup at all (no Slack call, which the test stack's warm-up relies on).
 */
export function subcommandOf(word: string): Subcommand {
  return SUBCOMMANDS.get(word.toLowerCase()) ?? { needsRewards: false, handler: unknown };
}
