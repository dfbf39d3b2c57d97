// Celebration dates from Slack custom profile fields: when an admin maps a rule to a profile field
// (the rule's profileFieldId: "Birthday" holds birthdays, "Start date" start dates), each person's
// value is read (users.profile.get, scope users.profile:read) and kept in celebration_dates as the
// CSV's are, source `profile`. A mapped field wins over a CSV row for that date; the other date of a
// CSV row is kept. Read at most once a day per workspace and mapping (and again when it changes),
// a few people at a time (users.profile.get is Tier 4).
import { sql } from 'drizzle-orm';

import type { Database } from '../../db/client.js';
import { celebrationDates, type CelebrationRuleRow } from '../../db/schema/index.js';
import type { ProfileDirectory } from '../common/ports.js';
import type { Workspace } from '../common/workspace.js';
import { parseBirthday, parseStartDate } from './celebration-csv.js';

export interface ProfileSyncReport {
  people: number;
  stored: number;
  /** Values that were not a date (e.g. "July 4th"): the person is left as they were. */
  unreadable: number;
}

const CONCURRENCY = 4;

export async function syncProfileDates(
  deps: { db: Database; profiles: ProfileDirectory },
  ws: Workspace,
  rules: Array<Pick<CelebrationRuleRow, 'kind' | 'profileFieldId'>>,
  today: string,
  /** True once the app is stopping: the read ends after the people in hand. */
  stopping: () => boolean = () => false,
): Promise<ProfileSyncReport> {
  const birthdayField = rules.find((r) => r.kind === 'birthday')?.profileFieldId ?? undefined;
  const startField = rules.find((r) => r.kind === 'anniversary')?.profileFieldId ?? undefined;
  const report: ProfileSyncReport = { people: 0, stored: 0, unreadable: 0 };
  if (!birthdayField && !startField) return report;
  const people = (await deps.profiles.listUsers(ws)).filter((u) => !u.deleted && !u.isBot);
  report.people = people.length;
  for (let i = 0; i < people.length && !stopping(); i += CONCURRENCY) {
    await Promise.all(
      people.slice(i, i + CONCURRENCY).map(async (person) => {
        const values = await deps.profiles.profileFieldValues(ws, person.id);
        const birthday =
          birthdayField && values[birthdayField] ? parseBirthday(values[birthdayField].trim()) : undefined;
        const startDate =
          startField && values[startField] ? parseStartDate(values[startField].trim(), today) : undefined;
        if (typeof birthday === 'object' || typeof startDate === 'object') report.unreadable++;
        const set: { birthday?: string; startDate?: string } = {};
        if (typeof birthday === 'string') set.birthday = birthday;
        if (typeof startDate === 'string') set.startDate = startDate;
        if (Object.keys(set).length === 0) return;
        await deps.db
          .insert(celebrationDates)
          .values({ ...ws, slackUserId: person.id, email: person.email ?? '', ...set, source: 'profile' })
          .onConflictDoUpdate({
            target: [celebrationDates.teamId, celebrationDates.slackUserId],
            set: {
              ...(set.birthday ? { birthday: sql`excluded.birthday` } : {}),
              ...(set.startDate ? { startDate: sql`excluded.start_date` } : {}),
              source: sql`excluded.source`,
              updatedAt: sql`now()`,
            },
          });
        report.stored++;
      }),
    );
  }
  return report;
}
