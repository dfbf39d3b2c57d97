// `/kudos links N AMOUNT [design]` (admins): N reward links of AMOUNT dollars each, for an event or a
// raffle. The request is recorded with its idempotency key and answered at once; the links are
// DMed to the requester only, once the order is COMPLETE (never posted in a channel).
import type { SlashCommandPayload as SlashCommand } from '../payloads.js';
import { checkAmountInRange, formatUsd, parseWholeDollars } from '../../domain/money.js';
import { MAX_LINKS_PER_COMMAND, recordRewardLinkRequest } from '../../domain/reward-links.js';
import { askForLinkApproval, type LinkApprovalDeps } from '../../domain/reward-link-approvals.js';
import { presentNotice } from '../presenters/notices.js';
import { escapeMrkdwn } from '../../domain/escape.js';
import type { ListenerDeps } from '../deps.js';
import { workspaceOf } from '../deps.js';
import { COMMAND } from '../ids.js';

export const LINKS_USAGE = `Usage: \`${COMMAND} links N AMOUNT [design]\`, e.g. \`${COMMAND} links 20 25 birthday\`: 20 links of $25 each.`;

export function isLinksCommand(text: string | undefined): boolean {
  return /^links(\s|$)/i.test((text ?? '').trim());
}

export type LinksCommand = { ok: true; quantity: number; amountCents: number; design: string } | { ok: false; message: string };

export function parseLinksCommand(text: string): LinksCommand {
  const [, quantityText, amountText, ...designWords] = text.trim().split(/\s+/);
  if (!quantityText || !amountText) return { ok: false, message: LINKS_USAGE };
  if (!/^\d{1,6}$/.test(quantityText) || Number(quantityText) < 1) return { ok: false, message: `The number of links must be a whole number from 1. ${LINKS_USAGE}` };
  const quantity = Number(quantityText);
  if (quantity > MAX_LINKS_PER_COMMAND) return { ok: false, message: `At most ${MAX_LINKS_PER_COMMAND} links per command.` };
  const amount = parseWholeDollars(amountText);
  if (!amount.ok) return { ok: false, message: amount.message };
  return { ok: true, quantity, amountCents: amount.cents, design: designWords.join(' ') };
}

type Ack = (response?: { text: string }) => Promise<void>;

export async function handleLinksCommand(ack: Ack, command: SlashCommand, deps: ListenerDeps): Promise<void> {
  const ws = workspaceOf(command);
  if (!(await deps.isAdmin(ws, command.user_id))) return ack({ text: 'Only Kudos admins can create reward links.' });
  const parsed = parseLinksCommand(command.text);
  if (!parsed.ok) return ack({ text: parsed.message });
  const designs = await deps.catalog.of(ws).search(parsed.design);
  const design = designs.find((d) => d.productId.toLowerCase() === parsed.design.toLowerCase()) ?? designs[0];
  if (!design) return ack({ text: parsed.design ? `No card design matches "${escapeMrkdwn(parsed.design)}".` : 'No card design is available.' });
  const inRange = checkAmountInRange(parsed.amountCents, design);
  if (!inRange.ok) return ack({ text: inRange.message });
  const recorded = await recordRewardLinkRequest(
    deps.db,
    deps.policy,
    {
      teamId: ws.teamId,
      enterpriseId: ws.enterpriseId,
      requesterUserId: command.user_id,
      productId: design.productId,
      designName: design.name,
      quantity: parsed.quantity,
      amountCents: parsed.amountCents,
    },
    deps.now(),
  );
  if (!recorded.ok) return ack({ text: recorded.message });
  const { row } = recorded;
  if (row.status === 'awaiting_approval') {
    deps.logger.info('reward links wait for approval', { rewardLinkRequestId: row.id, quantity: row.quantity, amountCents: row.amountCents });
    await ack({
      text: `These ${parsed.quantity} reward links of ${formatUsd(parsed.amountCents)} (${formatUsd(parsed.amountCents * parsed.quantity)} in total) need approval (${escapeMrkdwn(row.approvalReason ?? '')}). I have asked the approvers; nothing is charged until one approves.`,
    });
    await askForLinkApproval(linkApprovalDeps(deps), row).catch((error: unknown) => deps.logger.error('asking for reward-link approval failed', { rewardLinkRequestId: row.id, error }));
    return;
  }
  deps.logger.info('reward links requested', { rewardLinkRequestId: row.id, quantity: row.quantity, amountCents: row.amountCents });
  await ack({
    text: `Creating ${parsed.quantity} reward ${parsed.quantity === 1 ? 'link' : 'links'} of ${formatUsd(parsed.amountCents)} (${escapeMrkdwn(design.name)}), ${formatUsd(parsed.amountCents * parsed.quantity)} in total. I will send them to you in a direct message when they are ready.`,
  });
  deps.placeRewardLinks?.(row.id);
}

/** What the reward-link approval flow needs, from the listeners' dependencies. */
export function linkApprovalDeps(deps: ListenerDeps): LinkApprovalDeps {
  return {
    db: deps.db,
    chat: deps.slack,
    present: presentNotice,
    settings: deps.settings,
    directory: { users: deps.slack, listUsers: (ws) => deps.slack.listUsers(ws) },
    logger: deps.logger,
  };
}
