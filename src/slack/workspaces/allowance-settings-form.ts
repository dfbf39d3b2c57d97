// Reads the "who may spend" part of the settings modal (allowance-settings-blocks.ts): the settings it
// changes, the allowance of a person or group to set, those to remove, or inline errors by block.
import type { CardSenders, OverAllowance } from '../../db/schema/index.js';
import type { AllowanceSubject } from '../../domain/workspaces/allowance-overrides.js';
import type { SettingsPatch } from '../../domain/workspaces/settings.js';
import { SettingsModal } from '../ids.js';
import type { StateLeaf } from '../listening/payloads.js';
import { textOf } from '../listening/payloads.js';
import { CARD_SENDER_LABELS, OVER_ALLOWANCE_LABELS } from './allowance-settings-blocks.js';

export interface AllowanceChanges {
  set?: { subject: AllowanceSubject; allowanceCents: number | null };
  remove: string[];
}

const USD = /^\d{1,7}(\.\d{1,2})?$/;

function usdToCents(text: string): number {
  const [whole = '0', fraction = ''] = text.split('.');
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
}

/** An allowance as typed: dollars (a leading $ and commas allowed), or "none" for no limit. */
export function parseAllowance(input: string): { ok: true; cents: number | null } | { ok: false; message: string } {
  const text = input.trim().replace(/^\$/, '').replace(/,/g, '');
  if (/^(none|no limit|unlimited)$/i.test(text)) return { ok: true, cents: null };
  if (text.startsWith('-')) return { ok: false, message: 'An allowance cannot be negative; enter 0 or more, or none.' };
  if (!USD.test(text)) return { ok: false, message: 'Enter dollars, e.g. 200 or 99.50, or none for no limit.' };
  return { ok: true, cents: usdToCents(text) };
}

export function readAllowanceSettings(
  get: (block: string, action: string) => StateLeaf | undefined,
  errors: Record<string, string>,
): { patch: SettingsPatch; changes: AllowanceChanges } {
  const { blocks: B, actions: A } = SettingsModal;
  const patch: SettingsPatch = {};
  // An older modal (opened before these settings existed) leaves them as they are.
  const senders = get(B.cardSenders, A.cardSenders)?.selected_option?.value;
  const senderGroup = get(B.senderGroup, A.senderGroup)?.selected_option?.value;
  if (senders !== undefined) {
    if (!(senders in CARD_SENDER_LABELS)) errors[B.cardSenders] = 'Pick who may send kudos with cards.';
    else if (senders === 'usergroup' && (!senderGroup || senderGroup === SettingsModal.none))
      errors[B.senderGroup] = 'Pick the user group whose members may send.';
    else {
      patch.cardSenders = senders as CardSenders;
      patch.senderUsergroupId = senders === 'usergroup' ? senderGroup! : null;
    }
  }
  const over = get(B.overAllowance, A.overAllowance)?.selected_option?.value;
  if (over !== undefined) {
    if (!(over in OVER_ALLOWANCE_LABELS)) errors[B.overAllowance] = 'Pick what happens to a send over the allowance.';
    else patch.overAllowance = over as OverAllowance;
  }

  const person = get(B.allowancePerson, A.allowancePerson)?.selected_user ?? undefined;
  const groupValue = get(B.allowanceGroup, A.allowanceGroup)?.selected_option?.value;
  const group = groupValue && groupValue !== SettingsModal.none ? groupValue : undefined;
  const amount = textOf(get(B.allowanceAmount, A.allowanceAmount)).trim();
  const changes: AllowanceChanges = {
    remove: (get(B.allowanceRemove, A.allowanceRemove)?.selected_options ?? []).map((o) => o.value),
  };
  if (person && group) errors[B.allowanceGroup] = 'Pick a person or a user group, one at a time.';
  else if ((person || group) && amount === '')
    errors[B.allowanceAmount] = 'Enter their monthly allowance in dollars, or none for no limit.';
  else if (amount !== '' && !person && !group)
    errors[B.allowancePerson] = 'Pick the person (or the user group below) this allowance is for.';
  else if (amount !== '') {
    const parsed = parseAllowance(amount);
    if (!parsed.ok) errors[B.allowanceAmount] = parsed.message;
    else
      changes.set = {
        subject: person ? { kind: 'user', id: person } : { kind: 'usergroup', id: group! },
        allowanceCents: parsed.cents,
      };
  }
  return { patch, changes };
}
