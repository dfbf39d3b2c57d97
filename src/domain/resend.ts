// "Fix address and resend": the order is resent to the corrected address (updatedEmail), then the
// address book and the Slack mapping are corrected so that later sends use it. Exactly once per
// bounced recipient: the row moves open -> resending -> resent with conditional updates, so a double
// submission or a second instance does not resend twice.
import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Logger } from '../config/logger.js';
import type { Database } from '../db/client.js';
import { bouncedRecipients, recipientMappings, type BouncedRecipientRow } from '../db/schema/index.js';
import { isRewardsError, type RewardsClient } from '../rewards/index.js';
import { describeForUser } from './rewards-errors.js';

export interface ResendDeps {
  db: Database;
  rewards: RewardsClient;
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

export async function getBounce(db: Database, id: string): Promise<BouncedRecipientRow | undefined> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
  const [row] = await db.select().from(bouncedRecipients).where(eq(bouncedRecipients.id, id));
  return row;
}

export type ResendOutcome = { ok: true; row: BouncedRecipientRow; note?: string } | { ok: false; reason: 'not_found' | 'forbidden' | 'already' | 'failed'; message: string; row?: BouncedRecipientRow };

export async function resendBouncedCard(deps: ResendDeps, input: { bounceId: string; teamId: string; actorUserId: string; actorIsAdmin: boolean; newEmail: string }): Promise<ResendOutcome> {
  const bounce = await getBounce(deps.db, input.bounceId);
  if (!bounce || bounce.teamId !== input.teamId) return { ok: false, reason: 'not_found', message: 'This bounced card is not known any more.' };
  if (bounce.senderUserId !== input.actorUserId && !input.actorIsAdmin) {
    return { ok: false, reason: 'forbidden', message: 'Only the sender of these kudos (or an admin) can resend the card.', row: bounce };
  }
  const newEmail = input.newEmail.trim();
  const [claimed] = await deps.db
    .update(bouncedRecipients)
    .set({ status: 'resending', correctedEmail: newEmail, updatedAt: sql`now()` })
    .where(and(eq(bouncedRecipients.id, bounce.id), eq(bouncedRecipients.status, 'open')))
    .returning();
  if (!claimed) {
    return {
      ok: false,
      reason: 'already',
      message: bounce.status === 'resent' ? `Already resent to ${bounce.correctedEmail ?? 'the corrected address'}.` : 'A resend is already in progress.',
      row: bounce,
    };
  }
  const log = deps.logger.child({ orderId: bounce.orderId, kudosId: bounce.kudosId, bounceId: bounce.id });

  try {
    await deps.rewards.orders.resend(bounce.orderId, { recipients: [{ email: bounce.email, updatedEmail: newEmail }] });
  } catch (error) {
    log.warn('resend failed', { error });
    const message = describeForUser(error, 'resend the card');
    const [reopened] = await deps.db
      .update(bouncedRecipients)
      .set({ status: 'open', error: message, updatedAt: sql`now()` })
      .where(eq(bouncedRecipients.id, bounce.id))
      .returning();
    return { ok: false, reason: 'failed', message, row: reopened ?? bounce };
  }

  const [resent] = await deps.db
    .update(bouncedRecipients)
    .set({ status: 'resent', resentBy: input.actorUserId, resentAt: sql`now()`, error: null, updatedAt: sql`now()` })
    .where(eq(bouncedRecipients.id, bounce.id))
    .returning();
  log.info('card resent to a corrected address');

  // For the future: the address book and the Slack mapping. The card is resent already, so a failure
  // here is logged and told, not undone.
  let note: string | undefined;
  try {
    const recipientId = await correctAddressBook(deps.rewards, bounce, newEmail);
    if (bounce.slackUserId && recipientId) {
      await deps.db
        .update(recipientMappings)
        // Only the delivery address: slack_email keeps the profile e-mail, so the next send does not
        // "sync" the address back to the one that bounced.
        .set({ email: newEmail, recipientId, slackEmail: sql`coalesce(${recipientMappings.slackEmail}, ${recipientMappings.email})`, updatedAt: new Date() })
        .where(and(eq(recipientMappings.teamId, bounce.teamId), eq(recipientMappings.slackUserId, bounce.slackUserId)));
    }
  } catch (error) {
    log.warn('correcting the address book failed', { error });
    note = '_The address book could not be updated; update it in the Rewards portal._';
  }
  return { ok: true, row: resent ?? bounce, ...(note ? { note } : {}) };
}

/** Points the address-book entry at the new address; returns the recipient id that now holds it. */
async function correctAddressBook(rewards: RewardsClient, bounce: BouncedRecipientRow, newEmail: string): Promise<string | undefined> {
  let recipientId = bounce.recipientId ?? (await findRecipientId(rewards, bounce.email));
  if (!recipientId) return (await findRecipientId(rewards, newEmail)) ?? (await rewards.recipients.create({ email: newEmail })).recipientId;
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
