// Where people are, so that a sender is offered the branded cards each recipient can use: a brand
// is sold for one country (ISO 3166-1 alpha-3), for every country (GLOBAL) or says nothing (null).
// A person's country comes from a CSV upload or a mapped Slack profile field (people_countries); the
// workspace's default country covers everyone else. Countries are named from i18n-iso-countries'
// English list rather than a list of our own.
import { createRequire } from 'node:module';

import { and, eq, inArray, sql } from 'drizzle-orm';
import countries, { type LocaleData } from 'i18n-iso-countries';

import type { Database } from '../../db/client.js';
import { peopleCountries, workspaceSettings } from '../../db/schema/index.js';
import type { Workspace } from '../common/workspace.js';

// Read with require: the production build (esbuild) drops a JSON import's `with { type: 'json' }`,
// which Node then refuses.
countries.registerLocale(createRequire(import.meta.url)('i18n-iso-countries/langs/en.json') as LocaleData);

/** A brand's country code that suits people of every country. */
export const GLOBAL_COUNTRY = 'GLOBAL';

/**
 * A country as people write it: alpha-3 ("GBR", any case), alpha-2 ("GB") or an English name or alias
 * ("United Kingdom", "UK") → alpha-3 upper case; otherwise a plain reason.
 */
export function parseCountry(text: string): { ok: true; code: string } | { ok: false; reason: string } {
  const value = text.trim();
  if (value === '') return { ok: false, reason: 'no country given' };
  const code =
    /^[a-z]{2,3}$/i.test(value) && countries.isValid(value)
      ? countries.toAlpha3(value)
      : countries.getAlpha3Code(value, 'en');
  if (code) return { ok: true, code: code.toUpperCase() };
  return {
    ok: false,
    reason: `"${value}" is not a country; write its name in English (Germany) or its ISO code (DE or DEU)`,
  };
}

/** A country's English name ("GBR" → "United Kingdom"); the code itself when it is not one. */
export function countryName(code: string): string {
  return countries.getName(code.toUpperCase(), 'en') ?? code;
}

// Names read with "the" in a sentence ("is for the United Kingdom").
const NAME_WITH_THE =
  /\b(United|Kingdom|Republic|Islands|States|Federation|Emirates|Netherlands|Philippines|Bahamas|Gambia|Maldives|Comoros)\b/;

/** A country's name as a sentence says it: "the United Kingdom", "Germany". */
export function countryInWords(code: string): string {
  const name = countryName(code);
  return NAME_WITH_THE.test(name) ? `the ${name}` : name;
}

/**
 * Each person's country (alpha-3), in this workspace: their own when known, else the workspace's
 * default country, else undefined (not known: every brand suits them).
 */
export async function countriesOfPeople(
  db: Database,
  ws: Workspace,
  slackUserIds: readonly string[],
): Promise<Map<string, string | undefined>> {
  const ids = [...new Set(slackUserIds)];
  const [known, [settings]] = await Promise.all([
    ids.length === 0
      ? Promise.resolve([])
      : db
          .select({ slackUserId: peopleCountries.slackUserId, countryCode: peopleCountries.countryCode })
          .from(peopleCountries)
          .where(and(eq(peopleCountries.teamId, ws.teamId), inArray(peopleCountries.slackUserId, ids))),
    db
      .select({ defaultCountry: workspaceSettings.defaultCountry })
      .from(workspaceSettings)
      .where(eq(workspaceSettings.teamId, ws.teamId)),
  ]);
  const own = new Map(known.map((row) => [row.slackUserId, row.countryCode]));
  const fallback = settings?.defaultCountry ?? undefined;
  return new Map(slackUserIds.map((id) => [id, own.get(id) ?? fallback]));
}

/**
 * Whether a brand sold for `brandCountry` suits a person in `personCountry`: GLOBAL and unspecified
 * brands suit everyone, and a person whose country is not known is offered every brand.
 */
export function brandSuitsCountry(brandCountry: string | null, personCountry: string | undefined): boolean {
  if (brandCountry === null || brandCountry.toUpperCase() === GLOBAL_COUNTRY) return true;
  if (personCountry === undefined) return true;
  return brandCountry.toUpperCase() === personCountry.toUpperCase();
}

export interface CountryRecipient {
  userId: string;
  /** How the sentence names them (their display name). */
  name: string;
  country: string | undefined;
}

/** The recipients a brand does not suit, and the one-line inline error naming them; undefined when it suits all. */
export function countryMismatch(
  brand: { name: string; countryCode: string | null },
  recipients: readonly CountryRecipient[],
): { unsuited: CountryRecipient[]; message: string } | undefined {
  const unsuited = recipients.filter((r) => !brandSuitsCountry(brand.countryCode, r.country));
  if (unsuited.length === 0 || brand.countryCode === null) return undefined;
  // Three named at most, so that the line stays one line under a modal's field.
  const named = unsuited.slice(0, 3).map((r) => `${r.name} (${countryName(r.country!)})`);
  const others = unsuited.length - named.length;
  if (others > 0) named.push(`${others} ${others === 1 ? 'other' : 'others'}`);
  const who = named.length === 1 ? named[0]! : `${named.slice(0, -1).join(', ')} and ${named.at(-1)!}`;
  return {
    unsuited,
    message: `${brand.name} is for ${countryInWords(brand.countryCode)}; ${who} cannot use it. Pick a brand for everyone, or a choice card.`,
  };
}

/**
 * The recipients of a send (Slack people by their countries, the workspace default for the rest; an
 * address-book person's country is not known) that a brand does not suit, with the inline error.
 */
export async function brandMismatch(
  db: Database,
  ws: Workspace,
  brand: { name: string; countryCode: string | null },
  recipients: ReadonlyArray<{
    slackUserId?: string | null | undefined;
    name?: string | null | undefined;
    email: string;
  }>,
): Promise<{ unsuited: CountryRecipient[]; message: string } | undefined> {
  if (brand.countryCode === null || brand.countryCode.toUpperCase() === GLOBAL_COUNTRY) return undefined;
  const slackIds = recipients.flatMap((r) => (r.slackUserId ? [r.slackUserId] : []));
  const countries = await countriesOfPeople(db, ws, slackIds);
  return countryMismatch(
    brand,
    recipients.map((r) => ({
      userId: r.slackUserId ?? r.email,
      name: r.name || r.email,
      country: r.slackUserId ? countries.get(r.slackUserId) : undefined,
    })),
  );
}

/** How many people of the workspace have a country of their own, by where it came from. */
export async function countPeopleCountries(db: Database, ws: Workspace): Promise<{ csv: number; profile: number }> {
  const rows = await db
    .select({ source: peopleCountries.source, count: sql<number>`count(*)::int` })
    .from(peopleCountries)
    .where(eq(peopleCountries.teamId, ws.teamId))
    .groupBy(peopleCountries.source);
  const of = (source: string) => rows.find((r) => r.source === source)?.count ?? 0;
  return { csv: of('csv'), profile: of('profile') };
}
