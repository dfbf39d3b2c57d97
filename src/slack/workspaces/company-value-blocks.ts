// Company values in `/kudos settings`: the settings modal's section (the values, Manage, required or
// not), the list pushed over it (Add / Edit / Remove) and the form of one value.
import type { CompanyValueRow } from '../../db/schema/index.js';
import {
  MAX_COMPANY_VALUES,
  VALUE_DESCRIPTION_MAX,
  VALUE_NAME_MAX,
  valueTag,
} from '../../domain/workspaces/company-values.js';
import type { WorkspaceSettings } from '../../domain/workspaces/settings.js';
import { CompanyValues, SettingsModal } from '../ids.js';
import { valueLabel } from '../kit/company-value.js';
import { type Block, context, plain, plainTextInput, section } from '../kit/mrkdwn.js';
import { escapeMrkdwn } from '../kit/mrkdwn-escape.js';

/** The settings modal's section: which values there are, the button to manage them, and whether senders must pick one. */
export function companyValuesSettingsBlocks(s: WorkspaceSettings, values: CompanyValueRow[]): Block[] {
  const { blocks: B, actions: A } = SettingsModal;
  const required = {
    text: plain('Senders must pick a company value'),
    description: plain('Off: the value is optional. Only applies while there are values.'),
    value: SettingsModal.valuesRequired,
  };
  const list =
    values.length > 0
      ? values.map((v) => `:${escapeMrkdwn(v.emoji)}: ${escapeMrkdwn(v.name)}`).join(' · ')
      : 'None yet. Values (e.g. :handshake: Teamwork) are picked in the send form and counted in the stats.';
  return [
    { type: 'divider' } as unknown as Block,
    {
      type: 'section',
      text: { type: 'mrkdwn', text: `*Company values* (${values.length} of ${MAX_COMPANY_VALUES})\n${list}` },
      accessory: {
        type: 'button',
        action_id: CompanyValues.actions.manage,
        text: plain('Manage values', 75),
        value: 'manage',
      },
    } as unknown as Block,
    {
      type: 'input',
      block_id: B.valuesRequired,
      optional: true,
      label: plain('Company value in the send form'),
      element: {
        type: 'checkboxes',
        action_id: A.valuesRequired,
        options: [required],
        ...(s.valuesRequired ? { initial_options: [required] } : {}),
      },
    } as unknown as Block,
  ];
}

/** The list pushed over the settings modal: Add, and Edit / Remove for each value. */
export function buildValuesListModal(values: CompanyValueRow[], opts: { note?: string } = {}): Record<string, unknown> {
  const { actions: A } = CompanyValues;
  const blocks: Block[] = [
    section(
      `Senders pick one of these in the send form, or type it in \`/kudos @person 25 #${values[0] ? valueTag(values[0].name) : 'teamwork'} Thanks\`. Announcements, Home, the digest and \`/kudos stats\` show them. Editing or removing a value leaves past kudos as they were sent.`,
    ),
  ];
  if (values.length < MAX_COMPANY_VALUES)
    blocks.push({
      type: 'actions',
      elements: [{ type: 'button', action_id: A.add, text: plain('Add a value', 75), style: 'primary', value: 'add' }],
    } as unknown as Block);
  else blocks.push(context(`A workspace has at most ${MAX_COMPANY_VALUES} values; remove one to add another.`));
  if (opts.note) blocks.push(context(opts.note));
  if (values.length === 0) blocks.push(context('No values yet.'));
  for (const v of values) {
    blocks.push(
      section(
        `${valueLabel(v)} · \`#${escapeMrkdwn(valueTag(v.name))}\`${v.description ? `\n${escapeMrkdwn(v.description)}` : ''}`,
      ),
      {
        type: 'actions',
        block_id: `value_${v.id}`,
        elements: [
          { type: 'button', action_id: A.edit, text: plain('Edit', 75), value: v.id },
          {
            type: 'button',
            action_id: A.remove,
            text: plain('Remove', 75),
            style: 'danger',
            value: v.id,
            confirm: {
              title: plain('Remove this value?', 100),
              text: {
                type: 'mrkdwn',
                text: `${valueLabel(v)} is no longer offered to senders. Kudos already sent keep it.`,
              },
              confirm: plain('Remove', 30),
              deny: plain('Keep it', 30),
              style: 'danger',
            },
          },
        ],
      } as unknown as Block,
    );
  }
  return {
    type: 'modal',
    callback_id: CompanyValues.listModal.callbackId,
    title: plain('Company values', 24),
    close: plain('Back', 24),
    blocks,
  };
}

/** The form of one value: new (no `value`) or an edit. `listViewId`: the list to refresh once saved. */
export function buildValueFormModal(input: {
  value?: Pick<CompanyValueRow, 'id' | 'name' | 'emoji' | 'description'>;
  listViewId?: string;
}): Record<string, unknown> {
  const { blocks: B, action } = CompanyValues.formModal;
  const v = input.value;
  return {
    type: 'modal',
    callback_id: CompanyValues.formModal.callbackId,
    title: plain(v ? 'Edit value' : 'Add a value', 24),
    submit: plain('Save', 24),
    close: plain('Back', 24),
    private_metadata: JSON.stringify({
      ...(v ? { valueId: v.id } : {}),
      ...(input.listViewId ? { listViewId: input.listViewId } : {}),
    }),
    blocks: [
      plainTextInput(action, B.name, 'Name', v?.name, {
        max: VALUE_NAME_MAX,
        placeholder: 'Teamwork',
        hint: 'Senders can also type it after #, in lower case without spaces: Customer first is #customerfirst.',
      }),
      plainTextInput(action, B.emoji, 'Emoji', v ? `:${v.emoji}:` : undefined, {
        max: 66,
        placeholder: ':handshake:',
        hint: 'One emoji name, e.g. :rocket: or rocket.',
      }),
      plainTextInput(action, B.description, 'Description', v?.description, {
        optional: true,
        multiline: true,
        max: VALUE_DESCRIPTION_MAX,
        placeholder: 'We win together',
      }),
    ],
  };
}
