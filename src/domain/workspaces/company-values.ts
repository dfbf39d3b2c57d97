// Company values: what a kudos is for ("Teamwork", "Customer first"). Admins keep a short list per
// workspace; a sender picks one in the send form or names it as `#teamwork` in the one-line command.
// The kudos row keeps a copy of the value's name and emoji, so renaming or deleting one leaves past
// kudos as they were sent. Every query is scoped by team_id.
import { and, asc, eq, sql } from 'drizzle-orm';

import type { Database } from '../../db/client.js';
import { type CompanyValueRow, companyValues } from '../../db/schema/index.js';
import { type FormErrors, type FormRefused, formRefused, type Refused, refused } from '../common/refusal.js';
import type { Workspace } from '../common/workspace.js';
import { recordAudit } from './audit-trail.js';

/** Values one workspace may have: a short list people remember, and one static select in the send form. */
export const MAX_COMPANY_VALUES = 20;
export const VALUE_NAME_MAX = 30;
export const VALUE_DESCRIPTION_MAX = 150;

export type ValueField = 'name' | 'emoji' | 'description';

export interface ValueForm {
  name: string;
  emoji: string;
  description: string;
}

/** A value as a sender sees it, and as the kudos row copies it. */
export type CompanyValue = Pick<CompanyValueRow, 'id' | 'name' | 'emoji' | 'description' | 'revision'>;

/**
 * How a value is typed after `#`: its name in lower case, letters and digits only, so that
 * `#customerfirst`, `#customer-first` and `#Customer_First` all name "Customer first".
 */
export function valueTag(name: string): string {
  return name.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
}

/**
 * `#teamwork`: a letter first (so `#1` stays words), then letters, digits, `_` and `-`. At the start
 * of a text Slack may have made it a channel link, `<#C123|teamwork>`, when a channel has that name.
 */
const LEADING_TAG = /^(?:#(\p{L}[\p{L}\p{N}_-]{0,63})|<#[CG][A-Z0-9]+\|(\p{L}[\p{L}\p{N}_-]{0,79})>)(?=\s|$)/u;
const TRAILING_TAG = /(?:^|\s)#(\p{L}[\p{L}\p{N}_-]{0,63})$/u;

/** The `#values` at the start of `text` (without their `#`), and what follows them. */
export function leadingValueTags(text: string): { tags: string[]; rest: string } {
  const tags: string[] = [];
  let rest = text;
  for (let tag = LEADING_TAG.exec(rest); tag; tag = LEADING_TAG.exec(rest)) {
    tags.push((tag[1] ?? tag[2])!);
    rest = rest.slice(tag[0].length).trim();
  }
  return { tags, rest };
}

/** The `#values` at the end of `text` (without their `#`), and what comes before them. */
export function trailingValueTags(text: string): { tags: string[]; rest: string } {
  const tags: string[] = [];
  let rest = text;
  for (let tag = TRAILING_TAG.exec(rest); tag; tag = TRAILING_TAG.exec(rest)) {
    tags.unshift(tag[1]!);
    rest = rest.slice(0, tag.index).trim();
  }
  return { tags, rest };
}

/** `:rocket:` or `rocket` (letters, digits, `_+-`) as the shortcode stored, without colons; undefined if not one. */
export function emojiShortcode(text: string): string | undefined {
  const match = /^(:?)([a-z0-9_+-]{1,64})\1$/.exec(text.trim().toLowerCase());
  return match?.[2];
}

/** The form checked field by field: a name of 1 to 30 characters with a letter or digit, an emoji, a short description. */
export function checkValueForm(form: ValueForm): { ok: true; input: ValueForm } | FormRefused<ValueField> {
  const errors: FormErrors<ValueField> = {};
  const name = form.name.trim().replace(/\s+/g, ' ');
  if (name === '') errors.name = 'Give the value a name, e.g. Teamwork.';
  else if ([...name].length > VALUE_NAME_MAX) errors.name = `At most ${VALUE_NAME_MAX} characters.`;
  else if (valueTag(name) === '') errors.name = 'Use at least one letter or digit: senders type it as #name.';
  const emoji = emojiShortcode(form.emoji);
  if (!emoji) errors.emoji = 'Enter one emoji name, e.g. :rocket: or rocket (letters, digits, _ + -).';
  const description = form.description.trim();
  if ([...description].length > VALUE_DESCRIPTION_MAX)
    errors.description = `At most ${VALUE_DESCRIPTION_MAX} characters.`;
  if (Object.keys(errors).length > 0 || !emoji) return formRefused(errors);
  return { ok: true, input: { name, emoji, description } };
}

export async function listCompanyValues(db: Database, teamId: string): Promise<CompanyValueRow[]> {
  return db
    .select()
    .from(companyValues)
    .where(eq(companyValues.teamId, teamId))
    .orderBy(asc(sql`lower(${companyValues.name})`));
}

export async function getCompanyValue(db: Database, teamId: string, id: string): Promise<CompanyValueRow | undefined> {
  const [row] = await db
    .select()
    .from(companyValues)
    .where(and(eq(companyValues.teamId, teamId), eq(companyValues.id, id)));
  return row;
}

export type SaveValueOutcome = { ok: true; row: CompanyValueRow } | FormRefused<ValueField>;

/**
 * Adds a value (`id` undefined) or changes one, with its audit row, in one transaction. The workspace's
 * values are changed one at a time (an advisory lock), so the limit and the names' uniqueness hold
 * against two admins saving at once. A value removed meanwhile is said, not recreated.
 */
export async function saveCompanyValue(
  db: Database,
  ws: Workspace,
  actorUserId: string,
  id: string | undefined,
  input: ValueForm,
): Promise<SaveValueOutcome> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`kudos.values:${ws.teamId}`}))`);
    const rows = await tx.select().from(companyValues).where(eq(companyValues.teamId, ws.teamId));
    const before = id ? rows.find((r) => r.id === id) : undefined;
    if (id && !before) return formRefused<ValueField>({ name: 'That value was removed meanwhile; nothing was saved.' });
    if (!id && rows.length >= MAX_COMPANY_VALUES)
      return formRefused<ValueField>({
        name: `A workspace has at most ${MAX_COMPANY_VALUES} values; remove one before adding another.`,
      });
    const clash = rows.find((r) => r.id !== id && valueTag(r.name) === valueTag(input.name));
    if (clash)
      return formRefused<ValueField>({
        name:
          clash.name.toLowerCase() === input.name.toLowerCase()
            ? `There is a value “${clash.name}” already.`
            : `Too close to “${clash.name}”: both are typed #${valueTag(input.name)}.`,
      });
    const renamed = before && (before.name !== input.name || before.emoji !== input.emoji);
    const [row] = before
      ? await tx
          .update(companyValues)
          .set({
            ...input,
            revision: renamed ? before.revision + 1 : before.revision,
            updatedBy: actorUserId,
            updatedAt: sql`now()`,
          })
          .where(and(eq(companyValues.teamId, ws.teamId), eq(companyValues.id, before.id)))
          .returning()
      : await tx
          .insert(companyValues)
          .values({ ...input, teamId: ws.teamId, enterpriseId: ws.enterpriseId ?? null, createdBy: actorUserId })
          .returning();
    await recordAudit(tx, {
      teamId: ws.teamId,
      enterpriseId: ws.enterpriseId ?? null,
      actorUserId,
      action: before ? 'value.updated' : 'value.created',
      subjectType: 'company_value',
      subjectId: row!.id,
      details: before
        ? { from: { name: before.name, emoji: before.emoji, description: before.description }, to: input }
        : { ...input },
    });
    return { ok: true, row: row! };
  });
}

/** Removes a value (past kudos keep their copy of it); undefined when it was not there. */
export async function removeCompanyValue(
  db: Database,
  ws: Workspace,
  actorUserId: string,
  id: string,
): Promise<CompanyValueRow | undefined> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .delete(companyValues)
      .where(and(eq(companyValues.teamId, ws.teamId), eq(companyValues.id, id)))
      .returning();
    if (!row) return undefined;
    await recordAudit(tx, {
      teamId: ws.teamId,
      enterpriseId: ws.enterpriseId ?? null,
      actorUserId,
      action: 'value.removed',
      subjectType: 'company_value',
      subjectId: row.id,
      details: { name: row.name, emoji: row.emoji },
    });
    return row;
  });
}

/** `#teamwork #ownership`: the values a one-line list names them by. */
export function valueTagsText(values: Pick<CompanyValueRow, 'name'>[]): string {
  return values.map((v) => `#${valueTag(v.name)}`).join(' ');
}

export type ValueTagRefusal = Refused<'unknown_value' | 'no_values'>;

/**
 * The value a `#tag` of the one-line command names, or one short line saying why not: no value of that
 * name (with the workspace's values listed), or no values at all.
 */
export async function resolveValueTag(
  db: Database,
  teamId: string,
  tag: string,
): Promise<{ ok: true; value: CompanyValueRow } | ValueTagRefusal> {
  const values = await listCompanyValues(db, teamId);
  return matchValueTag(values, tag);
}

function matchValueTag(values: CompanyValueRow[], tag: string): { ok: true; value: CompanyValueRow } | ValueTagRefusal {
  if (values.length === 0) return refused('no_values', 'This workspace has no company values yet.');
  const key = valueTag(tag);
  const value = values.find((v) => valueTag(v.name) === key);
  if (value) return { ok: true, value };
  const shown = tag.length > VALUE_NAME_MAX ? `${tag.slice(0, VALUE_NAME_MAX)}…` : tag;
  return refused('unknown_value', `There is no value #${shown}. The values are: ${valueTagsText(values)}.`);
}

/** What the send form's value field holds: the value's id and the revision the form showed. */
export interface PickedValue {
  id: string;
  revision: number;
}

/**
 * The value of a send: the one picked, if it still is what the form showed; a problem for the value
 * field when it was removed or renamed meanwhile, or when one is required and none was picked.
 */
export function checkPickedValue(
  values: CompanyValueRow[],
  picked: PickedValue | undefined,
  required: boolean,
): { value: CompanyValueRow | undefined; problem?: string } {
  if (!picked) {
    return required && values.length > 0
      ? { value: undefined, problem: 'Pick the company value this kudos is for.' }
      : { value: undefined };
  }
  const value = values.find((v) => v.id === picked.id);
  if (!value) return { value: undefined, problem: 'That value was removed; pick another.' };
  if (value.revision !== picked.revision)
    return { value: undefined, problem: `That value was renamed (now “${value.name}”); pick it again.` };
  return { value };
}

export type NamedValueRefusal = Refused<'unknown_value' | 'two_values' | 'value_required'>;

/**
 * The company value a message names, as the one-line command reads it: `#teamwork` at its start or
 * its end (a `#word` inside stays words), taken out of the message. A workspace without values keeps
 * the message as written. One short line when the name is unknown, when two are named, or when the
 * workspace asks for a value (`required`) and none is named. For sends no one typed into the form (the
 * Workflow Builder step), whose only words are the message.
 */
export async function valueNamedIn(
  db: Database,
  teamId: string,
  message: string,
  required: boolean,
): Promise<{ ok: true; message: string; value?: CompanyValueRow } | NamedValueRefusal> {
  const values = await listCompanyValues(db, teamId);
  if (values.length === 0) return { ok: true, message };
  const leading = leadingValueTags(message.trim());
  const trailing = trailingValueTags(leading.rest);
  const tags = [...leading.tags, ...trailing.tags];
  const [tag, ...others] = tags;
  if (others.length > 0)
    return refused(
      'two_values',
      `A kudos has one company value: keep one of #${tags.join(', #')}. The values are: ${valueTagsText(values)}.`,
    );
  if (!tag)
    return required
      ? refused(
          'value_required',
          `This workspace asks each kudos to name a company value: start or end the message with one of ${valueTagsText(values)}.`,
        )
      : { ok: true, message };
  const matched = matchValueTag(values, tag);
  if (!matched.ok) return refused('unknown_value', matched.message);
  return { ok: true, message: trailing.rest, value: matched.value };
}
