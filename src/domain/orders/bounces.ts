// Which recipients of a completed order bounced, recorded; the sender's one DM shows them.
//
// The spec gives only `bouncedCount` and `recipients[].email`; it shows no per-recipient status.
// When the order detail carries one (the emulator sends `status: SENT | BOUNCED` per recipient) we
// use it. Without it: if every card bounced, all are bounced; otherwise the sender is asked to check
// every recipient's address (marked unconfirmed), since guessing would be worse.
import type { Logger } from '../../config/logger.js';
import type { Database } from '../../db/client.js';
import { bouncedRecipients, type KudosRecipientSnapshot, type KudosRow } from '../../db/schema/index.js';
import type { Order } from '../../rewards/index.js';
import type { Messenger } from '../common/ports.js';
import type { NoticePresenter } from '../notices/notices.js';
import { pointBouncesAt, senderDmNotice, updateSenderDm } from '../sending/sender-dm.js';

/** More bounced cards than this for one order are not listed in the sender's DM (it would be spam). */
export const MAX_BOUNCE_DMS = 20;

export interface BouncedRecipient {
  email: string;
  name: string;
  slackUserId: string | null;
  recipientId: string | null;
}

export function bouncedRecipientsOf(
  order: Pick<Order, 'recipients' | 'bouncedCount'>,
  snapshot: KudosRecipientSnapshot[],
): { confirmed: boolean; recipients: BouncedRecipient[] } {
  const bouncedCount = order.bouncedCount ?? 0;
  if (bouncedCount <= 0) return { confirmed: true, recipients: [] };
  const entries = order.recipients.filter(
    (r): r is typeof r & { email: string } => typeof r.email === 'string' && r.email.length > 0,
  );
  const hasStatus = entries.some((r) => typeof r.status === 'string');
  let chosen: string[];
  let confirmed = true;
  if (hasStatus) chosen = entries.filter((r) => /bounce/i.test(r.status ?? '')).map((r) => r.email);
  else {
    chosen = entries.map((r) => r.email);
    confirmed = bouncedCount >= entries.length;
  }
  const byEmail = new Map(snapshot.map((s) => [s.email.toLowerCase(), s]));
  const unique = [...new Map(chosen.map((email) => [email.toLowerCase(), email])).values()];
  return {
    confirmed,
    recipients: unique.map((email) => {
      const known = byEmail.get(email.toLowerCase());
      return {
        email,
        name: known?.name ?? email,
        slackUserId: known?.slackUserId ?? null,
        recipientId: known?.recipientId ?? null,
      };
    }),
  };
}

/**
 * Records each bounced recipient of `order` once (at most MAX_BOUNCE_DMS of them: more would be spam;
 * the rest are logged). Returns the e-mail addresses that bounced, lower case.
 */
export async function recordBounces(
  deps: { db: Database; logger: Logger },
  row: KudosRow,
  order: Order,
): Promise<Set<string>> {
  const { confirmed, recipients } = bouncedRecipientsOf(order, row.recipients);
  for (const r of recipients.slice(0, MAX_BOUNCE_DMS)) {
    await deps.db
      .insert(bouncedRecipients)
      .values({
        teamId: row.teamId,
        enterpriseId: row.enterpriseId,
        kudosId: row.id,
        orderId: order.orderId,
        senderUserId: row.senderUserId,
        email: r.email,
        name: r.name,
        slackUserId: r.slackUserId,
        recipientId: r.recipientId,
        confirmed,
      })
      .onConflictDoNothing({ target: [bouncedRecipients.orderId, bouncedRecipients.email] });
  }
  if (recipients.length > MAX_BOUNCE_DMS)
    deps.logger.warn('more bounced recipients than the sender is shown', {
      orderId: order.orderId,
      bounced: recipients.length,
    });
  return new Set(recipients.map((r) => r.email.toLowerCase()));
}

/**
 * A part of a send finished with bounced cards before the whole send did: recorded, and the sender's
 * one DM (never a public thread) shows each bounced card with "Fix address and resend".
 */
export async function notifyBounces(
  deps: { db: Database; chat: Messenger; present: NoticePresenter; logger: Logger },
  row: KudosRow,
  order: Order,
): Promise<void> {
  await recordBounces(deps, row, order);
  const dm = await updateSenderDm(
    deps,
    row,
    `bounced:${order.orderId}`,
    deps.present(await senderDmNotice(deps.db, row, false)),
  );
  if (dm) await pointBouncesAt(deps.db, row.id, dm);
}
