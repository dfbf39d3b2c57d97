// A send that no person typed into the send modal: a Workflow Builder step, a celebration, an
// occurrence of a recurring kudos. It goes through the same checks (prepareSend: recipients, design
// range, approvals, budgets) and the same recording and worker as a manual send; its source key makes
// a retried event or a re-run occurrence record one send.
import type { Database } from '../../db/client.js';
import type { CardType, KudosRow } from '../../db/schema/index.js';
import type { DesignCatalogs } from '../accounts/design-catalog.js';
import type { RewardsAccounts } from '../accounts/rewards-accounts.js';
import { classifyRewardsFailure, describeForUser } from '../accounts/rewards-failures.js';
import type { BrandCatalogs } from '../branded/brand-catalog.js';
import { BRAND_GONE } from '../branded/branded-card.js';
import type { UserDirectory } from '../common/ports.js';
import { type Refused, refused } from '../common/refusal.js';
import type { Workspace } from '../common/workspace.js';
import { type PreparedSend, prepareSend, type SendForm } from '../sending/check-send.js';
import { getKudos } from '../sending/kudos-store.js';
import {
  type RecordedSend,
  recordPreparedSend,
  type SendOrigin,
  SendRefusedOnRecord,
  startRecordedSend,
  type StartSendDeps,
} from '../sending/record-send.js';
import type { SendPolicy } from '../sending/send-policy.js';
import { listCompanyValues, valueNamedIn } from '../workspaces/company-values.js';
import type { SettingsStore } from '../workspaces/settings.js';

export interface AutomatedSendDeps extends StartSendDeps {
  db: Database;
  users: UserDirectory;
  rewards: RewardsAccounts;
  catalog: DesignCatalogs;
  /** The brand catalogs: without them, a branded product is refused. */
  brands?: BrandCatalogs | undefined;
  policy: SendPolicy;
  settings: SettingsStore;
  now(): Date;
}

export interface AutomatedSendRequest {
  workspace: Workspace;
  senderUserId: string;
  recipientUserIds: string[];
  /**
   * Per recipient, in the product's currency: whole dollars for a choice card; for a branded product
   * an amount in its own currency (25 for £25, 1000 for ¥1000).
   */
  amount: number;
  message: string;
  /** A catalog product id; the workspace default when absent. */
  productId?: string | undefined;
  /**
   * Which catalog `productId` is in: a choice design (the default) or a brand; `ANY`: a choice design
   * if the choice catalog has it, else a brand (the workflow step's `design`).
   */
  card?: 'CHOICE_CARD' | 'BRANDED_CARD' | 'ANY' | undefined;
  /** Unique per workspace: the same key records the same send once. */
  sourceKey: string;
  origin: SendOrigin;
  /** Where it is announced, if not in the workspace's channel: a channel id, or `none` (announce.ts). */
  announceTo?: string | undefined;
  botUserId?: string | undefined;
  /**
   * The message may name a company value as `#teamwork` at its start or end, and the workspace's
   * "a value is required" applies (the Workflow Builder step; celebrations and recurring sends name none).
   */
  valueInMessage?: boolean | undefined;
}

/**
 * Nothing was recorded; `message` says why, in one readable sentence. `transient`: the Rewards API
 * could not be asked (down, timing out); the same request may pass later.
 */
export type AutomatedSendRefusal = Refused<'invalid_input' | 'no_design' | 'sender_inactive' | 'rewards_error'> & {
  transient: boolean;
};

export type AutomatedSendResult = { ok: true; recorded: RecordedSend } | AutomatedSendRefusal;

export type PreparedAutomatedSend = { ok: true; prepared: Extract<PreparedSend, { ok: true }> } | AutomatedSendRefusal;

/** Records and starts a send; nothing is recorded when it is refused. */
export async function sendAutomated(
  deps: AutomatedSendDeps,
  request: AutomatedSendRequest,
): Promise<AutomatedSendResult> {
  const checked = await prepareAutomated(deps, request);
  if (!checked.ok) return checked;
  let recorded: RecordedSend;
  try {
    recorded = await recordPreparedSend(deps.db, checked.prepared, request.origin);
  } catch (error) {
    // Over the sender's allowance once counted under the lock: nothing recorded.
    if (error instanceof SendRefusedOnRecord) return { ...refused('invalid_input', error.message), transient: false };
    throw error;
  }
  await startRecordedSend(deps, recorded);
  return { ok: true, recorded };
}

/**
 * A workspace without a default design (a fresh install) gets the catalog's first choice-card design
 * as its default, recorded in its settings where an admin sees and changes it; a default recorded
 * meanwhile wins. Undefined when the catalog has no design.
 */
async function firstDefaultDesign(
  deps: Pick<AutomatedSendDeps, 'catalog' | 'settings'>,
  ws: Workspace,
): Promise<string | undefined> {
  const [first] = await deps.catalog.of(ws).search('');
  if (!first) return undefined;
  return (await deps.settings.adoptDefaultDesign(ws, first.productId)).defaultProductId ?? first.productId;
}

/** The checks of a send (sender, design, recipients, policy) without recording it. */
export async function prepareAutomated(
  deps: AutomatedSendDeps,
  request: AutomatedSendRequest,
): Promise<PreparedAutomatedSend> {
  const sender = await deps.users.userInfo(request.workspace, request.senderUserId);
  if (!sender || sender.deleted || sender.isBot) {
    return {
      ...refused('sender_inactive', `The sender ${request.senderUserId} is not an active person in this workspace.`),
      transient: false,
    };
  }
  const settings = await deps.settings.get(request.workspace);
  let productId = request.productId;
  if (!productId) productId = settings.defaultProductId ?? undefined;
  if (!productId) {
    try {
      productId = await firstDefaultDesign(deps, request.workspace);
    } catch (error) {
      return {
        ...refused('rewards_error', describeForUser(error, 'read the designs of the Rewards catalog')),
        transient: !classifyRewardsFailure(error).permanent,
      };
    }
  }
  if (!productId)
    return {
      ...refused('no_design', 'design: no design was given, and the Rewards catalog offers none to make the default.'),
      transient: false,
    };

  let message = request.message;
  let value: SendForm['value'];
  if (request.valueInMessage) {
    const named = await valueNamedIn(deps.db, request.workspace.teamId, message, settings.valuesRequired);
    if (!named.ok) return { ...refused('invalid_input', `value: ${named.message}`, 'value'), transient: false };
    message = named.message;
    if (named.value) value = { id: named.value.id, revision: named.value.revision };
  }

  let cardType: CardType;
  try {
    const card = await cardOf(deps, request, productId);
    if ('problem' in card) return { ...refused('no_design', `design: ${card.problem}`, 'design'), transient: false };
    cardType = card.cardType;
  } catch (error) {
    return {
      ...refused('rewards_error', describeForUser(error, 'read the brand from the Rewards catalog')),
      transient: !classifyRewardsFailure(error).permanent,
    };
  }
  const form: SendForm = {
    userIds: request.recipientUserIds,
    group: undefined,
    productId,
    cardType,
    amount: String(request.amount),
    message,
    refundDays: undefined,
    schedule: undefined,
    ...(value ? { value } : {}),
  };
  let prepared;
  try {
    prepared = await prepareSend(
      {
        users: deps.users,
        rewards: deps.rewards,
        catalog: deps.catalog.of(request.workspace),
        policy: deps.policy,
        // The value named is checked again with the send (removed or renamed meanwhile: refused).
        values: (teamId) => listCompanyValues(deps.db, teamId),
        ...(deps.brands ? { branded: { db: deps.db, brands: deps.brands.of(request.workspace) } } : {}),
      },
      {
        workspace: request.workspace,
        sender,
        originChannelId: undefined,
        sourceViewId: request.sourceKey,
        now: deps.now(),
        botUserId: request.botUserId,
        cardRecipients: settings.cardRecipients,
      },
      form,
    );
  } catch (error) {
    // The catalog read failed: no Rewards connection (permanent), or the API is down (transient).
    return {
      ...refused('rewards_error', describeForUser(error, 'check the design with the Rewards API')),
      transient: !classifyRewardsFailure(error).permanent,
    };
  }
  if (!prepared.ok) {
    const message = Object.entries(prepared.errors)
      .map(([field, text]) => `${field}: ${text}`)
      .join(' ');
    return { ...refused('invalid_input', message, prepared.field), transient: false };
  }
  if (request.announceTo) prepared.values.announceTo = request.announceTo;
  return { ok: true, prepared };
}

/**
 * A choice card or a branded one, or why the brand cannot be sent. A brand is read from the API now
 * (an automation stored weeks ago, a workflow published long since: the product may have been
 * removed); the read also refreshes what the send's checks then find.
 */
async function cardOf(
  deps: AutomatedSendDeps,
  request: AutomatedSendRequest,
  productId: string,
): Promise<{ cardType: CardType } | { problem: string }> {
  const card = request.card ?? 'CHOICE_CARD';
  if (card === 'CHOICE_CARD') return { cardType: card };
  // `ANY` that is neither a design nor a brand: the send's checks say the design is not available.
  const choice = { cardType: 'CHOICE_CARD' as const };
  if (card === 'ANY' && (await deps.catalog.of(request.workspace).get(productId))) return choice;
  if (!deps.brands)
    return card === 'ANY' ? choice : { problem: 'Branded cards cannot be sent from here; pick a choice card.' };
  const brand = await deps.brands.of(request.workspace).readNow(productId, { timeoutMs: 1200 });
  if (brand) return { cardType: 'BRANDED_CARD' };
  return card === 'ANY' ? choice : { problem: BRAND_GONE };
}

/** Where a recorded send stands, for a caller that reports an outcome (the workflow step). */
export type SendOutcome =
  | { settled: true; status: 'placed' | 'scheduled' | 'awaiting_approval' }
  | { settled: true; status: 'failed' | 'rejected' | 'expired' | 'canceled'; message: string }
  | { settled: false };

export function outcomeOf(row: KudosRow): SendOutcome {
  switch (row.status) {
    case 'placed':
    case 'scheduled':
    case 'awaiting_approval':
      return { settled: true, status: row.status as 'placed' | 'scheduled' | 'awaiting_approval' };
    case 'failed':
      return { settled: true, status: 'failed', message: row.errorMessage ?? 'The Rewards API refused the order.' };
    case 'rejected':
    case 'expired':
    case 'canceled':
      return {
        settled: true,
        status: row.status as 'rejected' | 'expired' | 'canceled',
        message: `The send was ${row.status}.`,
      };
    default:
      return { settled: false };
  }
}

/** Polls the row until the worker has placed or refused it, or `timeoutMs` passes. */
export async function waitForOutcome(
  db: Database,
  kudosId: string,
  timeoutMs: number,
  pollMs = 200,
): Promise<SendOutcome> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await getKudos(db, kudosId);
    const outcome = row ? outcomeOf(row) : { settled: false as const };
    if (outcome.settled || Date.now() >= deadline) return outcome;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
