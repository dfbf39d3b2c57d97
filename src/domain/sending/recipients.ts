// Who receives a send. At submission (inside Slack's 3-second window) Slack users are checked and
// groups expanded; the worker then maps each Slack user to an address-book recipient by the e-mail
// in their Slack profile (found or created once, the mapping stored per workspace).
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';

import { and, eq, inArray, sql } from 'drizzle-orm';

import type { Database } from '../../db/client.js';
import { prepared } from '../../db/prepared.js';
import {
  type CardRecipients,
  type KudosRecipientSnapshot,
  recipientCreations,
  recipientMappings,
} from '../../db/schema/index.js';
import { isRewardsError, type RewardsClient } from '../../rewards/index.js';
import { displayNameOf, type UserDirectory, type WorkspaceUser } from '../common/ports.js';
import { type Refused, refused } from '../common/refusal.js';
import type { Workspace } from '../common/workspace.js';

export type RecipientCheck =
  | {
      ok: true;
      recipients: KudosRecipientSnapshot[];
      /** Members of a group left out by the workspace's setting (guests, invited people). */
      leftOut: { guests: number; invited: number };
    }
  /**
   * `cannot_receive`: someone cannot receive a card at all (a bot, deactivated, no e-mail address);
   * `left_out_by_setting`: only the workspace's setting leaves them out. The message names all of them.
   */
  | Refused<'cannot_receive' | 'left_out_by_setting'>;

const LOOKUP_CONCURRENCY = 8;

/** Why a Slack user cannot receive a card, or undefined if they can. */
export function refusalReason(user: WorkspaceUser | undefined, botUserId?: string): string | undefined {
  if (!user) return 'not found in this workspace';
  if (user.deleted) return 'deactivated';
  if (user.isBot || user.id === botUserId) return 'a bot';
  if (!user.email) return 'no e-mail address in their Slack profile';
  return undefined;
}

/**
 * Why the workspace's setting leaves a person out (`guest`, `invited`), or undefined: full members
 * always receive cards; guests (Slack's is_restricted, is_ultra_restricted) and people invited who
 * have not joined (is_invited_user) only where the workspace allows them.
 */
export function leftOutBySetting(
  user: Pick<WorkspaceUser, 'isGuest' | 'isInvited'>,
  allowed: CardRecipients,
): 'guest' | 'invited' | undefined {
  if (user.isInvited && allowed !== 'invited') return 'invited';
  if (user.isGuest && allowed === 'members') return 'guest';
  return undefined;
}

const ALLOWED_TEXT: Record<CardRecipients, string> = {
  members: 'full members only',
  guests: 'full members and guests only',
  invited: 'full members, guests and invited people',
};

/** The inline error for people picked by name whom the workspace's setting leaves out. */
function leftOutMessage(people: Array<{ name: string; why: 'guest' | 'invited' }>, allowed: CardRecipients): string {
  const guestsOnly = people.every((p) => p.why === 'guest');
  const invitedOnly = people.every((p) => p.why === 'invited');
  const who = guestsOnly
    ? 'Guests are'
    : invitedOnly
      ? 'People invited who have not joined Slack yet are'
      : 'Guests and people invited who have not joined yet are';
  const names =
    guestsOnly || invitedOnly
      ? people.map((p) => p.name)
      : people.map((p) => `${p.name} (${p.why === 'guest' ? 'a guest' : 'invited, not joined yet'})`);
  return `${who} left out: ${names.join(', ')}. This workspace sends cards to ${ALLOWED_TEXT[allowed]}; a Kudos admin can change that in the settings. Remove ${people.length === 1 ? 'them' : 'these people'} and try again.`;
}

/**
 * Checks Slack users (no bots, no deactivated users, an e-mail each, guests and invited people only as
 * the workspace allows); names everyone refused. Members of a group (`fromGroup`, not picked by name)
 * whom the setting leaves out are left out and counted, not refused.
 */
export async function checkSlackRecipients(
  directory: Pick<UserDirectory, 'userInfo'>,
  ws: Workspace,
  userIds: string[],
  opts: { botUserId?: string | undefined; cardRecipients?: CardRecipients; fromGroup?: ReadonlySet<string> } = {},
): Promise<RecipientCheck> {
  const allowed = opts.cardRecipients ?? 'members';
  const unique = [...new Set(userIds)];
  const users = await mapLimit(unique, LOOKUP_CONCURRENCY, (id) => directory.userInfo(ws, id));
  const cannotReceive: string[] = [];
  const excluded: Array<{ name: string; why: 'guest' | 'invited' }> = [];
  const leftOut = { guests: 0, invited: 0 };
  const recipients: KudosRecipientSnapshot[] = [];
  unique.forEach((id, i) => {
    const user = users[i];
    const reason = refusalReason(user, opts.botUserId);
    if (reason) {
      cannotReceive.push(`${user ? displayNameOf(user) : id} (${reason})`);
      return;
    }
    const why = leftOutBySetting(user!, allowed);
    if (why && opts.fromGroup?.has(id)) leftOut[why === 'guest' ? 'guests' : 'invited']++;
    else if (why) excluded.push({ name: displayNameOf(user!), why });
    else recipients.push(snapshotOf(user!));
  });
  const messages: string[] = [];
  if (cannotReceive.length > 0)
    messages.push(
      `Cannot send to ${cannotReceive.join(', ')}. Remove ${cannotReceive.length === 1 ? 'them' : 'these people'} and try again.`,
    );
  if (excluded.length > 0) messages.push(leftOutMessage(excluded, allowed));
  if (messages.length > 0)
    return refused(cannotReceive.length > 0 ? 'cannot_receive' : 'left_out_by_setting', messages.join(' '));
  return { ok: true, recipients, leftOut };
}

/** The note for a group whose guests or invited people were left out, or undefined when none were. */
export function leftOutNote(leftOut: { guests: number; invited: number }, allowed: CardRecipients): string | undefined {
  const parts: string[] = [];
  if (leftOut.guests > 0)
    parts.push(`${leftOut.guests.toLocaleString('en-US')} ${leftOut.guests === 1 ? 'guest' : 'guests'}`);
  if (leftOut.invited > 0)
    parts.push(
      `${leftOut.invited.toLocaleString('en-US')} invited ${leftOut.invited === 1 ? 'person' : 'people'} who ${leftOut.invited === 1 ? 'has' : 'have'} not joined yet`,
    );
  if (parts.length === 0) return undefined;
  return `Left out of the group: ${parts.join(' and ')}. This workspace sends cards to ${ALLOWED_TEXT[allowed]}; a Kudos admin can change that in the settings.`;
}

function snapshotOf(user: WorkspaceUser): KudosRecipientSnapshot {
  return {
    slackUserId: user.id,
    recipientId: null,
    email: user.email!,
    name: user.realName || displayNameOf(user),
    ...(user.firstName ? { firstName: user.firstName } : {}),
    ...(user.lastName ? { lastName: user.lastName } : {}),
  };
}

/** Members of a saved address-book group, as recipients. */
export async function expandAddressBookGroup(
  rewards: RewardsClient,
  groupId: string,
): Promise<KudosRecipientSnapshot[]> {
  const members: KudosRecipientSnapshot[] = [];
  for await (const member of rewards.groups.listMembers(groupId)) {
    let email = member.email;
    let firstName = member.firstName ?? undefined;
    let lastName = member.lastName ?? undefined;
    if (!email) {
      // The member listing's shape is not in the spec: fall back to the recipient record.
      const recipient = await rewards.recipients.get(member.recipientId);
      email = recipient.email;
      firstName ??= recipient.firstName ?? undefined;
      lastName ??= recipient.lastName ?? undefined;
    }
    const name = [firstName, lastName].filter(Boolean).join(' ') || email;
    members.push({
      slackUserId: null,
      recipientId: member.recipientId,
      email,
      name,
      ...(firstName ? { firstName } : {}),
      ...(lastName ? { lastName } : {}),
    });
  }
  return members;
}

/** Merges recipient lists, keeping the first of each e-mail address (case-insensitive). */
export function dedupeByEmail(lists: KudosRecipientSnapshot[][]): KudosRecipientSnapshot[] {
  const seen = new Set<string>();
  const out: KudosRecipientSnapshot[] = [];
  for (const r of lists.flat()) {
    const key = r.email.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(r);
  }
  return out;
}

/**
 * The address-book recipient of a Slack user and the address their cards go to: the stored mapping
 * while the Slack e-mail it was synced from is current (its address may be one a sender corrected
 * after a bounce); when the Slack e-mail changed, the recipient is updated (PUT) and the mapping with
 * it; otherwise found by exact e-mail or created, and the mapping stored.
 */
export async function ensureRecipientMapping(
  deps: { db: Database; rewards: RewardsClient },
  ws: Workspace,
  person: { slackUserId: string; email: string; firstName?: string | undefined; lastName?: string | undefined },
  opts: { signal?: AbortSignal | undefined } = {},
): Promise<{ recipientId: string; email: string }> {
  const { db, rewards } = deps;
  const call = opts.signal ? { signal: opts.signal } : {};
  const findMapping = prepared(db, 'recipientMappings.find', (d) =>
    d
      .select()
      .from(recipientMappings)
      .where(
        and(
          eq(recipientMappings.teamId, sql.placeholder('teamId')),
          eq(recipientMappings.slackUserId, sql.placeholder('slackUserId')),
        ),
      )
      .prepare('recipient_mappings_find'),
  );
  const [mapping] = await findMapping.execute({ teamId: ws.teamId, slackUserId: person.slackUserId });
  if (mapping && sameEmail(syncedSlackEmail(mapping), person.email))
    return { recipientId: mapping.recipientId, email: mapping.email };

  let recipientId: string | undefined;
  if (mapping) {
    try {
      const updated = await rewards.recipients.update(mapping.recipientId, nameFields(person), call);
      recipientId = updated.recipientId;
    } catch (error) {
      // The old recipient is gone, or another record already has the new address: look that one up.
      if (!isRewardsError(error, 'NOT_FOUND') && !isRewardsError(error, 'EMAIL_TAKEN')) throw error;
    }
  }
  // Create first: a new recipient costs one call; an existing address answers EMAIL_TAKEN and is
  // then looked up (createRecipient). Looking up first cost every new recipient two calls.
  recipientId ??= await createOnce(db, ws, () => createRecipient(rewards, person, call), person.email, opts.signal);

  const storeMapping = prepared(db, 'recipientMappings.store', (d) =>
    d
      .insert(recipientMappings)
      .values({
        teamId: sql`${sql.placeholder('teamId')}`,
        enterpriseId: sql`${sql.placeholder('enterpriseId')}`,
        slackUserId: sql`${sql.placeholder('slackUserId')}`,
        recipientId: sql`${sql.placeholder('recipientId')}`,
        email: sql`${sql.placeholder('email')}`,
        slackEmail: sql`${sql.placeholder('email')}`,
      })
      .onConflictDoUpdate({
        target: [recipientMappings.teamId, recipientMappings.slackUserId],
        set: {
          recipientId: sql`excluded.recipient_id`,
          email: sql`excluded.email`,
          slackEmail: sql`excluded.slack_email`,
          updatedAt: sql`now()`,
        },
      })
      .prepare('recipient_mappings_store'),
  );
  await storeMapping.execute({
    teamId: ws.teamId,
    enterpriseId: ws.enterpriseId ?? null,
    slackUserId: person.slackUserId,
    recipientId,
    email: person.email,
  });
  return { recipientId, email: person.email };
}

/** People of a big send mapped per round: one claim, one creation write and one mapping write each. */
const MAPPING_BATCH = 50;
/** Failed creations one attempt goes on after, at least (a tenth of the people, for a big group). */
const MAPPING_FAILURES_TOLERATED = 3;

type Person = { slackUserId: string; email: string; firstName?: string | undefined; lastName?: string | undefined };

/**
 * ensureRecipientMapping for many people at once (a big group's send): the stored mappings read in
 * one query; the people without one claimed in batches (recipient_creations, one statement a batch),
 * created `concurrency` at a time (each one Rewards request, through the account's rate budget) and
 * their creations and mappings written one statement a batch. A batch's mappings are stored before
 * the next is claimed, so a send resumed after a crash goes on from the last stored batch (a
 * recipient created but not yet stored is found again by its address: EMAIL_TAKEN, then a lookup).
 * Anyone whose mapping needs more (a changed Slack e-mail, another instance creating them) goes
 * through ensureRecipientMapping one by one. Answers by Slack user id.
 */
export async function ensureRecipientMappings(
  deps: { db: Database; rewards: RewardsClient },
  ws: Workspace,
  people: Person[],
  opts: { signal?: AbortSignal | undefined; concurrency: number },
): Promise<Map<string, { recipientId: string; email: string }>> {
  const { db, rewards } = deps;
  const found = new Map<string, { recipientId: string; email: string }>();
  const stored = await readStoredMappings(db, ws, people);
  const { one, batchable } = sortByMapping(people, stored, found);
  const me = randomUUID();
  // A flaky API fails a call here and there: the others go on, so that each attempt of a big first
  // send maps nearly everyone and the next one only the few left. An API failing every call (down,
  // refusing) stops the attempt after a tenth of the people rather than being asked once per person.
  const failures: CreationFailures = {
    count: 0,
    first: undefined,
    tolerated: Math.max(MAPPING_FAILURES_TOLERATED, Math.ceil(batchable.length / 10)),
  };
  for (let i = 0; i < batchable.length && goesOn(failures); i += MAPPING_BATCH) {
    opts.signal?.throwIfAborted();
    const batch = batchable.slice(i, i + MAPPING_BATCH);
    const mine = await claimCreations(db, ws, batch, me);
    const create = batch.filter((p) => mine.has(p.email.toLowerCase()));
    for (const p of batch) if (!mine.has(p.email.toLowerCase())) one.push(p);
    const created = await createRecipients(rewards, create, opts, failures);
    await recordCreations(db, ws, { create, created }, me);
    for (const c of created) found.set(c.person.slackUserId, { recipientId: c.recipientId, email: c.person.email });
  }
  opts.signal?.throwIfAborted();
  if (failures.first !== undefined) throw failures.first;
  for (const p of one) found.set(p.slackUserId, await ensureRecipientMapping(deps, ws, p, opts));
  return found;
}

type StoredMapping = typeof recipientMappings.$inferSelect;

/** The stored mappings of these people, by Slack user id (read 1,000 ids a query). */
async function readStoredMappings(db: Database, ws: Workspace, people: Person[]): Promise<Map<string, StoredMapping>> {
  const stored = new Map<string, StoredMapping>();
  for (let i = 0; i < people.length; i += 1000) {
    const ids = people.slice(i, i + 1000).map((p) => p.slackUserId);
    for (const m of await db
      .select()
      .from(recipientMappings)
      .where(and(eq(recipientMappings.teamId, ws.teamId), inArray(recipientMappings.slackUserId, ids))))
      stored.set(m.slackUserId, m);
  }
  return stored;
}

/**
 * Puts people whose stored mapping is current in `found`; of the rest, who is mapped one by one
 * (a changed Slack e-mail, an address shared with another) and who in batches (new, one per address).
 */
function sortByMapping(
  people: Person[],
  stored: Map<string, StoredMapping>,
  found: Map<string, { recipientId: string; email: string }>,
): { one: Person[]; batchable: Person[] } {
  const one: Person[] = [];
  const fresh: Person[] = [];
  for (const p of people) {
    const mapping = stored.get(p.slackUserId);
    if (mapping && sameEmail(syncedSlackEmail(mapping), p.email))
      found.set(p.slackUserId, { recipientId: mapping.recipientId, email: mapping.email });
    else if (mapping) one.push(p);
    else fresh.push(p);
  }
  // One person per address: two Slack users sharing one are mapped one by one (each waits for the creation).
  const byEmail = new Map<string, Person>();
  for (const p of fresh) {
    const key = p.email.toLowerCase();
    if (byEmail.has(key)) one.push(p);
    else byEmail.set(key, p);
  }
  return { one, batchable: [...byEmail.values()] };
}

/** Failed creations of one attempt: how many, the first one's error, and how many the attempt goes on after. */
interface CreationFailures {
  count: number;
  first: Error | undefined;
  tolerated: number;
}

function goesOn(failures: CreationFailures): boolean {
  return failures.count < failures.tolerated;
}

/** Claims the creation of a batch's addresses (one statement); answers the addresses this attempt holds. */
async function claimCreations(db: Database, ws: Workspace, batch: Person[], me: string): Promise<Set<string>> {
  const claimed = await db
    .insert(recipientCreations)
    .values(
      batch.map((p) => ({
        teamId: ws.teamId,
        enterpriseId: ws.enterpriseId ?? null,
        email: p.email.toLowerCase(),
        claimedBy: me,
        claimedUntil: creationClaimUntil(),
      })),
    )
    .onConflictDoUpdate(takeOverCreation(me))
    .returning({ email: recipientCreations.email, claimedBy: recipientCreations.claimedBy });
  return new Set(claimed.filter((c) => c.claimedBy === me).map((c) => c.email));
}

/** Creates the claimed people's recipients, `concurrency` at a time, counting failures rather than stopping at one. */
async function createRecipients(
  rewards: RewardsClient,
  create: Person[],
  opts: { signal?: AbortSignal | undefined; concurrency: number },
  failures: CreationFailures,
): Promise<Array<{ person: Person; recipientId: string }>> {
  const call = opts.signal ? { signal: opts.signal } : {};
  const created: Array<{ person: Person; recipientId: string }> = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(opts.concurrency, create.length) }, async () => {
      while (goesOn(failures) && !opts.signal?.aborted && next < create.length) {
        const person = create[next++]!;
        try {
          created.push({ person, recipientId: await createRecipient(rewards, person, call) });
        } catch (error) {
          failures.count++;
          failures.first ??= error instanceof Error ? error : new Error(String(error));
        }
      }
    }),
  );
  return created;
}

/**
 * Stores a batch's new mappings and marks their creations done (one statement each); claims not
 * finished (a failure part-way) are given up at once: whoever comes next creates them.
 */
async function recordCreations(
  db: Database,
  ws: Workspace,
  batch: { create: Person[]; created: Array<{ person: Person; recipientId: string }> },
  me: string,
): Promise<void> {
  const { create, created } = batch;
  if (created.length === 0) {
    if (create.length > 0)
      await releaseCreations(
        db,
        ws,
        create.map((p) => p.email.toLowerCase()),
        me,
      );
    return;
  }
  const done = new Set(created.map((c) => c.person.email.toLowerCase()));
  await db
    .insert(recipientMappings)
    .values(
      created.map((c) => ({
        teamId: ws.teamId,
        enterpriseId: ws.enterpriseId ?? null,
        slackUserId: c.person.slackUserId,
        recipientId: c.recipientId,
        email: c.person.email,
        slackEmail: c.person.email,
      })),
    )
    .onConflictDoUpdate({
      target: [recipientMappings.teamId, recipientMappings.slackUserId],
      set: {
        recipientId: sql`excluded.recipient_id`,
        email: sql`excluded.email`,
        slackEmail: sql`excluded.slack_email`,
        updatedAt: sql`now()`,
      },
    });
  await db.execute(sql`
    update recipient_creations rc set recipient_id = v.recipient_id, done_at = now()
    from (values ${sql.join(
      created.map((c) => sql`(${c.person.email.toLowerCase()}, ${c.recipientId})`),
      sql`, `,
    )}) as v(email, recipient_id)
    where rc.team_id = ${ws.teamId} and rc.email = v.email and rc.claimed_by = ${me}`);
  const unfinished = create.filter((p) => !done.has(p.email.toLowerCase())).map((p) => p.email.toLowerCase());
  if (unfinished.length > 0) await releaseCreations(db, ws, unfinished, me);
}

async function releaseCreations(db: Database, ws: Workspace, emails: string[], me: string): Promise<void> {
  await db
    .update(recipientCreations)
    .set({ claimedUntil: sql`now()` })
    .where(
      and(
        eq(recipientCreations.teamId, ws.teamId),
        inArray(recipientCreations.email, emails),
        eq(recipientCreations.claimedBy, me),
      ),
    )
    .catch(() => undefined);
}

/** How long a creation claim holds (a crashed claimer's is taken over after it). */
const CREATION_CLAIM_S = 30;
/** A finished creation answers the ones that waited for it this long. */
const CREATION_ANSWERS_S = 600;

const creationClaimUntil = () => sql`now() + ${`${CREATION_CLAIM_S} seconds`}::interval`;

/**
 * A creation claim another attempt may take over: one whose holder died (claim ran out, not done), or
 * one done longer ago than its answer is kept. The batch claim and the single claim share it.
 */
function takeOverCreation(me: string) {
  return {
    target: [recipientCreations.teamId, recipientCreations.email],
    set: { claimedBy: me, claimedUntil: creationClaimUntil(), recipientId: null, doneAt: null },
    setWhere: sql`(${recipientCreations.doneAt} is null and ${recipientCreations.claimedUntil} <= now()) or ${recipientCreations.doneAt} <= now() - ${`${CREATION_ANSWERS_S} seconds`}::interval`,
  };
}
const CREATION_RECHECK_MS = 100;

/**
 * Single flight per workspace and e-mail, across instances (recipient_creations): the first claimer
 * runs `create`, the others wait (following the signal) for the id it stores. A claimer that failed
 * gives its claim up at once; one that died loses it after CREATION_CLAIM_S.
 */
async function createOnce(
  db: Database,
  ws: Workspace,
  create: () => Promise<string>,
  email: string,
  signal: AbortSignal | undefined,
): Promise<string> {
  const key = email.toLowerCase();
  const me = randomUUID();
  for (;;) {
    if (signal?.aborted) throw signal.reason ?? new Error('aborted');
    const [claimed] = await db
      .insert(recipientCreations)
      .values({
        teamId: ws.teamId,
        enterpriseId: ws.enterpriseId ?? null,
        email: key,
        claimedBy: me,
        claimedUntil: creationClaimUntil(),
      })
      .onConflictDoUpdate(takeOverCreation(me))
      .returning();
    if (claimed && claimed.claimedBy === me) {
      try {
        const recipientId = await create();
        await db
          .update(recipientCreations)
          .set({ recipientId, doneAt: sql`now()` })
          .where(
            and(
              eq(recipientCreations.teamId, ws.teamId),
              eq(recipientCreations.email, key),
              eq(recipientCreations.claimedBy, me),
            ),
          );
        return recipientId;
      } catch (error) {
        await db
          .update(recipientCreations)
          .set({ claimedUntil: sql`now()` })
          .where(
            and(
              eq(recipientCreations.teamId, ws.teamId),
              eq(recipientCreations.email, key),
              eq(recipientCreations.claimedBy, me),
            ),
          )
          .catch(() => undefined);
        throw error;
      }
    }
    const [current] = await db
      .select()
      .from(recipientCreations)
      .where(and(eq(recipientCreations.teamId, ws.teamId), eq(recipientCreations.email, key)));
    if (current?.recipientId && current.doneAt) return current.recipientId;
    await delay(CREATION_RECHECK_MS, undefined, signal ? { signal } : undefined);
  }
}

/** The Slack e-mail a mapping was synced from (older rows: their delivery address). */
function syncedSlackEmail(mapping: { email: string; slackEmail: string | null }): string {
  return mapping.slackEmail ?? mapping.email;
}

function sameEmail(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

function nameFields(person: { email: string; firstName?: string | undefined; lastName?: string | undefined }) {
  return {
    email: person.email,
    ...(person.firstName ? { firstName: person.firstName } : {}),
    ...(person.lastName ? { lastName: person.lastName } : {}),
  };
}

async function findRecipientByEmail(
  rewards: RewardsClient,
  email: string,
  call: { signal?: AbortSignal },
): Promise<string | undefined> {
  const wanted = email.toLowerCase();
  for await (const recipient of rewards.recipients.list({ searchKeyword: email }, call)) {
    if (recipient.email.toLowerCase() === wanted) return recipient.recipientId;
  }
  return undefined;
}

async function createRecipient(
  rewards: RewardsClient,
  person: { email: string; firstName?: string | undefined; lastName?: string | undefined },
  call: { signal?: AbortSignal },
): Promise<string> {
  try {
    return (await rewards.recipients.create(nameFields(person), call)).recipientId;
  } catch (error) {
    // Created meanwhile by someone else (another instance, the portal): use that one.
    if (isRewardsError(error, 'EMAIL_TAKEN') || isRewardsError(error, 'VALIDATION_ERROR')) {
      const found = await findRecipientByEmail(rewards, person.email, call);
      if (found) return found;
    }
    throw error;
  }
}

/** user_change: when a mapped user's Slack e-mail changed, update their recipient and mapping. */
export async function syncChangedSlackUser(
  deps: { db: Database; rewards: RewardsClient },
  ws: Workspace,
  user: WorkspaceUser,
): Promise<'updated' | 'unchanged' | 'unmapped'> {
  const [mapping] = await deps.db
    .select()
    .from(recipientMappings)
    .where(and(eq(recipientMappings.teamId, ws.teamId), eq(recipientMappings.slackUserId, user.id)));
  if (!mapping) return 'unmapped';
  if (!user.email || user.deleted || sameEmail(syncedSlackEmail(mapping), user.email)) return 'unchanged';
  await ensureRecipientMapping(deps, ws, {
    slackUserId: user.id,
    email: user.email,
    firstName: user.firstName,
    lastName: user.lastName,
  });
  return 'updated';
}

async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  });
  await Promise.all(workers);
  return results;
}
