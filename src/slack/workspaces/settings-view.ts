// The settings modal's submission: admins only (checked again: the modal may be old), values checked
// with inline errors, then saved with one audit row; the admin gets a summary of what changed.
import type { App } from '@slack/bolt';

import type { CardRecipients } from '../../db/schema/index.js';
import type { Workspace } from '../../domain/common/workspace.js';
import { CHANNEL_UNREACHABLE, resolveHealthWarning } from '../../domain/notices/health-warnings.js';
import { removeAllowanceOverrides, setAllowanceOverride } from '../../domain/workspaces/allowance-overrides.js';
import { parseCountry } from '../../domain/workspaces/people-countries.js';
import type { SettingsPatch } from '../../domain/workspaces/settings.js';
import { SettingsModal } from '../ids.js';
import type { ListenerDeps } from '../listening/listener-deps.js';
import { workspaceOf } from '../listening/listener-deps.js';
import { parseAtEdge, type StateLeaf, stateValues, textOf, viewSubmission } from '../listening/payloads.js';
import { type AllowanceChanges, readAllowanceSettings } from './allowance-settings-form.js';
import { buildSettingsSaved, CARD_RECIPIENTS } from './settings-blocks.js';

const USD = /^\d{1,7}(\.\d{1,2})?$/;

function usdToCents(text: string): number {
  const [whole = '0', fraction = ''] = text.split('.');
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
}

export type SettingsFormResult =
  { ok: true; patch: SettingsPatch; allowances: AllowanceChanges } | { ok: false; errors: Record<string, string> };

export function readSettingsForm(rawValues: unknown): SettingsFormResult {
  const { blocks: B, actions: A } = SettingsModal;
  const parsed = stateValues.safeParse(rawValues);
  if (!parsed.success) return { ok: false, errors: { [B.threshold]: 'The form could not be read; open it again.' } };
  const values = parsed.data;
  const get = (block: string, action: string): StateLeaf | undefined => values[block]?.[action];
  const text = (block: string, action: string) => textOf(get(block, action)).trim();
  const option = (block: string, action: string) => {
    const v = get(block, action)?.selected_option?.value;
    return v && v !== SettingsModal.none ? v : null;
  };
  const users = (block: string, action: string) => {
    const list = get(block, action)?.selected_users ?? [];
    return list.length > 0 ? [...new Set(list)] : null;
  };
  const errors: Record<string, string> = {};

  const threshold = text(B.threshold, A.threshold);
  if (!USD.test(threshold))
    errors[B.threshold] = 'Enter an amount in USD, e.g. 100 or 99.50 (0: every send needs approval).';
  const budget = text(B.budget, A.budget);
  if (budget !== '' && !USD.test(budget))
    errors[B.budget] = 'Enter an amount in USD, e.g. 500, or leave it empty for no allowance.';
  const amount = text(B.defaultAmount, A.defaultAmount);
  if (amount !== '' && !/^[1-9]\d{0,6}$/.test(amount))
    errors[B.defaultAmount] = 'Enter whole dollars, e.g. 25, or leave it empty.';
  const expiry = text(B.expiryHours, A.expiryHours);
  if (!/^\d{1,4}$/.test(expiry) || Number(expiry) < 1 || Number(expiry) > 720)
    errors[B.expiryHours] = 'Enter a number of hours from 1 to 720 (30 days).';
  const lowBalance = text(B.lowBalance, A.lowBalance);
  if (lowBalance !== '' && !USD.test(lowBalance))
    errors[B.lowBalance] = 'Enter an amount in USD, e.g. 500 or 499.50, or leave it empty for no alert.';
  // The +1 reaction: an emoji name, with or without colons (":tada:", "tada", "+1", "thumbsup::skin-tone-2").
  const reactionLeaf = get(B.reaction, A.reaction);
  const reaction = text(B.reaction, A.reaction).replace(/^:|:$/g, '').toLowerCase();
  if (reactionLeaf && !/^[a-z0-9_+'-]{1,64}(::skin-tone-[2-6])?$/.test(reaction))
    errors[B.reaction] = 'Enter one emoji name, e.g. :gift: or :tada:.';
  // The recurring caps: whole numbers from 1 (an older modal without them leaves them as they are).
  const caps: Partial<Record<'maxSeriesPerPerson' | 'maxSeriesPerWorkspace', number>> = {};
  for (const [field, block, action, most] of [
    ['maxSeriesPerPerson', B.seriesPerPerson, A.seriesPerPerson, 1000],
    ['maxSeriesPerWorkspace', B.seriesPerWorkspace, A.seriesPerWorkspace, 100_000],
  ] as const) {
    if (!get(block, action)) continue;
    const value = text(block, action);
    if (!/^\d{1,6}$/.test(value) || Number(value) < 1 || Number(value) > most)
      errors[block] = `Enter a whole number from 1 to ${most.toLocaleString('en-US')}.`;
    else caps[field] = Number(value);
  }
  // An older modal (opened before these settings existed) leaves them as they are.
  const recognitionLeaf = get(B.recognition, A.recognition);
  const checked = new Set((recognitionLeaf?.selected_options ?? []).map((o) => o.value));
  const notifyChannel = get(B.notifyChannel, A.notifyChannel)?.selected_conversation ?? null;
  if (checked.has(SettingsModal.recognition.digest) && !notifyChannel)
    errors[B.recognition] = 'The weekly digest goes to the announcement channel: pick one above, or untick the digest.';
  // An older modal (opened before this setting existed) leaves it as it is.
  const cardRecipients = get(B.cardRecipients, A.cardRecipients)?.selected_option?.value;
  if (cardRecipients !== undefined && !(CARD_RECIPIENTS as readonly string[]).includes(cardRecipients))
    errors[B.cardRecipients] = 'Pick who receives cards.';
  const allowances = readAllowanceSettings(get, errors);
  const countries = readCountrySettings(get, errors);
  // An older modal (opened before this setting existed) leaves it as it is.
  const valuesLeaf = get(B.valuesRequired, A.valuesRequired);
  // An older modal (opened before this setting existed) leaves it as it is.
  const requireMessageLeaf = get(B.requireMessage, A.requireMessage);
  if (Object.keys(errors).length > 0) return { ok: false, errors };

  return {
    ok: true,
    allowances: allowances.changes,
    patch: {
      ...allowances.patch,
      ...countries,
      notifyChannel,
      approvalChannel: get(B.approvalChannel, A.approvalChannel)?.selected_conversation ?? null,
      approverUserIds: users(B.approvers, A.approvers),
      approverUsergroupId: option(B.approverGroup, A.approverGroup),
      approvalThresholdCents: usdToCents(threshold),
      monthlyBudgetCents: budget === '' ? null : usdToCents(budget),
      defaultProductId: option(B.defaultDesign, A.defaultDesign),
      defaultAmountCents: amount === '' ? null : Number(amount) * 100,
      adminUserIds: users(B.admins, A.admins),
      approvalExpiryHours: Number(expiry),
      adminChannel: get(B.adminChannel, A.adminChannel)?.selected_conversation ?? null,
      lowBalanceThresholdCents: lowBalance === '' ? null : usdToCents(lowBalance),
      ...(reactionLeaf ? { reactionEmoji: reaction } : {}),
      ...caps,
      ...(cardRecipients !== undefined ? { cardRecipients: cardRecipients as CardRecipients } : {}),
      ...(valuesLeaf
        ? {
            valuesRequired: (valuesLeaf.selected_options ?? []).some((o) => o.value === SettingsModal.valuesRequired),
          }
        : {}),
      ...(requireMessageLeaf
        ? {
            requireMessage: (requireMessageLeaf.selected_options ?? []).some(
              (o) => o.value === SettingsModal.requireMessage,
            ),
          }
        : {}),
      ...(recognitionLeaf
        ? {
            leaderboardAmounts: checked.has(SettingsModal.recognition.amounts),
            weeklyDigest: checked.has(SettingsModal.recognition.digest),
          }
        : {}),
    },
  };
}

/**
 * The default country (a name or ISO code, checked inline) and the profile field holding people's;
 * an older modal without them, or one listing no profile fields, leaves them as they are.
 */
function readCountrySettings(
  get: (block: string, action: string) => StateLeaf | undefined,
  errors: Record<string, string>,
): Pick<SettingsPatch, 'defaultCountry' | 'countryProfileFieldId'> {
  const { blocks: B, actions: A } = SettingsModal;
  const patch: Pick<SettingsPatch, 'defaultCountry' | 'countryProfileFieldId'> = {};
  const countryLeaf = get(B.defaultCountry, A.defaultCountry);
  if (countryLeaf) {
    const text = textOf(countryLeaf).trim();
    const country = text === '' ? undefined : parseCountry(text);
    if (country && !country.ok)
      errors[B.defaultCountry] = `${country.reason[0]!.toUpperCase()}${country.reason.slice(1)}.`;
    else patch.defaultCountry = country?.code ?? null;
  }
  const fieldLeaf = get(B.countryField, A.countryField);
  if (fieldLeaf) {
    const field = fieldLeaf.selected_option?.value;
    patch.countryProfileFieldId = field && field !== SettingsModal.none ? field : null;
  }
  return patch;
}

/** Inline errors for chosen channels the app cannot post in (it joins public ones by itself). */
async function unreachableChannels(
  deps: ListenerDeps,
  ws: Workspace,
  patch: SettingsPatch,
): Promise<Record<string, string>> {
  const { blocks: B } = SettingsModal;
  const errors: Record<string, string> = {};
  const checks: Array<[string, string | null | undefined]> = [
    [B.notifyChannel, patch.notifyChannel],
    [B.approvalChannel, patch.approvalChannel],
  ];
  await Promise.all(
    checks.map(async ([block, channel]) => {
      if (!channel) return;
      const access = await deps.slack
        .for(ws)
        .ensureChannelMember(channel)
        .catch(() => 'member' as const);
      if (access === 'not_member')
        errors[block] = `Kudos isn’t in that channel yet. Type /invite @kudos there, then save again.`;
      if (access === 'missing')
        errors[block] = 'Kudos can’t see that channel (archived, or private without the app). Pick another one.';
    }),
  );
  return errors;
}

/** The allowances of people and groups the form set or removed, each with its audit row. */
async function saveAllowances(deps: ListenerDeps, ws: Workspace, actor: string, changes: AllowanceChanges) {
  await removeAllowanceOverrides(deps.db, ws, actor, changes.remove);
  if (changes.set) await setAllowanceOverride(deps.db, ws, actor, changes.set.subject, changes.set.allowanceCents);
}

export function registerSettingsView(app: App, deps: ListenerDeps): void {
  app.view(SettingsModal.callbackId, async ({ ack, body: raw }) => {
    const body = parseAtEdge(viewSubmission, raw, SettingsModal.callbackId);
    const view = body.view;
    const ws = workspaceOf(body);
    const actor = body.user.id;
    if (!(await deps.isAdmin(ws, actor))) {
      return ack({
        response_action: 'errors',
        errors: { [SettingsModal.blocks.threshold]: 'Only Kudos admins can change settings. Nothing was saved.' },
      });
    }
    const form = readSettingsForm(view.state.values);
    if (!form.ok) return ack({ response_action: 'errors', errors: form.errors });
    // An admin who removes themselves from the admins would lock everyone else out of this form.
    if (form.patch.adminUserIds && !form.patch.adminUserIds.includes(actor)) {
      return ack({
        response_action: 'errors',
        errors: {
          [SettingsModal.blocks.admins]:
            'Keep yourself in the list (or leave it empty for workspace admins and owners).',
        },
      });
    }
    const unreachable = await unreachableChannels(deps, ws, form.patch);
    if (Object.keys(unreachable).length > 0) return ack({ response_action: 'errors', errors: unreachable });
    const { changes } = await deps.settings.update(ws, actor, form.patch);
    await saveAllowances(deps, ws, actor, form.allowances);
    for (const channel of [form.patch.notifyChannel, form.patch.approvalChannel]) {
      if (channel)
        await resolveHealthWarning(deps.db, { teamId: ws.teamId, kind: CHANNEL_UNREACHABLE, subject: channel });
    }
    await ack();
    // A newly mapped country field is read now rather than at the next daily read.
    if (changes.countryProfileFieldId && form.patch.countryProfileFieldId)
      deps.automations
        .tick()
        .catch((error: unknown) => deps.logger.warn('reading people’s countries failed', { error }));
    deps.logger.info('settings saved', { user: actor, changed: Object.keys(changes) });
    await deps.slack
      .for(ws)
      .sendDirectMessage(actor, buildSettingsSaved(changes))
      .catch((error: unknown) => deps.logger.warn('settings summary DM failed', { error }));
  });
}
