// A workspace's billing details for top-ups, remembered sealed (KUDOS_ENCRYPTION_KEY, the key ring) in
// finance_state.billing_details, so the next top-up form asks only for the amount. Without a key ring
// (single-workspace mode without KUDOS_ENCRYPTION_KEY) nothing is remembered: the form asks for them
// every time. Details that no longer open (the key was dropped) count as none: the form asks again.
import { eq } from 'drizzle-orm';

import type { Database } from '../../db/client.js';
import { type BillingDetails, financeState } from '../../db/schema/index.js';
import { billingDetailsContext } from '../../db/sealed-columns.js';
import type { KeyRing } from '../../secrets/key-ring.js';
import type { Workspace } from '../common/workspace.js';
import { ensureFinanceState } from './low-balance.js';
import { checkBilling } from './top-ups.js';

export async function rememberedBilling(
  db: Database,
  keyRing: KeyRing | undefined,
  ws: Workspace,
): Promise<BillingDetails | undefined> {
  if (!keyRing) return undefined;
  const [row] = await db
    .select({ sealed: financeState.billingDetails })
    .from(financeState)
    .where(eq(financeState.teamId, ws.teamId));
  if (!row?.sealed) return undefined;
  try {
    const billing = JSON.parse(keyRing.open(row.sealed, billingDetailsContext(ws.teamId))) as BillingDetails;
    return Object.keys(checkBilling(billing)).length === 0 ? billing : undefined;
  } catch {
    return undefined;
  }
}

/** Seals and keeps the details the admin entered (checked already); no key ring: nothing kept. */
export async function rememberBilling(
  db: Database,
  keyRing: KeyRing | undefined,
  ws: Workspace,
  input: { billing: BillingDetails; by: string; at: Date },
): Promise<boolean> {
  if (!keyRing) return false;
  await ensureFinanceState(db, ws);
  await db
    .update(financeState)
    .set({
      billingDetails: keyRing.seal(JSON.stringify(input.billing), billingDetailsContext(ws.teamId)),
      billingUpdatedBy: input.by,
      billingUpdatedAt: input.at,
    })
    .where(eq(financeState.teamId, ws.teamId));
  return true;
}
