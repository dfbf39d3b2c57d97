// Opens the send modal from a click (Home's Give kudos, the shortcuts) or `/kudos`: the sender's time
// zone if Slack answers in time, since a trigger_id lives 3 s.
import type { RespondFn } from '@slack/bolt';

import type { Logger } from '../../config/logger.js';
import type { Design } from '../../domain/accounts/design-catalog.js';
import { findNamedBrand } from '../../domain/branded/named-brand.js';
import type { Workspace } from '../../domain/common/workspace.js';
import { isValidTimeZone, todayIn } from '../../domain/common/zoned-time.js';
import { allowanceLine } from '../../domain/sending/allowances.js';
import { startingDesign } from '../../domain/sending/one-line.js';
import { type CompanyValue, listCompanyValues } from '../../domain/workspaces/company-values.js';
import { plain, section } from '../kit/mrkdwn.js';
import type { BrandMention } from '../kudos-command/parse.js';
import { OPEN_LOOKUP_BUDGET_MS, withinBudget } from '../listening/deadline.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import type { SlashCommandPayload } from '../listening/payloads.js';
import { notConnectedText } from '../workspaces/rewards-connect-blocks.js';
import type { BrandFields } from './brand-blocks.js';
import { brandFieldsOf } from './brand-fields.js';
import { buildSendModal, type SendModalMetadata, type SendModalState } from './send-modal-blocks.js';
import { todayInCached } from './today.js';

export async function openSendModal(
  deps: ListenerDeps,
  input: {
    ws: Workspace;
    userId: string;
    triggerId: string;
    userIds?: string[];
    metadata?: SendModalMetadata;
  },
): Promise<void> {
  const slack = deps.slack.for(input.ws);
  // Distribution mode, no Rewards account yet: say what an admin must do instead of a form that cannot send.
  if (deps.rewardsSetup && !(await deps.rewardsSetup.isConnected(input.ws))) return openNotConnectedModal(deps, input);
  const [[sender, settings], allowanceLine, values] = await Promise.all([
    withinBudget(
      () => Promise.all([slack.userInfo(input.userId), deps.settings.get(input.ws).catch(() => undefined)]),
      OPEN_LOOKUP_BUDGET_MS,
      [undefined, undefined] as const,
    ),
    allowanceLineOf(deps, input.ws, input.userId),
    sendFormValues(deps, input.ws),
  ]);
  const timezone = sender?.tz && isValidTimeZone(sender.tz) ? sender.tz : undefined;
  const design = await withinBudget(
    () => formDesign(deps, input.ws, undefined, settings?.defaultProductId),
    OPEN_LOOKUP_BUDGET_MS / 2,
    undefined,
  );
  await slack.openView(
    input.triggerId,
    buildSendModal({
      ...(input.userIds?.length ? { userIds: input.userIds } : {}),
      ...(allowanceLine ? { allowanceLine } : {}),
      ...(design ? { design: { productId: design.productId, name: design.name } } : {}),
      ...(settings?.defaultAmountCents ? { amountDollars: settings.defaultAmountCents / 100 } : {}),
      requireMessage: settings?.requireMessage ?? false,
      ...(timezone ? { timezone, today: todayIn(timezone, deps.now()) } : {}),
      // Slack answered, and the profile has no time zone: the modal says times are UTC.
      ...(sender && !timezone ? { noTimezone: true, today: todayIn('UTC', deps.now()) } : {}),
      ...(values ? { values } : {}),
      metadata: input.metadata ?? {},
    }),
  );
}

/** The sender's "You have $75 left this month" line, if Kudos can tell in time (the form opens without it otherwise). */
async function allowanceLineOf(deps: ListenerDeps, ws: Workspace, userId: string): Promise<string | undefined> {
  const standing = await withinBudget(
    () => deps.approvals.allowance(ws, userId).catch(() => undefined),
    OPEN_LOOKUP_BUDGET_MS,
    undefined,
  );
  return standing ? allowanceLine(standing) : undefined;
}

/**
 * The workspace's company values for the send form's field, and whether one is required; undefined
 * when there are none (no field), or when they could not be read in time (the form opens without it).
 */
export async function sendFormValues(deps: ListenerDeps, ws: Workspace): Promise<SendModalState['values']> {
  const read = async () => {
    const [values, settings] = await Promise.all([listCompanyValues(deps.db, ws.teamId), deps.settings.get(ws)]);
    return values.length > 0 ? { options: values, required: settings.valuesRequired } : undefined;
  };
  return withinBudget(
    () =>
      read().catch((error: unknown) => {
        deps.logger.warn('reading company values for the send form failed', { error });
        return undefined;
      }),
    OPEN_LOOKUP_BUDGET_MS,
    undefined,
  );
}

/** In place of the send form while the workspace has no Rewards account: what an admin must do, or whom to ask. */
export async function openNotConnectedModal(
  deps: ListenerDeps,
  input: { ws: Workspace; userId: string; triggerId: string },
): Promise<void> {
  const [admin, settings] = await Promise.all([deps.isAdmin(input.ws, input.userId), deps.settings.get(input.ws)]);
  await deps.slack.for(input.ws).openView(input.triggerId, {
    type: 'modal',
    title: plain('Kudos', 24),
    close: plain('OK', 24),
    blocks: [section(notConnectedText(admin, settings.adminUserIds ?? undefined))],
  });
}

/** What a send form opens with: from the command's text, or a one-line confirmation's Edit. */
export interface SendFormPrefill {
  userIds: string[];
  groups?: Array<{ id: string; handle?: string | undefined }> | undefined;
  amountDollars?: number | undefined;
  message?: string | undefined;
  /** The design to preselect; the workspace's starting design when absent. */
  productId?: string | undefined;
  /** The company value named with `#` (checked by the listener). */
  value?: CompanyValue | undefined;
  /** A brand named with its amount in the command's text (`£25 at Tesco`), not yet looked up. */
  brand?: BrandMention | undefined;
  /** The brand to preselect (a one-line confirmation's Edit), with its amount as typed. */
  brandPick?: { productId: string; face?: string | undefined } | undefined;
}

/** The send form of `/kudos` (already acked), filled from the command's text and the workspace's defaults. */
export function openCommandSendForm(
  deps: ListenerDeps,
  input: { command: SlashCommandPayload; parsed: SendFormPrefill; respond: RespondFn; log: Logger },
): Promise<void> {
  const { command, parsed, respond, log } = input;
  return openPrefilledSendForm(deps, {
    ws: workspaceOf(command),
    userId: command.user_id,
    triggerId: command.trigger_id,
    channelId: command.channel_id,
    prefill: parsed,
    respond,
    log,
  });
}

/** The send form, filled in: the people, the amount (or the default), the message and the design. */
export async function openPrefilledSendForm(
  deps: ListenerDeps,
  input: {
    ws: Workspace;
    userId: string;
    triggerId: string;
    channelId: string | undefined;
    prefill: SendFormPrefill;
    respond: RespondFn;
    log: Logger;
  },
): Promise<void> {
  const { ws, prefill, respond, log } = input;
  // The form has one group field: the listener answers a command naming several before opening it.
  const group = prefill.groups?.[0];
  try {
    // The trigger_id dies 3 s after the command: open without the extras rather than not at all.
    const [[sender, defaults], allowanceLine, values] = await Promise.all([
      withinBudget(
        () => Promise.all([deps.slack.userInfo(ws, input.userId), deps.settings.get(ws).catch(() => undefined)]),
        OPEN_LOOKUP_BUDGET_MS,
        [undefined, undefined] as const,
      ),
      allowanceLineOf(deps, ws, input.userId),
      sendFormValues(deps, ws),
    ]);
    const timezone = sender?.tz && isValidTimeZone(sender.tz) ? sender.tz : undefined;
    const defaultDollars = defaults?.defaultAmountCents ? defaults.defaultAmountCents / 100 : undefined;
    const amountDollars = prefill.amountDollars ?? defaultDollars;
    // The catalog is cached, so this rarely costs a call; a design gone from the catalog is not offered.
    const branded = prefill.brandPick ?? prefill.brand;
    const [design, brand] = await Promise.all([
      branded
        ? undefined
        : withinBudget(
            () => formDesign(deps, ws, prefill.productId, defaults?.defaultProductId),
            OPEN_LOOKUP_BUDGET_MS / 2,
            undefined,
          ),
      branded ? formBrand(deps, ws, prefill) : undefined,
    ]);
    await deps.slack.for(ws).openView(
      input.triggerId,
      buildSendModal({
        userIds: prefill.userIds,
        ...(group ? { group: { id: group.id, handle: group.handle ?? group.id } } : {}),
        ...(amountDollars !== undefined ? { amountDollars } : {}),
        ...(prefill.message ? { message: prefill.message } : {}),
        ...(allowanceLine ? { allowanceLine } : {}),
        ...(values ? { values } : {}),
        ...(prefill.value ? { value: prefill.value } : {}),
        ...(design ? { design: { productId: design.productId, name: design.name } } : {}),
        ...(timezone ? { timezone, today: todayInCached(timezone, deps.now()) } : {}),
        ...(sender && !timezone ? { noTimezone: true, today: todayInCached('UTC', deps.now()) } : {}),
        requireMessage: defaults?.requireMessage ?? false,
        ...(brand ? { brand } : {}),
        metadata: {
          ...(input.channelId ? { channelId: input.channelId } : {}),
          ...(branded ? { card: 'brand' as const } : {}),
        },
      }),
    );
  } catch (error) {
    // The ack is gone already: tell the user through the response_url, never silence.
    log.warn('opening the send form failed', { error });
    await respond({
      response_type: 'ephemeral',
      text: `Could not open the send form (Slack answered: ${slackErrorCode(error)}). Try /kudos again.`,
    });
  }
}

/** The design a form opens with: the one asked for while the catalog has it, else the workspace's starting design. */
function formDesign(
  deps: ListenerDeps,
  ws: Workspace,
  productId: string | undefined,
  defaultProductId: string | null | undefined,
): Promise<Design | undefined> {
  const catalog = deps.catalog.of(ws);
  return (productId ? catalog.get(productId) : startingDesign(catalog, defaultProductId)).catch(() => undefined);
}

/**
 * The brand fields a form opens with: the brand picked (or named in the command's text, when exactly
 * one brand has that name) and its amount, if read in time; the picker alone otherwise.
 */
function formBrand(deps: ListenerDeps, ws: Workspace, prefill: SendFormPrefill): Promise<BrandFields> {
  const read = async (): Promise<BrandFields> => {
    let pick = prefill.brandPick;
    if (!pick && prefill.brand) {
      const named = await findNamedBrand(deps.brands.of(ws), prefill.brand.query);
      pick = named.ok ? { productId: named.brand.productId, face: prefill.brand.face } : undefined;
    }
    return brandFieldsOf(deps, ws, { values: {}, fill: undefined, pickedId: pick?.productId, face: pick?.face });
  };
  return withinBudget(() => read().catch((): BrandFields => ({ categories: [] })), OPEN_LOOKUP_BUDGET_MS / 2, {
    categories: [],
  });
}

function slackErrorCode(error: unknown): string {
  const data = (error as { data?: { error?: string } }).data;
  return data?.error ?? (error as { code?: string }).code ?? 'no answer';
}
