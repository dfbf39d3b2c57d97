// The chaos run's automations: birthdays dispatched by both instances (each runs its pass every
// minute) while an admin skips some of them and the dates of others are corrected or removed by a CSV
// import, all at once, during dispatch; the random faults stay on.
// Thirty people's birthdays were yesterday (in their zone) and the rule was saved three days ago: its
// timeline is moved back as the scheduled sends' is (the instances run on real time, the emulator's
// clock is three weeks ahead), so the next pass plans them and sends them late, once.
// What must hold, person by person: an acknowledged skip means no kudos and no order; a corrected or
// removed date means either the run went out before the change (one kudos, one order) or nothing;
// a refused skip means the run went out; the new date's run waits for its day; never two cards, and
// every card charged is recorded, cent for cent.
import { formatInTimeZone } from 'date-fns-tz';
import { and, eq, inArray, like, sql } from 'drizzle-orm';

import { automationOccurrences, celebrationRules, kudos } from '../../src/db/schema/index.js';
import { saveCelebrationRule, skipOccurrence } from '../../src/domain/automations/automation-runner.js';
import { importCelebrationDates, parseCelebrationCsv } from '../../src/domain/automations/celebration-csv.js';
import type { WorkspaceUser } from '../../src/simulator/seed.js';
import { cents, LINKS_ADMIN, listOrders, type MoneyFaultsContext, until } from './money-steps.js';

const PEOPLE = Array.from({ length: 30 }, (_, i) => `U_CHAOS_BDAY${String(i + 1).padStart(2, '0')}`);
const SKIPPED = PEOPLE.slice(0, 10);
const CORRECTED = PEOPLE.slice(10, 18);
const REMOVED = PEOPLE.slice(18, 22);
const ZONE = 'Europe/Paris';
const AMOUNT_CENTS = 500;

export interface AutomationRacesResult {
  people: number;
  sent: number;
  skipsAcknowledged: number;
  skipsRefused: number;
  correctedSent: number;
  correctedCanceled: number;
  orders: number;
  chargedCents: number;
  recordedCents: number;
  problems: string[];
  kudosIds: string[];
}

export function automationRaceUsers(user: (id: string, name: string) => WorkspaceUser): WorkspaceUser[] {
  return PEOPLE.map((id, i) => user(id, `bday${i + 1}`));
}

export async function runAutomationRaces(
  ctx: MoneyFaultsContext,
  users: WorkspaceUser[],
): Promise<AutomationRacesResult> {
  const { db } = ctx;
  const problems: string[] = [];
  const ws = { teamId: ctx.teamId, enterpriseId: null };
  const emailOf = new Map(users.map((u) => [u.id, u.email]));
  const yesterday = formatInTimeZone(new Date(Date.now() - 86_400_000), ZONE, 'yyyy-MM-dd');
  const later = formatInTimeZone(new Date(Date.now() + 10 * 86_400_000), ZONE, 'MM-dd');
  /** The dates file an admin uploads: `birthday` of each person, or none (a start date only, which removes the birthday). */
  const csv = (birthday: (id: string) => string | undefined) =>
    [
      'email,birthday,start_date',
      ...PEOPLE.map((id) => `${emailOf.get(id)},${birthday(id) ?? ''},${birthday(id) ? '' : '2020-03-16'}`),
    ].join('\n');
  const importDates = async (text: string) => {
    const parsed = parseCelebrationCsv(text, yesterday);
    if (!parsed.ok) throw new Error(parsed.message);
    return importCelebrationDates({ db: db.db, listUsers: async () => users }, ws, parsed);
  };

  await importDates(csv(() => yesterday.slice(5)));
  await saveCelebrationRule(
    db.db,
    ws,
    'birthday',
    {
      enabled: true,
      amountCents: AMOUNT_CENTS,
      productId: 'CC-BIRTHDAY',
      messageTemplate: 'Happy birthday, {name}!',
      senderUserId: LINKS_ADMIN,
      channelId: ctx.channel,
      profileFieldId: null,
    },
    LINKS_ADMIN,
  );
  // Saved three days ago: yesterday's birthdays fall after it (a rule sends nothing from before it was switched on).
  await db.db
    .update(celebrationRules)
    .set({ updatedAt: sql`${celebrationRules.updatedAt} - interval '3 days'` })
    .where(and(eq(celebrationRules.teamId, ctx.teamId), eq(celebrationRules.kind, 'birthday')));

  const keyOf = (id: string, date = yesterday) => `birthday:${id}:${date}`;
  const occurrences = () =>
    db.db
      .select()
      .from(automationOccurrences)
      .where(
        and(
          eq(automationOccurrences.teamId, ctx.teamId),
          inArray(
            automationOccurrences.key,
            PEOPLE.map((id) => keyOf(id)),
          ),
        ),
      );
  // The first pass plans them all at once and goes on to send them: the changes land during dispatch.
  const planned = await until('birthdays planned', 150_000, async () =>
    (await occurrences()).length === PEOPLE.length ? true : undefined,
  );
  if (!planned) problems.push(`automations: ${(await occurrences()).length} of ${PEOPLE.length} birthdays planned`);
  const byPerson = new Map((await occurrences()).map((o) => [o.subjectUserId!, o]));
  const skips = await Promise.all(
    SKIPPED.map(async (id) => ({
      id,
      skipped: byPerson.has(id) ? await skipOccurrence(db.db, ws, byPerson.get(id)!.id, LINKS_ADMIN) : false,
    })),
  );
  await importDates(
    csv((id) => (CORRECTED.includes(id) ? later : REMOVED.includes(id) ? undefined : yesterday.slice(5))),
  );

  const sourceKeys = PEOPLE.map((id) => `auto:${keyOf(id)}`);
  const automatedKudos = () =>
    db.db
      .select()
      .from(kudos)
      .where(and(eq(kudos.teamId, ctx.teamId), inArray(kudos.sourceViewId, sourceKeys)));
  await until('birthdays settled', ctx.settleTimeoutMs, async () => {
    const occ = await occurrences();
    const rows = await automatedKudos();
    return occ.every((o) => o.status !== 'planned' && o.status !== 'retrying') &&
      rows.every((r) => (r.status === 'placed' || r.status === 'failed') && r.notifiedAt)
      ? true
      : undefined;
  });
  const final = new Map((await occurrences()).map((o) => [o.subjectUserId!, o]));
  const rows = await automatedKudos();
  const kudosOf = (id: string) => rows.filter((r) => r.sourceViewId === `auto:${keyOf(id)}`);
  const keys = new Set(rows.map((r) => r.idempotencyKey));
  const orders = (await listOrders(ctx)).filter((o) => keys.has(o.clientOrderId ?? o.idempotencyKey));
  const ordersOf = (id: string) =>
    kudosOf(id).reduce(
      (n, r) => n + orders.filter((o) => (o.clientOrderId ?? o.idempotencyKey) === r.idempotencyKey).length,
      0,
    );

  for (const id of PEOPLE) {
    const occ = final.get(id);
    const sends = kudosOf(id).length;
    const charged = ordersOf(id);
    const placed = kudosOf(id).filter((r) => r.status === 'placed').length;
    if (sends > 1 || charged > 1)
      problems.push(`automations: ${id} has ${sends} kudos and ${charged} orders for one birthday`);
    if (charged !== placed) problems.push(`automations: ${id}: ${charged} orders, ${placed} kudos placed`);
    const skip = skips.find((s) => s.id === id);
    if (skip?.skipped && (occ?.status !== 'skipped' || sends > 0))
      problems.push(`automations: ${id} skipped (acknowledged) yet ${occ?.status} with ${sends} kudos`);
    if (skip && !skip.skipped && (occ?.status !== 'sent' || sends !== 1))
      problems.push(`automations: ${id}'s skip refused yet ${occ?.status} with ${sends} kudos`);
    if (
      (CORRECTED.includes(id) || REMOVED.includes(id)) &&
      !((occ?.status === 'sent' && sends === 1) || (occ?.status === 'canceled' && sends === 0))
    )
      problems.push(`automations: ${id}'s date changed during dispatch: ${occ?.status} with ${sends} kudos`);
    if (!skip && !CORRECTED.includes(id) && !REMOVED.includes(id) && (occ?.status !== 'sent' || placed !== 1))
      problems.push(`automations: ${id}: ${occ?.status} with ${placed} kudos placed`);
  }
  // The corrected dates' runs wait for their day.
  const moved = await db.db
    .select()
    .from(automationOccurrences)
    .where(
      and(
        eq(automationOccurrences.teamId, ctx.teamId),
        like(automationOccurrences.key, 'birthday:U_CHAOS_BDAY%'),
        sql`${automationOccurrences.localDate} > ${yesterday}`,
      ),
    );
  for (const o of moved)
    if (o.status !== 'planned' || o.kudosId)
      problems.push(`automations: the run of ${o.subjectUserId}'s corrected date is ${o.status} before its day`);

  const chargedCents = orders.reduce((n, o) => n + cents(o.totalCost?.amount), 0);
  const recordedCents = rows
    .filter((r) => r.status === 'placed')
    .reduce((n, r) => n + (r.costCents ?? r.totalCents), 0);
  if (chargedCents !== recordedCents)
    problems.push(`automations: ${chargedCents} cents charged, ${recordedCents} recorded`);
  const result: AutomationRacesResult = {
    people: PEOPLE.length,
    sent: [...final.values()].filter((o) => o.status === 'sent').length,
    skipsAcknowledged: skips.filter((s) => s.skipped).length,
    skipsRefused: skips.filter((s) => !s.skipped).length,
    correctedSent: [...CORRECTED, ...REMOVED].filter((id) => final.get(id)?.status === 'sent').length,
    correctedCanceled: [...CORRECTED, ...REMOVED].filter((id) => final.get(id)?.status === 'canceled').length,
    orders: orders.length,
    chargedCents,
    recordedCents,
    problems,
    kudosIds: rows.map((r) => r.id),
  };
  // Nothing more from this rule for the rest of the run.
  await db.db
    .update(celebrationRules)
    .set({ enabled: false })
    .where(and(eq(celebrationRules.teamId, ctx.teamId), eq(celebrationRules.kind, 'birthday')));
  ctx.log(
    `chaos: automations: ${result.sent} birthdays sent of ${PEOPLE.length}; skips ${result.skipsAcknowledged} acknowledged, ${result.skipsRefused} refused (already sent); dates changed during dispatch: ${result.correctedSent} had gone out, ${result.correctedCanceled} stopped; ${chargedCents} cents charged, ${recordedCents} recorded`,
  );
  return result;
}
