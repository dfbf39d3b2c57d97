// `/kudos @a @b 25 Thanks`: a send described in one line, confirmed with one click. What it sends is
// checked exactly as the send form is (prepareSend), once when the confirmation is shown and again
// when Send is pressed; it is recorded under a key of its own, so a second click (or a redelivered
// action) finds the first send instead of making another.
import { and, eq } from 'drizzle-orm';

import type { Database } from '../../db/client.js';
import { kudos, type KudosRow } from '../../db/schema/index.js';
import type { Design, DesignCatalog } from '../accounts/design-catalog.js';
import type { SendForm } from './check-send.js';

/** A confirmation older than this is not sent: the sender looks again (`/kudos` again). */
export const ONE_LINE_TTL_MS = 60 * 60_000;

/** What a one-line send names: people, at most one user group, the amount, the design or brand, the message. */
export interface OneLineSend {
  userIds: string[];
  group?: { id: string; handle?: string | undefined } | undefined;
  /** A choice card's amount in whole dollars (0 for a brand). */
  amountDollars: number;
  /** A choice card's design, or the brand's product. */
  productId: string;
  /** A brand: the amount as typed in its own currency ("£25"); `productId` is the brand's product. */
  face?: string | undefined;
  message: string;
  /** The company value named with `#`, as the confirmation showed it (a rename since is refused at Send). */
  value?: { id: string; revision: number } | undefined;
}

/** The source key a confirmed one-line send is recorded under (`kudos.source_view_id`, unique per workspace). */
export function oneLineSourceKey(confirmationId: string): string {
  return `line:${confirmationId}`;
}

/** Has the confirmation made at `createdAtMs` expired by `now`? */
export function oneLineExpired(createdAtMs: number, now: Date): boolean {
  return now.getTime() - createdAtMs > ONE_LINE_TTL_MS || createdAtMs > now.getTime() + 60_000;
}

/** The send form a one-line send stands for: checked by the same rules (sending now, no refund, no campaign). */
export function oneLineForm(send: OneLineSend): SendForm {
  return {
    userIds: send.userIds,
    group: send.group
      ? { kind: 'slack', id: send.group.id, ...(send.group.handle ? { label: `@${send.group.handle}` } : {}) }
      : undefined,
    productId: send.productId,
    ...(send.face !== undefined
      ? { cardType: 'BRANDED_CARD' as const, amount: send.face }
      : { amount: String(send.amountDollars) }),
    message: send.message,
    refundDays: undefined,
    schedule: undefined,
    ...(send.value ? { value: send.value } : {}),
  };
}

/**
 * The design a send starts with: the workspace's default (settings `defaultProductId`) while the
 * catalog still has it; with none set, the catalog's first choice-card design, preselected (not
 * written to the settings: an admin's choice stays theirs to make). Undefined when the default left
 * the catalog, or the catalog is empty.
 */
export async function startingDesign(
  catalog: DesignCatalog,
  defaultProductId: string | null | undefined,
): Promise<Design | undefined> {
  if (defaultProductId) return catalog.get(defaultProductId);
  const [first] = await catalog.search('');
  return first;
}

/** The send a confirmation recorded already (a second click, a redelivered action), if any. */
export async function findOneLineSend(
  db: Database,
  teamId: string,
  confirmationId: string,
): Promise<KudosRow | undefined> {
  const [row] = await db
    .select()
    .from(kudos)
    .where(and(eq(kudos.teamId, teamId), eq(kudos.sourceViewId, oneLineSourceKey(confirmationId))));
  return row;
}
