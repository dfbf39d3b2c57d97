// "Fix address and resend": the order is resent to the corrected address (updatedEmail), then the
// address book and the Slack mapping are corrected so that later sends use it. Once per bounced
// recipient: the row moves open -> resending -> resent with conditional updates, so a double
// submission or a second instance does not resend twice. A resend holds its row for a lease and its
// writes are fenced on that claim; one left `resending` by a process that died is taken over after
// the lease (by the background sweep, or the sender's next try), and the order is looked at before
// resending again, so a try that did reach the API is not repeated. A resend moves no money (the
// card is paid already); what is at stake is a second e-mail and a truthful DM.
import { and, eq, or, sql } from 'drizzle-orm';
import { z } from 'zod';

import type { Logger } from '../../config/logger.js';
import type { Database } from '../../db/client.js';
import {
  type BouncedRecipientRow,
  bouncedRecipients,
  type BounceStatus,
  recipientMappings,
} from '../../db/schema/index.js';
import { isRewardsError, type RewardsClient } from '../../rewards/index.js';
import type { RewardsAccounts } from '../accounts/rewards-accounts.js';
import { describeForUser } from '../accounts/rewards-failures.js';
import { type Messenger } from '../common/ports.js';
import { type Refused, refused } from '../common/refusal.js';
import { moveGuard, type StatusTransitions } from '../common/status-transitions.js';
import type { NoticePresenter } from '../notices/notices.js';
import { tellResendOutcome } from './resend-notices.js';

/**
 * Every status a bounced card may be written with, from each status (common/status-transitions.ts):
 * claimed for a resend (an open one, or a resend whose holder's lease ran out, taken over), then
 * resent, or open again when the resend failed.
 */
export const BOUNCE_STATUS_TRANSITIONS = {
  open: ['resending'],
  resending: ['open', 'resending', 'resent'],
  resent: [],
} as const satisfies StatusTransitions<BounceStatus>;

export interface ResendDeps {
  db: Database;
  rewards: RewardsAccounts;
  logger: Logger;
}

const emailSchema = z.email();

/** Inline check of the corrected address; undefined when it is fine. */
export function checkCorrectedEmail(input: string | null | undefined, bounced: string): string | undefined {
  const email = (input ?? '').trim();
  if (email === '') return 'Enter the correct e-mail address.';
  if (!emailSchema.safeParse(email).success) return 'That does not look like an e-mail address (name@company.com).';
  if (email.toLowerCase() === bounced.toLowerCase()) return 'That is the address that bounced. Enter a different one.';
  return undefined;
}

/** The workspace's bounced card `id`; another workspace's is as unknown as one that never existed. */
export async function getBounce(
  db: Database,
  ws: { teamId: string },
  id: string,
): Promise<BouncedRecipientRow | undefined> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
  const [row] = await db
    .select()
    .from(bouncedRecipients)
    .where(and(eq(bouncedRecipients.teamId, ws.teamId), eq(bouncedRecipients.id, id)));
  return row;
}

/** A refusal carries the bounced card when there is one, so that its DM can be brought up to date. */
export type ResendOutcome =
  | { ok: true; row: BouncedRecipientRow; note?: string }
  | (Refused<'not_found' | 'forbidden' | 'already_resent' | 'in_progress' | 'api_error'> & {
      row?: BouncedRecipientRow;
    });

/** Someone else resent the card, or holds its resend now: `latest` says which. */
function alreadyTaken(latest: BouncedRecipientRow, resentTo: string): ResendOutcome {
  return latest.status === 'resent'
    ? { ...refused('already_resent', `Already resent to ${latest.correctedEmail ?? resentTo}.`), row: latest }
    : { ...refused('in_progress', 'A resend is already in progress.'), row: latest };
}

/**
 * How long one resend holds its row. The call is aborted well inside it; after it, a resend whose
 * process died (status `resending` forever, "already in progress") is taken over by the sweep or by
 * the sender's next try.
 */
export const RESEND_LEASE_MS = 5 * 60_000;
/** The resend call (with its retries and rate-limit waits) is given up this long before the lease ends. */
const RESEND_CALL_MARGIN_MS = 60_000;

/** Someone holds this resend now (its lease has not run out): the sender is told it is in progress. */
export function resendInProgress(
  row: Pick<BouncedRecipientRow, 'status' | 'claimedUntil' | 'updatedAt'>,
  now: Date,
  leaseMs = RESEND_LEASE_MS,
): boolean {
  if (row.status !== 'resending') return false;
  const until = row.claimedUntil ?? new Date(row.updatedAt.getTime() + leaseMs);
  return until.getTime() > now.getTime();
}

/** Takes the row for one resend: open, or resending whose holder's lease ran out. */
async function claimResend(
  db: Database,
  bounceId: string,
  set: { correctedEmail?: string; resentBy?: string },
  leaseMs: number,
): Promise<BouncedRecipientRow | undefined> {
  const [claimed] = await db
    .update(bouncedRecipients)
    .set({
      status: 'resending',
      ...(set.correctedEmail !== undefined ? { correctedEmail: set.correctedEmail } : {}),
      ...(set.resentBy !== undefined ? { resentBy: set.resentBy } : {}),
      claimedUntil: sql`now() + ${`${leaseMs} milliseconds`}::interval`,
      attempts: sql`${bouncedRecipients.attempts} + 1`,
      updatedAt: sql`now()`,
    })
    .where(
      and(
        eq(bouncedRecipients.id, bounceId),
        or(moveGuard(bouncedRecipients.status, BOUNCE_STATUS_TRANSITIONS, 'resending', ['open']), staleResend(leaseMs)),
      ),
    )
    .returning();
  return claimed;
}

/** A resend whose holder is gone: its lease ran out (or, for rows from before leases, it is older than one). */
function staleResend(leaseMs: number) {
  return and(
    eq(bouncedRecipients.status, 'resending'),
    sql`coalesce(${bouncedRecipients.claimedUntil}, ${bouncedRecipients.updatedAt} + ${`${leaseMs} milliseconds`}::interval) < now()`,
  );
}

/** Writes after a claim change the row only while this claim still holds it. */
function heldBy(claimed: BouncedRecipientRow) {
  return and(
    eq(bouncedRecipients.id, claimed.id),
    eq(bouncedRecipients.status, 'resending'),
    eq(bouncedRecipients.attempts, claimed.attempts),
  );
}

/**
 * Whether an earlier try already resent the card: the order then lists the corrected address in
 * place of the one that bounced (the API replaces it before resending).
 */
async function alreadyResentTo(
  rewards: RewardsClient,
  bounce: BouncedRecipientRow,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const corrected = bounce.correctedEmail?.toLowerCase();
  if (!corrected) return undefined;
  const order = await rewards.orders.get(bounce.orderId, signal ? { signal } : undefined);
  const emails = order.recipients.map((r) => r.email?.toLowerCase()).filter((e): e is string => !!e);
  return emails.includes(corrected) && !emails.includes(bounce.email.toLowerCase())
    ? bounce.correctedEmail!
    : undefined;
}

export async function resendBouncedCard(
  deps: ResendDeps,
  input: {
    bounceId: string;
    teamId: string;
    actorUserId: string;
    actorIsAdmin: boolean;
    newEmail: string;
    leaseMs?: number;
  },
): Promise<ResendOutcome> {
  const bounce = await getBounce(deps.db, input, input.bounceId);
  if (!bounce) return refused('not_found', 'This bounced card is not known any more.');
  if (bounce.senderUserId !== input.actorUserId && !input.actorIsAdmin) {
    return {
      ...refused('forbidden', 'Only the sender of these kudos (or an admin) can resend the card.'),
      row: bounce,
    };
  }
  const leaseMs = input.leaseMs ?? RESEND_LEASE_MS;
  const newEmail = input.newEmail.trim();
  // Taken when open, or when a resend was left `resending` by a process that died (its lease ran
  // out). If an earlier try may have reached the API (a lost answer, a dead process), the order says
  // first whether it did: then it is done, to the address asked for then, and not resent again.
  const taken = await claimResend(deps.db, bounce.id, { resentBy: input.actorUserId }, leaseMs);
  let claimed: BouncedRecipientRow | undefined;
  if (taken) {
    let earlier: string | undefined;
    try {
      earlier = taken.attempts > 1 ? await alreadyResentTo(await deps.rewards.for(taken), taken) : undefined;
    } catch (error) {
      const message = describeForUser(error, 'resend the card');
      const [reopened] = await deps.db
        .update(bouncedRecipients)
        .set({ status: 'open', error: message, claimedUntil: null, updatedAt: sql`now()` })
        .where(heldBy(taken))
        .returning();
      return { ...refused('api_error', message), row: reopened ?? taken };
    }
    if (earlier) {
      const [resent] = await deps.db
        .update(bouncedRecipients)
        .set({ status: 'resent', resentAt: sql`now()`, claimedUntil: null, error: null, updatedAt: sql`now()` })
        .where(heldBy(taken))
        .returning();
      return { ...refused('already_resent', `Already resent to ${earlier}.`), row: resent ?? taken };
    }
    [claimed] = await deps.db
      .update(bouncedRecipients)
      .set({ correctedEmail: newEmail, updatedAt: sql`now()` })
      .where(heldBy(taken))
      .returning();
  }
  if (!claimed) {
    return alreadyTaken((await getBounce(deps.db, bounce, bounce.id)) ?? bounce, 'the corrected address');
  }
  return performResend(deps, claimed, leaseMs, { lookFirst: false });
}

/**
 * The resend for a claimed row. `lookFirst` (a resend taken over from a process that died): the order
 * is looked at first, so a try that reached the API is not repeated.
 */
async function performResend(
  deps: ResendDeps,
  claimed: BouncedRecipientRow,
  leaseMs: number,
  opts: { lookFirst: boolean },
): Promise<ResendOutcome> {
  const newEmail = claimed.correctedEmail ?? '';
  const log = deps.logger.child({ orderId: claimed.orderId, kudosId: claimed.kudosId, bounceId: claimed.id });
  const signal = AbortSignal.timeout(Math.max(1000, leaseMs - RESEND_CALL_MARGIN_MS));
  let resentTo = newEmail;
  try {
    // The bounce's own workspace's account.
    const rewards = await deps.rewards.for(claimed);
    const earlier = opts.lookFirst ? await alreadyResentTo(rewards, claimed, signal) : undefined;
    if (earlier) {
      resentTo = earlier;
      log.info('an earlier try had resent the card already; not resending again');
    } else {
      await rewards.orders.resend(
        claimed.orderId,
        { recipients: [{ email: claimed.email, updatedEmail: newEmail }] },
        { signal },
      );
    }
  } catch (error) {
    log.warn('resend failed', { error });
    const message = describeForUser(error, 'resend the card');
    const [reopened] = await deps.db
      .update(bouncedRecipients)
      .set({ status: 'open', error: message, claimedUntil: null, updatedAt: sql`now()` })
      .where(heldBy(claimed))
      .returning();
    return { ...refused('api_error', message), row: reopened ?? claimed };
  }

  const [resent] = await deps.db
    .update(bouncedRecipients)
    .set({
      status: 'resent',
      correctedEmail: resentTo,
      resentAt: sql`now()`,
      claimedUntil: null,
      error: null,
      updatedAt: sql`now()`,
    })
    .where(heldBy(claimed))
    .returning();
  if (!resent) {
    // Our lease ran out and someone else holds the resend now: they finish it and tell.
    log.warn('resend lease lost before recording; the new holder records it');
    return alreadyTaken((await getBounce(deps.db, claimed, claimed.id)) ?? claimed, resentTo);
  }
  log.info('card resent to a corrected address');

  // For the future: the address book and the Slack mapping. The card is resent already, so a failure
  // here is logged and told, not undone.
  let note: string | undefined;
  try {
    const recipientId = await correctAddressBook(await deps.rewards.for(claimed), claimed, resentTo);
    if (claimed.slackUserId && recipientId) {
      await deps.db
        .update(recipientMappings)
        // Only the delivery address: slack_email keeps the profile e-mail, so the next send does not
        // "sync" the address back to the one that bounced.
        .set({
          email: resentTo,
          recipientId,
          slackEmail: sql`coalesce(${recipientMappings.slackEmail}, ${recipientMappings.email})`,
          updatedAt: new Date(),
        })
        .where(
          and(eq(recipientMappings.teamId, claimed.teamId), eq(recipientMappings.slackUserId, claimed.slackUserId)),
        );
    }
  } catch (error) {
    log.warn('correcting the address book failed', { error });
    note = '_The address book could not be updated; update it in the Rewards portal._';
  }
  return { ok: true, row: resent, ...(note ? { note } : {}) };
}

/**
 * The sweep's part: resends left `resending` past their lease (the process died between the claim
 * and recording the outcome) are finished, at most once each, and the sender's DM updated.
 */
export async function recoverStuckResends(
  deps: ResendDeps & { chat: Messenger; present: NoticePresenter },
  opts: { leaseMs?: number; limit?: number } = {},
): Promise<number> {
  const leaseMs = opts.leaseMs ?? RESEND_LEASE_MS;
  const stuck = await deps.db
    .select()
    .from(bouncedRecipients)
    .where(staleResend(leaseMs))
    .limit(opts.limit ?? 20);
  let recovered = 0;
  for (const row of stuck) {
    const claimed = await claimResend(deps.db, row.id, {}, leaseMs);
    if (!claimed) continue;
    deps.logger.warn('taking over a resend left in progress', { bounceId: row.id, orderId: row.orderId });
    const outcome = await performResend(deps, claimed, leaseMs, { lookFirst: true });
    recovered++;
    const latest = outcome.row ?? claimed;
    if (!outcome.ok && outcome.code !== 'api_error') continue;
    await tellResendOutcome(deps, latest, { resent: outcome.ok, note: outcome.ok ? outcome.note : undefined }).catch(
      (error: unknown) => deps.logger.warn('telling the sender about a resend failed', { bounceId: row.id, error }),
    );
  }
  return recovered;
}

/** Points the address-book entry at the new address; returns the recipient id that now holds it. */
async function correctAddressBook(
  rewards: RewardsClient,
  bounce: BouncedRecipientRow,
  newEmail: string,
): Promise<string | undefined> {
  let recipientId = bounce.recipientId ?? (await findRecipientId(rewards, bounce.email));
  if (!recipientId)
    return (
      (await findRecipientId(rewards, newEmail)) ?? (await rewards.recipients.create({ email: newEmail })).recipientId
    );
  try {
    const current = await rewards.recipients.get(recipientId);
    await rewards.recipients.update(recipientId, {
      email: newEmail,
      ...(current.firstName ? { firstName: current.firstName } : {}),
      ...(current.lastName ? { lastName: current.lastName } : {}),
      ...(current.company ? { company: current.company } : {}),
      ...(current.department ? { department: current.department } : {}),
    });
  } catch (error) {
    // Another entry already has the corrected address: that one is the person from now on.
    if (!isRewardsError(error, 'EMAIL_TAKEN') && !isRewardsError(error, 'NOT_FOUND')) throw error;
    recipientId = await findRecipientId(rewards, newEmail);
  }
  return recipientId;
}

async function findRecipientId(rewards: RewardsClient, email: string): Promise<string | undefined> {
  const wanted = email.toLowerCase();
  for await (const recipient of rewards.recipients.list({ searchKeyword: email })) {
    if (recipient.email.toLowerCase() === wanted) return recipient.recipientId;
  }
  return undefined;
}
