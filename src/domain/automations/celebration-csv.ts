// People's dates from a CSV an admin uploads (`email,birthday,start_date`): every row is checked on
// its own and the report names each rejected row and why; the accepted rows are saved together (one
// transaction), and a file that is too large is refused whole, before anything is saved.
import { parse } from 'csv-parse/sync';
import { sql } from 'drizzle-orm';

import type { Database } from '../../db/client.js';
import { celebrationDates } from '../../db/schema/index.js';
import { type Refused, refused } from '../common/refusal.js';
import type { Workspace } from '../common/workspace.js';
import { daysInMonth, isLeapYear } from './automation-dates.js';

export const MAX_CSV_ROWS = 5000;
export const MAX_CSV_BYTES = 512 * 1024;
const COLUMNS = ['email', 'birthday', 'start_date'] as const;

export interface CsvRow {
  line: number;
  email: string;
  /** MM-DD */
  birthday: string | null;
  /** YYYY-MM-DD */
  startDate: string | null;
}

export interface RejectedRow {
  line: number;
  email: string;
  reason: string;
}

/** A file refused whole; rows refused one by one are `rejected`, and the others are still imported. */
export type ParsedCsv =
  | { ok: true; rows: CsvRow[]; rejected: RejectedRow[] }
  | Refused<'too_large' | 'not_csv' | 'bad_header' | 'no_rows' | 'too_many_rows'>;

const EMAIL = /^[^\s@,;<>]+@[^\s@,;<>]+\.[^\s@,;<>]+$/;

/** `YYYY-MM-DD` or `MM-DD` (also `--MM-DD`) → MM-DD; February 29 is a birthday like any other. */
export function parseBirthday(text: string): string | { error: string } {
  const m = /^(?:(\d{4})-|--)?(\d{2})-(\d{2})$/.exec(text);
  if (!m) return { error: `birthday "${text}" is not YYYY-MM-DD or MM-DD` };
  const [, year, month, day] = m;
  const mm = Number(month);
  const dd = Number(day);
  if (mm < 1 || mm > 12) return { error: `birthday "${text}" has no month ${month}` };
  const max = year ? daysInMonth(Number(year), mm) : mm === 2 ? 29 : daysInMonth(2000, mm);
  if (dd < 1 || dd > max)
    return {
      error: `birthday "${text}" is not a date${year && mm === 2 && dd === 29 && !isLeapYear(Number(year)) ? ` (${year} is not a leap year)` : ''}`,
    };
  return `${month}-${day}`;
}

/** `YYYY-MM-DD`, a real date, not after `today` (YYYY-MM-DD). */
export function parseStartDate(text: string, today: string): string | { error: string } {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return { error: `start_date "${text}" is not YYYY-MM-DD` };
  const [, year, month, day] = m.map(Number) as [number, number, number, number];
  if (year < 1900 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month))
    return { error: `start_date "${text}" is not a date` };
  if (text > today) return { error: `start_date "${text}" is in the future` };
  return text;
}

export function parseCelebrationCsv(text: string, today: string): ParsedCsv {
  if (Buffer.byteLength(text, 'utf8') > MAX_CSV_BYTES)
    return refused(
      'too_large',
      `The file is larger than ${MAX_CSV_BYTES / 1024} KB; split it (at most ${MAX_CSV_ROWS} rows each).`,
    );
  let records: string[][];
  try {
    records = parse(text.replace(/^\uFEFF/, ''), { skip_empty_lines: true, trim: true, relax_column_count: true });
  } catch (error) {
    return refused('not_csv', `The file is not valid CSV (${(error as Error).message.split('\n')[0]}).`);
  }
  const header = records[0]?.map((h) => h.toLowerCase());
  if (!header || COLUMNS.some((c, i) => header[i] !== c))
    return refused('bad_header', 'The first line must be the header `email,birthday,start_date`.');
  const body = records.slice(1);
  if (body.length === 0) return refused('no_rows', 'The file has a header but no rows.');
  if (body.length > MAX_CSV_ROWS)
    return refused(
      'too_many_rows',
      `The file has ${body.length} rows; at most ${MAX_CSV_ROWS} per upload. Nothing was imported.`,
    );

  const today10 = today.slice(0, 10);
  const rows: CsvRow[] = [];
  const rejected: RejectedRow[] = [];
  const firstLineOf = new Map<string, number>();
  body.forEach((fields, i) => {
    const line = i + 2;
    const [rawEmail = '', rawBirthday = '', rawStart = ''] = fields;
    const email = rawEmail.toLowerCase();
    const reject = (reason: string) => rejected.push({ line, email: rawEmail, reason });
    if (fields.length > COLUMNS.length) return reject(`${fields.length} fields; expected 3`);
    if (!EMAIL.test(email)) return reject(`"${rawEmail}" is not an e-mail address`);
    const first = firstLineOf.get(email);
    if (first !== undefined) return reject(`duplicate of line ${first}`);
    firstLineOf.set(email, line);
    if (!rawBirthday && !rawStart) return reject('no birthday and no start_date');
    const birthday = rawBirthday ? parseBirthday(rawBirthday) : null;
    if (birthday && typeof birthday === 'object') return reject(birthday.error);
    const startDate = rawStart ? parseStartDate(rawStart, today10) : null;
    if (startDate && typeof startDate === 'object') return reject(startDate.error);
    rows.push({ line, email, birthday, startDate });
  });
  return { ok: true, rows, rejected };
}

export interface ImportReport {
  imported: number;
  rejected: RejectedRow[];
}

export interface DirectoryUser {
  id: string;
  email?: string | undefined;
  deleted?: boolean | undefined;
  isBot?: boolean | undefined;
}

/** Maps each row's e-mail to a Slack user (users.list), then saves the accepted rows in one transaction. */
export async function importCelebrationDates(
  deps: { db: Database; listUsers(): Promise<DirectoryUser[]> },
  ws: Workspace,
  parsed: Extract<ParsedCsv, { ok: true }>,
): Promise<ImportReport> {
  const users = await deps.listUsers();
  const byEmail = new Map(users.filter((u) => u.email).map((u) => [u.email!.toLowerCase(), u]));
  const rejected = [...parsed.rejected];
  const accepted: Array<typeof celebrationDates.$inferInsert> = [];
  for (const row of parsed.rows) {
    const user = byEmail.get(row.email);
    if (!user)
      rejected.push({ line: row.line, email: row.email, reason: 'no Slack user in this workspace has this e-mail' });
    else if (user.deleted)
      rejected.push({ line: row.line, email: row.email, reason: 'this person is deactivated in Slack' });
    else if (user.isBot) rejected.push({ line: row.line, email: row.email, reason: 'this is a bot' });
    else
      accepted.push({
        ...ws,
        slackUserId: user.id,
        email: row.email,
        birthday: row.birthday,
        startDate: row.startDate,
        source: 'csv',
      });
  }
  if (accepted.length > 0) {
    await deps.db.transaction(async (tx) => {
      for (let i = 0; i < accepted.length; i += 500) {
        await tx
          .insert(celebrationDates)
          .values(accepted.slice(i, i + 500))
          .onConflictDoUpdate({
            target: [celebrationDates.teamId, celebrationDates.slackUserId],
            set: {
              email: sql`excluded.email`,
              birthday: sql`excluded.birthday`,
              startDate: sql`excluded.start_date`,
              source: sql`excluded.source`,
              updatedAt: sql`now()`,
            },
          });
      }
    });
  }
  return { imported: accepted.length, rejected: rejected.sort((a, b) => a.line - b.line) };
}
