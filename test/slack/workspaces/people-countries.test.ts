// People's countries through the settings modal, end to end: an admin sets the default country (a
// name or code, a bad one refused inline) and maps the profile field holding people's country (read at
// once after saving), and uploads a countries CSV (pasted or as a file) pushed over the settings, with
// a report of what was imported; the counts show in the settings afterwards.
import { describe, expect, it } from 'vitest';

import { peopleCountries, workspaceSettings } from '../../../src/db/schema/index.js';
import { countriesOfPeople } from '../../../src/domain/workspaces/people-countries.js';
import type { View } from '../../../src/simulator/slack.js';
import {
  blockActionPayload,
  eventually,
  postSignedPayload,
  useAppPerTest,
  viewSubmissionPayload,
} from '../../support/app.js';

const t = useAppPerTest({ env: { KUDOS_ADMINS: 'U_ADMIN' }, app: { tuning: { automationsMs: 0 } } });
const WS = { teamId: 'T0KUDOS', enterpriseId: null };

type Element = Record<string, unknown> & { type: string };
const element = (view: View, blockId: string) =>
  (view.blocks as Array<{ block_id?: string; element?: Element }>).find((b) => b.block_id === blockId)?.element;
const shown = (view: View) => JSON.stringify(view.blocks);
const typed = (value: string) => ({ type: 'plain_text_input', value });
const picked = (value: string) => ({
  type: 'static_select',
  selected_option: { text: { type: 'plain_text', text: value }, value },
});

async function openSettings(): Promise<View> {
  await t.stack.sim.slashCommand('U_ADMIN', 'settings', 'C_GENERAL');
  return t.stack.sim.waitFor(() => t.stack.sim.openViews('U_ADMIN').find((v) => v.callback_id === 'kudos_settings'));
}

async function openUpload(): Promise<View> {
  const settings = await openSettings();
  await t.stack.sim.clickButton({ viewId: settings.id }, 'countries_upload_csv', 'U_ADMIN');
  return t.stack.sim.waitFor(() => t.stack.sim.openViews('U_ADMIN').find((v) => v.callback_id === 'countries_csv'));
}

const report = () =>
  t.stack.sim.waitFor(() => t.stack.sim.openViews('U_ADMIN').find((v) => v.callback_id === 'countries_csv_report'));

describe('people’s countries in /kudos settings', () => {
  it('an admin sets the default country (checked inline) and maps the profile field, which is read at once', async () => {
    const { sim } = t.stack;
    // Eli's "Team" field holds a country here; Sofia's ("Sales") is not one and is left alone.
    sim.workspace.users.find((u) => u.id === 'U_EMP1')!.profileFields = { Xf0TEAM: 'Germany' };
    let settings = await openSettings();
    expect(shown(settings)).toContain('No one has a country yet');
    expect(element(settings, 'settings_default_country')).toMatchObject({ type: 'plain_text_input' });
    expect(JSON.stringify(element(settings, 'settings_country_field'))).toContain('"value":"Xf0TEAM"');

    await sim.submitView(settings.id, { settings_default_country: { default_country: typed('Atlantis') } }, 'U_ADMIN');
    expect(sim.viewErrors(settings.id).settings_default_country).toBe(
      '"Atlantis" is not a country; write its name in English (Germany) or its ISO code (DE or DEU).',
    );
    const [unchanged] = await t.db.select().from(workspaceSettings);
    expect(unchanged).toMatchObject({ defaultCountry: null, countryProfileFieldId: null });

    await sim.submitView(
      settings.id,
      {
        settings_default_country: { default_country: typed('united kingdom') },
        settings_country_field: { country_field: picked('Xf0TEAM') },
      },
      'U_ADMIN',
    );
    const summary = await sim.waitFor(() => sim.messages('U_ADMIN').find((m) => m.text.includes('settings changed')));
    expect(JSON.stringify(summary.blocks)).toContain('*default country*: none → United Kingdom');
    const [saved] = await t.db.select().from(workspaceSettings);
    expect(saved).toMatchObject({ defaultCountry: 'GBR', countryProfileFieldId: 'Xf0TEAM' });

    // The mapped field is read after the save: Eli is in Germany, everyone else in the default.
    await eventually(async () =>
      expect(await t.db.select().from(peopleCountries)).toMatchObject([
        { teamId: 'T0KUDOS', slackUserId: 'U_EMP1', countryCode: 'DEU', source: 'profile' },
      ]),
    );
    expect(await countriesOfPeople(t.db, WS, ['U_EMP1', 'U_EMP4'])).toEqual(
      new Map([
        ['U_EMP1', 'DEU'],
        ['U_EMP4', 'GBR'],
      ]),
    );

    settings = await openSettings();
    expect(element(settings, 'settings_default_country')).toMatchObject({ initial_value: 'United Kingdom' });
    expect(element(settings, 'settings_country_field')).toMatchObject({ initial_option: { value: 'Xf0TEAM' } });
    expect(shown(settings)).toContain('1 person has a country (0 from CSV, 1 from profiles)');
  });

  it('clearing the default country and the field saves them as none', async () => {
    const { sim } = t.stack;
    await t.db.insert(workspaceSettings).values({
      teamId: 'T0KUDOS',
      approvalThresholdCents: 0,
      adminUserIds: ['U_ADMIN'],
      defaultCountry: 'DEU',
      countryProfileFieldId: 'Xf0TEAM',
    });
    const settings = await openSettings();
    await sim.submitView(
      settings.id,
      {
        settings_default_country: { default_country: typed('') },
        settings_country_field: { country_field: picked('none') },
      },
      'U_ADMIN',
    );
    await sim.waitFor(() => sim.messages('U_ADMIN').find((m) => m.text.includes('settings changed')));
    const [saved] = await t.db.select().from(workspaceSettings);
    expect(saved).toMatchObject({ defaultCountry: null, countryProfileFieldId: null });
  });

  it('an admin uploads pasted CSV: each row checked, the report names the rows not imported', async () => {
    const { sim } = t.stack;
    const modal = await openUpload();
    await sim.submitView(modal.id, {}, 'U_ADMIN');
    expect(sim.viewErrors(modal.id).countries_csv_text).toMatch(/Upload a CSV file or paste/);
    await sim.submitView(modal.id, { countries_csv_text: { csv: typed('eli@example.com,DE\n') } }, 'U_ADMIN');
    expect(sim.viewErrors(modal.id).countries_csv_text).toMatch(/header `email,country`/);

    const csv = [
      'email,country',
      'eli@example.com,Germany',
      'U_EMP2,fr',
      'nobody@example.com,FR',
      'omar@example.com,Narnia',
    ].join('\n');
    await sim.submitView(modal.id, { countries_csv_text: { csv: typed(csv) } }, 'U_ADMIN');
    const text = shown(await report());
    expect(text).toContain('*2* people imported. *2* rows not imported:');
    expect(text).toContain('line 4 (nobody@example.com): no Slack user in this workspace has this e-mail');
    expect(text).toContain('line 5 (omar@example.com): \\"Narnia\\" is not a country');
    expect(await countriesOfPeople(t.db, WS, ['U_EMP1', 'U_EMP2', 'U_EMP3'])).toEqual(
      new Map([
        ['U_EMP1', 'DEU'],
        ['U_EMP2', 'FRA'],
        ['U_EMP3', undefined],
      ]),
    );

    await sim.closeView(sim.openViews('U_ADMIN').at(-1)!.id, 'U_ADMIN', true);
    expect(shown(await openSettings())).toContain('2 people have a country (2 from CSV, 0 from profiles)');
  });

  it('imports an uploaded file; a file too large is refused whole and nothing is imported', async () => {
    const { sim } = t.stack;
    const modal = await openUpload();
    const withFile = (id: string) => ({
      countries_csv_file: { file: { type: 'file_input', files: [{ id, name: 'countries.csv' }] } },
    });
    const big = sim.uploadFile('U_ADMIN', 'big.csv', 'email,country\n' + 'x'.repeat(600 * 1024));
    await sim.submitView(modal.id, withFile(big), 'U_ADMIN');
    expect(sim.viewErrors(modal.id).countries_csv_file).toMatch(/larger than 512 KB/);
    expect(await t.db.select().from(peopleCountries)).toHaveLength(0);

    const good = sim.uploadFile('U_ADMIN', 'countries.csv', 'slack_user_id,country\nU_EMP3,DEU\nU_TOKYO,JP\n');
    await sim.submitView(modal.id, withFile(good), 'U_ADMIN');
    expect(shown(await report())).toContain('*2* people imported.');
    expect(
      (await t.db.select().from(peopleCountries)).map((r) => [r.slackUserId, r.countryCode, r.source]).sort(),
    ).toEqual([
      ['U_EMP3', 'DEU', 'csv'],
      ['U_TOKYO', 'JPN', 'csv'],
    ]);
  });

  it('only admins: a crafted click and a crafted submission are refused, nothing imported', async () => {
    await postSignedPayload(
      t.stack.app.url,
      blockActionPayload({
        userId: 'U_MANAGER',
        actionId: 'countries_upload_csv',
        value: 'upload',
        channel: 'C_GENERAL',
      }),
    );
    await t.stack.sim.waitFor(() =>
      t.stack.sim
        .messages('C_GENERAL')
        .find((m) => m.ephemeral && m.visible_to === 'U_MANAGER' && /upload countries/.test(m.text)),
    );
    expect(t.stack.sim.openViews('U_MANAGER')).toHaveLength(0);
    const answer = await postSignedPayload(
      t.stack.app.url,
      viewSubmissionPayload(
        { id: 'V_CRAFTED', callback_id: 'countries_csv', private_metadata: '' },
        { countries_csv_text: { csv: typed('email,country\neli@example.com,DE') } },
        'U_MANAGER',
      ),
    );
    expect(answer.status).toBe(200);
    expect(answer.text).toMatch(/Only Kudos admins can upload countries/);
    expect(await t.db.select().from(peopleCountries)).toHaveLength(0);
  });
});
