// `/kudos @a @b 25 #value Thanks for the launch`: with a design to send (the workspace's, or the
// catalog's first) and an amount (typed, or the workspace's default), one ephemeral confirmation
// (Send / Edit) instead of the form; otherwise the form, filled in, as before. `/kudos @a £25 at Tesco
// …` names a brand instead (exactly one of the catalog's). Bad input is one line.
import type { AckFn, RespondArguments, RespondFn } from '@slack/bolt';

import type { Logger } from '../../config/logger.js';
import type { NewKudosRow } from '../../db/schema/index.js';
import type { Brand } from '../../domain/branded/brand-catalog.js';
import { estimateUsdCents } from '../../domain/branded/exchange-rates.js';
import { findNamedBrand } from '../../domain/branded/named-brand.js';
import { isChatRefusal } from '../../domain/common/ports.js';
import { type FormRefused, formRefused } from '../../domain/common/refusal.js';
import type { Workspace } from '../../domain/common/workspace.js';
import { type PreparedSend, prepareSend, type SendField } from '../../domain/sending/check-send.js';
import { oneLineForm, type OneLineSend, startingDesign } from '../../domain/sending/one-line.js';
import { listCompanyValues } from '../../domain/workspaces/company-values.js';
import type { BrandMention } from '../kudos-command/parse.js';
import { OPEN_LOOKUP_BUDGET_MS, secondsToWait, withinBudget } from '../listening/deadline.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import type { SlashCommandPayload } from '../listening/payloads.js';
import { type BrandShown, buildOneLineConfirmation } from './one-line-blocks.js';
import { confirmationValue, newConfirmation } from './one-line-token.js';
import { openCommandSendForm, type SendFormPrefill } from './open-send-modal.js';

const CATALOG_LATE = Symbol('catalog late');
const CATALOG_SILENT_LINE =
  'Could not read the card designs right now (the Rewards API did not answer); nothing was sent. Try again.';

/** A whole word that is an amount (`25`, `$25`, `25.00`), as the parser reads the first. */
const AMOUNT_WORD = /^\$?\d{1,7}(?:\.\d\d?)?$/;

/** What in the command's text the one-line send cannot take, as one short line; undefined when fine. */
export function oneLineTextProblem(message: string | undefined): string | undefined {
  const words = (message ?? '').split(/\s+/).filter(Boolean);
  if (words[0] && AMOUNT_WORD.test(words[0]))
    return 'Two amounts: name one amount per person, e.g. `/kudos @ana 25 Thanks`.';
  if (words.some((w) => /^\$\d/.test(w)))
    return 'Two amounts: name one amount per person, before the message, e.g. `/kudos @ana 25 Thanks`.';
  return undefined;
}

/** The checks of the send form, for a one-line send (the same rules, the workspace's settings). */
export async function prepareOneLine(
  deps: ListenerDeps,
  at: {
    ws: Workspace;
    userId: string;
    channelId: string | undefined;
    botUserId: string | undefined;
    /** The recording key (at Send); none while only confirming. */
    sourceKey?: string;
    send: OneLineSend;
  },
): Promise<PreparedSend> {
  const [sender, settings] = await Promise.all([deps.slack.for(at.ws).userInfo(at.userId), deps.settings.get(at.ws)]);
  if (!sender) return formRefused<SendField>({ recipients: 'Slack did not tell us who you are; try again.' });
  return prepareSend(
    {
      users: deps.slack,
      rewards: deps.rewards,
      catalog: deps.catalog.of(at.ws),
      branded: { db: deps.db, brands: deps.brands.of(at.ws) },
      policy: deps.policy,
      values: (teamId) => listCompanyValues(deps.db, teamId),
    },
    {
      workspace: at.ws,
      sender,
      originChannelId: at.channelId,
      sourceViewId: at.sourceKey,
      now: deps.now(),
      botUserId: at.botUserId,
      cardRecipients: settings.cardRecipients,
      requireMessage: settings.requireMessage,
      valuesRequired: settings.valuesRequired,
    },
    oneLineForm(at.send),
  );
}

/** A refused one-line send, in one line: each problem once. */
export function refusalLine(refused: FormRefused<SendField>): string {
  return [...new Set(Object.values(refused.errors))].join(' ');
}

/** What went wrong when the checks themselves failed (not the send's fault), in one line. */
export function checkFailedLine(error: unknown): string {
  return isChatRefusal(error, 'rate_limited')
    ? `Slack is busy right now (its rate limit), so the people could not be checked; nothing was sent. Try again in ${secondsToWait(error.retryAfterSeconds)} s.`
    : 'Could not check the people or the design right now (Slack or the Rewards API did not answer); nothing was sent. Try again.';
}

/** A parsed one-line command: its people, amount or brand, message and value. */
type OneLinePrefill = SendFormPrefill & { userIds: string[] };

/**
 * Answers `/kudos @people AMOUNT message` (or `AMOUNT at BRAND message`): a problem in the text is
 * the ack's one line; otherwise the ack is empty and the confirmation (or the filled-in form, or the
 * problem) follows.
 */
export async function answerOneLineCommand(
  deps: ListenerDeps,
  input: {
    command: SlashCommandPayload;
    parsed: OneLinePrefill;
    ack: AckFn<string | RespondArguments>;
    respond: RespondFn;
    botUserId: string | undefined;
    log: Logger;
  },
): Promise<void> {
  const { command, parsed, ack, respond, log } = input;
  const problem = oneLineTextProblem(parsed.message);
  if (problem) return ack({ response_type: 'ephemeral', text: problem });
  await ack();
  if (parsed.brand) return answerBrandedLine(deps, { ...input, brand: parsed.brand });
  const ws = workspaceOf(command);
  // Settings unreadable just now: the form, which opens without its defaults.
  const settings = await deps.settings.get(ws).catch(() => undefined);
  const amountDollars =
    parsed.amountDollars ?? (settings?.defaultAmountCents ? settings.defaultAmountCents / 100 : undefined);
  const confirmable = settings !== undefined && amountDollars !== undefined && Number.isInteger(amountDollars);
  const lookup = startingDesign(deps.catalog.of(ws), settings?.defaultProductId).catch(() => undefined);
  let design = await withinBudget(() => lookup, OPEN_LOOKUP_BUDGET_MS / 2, CATALOG_LATE);
  if (design === CATALOG_LATE) {
    // The form's trigger_id lives 3 s, so a slow catalog leaves the form, which opens without it; a
    // confirmation answers through the response_url, which waits: it waits for the catalog too.
    if (!confirmable) design = undefined;
    else {
      design = await lookup;
      if (!design) return void (await respond({ response_type: 'ephemeral', text: CATALOG_SILENT_LINE }));
    }
  }
  const send: OneLineSend | undefined =
    confirmable && design && amountDollars !== undefined
      ? oneLineSendOf(parsed, { amountDollars, productId: design.productId })
      : undefined;
  // No design or no amount to confirm: the form.
  if (!send) return openCommandSendForm(deps, { command, parsed, respond, log });
  return confirmOneLine(deps, { ...input, send });
}

/** The send a one-line command names, with its card (a design and dollars, or a brand and its amount). */
function oneLineSendOf(
  parsed: OneLinePrefill,
  card: { amountDollars: number; productId: string; face?: string },
): OneLineSend {
  const group = parsed.groups?.[0];
  return {
    userIds: parsed.userIds,
    ...(group ? { group } : {}),
    ...card,
    message: parsed.message ?? '',
    ...(parsed.value ? { value: { id: parsed.value.id, revision: parsed.value.revision } } : {}),
  };
}

/** `/kudos @eli £25 at Tesco …`: the brand named (exactly one, or a line naming the choices), then confirmed. */
async function answerBrandedLine(
  deps: ListenerDeps,
  input: {
    command: SlashCommandPayload;
    parsed: OneLinePrefill;
    brand: BrandMention;
    respond: RespondFn;
    botUserId: string | undefined;
    log: Logger;
  },
): Promise<void> {
  const { command, parsed, respond, log } = input;
  let named;
  try {
    named = await findNamedBrand(deps.brands.of(workspaceOf(command)), input.brand.query);
  } catch (error) {
    log.warn('finding a brand for a one-line send failed', { error });
    return void (await respond({ response_type: 'ephemeral', text: BRANDS_SILENT_LINE }));
  }
  if (!named.ok) return void (await respond({ response_type: 'ephemeral', text: named.message }));
  const send = oneLineSendOf(parsed, { amountDollars: 0, productId: named.brand.productId, face: input.brand.face });
  return confirmOneLine(deps, { ...input, send, brand: named.brand });
}

const BRANDS_SILENT_LINE =
  'Could not read the brands right now (the Rewards API did not answer); nothing was sent. Try again.';

/** The confirmation of a one-line send (checked as the form is), or the form when it does not fit a button. */
async function confirmOneLine(
  deps: ListenerDeps,
  input: {
    command: SlashCommandPayload;
    parsed: OneLinePrefill;
    send: OneLineSend;
    brand?: Brand;
    respond: RespondFn;
    botUserId: string | undefined;
    log: Logger;
  },
): Promise<void> {
  const { command, parsed, send, respond, log } = input;
  const ws = workspaceOf(command);
  const confirmation = newConfirmation(send, {
    senderUserId: command.user_id,
    channelId: command.channel_id,
    now: deps.now(),
  });
  const value = confirmationValue(confirmation);
  // More than a button carries (a long message, many people): the form.
  if (!value) {
    const brandPick = input.brand ? { productId: input.brand.productId, face: send.face } : undefined;
    return openCommandSendForm(deps, { command, parsed: { ...parsed, brandPick }, respond, log });
  }
  let prepared: PreparedSend;
  try {
    prepared = await prepareOneLine(deps, {
      ws,
      userId: command.user_id,
      channelId: command.channel_id,
      botUserId: input.botUserId,
      send,
    });
  } catch (error) {
    log.warn('checking a one-line send failed', { error });
    return void (await respond({ response_type: 'ephemeral', text: checkFailedLine(error) }));
  }
  if (!prepared.ok) return void (await respond({ response_type: 'ephemeral', text: refusalLine(prepared) }));
  const approvalReason = prepared.route.kind === 'needs_approval' ? prepared.route.reason : undefined;
  const brand = input.brand ? await brandShown(deps, ws, input.brand, prepared.values) : undefined;
  await respond({
    response_type: 'ephemeral',
    ...buildOneLineConfirmation(prepared.values, { value, approvalReason, notes: prepared.notes, brand }),
  });
}

/** The brand as the confirmation names it, and the send's USD estimate (the judged cost is what rules see). */
async function brandShown(deps: ListenerDeps, ws: Workspace, brand: Brand, values: NewKudosRow): Promise<BrandShown> {
  if (values.faceCents === null || values.faceCents === undefined) return { brandName: brand.brandName };
  const total = values.faceCents * values.recipientCount;
  const estimate = await estimateUsdCents(deps.db, ws, brand.currency, total, deps.now());
  return {
    brandName: brand.brandName,
    ...(estimate.basis !== 'unknown' ? { aboutUsdCents: estimate.estimateCents } : {}),
  };
}
