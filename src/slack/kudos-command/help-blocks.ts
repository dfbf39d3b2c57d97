// `/kudos help`, by role: a sender sees the few lines of sending; an admin also sees the admin
// commands (subcommands.ts has them all).
import { COMMAND } from '../ids.js';
import { section, type SlackMessageContent } from '../kit/mrkdwn.js';

const SENDER_LINES = [
  `*${COMMAND} @person 25 #value Thanks for…* — send in one line (Send / Edit to confirm); *${COMMAND}* alone opens the form`,
  `*${COMMAND} @person £25 at Tesco Thanks for…* — a brand's card, in its own currency (\`25 GBP at Tesco\`, \`at "A name"\`)`,
  `*${COMMAND} balance* — available and pending balance`,
  `*${COMMAND} scheduled* — your scheduled sends, with Cancel`,
  `*${COMMAND} stats [month] [#channel | @group]* — the month's leaderboard; *stats optout* to stay off it`,
  `*${COMMAND} recurring* / *${COMMAND} celebrations* — recurring kudos; birthdays and anniversaries (opt out)`,
  `*${COMMAND} help* — this help`,
];

const ADMIN_LINES = [
  `*${COMMAND} settings* — channels, approvers, threshold, who may send and monthly allowances, defaults, admins, company values, require a message, +1 reaction, leaderboard amounts, weekly digest`,
  `*${COMMAND} audit* / *${COMMAND} audit csv* — the audit trail, or all of it as a CSV file by DM`,
  `*${COMMAND} links N AMOUNT [design]* — N reward links of AMOUNT each, sent to you by DM; *links N AMOUNT brand NAME* for a brand, AMOUNT in its currency`,
  `*${COMMAND} topup* — ask for an ACH top-up; a second admin approves it`,
  `*${COMMAND} limits* — ask for higher daily / monthly spending limits (\`balance\` shows what is used)`,
  `*${COMMAND} ledger [YYYY-MM] [csv]* — the month's balance movements, reconciled with Kudos orders; \`csv\` sends them by DM`,
  `*${COMMAND} templates* — the recipients' e-mail templates: list, create, edit as new, send yourself a test e-mail`,
  `*${COMMAND} campaigns* — campaigns (design, amount range, e-mail template) senders pick in the send form: list, create, edit, archive`,
  `*${COMMAND} picture DESIGN https://…* — the picture a design's announcements show (\`none\` removes it)`,
  `*${COMMAND} celebrations* — also the rules, the CSV upload and the next 30 days with Skip`,
];

export function buildHelp(isAdmin: boolean): SlackMessageContent {
  const blocks = [section(SENDER_LINES.join('\n'))];
  if (isAdmin) blocks.push(section(`*Admins*\n${ADMIN_LINES.join('\n')}`));
  return {
    text: isAdmin
      ? `Kudos commands: ${COMMAND}, balance, scheduled, stats, recurring, celebrations, help; admins: settings, audit, links, topup, limits, ledger, templates, campaigns`
      : `Kudos commands: ${COMMAND}, balance, scheduled, stats, recurring, celebrations, help`,
    blocks,
  };
}
