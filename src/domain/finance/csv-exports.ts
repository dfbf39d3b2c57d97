// The admin's exports as CSV files a person reads: the Rewards ledger of a month and the audit trail,
// with people's names (not Slack ids), the campaign, each send's face value and total in dollars
// ("25.00", not cents), the card's face value in its own currency (a branded card's "25.00" GBP), and
// readable events. Sends are read from the kudos table by their order ids
// (ledger) or their ids (audit); their names are the snapshot taken when they were sent.
import { and, eq, inArray, or, sql } from 'drizzle-orm';

import type { Database } from '../../db/client.js';
import { type AuditEventRow, campaigns, kudos, type KudosRow } from '../../db/schema/index.js';
import {
  brandedFace,
  type CardAmountColumns,
  faceDecimal,
  usdEach,
  type UsdFigure,
  usdOf,
} from '../branded/card-amounts.js';
import { toCsv } from '../common/csv.js';
import { centsToDecimal } from '../common/money.js';
import type { Workspace } from '../common/workspace.js';
import { placedRecipientCount } from '../sending/kudos-parts.js';
import type { AuditAction } from '../workspaces/audit-trail.js';
import type { Movement } from './ledger.js';

/** A person's name (display name, else real name) by Slack user id; undefined when unknown. */
export type NameOf = (userId: string) => Promise<string | undefined>;

/** What a row says about the send it is about. */
interface SendFacts {
  sender: string;
  recipients: string;
  campaign: string;
  /** The company value the send was for, as named when sent. */
  value: string;
  /** Per card in USD, and in all: a branded card's actual cost once known, else its judged estimate; '' when unknown. */
  usdEach: string;
  usdTotal: string;
  /** Per card in the card's own currency ("25.00 USD" for a choice card, "1000 JPY"). */
  faceValue: string;
  faceCurrency: string;
}

/** Names beyond this many are counted ("and 12 more"): a cell stays readable. */
const RECIPIENT_NAMES_SHOWN = 10;

export const LEDGER_CSV_HEADER = [
  'Date (UTC)',
  'What',
  'Sender',
  'Recipients',
  'Campaign',
  'Face value (USD)',
  'Amount (USD)',
  'Currency',
  'Credited',
  'Rewards reference',
  'Value',
  'Face value',
  'Face currency',
] as const;

export const AUDIT_CSV_HEADER = [
  'When (UTC)',
  'Who',
  'Event',
  'Sender',
  'Recipients',
  'Campaign',
  'Face value (USD)',
  'Total (USD)',
  'Details',
  'Reference',
  'Value',
  'Face value',
  'Face currency',
] as const;

const EVENT_LABELS: Record<AuditAction, string> = {
  'approval.requested': 'Approval requested',
  'approval.approved': 'Approved',
  'approval.rejected': 'Rejected',
  'approval.expired': 'Approval expired',
  'approval.reopened': 'Approval reopened',
  'settings.changed': 'Settings changed',
  'kudos.order_placed': 'Order placed',
  'kudos.order_failed': 'Order failed',
  'kudos.canceled': 'Cancelled',
  'kudos.automated': 'Sent by an automation',
  'reward_links.requested': 'Reward links requested',
  'reward_links.approved': 'Reward links approved',
  'reward_links.rejected': 'Reward links rejected',
  'reward_links.placed': 'Reward links created',
  'reward_links.partial': 'Reward links partly created',
  'reward_links.failed': 'Reward links failed',
  'campaign.created': 'Campaign created',
  'campaign.updated': 'Campaign changed',
  'campaign.archived': 'Campaign archived',
  'allowance.set': 'Allowance set',
  'allowance.removed': 'Allowance removed',
  'value.created': 'Company value added',
  'value.updated': 'Company value changed',
  'value.removed': 'Company value removed',
};

/** An audit event as admins read it ("Approval requested"); an action this version does not know, as stored. */
export function auditEventLabel(action: string): string {
  return EVENT_LABELS[action as AuditAction] ?? action;
}

const dateTime = (at: Date | undefined) => (at ? at.toISOString().replace('T', ' ').slice(0, 19) : '');

/** The month's ledger as CSV, newest first; a Kudos order's row names its sender, recipients and campaign. */
export async function ledgerCsv(db: Database, ws: Workspace, movements: Movement[]): Promise<string> {
  const orderIds = movements
    .filter((m) => m.kind === 'order' || m.kind === 'order_canceled')
    .map((m) => m.referenceNumber);
  const byOrder = (await sendFacts(db, ws, { orderIds })).byOrder;
  const rows = movements.map((m) => {
    const send = byOrder.get(m.referenceNumber);
    return [
      dateTime(m.occurredAt),
      m.label,
      send?.sender ?? '',
      send?.recipients ?? '',
      send?.campaign ?? '',
      send?.usdEach ?? '',
      centsToDecimal(m.signedCents),
      m.currency,
      m.credited ? 'yes' : 'no (pending)',
      m.referenceNumber,
      send?.value ?? '',
      send?.faceValue ?? '',
      send?.faceCurrency ?? '',
    ];
  });
  return toCsv(LEDGER_CSV_HEADER, rows);
}

/** The audit rows as CSV, in their order: who did what, about which send, in names and dollars. */
export async function auditCsv(db: Database, ws: Workspace, rows: AuditEventRow[], nameOf: NameOf): Promise<string> {
  const kudosIds = rows.filter((r) => r.subjectType === 'kudos').map((r) => r.subjectId);
  const byKudos = (await sendFacts(db, ws, { kudosIds })).byKudos;
  const names = new Map<string, Promise<string>>();
  const who = (id: string) => {
    if (!/^[UW][A-Z0-9_]+$/.test(id)) return Promise.resolve(id);
    let name = names.get(id);
    if (!name) {
      name = nameOf(id).then(
        (found) => found || id,
        () => id,
      );
      names.set(id, name);
    }
    return name;
  };
  const lines: string[][] = [];
  for (const row of rows) {
    const send = row.subjectType === 'kudos' ? byKudos.get(row.subjectId) : undefined;
    const campaign = send?.campaign ?? (row.subjectType === 'campaign' ? textIn(row.details, 'name') : '');
    lines.push([
      dateTime(row.createdAt),
      await who(row.actorUserId),
      auditEventLabel(row.action),
      send?.sender ?? '',
      send?.recipients ?? '',
      campaign,
      send?.usdEach ?? '',
      send?.usdTotal ?? '',
      detailsText(row.details),
      row.subjectType === 'kudos' ? row.subjectId.slice(0, 8) : row.subjectType,
      send?.value ?? (row.subjectType === 'company_value' ? valueNameIn(row.details) : ''),
      send?.faceValue ?? '',
      send?.faceCurrency ?? '',
    ]);
  }
  return toCsv(AUDIT_CSV_HEADER, lines);
}

/** A company value's audit row names it as created or removed (`name`), or as changed to (`to.name`). */
function valueNameIn(details: unknown): string {
  const d = details as { name?: unknown; to?: { name?: unknown } } | null;
  const name = d?.to?.name ?? d?.name;
  return typeof name === 'string' ? name : '';
}

function textIn(details: unknown, key: string): string {
  const value = (details as Record<string, unknown> | null)?.[key];
  return typeof value === 'string' ? value : '';
}

/** Keys that are ids or keys, shown in the columns already, or of no use to a person reading the file. */
const HIDDEN_DETAIL = /(^id$|Id$|Ids$|IdempotencyKey$|^idempotencyKey$|^name$)/;

/** `reason: Not now; amount: 150.00`: amounts in dollars, ids left out. */
export function detailsText(details: Record<string, unknown>): string {
  return Object.entries(details)
    .filter(([key, value]) => !HIDDEN_DETAIL.test(key) && value !== null && value !== undefined && value !== '')
    .map(([key, value]) => `${readableKey(key)}: ${readableValue(key, value)}`)
    .join('; ');
}

const readableKey = (key: string) =>
  key
    .replace(/Cents$/, '')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();

function readableValue(key: string, value: unknown): string {
  const money = key.endsWith('Cents');
  if (money && typeof value === 'number') return centsToDecimal(value);
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const change = value as { from?: unknown; to?: unknown };
    if ('from' in change || 'to' in change)
      return `${readableValue(key, change.from ?? 'none')} to ${readableValue(key, change.to ?? 'none')}`;
    return Object.entries(value)
      .map(([k, v]) => `${readableKey(k)} ${readableValue(k, v)}`)
      .join(', ');
  }
  return JSON.stringify(value);
}

async function sendFacts(
  db: Database,
  ws: Workspace,
  of: { kudosIds?: string[]; orderIds?: string[] },
): Promise<{ byKudos: Map<string, SendFacts>; byOrder: Map<string, SendFacts> }> {
  const kudosIds = [...new Set(of.kudosIds ?? [])].filter((id) => /^[0-9a-f-]{36}$/i.test(id));
  const orderIds = [...new Set(of.orderIds ?? [])];
  const byKudos = new Map<string, SendFacts>();
  const byOrder = new Map<string, SendFacts>();
  if (kudosIds.length === 0 && orderIds.length === 0) return { byKudos, byOrder };
  const anyOrder = sql.join(
    orderIds.map((id) => sql`${id}`),
    sql`, `,
  );
  const rows = await db
    .select({
      id: kudos.id,
      senderName: kudos.senderName,
      recipients: kudos.recipients,
      recipientGroupName: kudos.recipientGroupName,
      amountCents: kudos.amountCents,
      totalCents: kudos.totalCents,
      recipientCount: kudos.recipientCount,
      partsPlaced: kudos.partsPlaced,
      status: kudos.status,
      designName: kudos.designName,
      cardType: kudos.cardType,
      faceCurrency: kudos.faceCurrency,
      faceCents: kudos.faceCents,
      usdBasis: kudos.usdBasis,
      costCents: kudos.costCents,
      orderId: kudos.orderId,
      orderIds: kudos.orderIds,
      campaign: campaigns.name,
      value: kudos.valueName,
    })
    .from(kudos)
    .leftJoin(campaigns, and(eq(campaigns.id, kudos.campaignId), eq(campaigns.teamId, kudos.teamId)))
    .where(
      and(
        eq(kudos.teamId, ws.teamId),
        or(
          kudosIds.length > 0 ? inArray(kudos.id, kudosIds) : undefined,
          orderIds.length > 0 ? inArray(kudos.orderId, orderIds) : undefined,
          orderIds.length > 0 ? sql`${kudos.orderIds} ?| array[${anyOrder}]::text[]` : undefined,
        ),
      ),
    );
  for (const row of rows) {
    const facts: SendFacts = {
      sender: row.senderName,
      recipients: recipientsText(
        row.recipients.map((r) => r.name || r.email),
        row.recipientGroupName,
      ),
      campaign: row.campaign ?? '',
      value: row.value ?? '',
      ...amountCells(row),
    };
    byKudos.set(row.id, facts);
    for (const orderId of new Set([row.orderId, ...row.orderIds])) if (orderId) byOrder.set(orderId, facts);
  }
  return { byKudos, byOrder };
}

/**
 * A send's money cells. A choice card: its amount and total in dollars, face value the same in USD. A
 * branded card: its face value in its own currency; in USD the actual cost once charged (shared out
 * per card), before that the judged estimate, and nothing while the cost is unknown.
 */
function amountCells(
  row: CardAmountColumns & Pick<KudosRow, 'totalCents' | 'recipientCount' | 'partsPlaced' | 'status'>,
): Pick<SendFacts, 'usdEach' | 'usdTotal' | 'faceValue' | 'faceCurrency'> {
  const face = brandedFace(row);
  if (!face)
    return {
      usdEach: centsToDecimal(row.amountCents),
      usdTotal: centsToDecimal(row.totalCents),
      faceValue: centsToDecimal(row.amountCents),
      faceCurrency: 'USD',
    };
  const cell = (figure: UsdFigure) => (figure.kind === 'unknown' ? '' : centsToDecimal(figure.cents));
  return {
    usdEach: cell(usdEach(row, placedRecipientCount(row))),
    usdTotal: cell(usdOf(row, row.recipientCount)),
    faceValue: faceDecimal(face.faceCents, face.currency),
    faceCurrency: face.currency,
  };
}

function recipientsText(names: string[], groupName: string | null): string {
  const shown = names.slice(0, RECIPIENT_NAMES_SHOWN).join(', ');
  const more = names.length > RECIPIENT_NAMES_SHOWN ? ` and ${names.length - RECIPIENT_NAMES_SHOWN} more` : '';
  return groupName ? `${groupName} (${names.length}): ${shown}${more}` : `${shown}${more}`;
}
