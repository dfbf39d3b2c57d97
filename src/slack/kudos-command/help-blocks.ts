// `/kudos help`: every subcommand in a line (subcommands.ts has them all).
import { COMMAND } from '../ids.js';
import { section, type SlackMessageContent } from '../kit/mrkdwn.js';

export function buildHelp(): SlackMessageContent {
  const lines = [
    `*${COMMAND}* — open the send form`,
    `*${COMMAND} @person [@person…] AMOUNT [message]* — the form, filled in`,
    `*${COMMAND} balance* — available and pending balance`,
    `*${COMMAND} scheduled* — your scheduled sends, with Cancel`,
    `*${COMMAND} settings* — channels, approvers, threshold, budget, defaults, admins, +1 reaction, leaderboard amounts, weekly digest (admins)`,
    `*${COMMAND} audit* / *${COMMAND} audit csv* — the audit trail, or all of it as a CSV file by DM (admins)`,
    `*${COMMAND} links N AMOUNT [design]* — N reward links of AMOUNT each, sent to you by DM (admins)`,
    `*${COMMAND} topup* — ask for an ACH top-up; a second admin approves it (admins)`,
    `*${COMMAND} limits* — ask for higher daily / monthly spending limits (admins; \`balance\` shows what is used)`,
    `*${COMMAND} ledger [YYYY-MM] [csv]* — the month's balance movements, reconciled with Kudos orders; \`csv\` sends them by DM (admins)`,
    `*${COMMAND} templates* — the recipients' e-mail templates: list, create, edit as new, send yourself a test e-mail (admins)`,
    `*${COMMAND} campaigns* — campaigns (design, amount range, e-mail template) senders pick in the send form, with their spend: list, create, edit, archive (admins)`,
    `*${COMMAND} celebrations* — birthdays and anniversaries: opt out (\`optout\`, \`optin\`) or of public posts (\`private\`, \`public\`); admins: rules, CSV upload, the next 30 days with Skip`,
    `*${COMMAND} recurring* / *${COMMAND} recurring new* — your recurring kudos (pause, resume, delete, skip one), or start one`,
    `*${COMMAND} stats [month] [#channel | @group]* — the month's leaderboard, for everyone, a channel or a user group; *stats optout* to stay off it`,
    `*${COMMAND} help* — this help`,
  ];
  const body = lines.join('\n');
  return {
    text: `Kudos commands: ${COMMAND}, balance, scheduled, settings, audit, links, topup, limits, ledger, templates, campaigns, celebrations, recurring, stats, help`,
    blocks: [section(body)],
  };
}
