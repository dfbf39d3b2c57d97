// People's countries from a CSV an admin uploads (`email,country` or `slack_user_id,country`; a row
// may name its person either way): like the celebration dates' CSV, every row is checked on its own and
// the report names each rejected row and why; the accepted rows are saved together (one transaction),
// and a file that is refused whole saves nothing.
import { parse } from 'csv-parse/sync';
import { sql } from 'drizzle-orm';

import type { Database } from '../../db/client.js';
import { peopleCountries } from '../../db/schema/index.js';
import { type Refused, refused } from '../common/refusal.js';
import type { Workspace } from '../common/workspace.js';
import { parseCountry } from './people-countries.js';

export const MAX_COUNTRIES_CSV_ROWS = 5000;
export const MAX_COUNTRIES_CSV_BYTES = 512 * 1024;
const PERSON_COLUMNS = ['email', 'slack_user_id'];

const EMAIL = /^[^\s@,;<>]+@[^\s@,;<>]+\.[^\s@,;<>]+$/;
const SLACK_USER_ID = /^[UW][A-Z0-9_]{2,}$/;

export interface CountryCsvRow {
  line: number;
  /** An e-mail (lower case) or a Slack user id, as the row named the person. */
  person: { email: string } | { slackUserId: string };
  /** Alpha-3, upper case. */
  countryCode: string;
}

export interface RejectedCountryRow {
  line: number;
  /** The person as the row wrote them. */
  person: string;
  reason: string;
}

/** A file refused whole; rows refused one by one are `rejected`, and the others are still imported. */
export type ParsedCountriesCsv =
  | { ok: true; rows: CountryCsvRow[]; rejected: RejectedCountryRow[] }
  | Refused<'too_large' | 'not_csv' | 'bad_header' | 'no_rows' | 'too_many_rows'>;

function readRecords(text: string): string[][] | Refused<'not_csv'> {
  try {
    return parse(text.replace(/^\uFEFF/, ''), { skip_empty_lines: true, trim: true, relax_column_count: true });
  } catch (error) {
    return refused('not_csv', `The file is not valid CSV (${(error as Error).message.split('\n')[0]}).`);
  }
}

export function parseCountriesCsv(text: string): ParsedCountriesCsv {
  if (Buffer.byteLength(text, 'utf8') > MAX_COUNTRIES_CSV_BYTES)
    return refused(
      'too_large',
      `The file is larger than ${MAX_COUNTRIES_CSV_BYTES / 1024} KB; split it (at most ${MAX_COUNTRIES_CSV_ROWS} rows each).`,
    );
  const records = readRecords(text);
  if (!Array.isArray(records)) return records;
  const header = records[0]?.map((h) => h.toLowerCase());
  if (!header || !PERSON_COLUMNS.includes(header[0] ?? '') || header[1] !== 'country' || header.length > 2)
    return refused('bad_header', 'The first line must be the header `email,country` (or `slack_user_id,country`).');
  const body = records.slice(1);
  if (body.length === 0) return refused('no_rows', 'The file has a header but no rows.');
  if (body.length > MAX_COUNTRIES_CSV_ROWS)
    return refused(
      'too_many_rows',
      `The file has ${body.length} rows; at most ${MAX_COUNTRIES_CSV_ROWS} per upload. Nothing was imported.`,
    );

  const rows: CountryCsvRow[] = [];
  const rejected: RejectedCountryRow[] = [];
  const firstLineOf = new Map<string, number>();
  body.forEach((fields, i) => {
    const line = i + 2;
    const [rawPerson = '', rawCountry = ''] = fields;
    const reject = (reason: string) => rejected.push({ line, person: rawPerson, reason });
    if (fields.length > 2) return reject(`${fields.length} fields; expected 2`);
    const person = EMAIL.test(rawPerson.toLowerCase())
      ? { email: rawPerson.toLowerCase() }
      : SLACK_USER_ID.test(rawPerson)
        ? { slackUserId: rawPerson }
        : undefined;
    if (!person) return reject(`"${rawPerson}" is neither an e-mail address nor a Slack user ID`);
    const key = 'email' in person ? person.email : person.slackUserId;
    const first = firstLineOf.get(key);
    if (first !== undefined) return reject(`duplicate of line ${first}`);
    firstLineOf.set(key, line);
    const country = parseCountry(rawCountry);
    if (!country.ok) return reject(country.reason);
    rows.push({ line, person, countryCode: country.code });
  });
  return { ok: true, rows, rejected };
}

export interface CountriesImportReport {
  imported: number;
  rejected: RejectedCountryRow[];
}

export interface CountryDirectoryUser {
  id: string;
  email?: string | undefined;
  deleted?: boolean | undefined;
  isBot?: boolean | undefined;
}

/**
 * Maps each row to a person of this workspace (users.list: by e-mail, or by id, so that an id from
 * another workspace is refused), then saves the accepted rows in one transaction, source `csv`.
 */
export async function importPeopleCountries(
  deps: { db: Database; listUsers(): Promise<CountryDirectoryUser[]> },
  ws: Workspace,
  parsed: Extract<ParsedCountriesCsv, { ok: true }>,
): Promise<CountriesImportReport> {
  const users = await deps.listUsers();
  const byEmail = new Map(users.filter((u) => u.email).map((u) => [u.email!.toLowerCase(), u]));
  const byId = new Map(users.map((u) => [u.id, u]));
  const rejected = [...parsed.rejected];
  const accepted = new Map<string, typeof peopleCountries.$inferInsert>();
  for (const row of parsed.rows) {
    const written = 'email' in row.person ? row.person.email : row.person.slackUserId;
    const user = 'email' in row.person ? byEmail.get(row.person.email) : byId.get(row.person.slackUserId);
    const reject = (reason: string) => rejected.push({ line: row.line, person: written, reason });
    if (!user)
      reject(
        'email' in row.person
          ? 'no Slack user in this workspace has this e-mail'
          : 'no Slack user in this workspace has this ID',
      );
    else if (user.deleted) reject('this person is deactivated in Slack');
    else if (user.isBot) reject('this is a bot');
    // One person named twice (by e-mail and by id): the first row counts.
    else if (accepted.has(user.id)) reject('this person is on an earlier line');
    else accepted.set(user.id, { ...ws, slackUserId: user.id, countryCode: row.countryCode, source: 'csv' });
  }
  const values = [...accepted.values()];
  if (values.length > 0) {
    await deps.db.transaction(async (tx) => {
      for (let i = 0; i < values.length; i += 500) {
        await tx
          .insert(peopleCountries)
          .values(values.slice(i, i + 500))
          .onConflictDoUpdate({
            target: [peopleCountries.teamId, peopleCountries.slackUserId],
            set: { countryCode: sql`excluded.country_code`, source: sql`excluded.source`, updatedAt: sql`now()` },
          });
      }
    });
  }
  return { imported: values.length, rejected: rejected.sort((a, b) => a.line - b.line) };
}
