// Which recipients of a completed order bounced, and the sender's DM for each.
//
// The spec gives only `bouncedCount` and `recipients[].email`; it shows no per-recipient status.
// When the order detail carries one (the emulator sends `status: SENT | BOUNCED` per recipient) we
// use it. Without it: if every card bounced, all are bounced; otherwise the sender is asked to check
// every recipient's address (marked unconfirmed), since guessing would be worse.
import { and, eq, sql } from 'drizzle-orm';

import type { Logger } from '../../config/logger.js';
import type { Database } from '../../db/client.js';
import {
  type BouncedRecipientRow,
  bouncedRecipients,
  type KudosRecipientSnapshot,
  type KudosRow,
} from '../../db/schema/index.js';
import type { Order } from '../../rewards/index.js';
import type { Messenger } from '../common/ports.js';
import type { NoticePresenter } from '../notices/notices.js';
import { postOnceOrLater } from '../notices/outbox.js';

/** More DMs than this for one order would be spam: the rest are summed up in the last one. */
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

/** Records each bounced recipient once and DMs the sender once per recipient, with the fix button. */
export async function notifyBounces(
  deps: { db: Database; chat: Messenger; present: NoticePresenter; logger: Logger },
  row: KudosRow,
  order: Order,
): Promise<number> {
  const { confirmed, recipients } = bouncedRecipientsOf(order, row.recipients);
  let posted = 0;
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
    const bounce = await findBounce(deps.db, order.orderId, r.email);
    if (!bounce) continue;
    // Recorded is enough: a DM Slack does not take now (paced) is posted by the outbox.
    const result = await postOnceOrLater(
      deps,
      {
        kind: 'order.bounced',
        subject: `${order.orderId}:${r.email.toLowerCase()}`,
        teamId: row.teamId,
        enterpriseId: row.enterpriseId,
      },
      {
        to: { userId: row.senderUserId },
        message: deps.present({ type: 'order.bounced', bounce }),
      },
    );
    if (result !== 'later' && result.posted) {
      posted++;
      await deps.db
        .update(bouncedRecipients)
        .set({ dmChannel: result.message.channel, dmTs: result.message.ts, updatedAt: sql`now()` })
        .where(eq(bouncedRecipients.id, bounce.id));
    }
  }
  if (recipients.length > MAX_BOUNCE_DMS)
    deps.logger.warn('more bounced recipients than DMs sent', { orderId: order.orderId, bounced: recipients.length });
  return posted;
}

async function findBounce(db: Database, orderId: string, email: string): Promise<BouncedRecipientRow | undefined> {
  const [bounce] = await db
    .select()
    .from(bouncedRecipients)
    .where(and(eq(bouncedRecipients.orderId, orderId), eq(bouncedRecipients.email, email)));
  return bounce;
}
