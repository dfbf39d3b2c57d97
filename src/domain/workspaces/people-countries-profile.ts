// People's countries from a Slack custom profile field, when an admin maps one in the settings
// (workspace_settings.country_profile_field_id): each person's value is read (users.profile.get) and
// kept in people_countries as the CSV's are, source `profile`; a value in the profile wins over a CSV
// row. An empty value leaves the person as they were, and so does one that is not a country ("Remote").
// Read at most once a day per workspace and field (and again when the field changes), a few people
// at a time (users.profile.get is Tier 4), beside the celebration dates' own read.
import { isNotNull, sql } from 'drizzle-orm';

import type { Logger } from '../../config/logger.js';
import type { Database } from '../../db/client.js';
import { peopleCountries, workspaceSettings } from '../../db/schema/index.js';
import type { ProfileDirectory } from '../common/ports.js';
import type { Workspace } from '../common/workspace.js';
import { parseCountry } from './people-countries.js';

export interface CountrySyncReport {
  people: number;
  stored: number;
  /** Values that were not a country: the person is left as they were. */
  unreadable: number;
}

const CONCURRENCY = 4;

/** Reads one workspace's mapped field for everyone in it and stores the countries found. */
export async function syncProfileCountries(
  deps: { db: Database; profiles: ProfileDirectory },
  ws: Workspace,
  fieldId: string,
  stopping: () => boolean = () => false,
): Promise<CountrySyncReport> {
  const people = (await deps.profiles.listUsers(ws)).filter((u) => !u.deleted && !u.isBot);
  const report: CountrySyncReport = { people: people.length, stored: 0, unreadable: 0 };
  for (let i = 0; i < people.length && !stopping(); i += CONCURRENCY) {
    await Promise.all(
      people.slice(i, i + CONCURRENCY).map(async (person) => {
        const value = (await deps.profiles.profileFieldValues(ws, person.id))[fieldId]?.trim();
        if (!value) return;
        const country = parseCountry(value);
        if (!country.ok) {
          report.unreadable++;
          return;
        }
        await deps.db
          .insert(peopleCountries)
          .values({ ...ws, slackUserId: person.id, countryCode: country.code, source: 'profile' })
          .onConflictDoUpdate({
            target: [peopleCountries.teamId, peopleCountries.slackUserId],
            set: { countryCode: sql`excluded.country_code`, source: sql`excluded.source`, updatedAt: sql`now()` },
          });
        report.stored++;
      }),
    );
  }
  return report;
}

/** How often a workspace's mapped country field is read again (a changed field is read at once). */
export const COUNTRY_SYNC_MS = 86_400_000;
/** Per instance: teamId -> the field last read and when. */
export type CountrySyncMemo = Map<string, { fieldId: string; at: number }>;

/** Reads the country field of each workspace that mapped one, when due; a workspace's failure is logged. */
export async function syncMappedCountries(
  deps: { db: Database; profiles: ProfileDirectory; logger: Logger },
  now: Date,
  memo: CountrySyncMemo,
  stopping: () => boolean = () => false,
): Promise<number> {
  const mapped = await deps.db
    .select({
      teamId: workspaceSettings.teamId,
      enterpriseId: workspaceSettings.enterpriseId,
      fieldId: workspaceSettings.countryProfileFieldId,
    })
    .from(workspaceSettings)
    .where(isNotNull(workspaceSettings.countryProfileFieldId));
  let synced = 0;
  for (const { teamId, enterpriseId, fieldId } of mapped) {
    if (stopping()) break;
    const last = memo.get(teamId);
    if (!fieldId || (last && last.fieldId === fieldId && now.getTime() - last.at < COUNTRY_SYNC_MS)) continue;
    try {
      const report = await syncProfileCountries(deps, { teamId, enterpriseId }, fieldId, stopping);
      memo.set(teamId, { fieldId, at: now.getTime() });
      deps.logger.info('people countries read from profiles', { teamId, ...report });
      synced++;
    } catch (error) {
      deps.logger.warn('reading people countries from profiles failed', { teamId, error });
    }
  }
  return synced;
}
