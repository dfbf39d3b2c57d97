// People's countries in the database: each person's own country, else the workspace's default, each
// workspace apart from the other (two teams); the CSV import saving the accepted rows only; the read of
// a mapped profile field, which wins over a CSV row and leaves people whose value is not a country.
import { describe, expect, it } from 'vitest';

import { peopleCountries, workspaceSettings } from '../../../src/db/schema/index.js';
import type { ProfileDirectory, WorkspaceUser } from '../../../src/domain/common/ports.js';
import {
  brandMismatch,
  countPeopleCountries,
  countriesOfPeople,
} from '../../../src/domain/workspaces/people-countries.js';
import { importPeopleCountries, parseCountriesCsv } from '../../../src/domain/workspaces/people-countries-csv.js';
import { syncProfileCountries } from '../../../src/domain/workspaces/people-countries-profile.js';
import { useTestDatabase } from '../../support/db.js';

const ACME = { teamId: 'T_ACME', enterpriseId: null };
const GLOBEX = { teamId: 'T_GLOBEX', enterpriseId: null };

const settingsRow = (ws: { teamId: string }, defaultCountry: string | null) => ({
  teamId: ws.teamId,
  approvalThresholdCents: 0,
  defaultCountry,
});

const user = (id: string, email: string, more: Partial<WorkspaceUser> = {}) => ({ id, email, ...more });

describe('countriesOfPeople', () => {
  const t = useTestDatabase();

  it('answers each person’s own country, else the workspace default, scoped by workspace', async () => {
    await t.db.insert(workspaceSettings).values([settingsRow(ACME, 'USA'), settingsRow(GLOBEX, null)]);
    await t.db.insert(peopleCountries).values([
      { ...ACME, slackUserId: 'U_ADA', countryCode: 'GBR', source: 'csv' },
      // The same person id in another workspace says nothing of Acme's U_ELI.
      { ...GLOBEX, slackUserId: 'U_ELI', countryCode: 'DEU', source: 'profile' },
    ]);

    const acme = await countriesOfPeople(t.db, ACME, ['U_ADA', 'U_ELI', 'U_ADA']);
    expect([...acme]).toEqual([
      ['U_ADA', 'GBR'],
      ['U_ELI', 'USA'],
    ]);
    const globex = await countriesOfPeople(t.db, GLOBEX, ['U_ADA', 'U_ELI']);
    expect([...globex]).toEqual([
      ['U_ADA', undefined],
      ['U_ELI', 'DEU'],
    ]);
    // A workspace never seen (no settings row): no default.
    expect([...(await countriesOfPeople(t.db, { teamId: 'T_NEW' }, ['U_ADA']))]).toEqual([['U_ADA', undefined]]);
    expect(await countriesOfPeople(t.db, ACME, [])).toEqual(new Map());
  });

  it('a brand for one country: the recipients it does not suit, by their own country or the default', async () => {
    await t.db.insert(workspaceSettings).values([settingsRow(ACME, 'DEU')]);
    await t.db.insert(peopleCountries).values([{ ...ACME, slackUserId: 'U_ADA', countryCode: 'GBR', source: 'csv' }]);
    const tesco = { name: 'Tesco Gift Card', countryCode: 'GBR' };
    const ada = { slackUserId: 'U_ADA', name: 'Ada', email: 'ada@example.com' };
    const eli = { slackUserId: 'U_ELI', name: 'Eli', email: 'eli@example.com' };

    expect(await brandMismatch(t.db, ACME, tesco, [ada])).toBeUndefined();
    expect((await brandMismatch(t.db, ACME, tesco, [ada, eli]))?.message).toBe(
      'Tesco Gift Card is for the United Kingdom; Eli (Germany) cannot use it. Pick a brand for everyone, or a choice card.',
    );
    // GLOBAL and country-less brands suit everyone; another workspace has no default, so Eli is not known.
    expect(await brandMismatch(t.db, ACME, { name: 'Airbnb', countryCode: 'GLOBAL' }, [ada, eli])).toBeUndefined();
    expect(await brandMismatch(t.db, ACME, { name: 'Netflix', countryCode: null }, [ada, eli])).toBeUndefined();
    expect(await brandMismatch(t.db, GLOBEX, tesco, [ada, eli])).toBeUndefined();
  });

  it('imports the CSV rows of this workspace’s people and reports the others, per line', async () => {
    const parsed = parseCountriesCsv(
      [
        'email,country',
        'ada@example.com,United Kingdom',
        'U_ELI,DE',
        'gone@example.com,FR',
        'stranger@example.com,FR',
        'U_OTHER,FR',
        'sam@example.com,Narnia',
      ].join('\n'),
    );
    if (!parsed.ok) throw new Error(parsed.message);
    const people = [
      user('U_ADA', 'ada@example.com'),
      user('U_ELI', 'eli@example.com'),
      user('U_GONE', 'gone@example.com', { deleted: true }),
      user('U_SAM', 'sam@example.com'),
    ];
    const report = await importPeopleCountries({ db: t.db, listUsers: async () => people }, ACME, parsed);
    expect(report).toEqual({
      imported: 2,
      rejected: [
        { line: 4, person: 'gone@example.com', reason: 'this person is deactivated in Slack' },
        { line: 5, person: 'stranger@example.com', reason: 'no Slack user in this workspace has this e-mail' },
        { line: 6, person: 'U_OTHER', reason: 'no Slack user in this workspace has this ID' },
        { line: 7, person: 'sam@example.com', reason: expect.stringContaining('"Narnia" is not a country') },
      ],
    });
    expect(await countriesOfPeople(t.db, ACME, ['U_ADA', 'U_ELI', 'U_SAM'])).toEqual(
      new Map([
        ['U_ADA', 'GBR'],
        ['U_ELI', 'DEU'],
        ['U_SAM', undefined],
      ]),
    );
    expect(await countPeopleCountries(t.db, ACME)).toEqual({ csv: 2, profile: 0 });
    expect(await countPeopleCountries(t.db, GLOBEX)).toEqual({ csv: 0, profile: 0 });
  });

  it('reads a mapped profile field: a country there wins over the CSV; empty or unreadable values leave people be', async () => {
    await t.db.insert(peopleCountries).values([
      { ...ACME, slackUserId: 'U_ADA', countryCode: 'GBR', source: 'csv' },
      { ...ACME, slackUserId: 'U_ELI', countryCode: 'DEU', source: 'csv' },
    ]);
    const values: Record<string, Record<string, string>> = {
      U_ADA: { Xf_COUNTRY: 'Ireland' },
      U_ELI: { Xf_COUNTRY: 'Remote' },
      U_SAM: { Xf_COUNTRY: ' jp ' },
      U_NOOR: {},
      U_BOT: { Xf_COUNTRY: 'FR' },
    };
    const profiles: ProfileDirectory = {
      profileFields: async () => [],
      profileFieldValues: async (_ws, id) => values[id] ?? {},
      listUsers: async () =>
        ['U_ADA', 'U_ELI', 'U_SAM', 'U_NOOR', 'U_BOT'].map(
          (id) => ({ id, isBot: id === 'U_BOT', deleted: false }) as WorkspaceUser,
        ),
    };
    const report = await syncProfileCountries({ db: t.db, profiles }, ACME, 'Xf_COUNTRY');
    expect(report).toEqual({ people: 4, stored: 2, unreadable: 1 });
    const rows = await t.db.select().from(peopleCountries);
    expect(
      rows.map((r) => [r.slackUserId, r.countryCode, r.source]).sort((a, b) => a[0]!.localeCompare(b[0]!)),
    ).toEqual([
      ['U_ADA', 'IRL', 'profile'],
      ['U_ELI', 'DEU', 'csv'],
      ['U_SAM', 'JPN', 'profile'],
    ]);
  });
});
