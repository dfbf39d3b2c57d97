// `/kudos links N AMOUNT [design]` (admins): N reward links of AMOUNT dollars each, for an event or a
// raffle; `/kudos links N AMOUNT brand NAME`: links of a branded product, AMOUNT in its own currency
// on its price rules, with the USD total (judged, or known after charging) said before anything is charged. The request is recorded with its idempotency key and answered at once; the links are
// DMed to the requester only, once the order is COMPLETE (never posted in a channel).
// The design is looked up in the Rewards catalog before the answer. When that (or the record) is slow,
// the command is acked before Slack's 3 s run out and the outcome follows through the response_url:
// an answer past Slack's deadline would show the admin an error for a request that is recorded and
// paid, and a second try would pay for a second set of links.
import type { RespondFn } from '@slack/bolt';

import { describeForUser } from '../../domain/accounts/rewards-failures.js';
import type { CheckedBrandedCard } from '../../domain/branded/branded-card.js';
import { formatFace } from '../../domain/branded/currency.js';
import { SAFETY_MARGIN_PERCENT } from '../../domain/branded/usd-cost.js';
import { checkAmountInRange, formatUsd, parseWholeDollars } from '../../domain/common/money.js';
import { checkBrandedLinks, linkFace } from '../../domain/reward-links/branded-links.js';
import { askForLinkApproval, type LinkApprovalDeps } from '../../domain/reward-links/link-approvals.js';
import { MAX_LINKS_PER_COMMAND, recordRewardLinkRequest } from '../../domain/reward-links/reward-links.js';
import { COMMAND } from '../ids.js';
import { escapeMrkdwn } from '../kit/mrkdwn-escape.js';
import { slotWaitLeft } from '../listening/deadline.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import type { SlashCommandPayload as SlashCommand } from '../listening/payloads.js';
import { presentNotice } from '../notices/present-notice.js';

export const LINKS_USAGE = `Usage: \`${COMMAND} links N AMOUNT [design]\`, e.g. \`${COMMAND} links 20 25 birthday\`: 20 links of $25 each; or a brand: \`${COMMAND} links 20 20 brand Tesco\`: 20 links of £20 each (the amount in the brand's currency).`;

export type LinksCommand =
  | { ok: true; quantity: number; amountCents: number; design: string }
  | { ok: true; quantity: number; amountText: string; brand: string }
  | { ok: false; message: string };

export function parseLinksCommand(text: string): LinksCommand {
  const [, quantityText, amountText, ...designWords] = text.trim().split(/\s+/);
  if (!quantityText || !amountText) return { ok: false, message: LINKS_USAGE };
  if (!/^\d{1,6}$/.test(quantityText) || Number(quantityText) < 1)
    return { ok: false, message: `The number of links must be a whole number from 1. ${LINKS_USAGE}` };
  const quantity = Number(quantityText);
  if (quantity > MAX_LINKS_PER_COMMAND)
    return { ok: false, message: `At most ${MAX_LINKS_PER_COMMAND} links per command.` };
  // `brand NAME`: a branded product, its amount in its own currency (checked once the brand is known).
  if (designWords[0]?.toLowerCase() === 'brand')
    return { ok: true, quantity, amountText, brand: designWords.slice(1).join(' ') };
  const amount = parseWholeDollars(amountText);
  if (!amount.ok) return { ok: false, message: amount.message };
  return { ok: true, quantity, amountCents: amount.cents, design: designWords.join(' ') };
}

type Ack = (response?: { text: string }) => Promise<void>;

/** Said in the ack when the lookup outlasts Slack's patience; the outcome follows by the response_url. */
export const LINKS_STILL_WORKING = 'Looking up the card design for your reward links… I will answer here in a moment.';
/** Kept free before Slack's deadline for the ack's own round trip. */
const ACK_MARGIN_MS = 400;
/** Without a deadline (a caller outside answerBy): the ack's budget from the command's arrival. */
const DEFAULT_ACK_WITHIN_MS = 2000;

export async function handleLinksCommand(
  ack: Ack,
  command: SlashCommand,
  deps: ListenerDeps,
  respond?: RespondFn,
): Promise<void> {
  const ws = workspaceOf(command);
  if (!(await deps.isAdmin(ws, command.user_id))) return ack({ text: 'Only Kudos admins can create reward links.' });
  const parsed = parseLinksCommand(command.text);
  if (!parsed.ok) return ack({ text: parsed.message });
  // Whichever comes first answers in the ack: the outcome, or (the lookups still running close to
  // Slack's deadline) a holding line; what is said after the ack goes through the response_url.
  let acked = false;
  const say = async (text: string): Promise<void> => {
    if (!acked) {
      acked = true;
      return ack({ text });
    }
    if (respond) await respond({ response_type: 'ephemeral', replace_original: true, text });
  };
  const holdAt = Math.max(0, (slotWaitLeft() ?? DEFAULT_ACK_WITHIN_MS) - ACK_MARGIN_MS);
  const hold = respond
    ? setTimeout(() => {
        if (acked) return;
        acked = true;
        deps.logger.info('reward links: the design lookup outlasts the ack; answering by response_url', {
          user: command.user_id,
        });
        ack({ text: LINKS_STILL_WORKING }).catch((error: unknown) =>
          deps.logger.warn('acking /kudos links failed', { error }),
        );
      }, holdAt)
    : undefined;
  try {
    await createLinks(deps, ws, command, parsed, say);
  } catch (error) {
    if (!acked) throw error;
    deps.logger.error('/kudos links failed after its ack', { error });
    await say(describeForUser(error, 'create the reward links')).catch(() => undefined);
  } finally {
    clearTimeout(hold);
  }
}

/** The card of the links, checked: a choice design in USD, or a brand with its amount in its currency. */
type LinkCard = Omit<Parameters<typeof recordRewardLinkRequest>[2], 'teamId' | 'enterpriseId' | 'requesterUserId'> & {
  /** The links' cost as the requester reads it before anything is charged. */
  costText: string;
  waitReason?: string | undefined;
};

async function checkLinkCard(
  deps: ListenerDeps,
  ws: ReturnType<typeof workspaceOf>,
  parsed: Extract<LinksCommand, { ok: true }>,
): Promise<LinkCard | string> {
  const { quantity } = parsed;
  if ('brand' in parsed) {
    const checked = await checkBrandedLinks(
      { db: deps.db, brands: deps.brands.of(ws) },
      ws,
      { words: parsed.brand, amount: parsed.amountText },
      deps.now(),
    );
    if (!checked.ok) return escapeMrkdwn(checked.message);
    const { brand, faceCents, judgedCents } = checked.card;
    return {
      cardType: 'BRANDED_CARD',
      productId: brand.productId,
      // The brand ("Tesco") reads better in a line than the product's description.
      designName: brand.brandName,
      quantity,
      amountCents: judgedCents,
      faceCurrency: brand.currency,
      faceCents,
      costText: brandedCostText(checked.card, quantity),
      waitReason: checked.waitReason,
    };
  }
  const designs = await deps.catalog.of(ws).search(parsed.design);
  const design = designs.find((d) => d.productId.toLowerCase() === parsed.design.toLowerCase()) ?? designs[0];
  if (!design)
    return parsed.design ? `No card design matches "${escapeMrkdwn(parsed.design)}".` : 'No card design is available.';
  const inRange = checkAmountInRange(parsed.amountCents, design);
  if (!inRange.ok) return inRange.message;
  return {
    productId: design.productId,
    designName: design.name,
    quantity,
    amountCents: parsed.amountCents,
    costText: `${formatUsd(parsed.amountCents * quantity)} in total`,
  };
}

/** A branded request's USD cost before charging: exact (a USD brand), judged on the learned rate, or not yet known. */
function brandedCostText(card: CheckedBrandedCard, quantity: number): string {
  const { estimate } = card;
  if (estimate.basis === 'unknown') return 'the USD total is known only after charging';
  const faceTotal = formatFace(card.faceCents * quantity, card.brand.currency);
  if (estimate.basis === 'exact') return `${faceTotal} in total`;
  return `${faceTotal} in total, about ${formatUsd(estimate.estimateCents * quantity)} in USD (counted as ${formatUsd(estimate.judgedCents * quantity)} with the ${SAFETY_MARGIN_PERCENT}% safety margin; the exact cost is recorded once charged)`;
}

async function createLinks(
  deps: ListenerDeps,
  ws: ReturnType<typeof workspaceOf>,
  command: SlashCommand,
  parsed: Extract<LinksCommand, { ok: true }>,
  say: (text: string) => Promise<void>,
): Promise<void> {
  const card = await checkLinkCard(deps, ws, parsed);
  if (typeof card === 'string') return say(card);
  const { costText, waitReason, ...values } = card;
  const recorded = await recordRewardLinkRequest(
    deps.db,
    deps.policy,
    { teamId: ws.teamId, enterpriseId: ws.enterpriseId, requesterUserId: command.user_id, ...values },
    deps.now(),
    { waitReason },
  );
  if (!recorded.ok) return say(recorded.message);
  const { row } = recorded;
  const links = `${parsed.quantity} reward ${parsed.quantity === 1 ? 'link' : 'links'} of ${linkFace(row)} (${escapeMrkdwn(row.designName)})`;
  if (row.status === 'awaiting_approval') {
    deps.logger.info('reward links wait for approval', {
      rewardLinkRequestId: row.id,
      quantity: row.quantity,
      amountCents: row.amountCents,
    });
    await say(
      `These ${links}, ${costText}, need approval (${escapeMrkdwn((row.approvalReason ?? '').replace(/\.$/, ''))}). I have asked the approvers; nothing is charged until one approves.`,
    );
    await askForLinkApproval(linkApprovalDeps(deps), row).catch((error: unknown) =>
      deps.logger.error('asking for reward-link approval failed', { rewardLinkRequestId: row.id, error }),
    );
    return;
  }
  deps.logger.info('reward links requested', {
    rewardLinkRequestId: row.id,
    quantity: row.quantity,
    amountCents: row.amountCents,
  });
  // Placed whatever becomes of the answer: the request is recorded.
  deps.placeRewardLinks?.(row.id);
  await say(`Creating ${links}, ${costText}. I will send them to you in a direct message when they are ready.`);
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
