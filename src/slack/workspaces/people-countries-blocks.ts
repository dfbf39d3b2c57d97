// Block Kit for people's countries: the settings modal's part (default country, the profile field,
// how many people have a country, the upload button), the CSV upload modal and its report.
import type { ProfileField } from '../../domain/common/ports.js';
import { countryName } from '../../domain/workspaces/people-countries.js';
import {
  type CountriesImportReport,
  MAX_COUNTRIES_CSV_BYTES,
  MAX_COUNTRIES_CSV_ROWS,
} from '../../domain/workspaces/people-countries-csv.js';
import type { WorkspaceSettings } from '../../domain/workspaces/settings.js';
import { PeopleCountries, SettingsModal } from '../ids.js';
import { type Block, context, plain, section } from '../kit/mrkdwn.js';
import { escapeMrkdwn } from '../kit/mrkdwn-escape.js';

// Not settings-blocks' input_: that file imports this one.
function input_(blockId: string, label: string, element: Record<string, unknown>, hint?: string): Block {
  return {
    type: 'input',
    block_id: blockId,
    optional: true,
    label: plain(label, 2000),
    element,
    ...(hint ? { hint: plain(hint, 2000) } : {}),
  } as unknown as Block;
}

/** Options a static select may hold (Slack: 100), the "None" choice among them. */
const MAX_FIELD_OPTIONS = 99;

export function peopleCountriesSettingsBlocks(
  s: Pick<WorkspaceSettings, 'defaultCountry' | 'countryProfileFieldId'>,
  fields: ProfileField[],
  known: { csv: number; profile: number },
): Block[] {
  const { blocks: B, actions: A } = SettingsModal;
  const total = known.csv + known.profile;
  const summary =
    total === 0
      ? 'No one has a country yet: everyone gets the default country’s brands.'
      : `${total} ${total === 1 ? 'person has' : 'people have'} a country (${known.csv} from CSV, ${known.profile} from profiles).`;
  return [
    { type: 'divider' } as unknown as Block,
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: `*People’s countries*\nBranded cards are sold for one country: each person is offered the brands of theirs. ${summary}`,
      },
      accessory: {
        type: 'button',
        action_id: PeopleCountries.actions.uploadCsv,
        text: plain('Upload countries (CSV)', 75),
        value: 'upload',
      },
    } as unknown as Block,
    input_(
      B.defaultCountry,
      'Default country',
      {
        type: 'plain_text_input',
        action_id: A.defaultCountry,
        max_length: 60,
        placeholder: plain('e.g. United States, GB or DEU'),
        ...(s.defaultCountry ? { initial_value: countryName(s.defaultCountry) } : {}),
      },
      'For everyone whose own country is not known. Empty: they are offered every brand.',
    ),
    ...countryFieldInput(s.countryProfileFieldId, fields),
  ];
}

/** Which custom profile field holds people's country (none listed: the CSV upload only). */
function countryFieldInput(current: string | null, fields: ProfileField[]): Block[] {
  const { blocks: B, actions: A } = SettingsModal;
  if (fields.length === 0)
    return [context('The workspace has no custom profile fields: countries come from *Upload countries (CSV)*.')];
  const none = { text: plain('None: use the CSV upload'), value: SettingsModal.none };
  const options = [
    none,
    ...fields.slice(0, MAX_FIELD_OPTIONS).map((f) => ({ text: plain(`${f.label} (${f.type})`, 75), value: f.id })),
  ];
  const initial = options.find((o) => o.value === current);
  return [
    input_(
      B.countryField,
      'Profile field with each person’s country',
      {
        type: 'static_select',
        action_id: A.countryField,
        placeholder: plain('None: use the CSV upload'),
        options,
        ...(initial ? { initial_option: initial } : {}),
      },
      'Read daily; a country there wins over the CSV. Names in English or ISO codes (DE, DEU).',
    ),
  ];
}

export function buildCountriesCsvModal(): Record<string, unknown> {
  const { blocks: B, actions: A } = PeopleCountries.csvModal;
  return {
    type: 'modal',
    callback_id: PeopleCountries.csvModal.callbackId,
    title: plain('Upload countries', 24),
    submit: plain('Import', 24),
    close: plain('Cancel', 24),
    blocks: [
      section(
        'Upload a CSV file, or paste CSV, with the header `email,country` (or `slack_user_id,country`). A country is its English name, or its ISO code (`GB` or `GBR`). Each row is checked on its own; you get a report of the rows that were not imported.',
      ),
      input_(
        B.file,
        'CSV file',
        { type: 'file_input', action_id: A.file, filetypes: ['csv', 'txt'], max_files: 1 },
        `Up to ${MAX_COUNTRIES_CSV_ROWS.toLocaleString('en-US')} rows (${MAX_COUNTRIES_CSV_BYTES / 1024} KB).`,
      ),
      input_(B.csv, 'Or paste CSV', {
        type: 'plain_text_input',
        action_id: A.csv,
        multiline: true,
        max_length: 3000,
        placeholder: plain('email,country\nada@example.com,United Kingdom'),
      }),
    ],
  };
}

export function buildCountriesCsvReport(report: CountriesImportReport): Record<string, unknown> {
  const lines = report.rejected
    .slice(0, 40)
    .map((r) => `• line ${r.line} (${escapeMrkdwn(r.person)}): ${escapeMrkdwn(r.reason)}`);
  const more = report.rejected.length > 40 ? `\n…and ${report.rejected.length - 40} more` : '';
  const notImported =
    report.rejected.length > 0
      ? ` *${report.rejected.length}* row${report.rejected.length === 1 ? '' : 's'} not imported:`
      : '';
  return {
    type: 'modal',
    callback_id: PeopleCountries.reportCallbackId,
    title: plain('Import report', 24),
    close: plain('Done'),
    blocks: [
      section(
        `:white_check_mark: *${report.imported}* ${report.imported === 1 ? 'person' : 'people'} imported.${notImported}`,
      ),
      ...(lines.length > 0 ? [section(lines.join('\n') + more)] : []),
    ],
  };
}
