// The place step: a claimed send's recipients mapped to the address book, then its order(s) created
// with the Rewards API part by part, each with its own key (a retry or a resumed send never orders
// twice), and a lost answer looked up by that key before anyone calls the send failed.
import type { KudosRow } from '../../db/schema/index.js';
import { isRewardsError, type RewardsClient, RewardsNotFoundError, toCents } from '../../rewards/index.js';
import { classifyRewardsFailure, mayHaveReachedApi } from '../accounts/rewards-failures.js';
import { learnedRate } from '../branded/exchange-rates.js';
import { costAtRate } from '../branded/usd-cost.js';
import { centsToDecimal, formatUsd } from '../common/money.js';
import { MIN_SCHEDULE_LEAD_MS } from '../common/zoned-time.js';
import { kudosPartKey, orderIdsOf, partCount, partsOf, RECIPIENTS_PER_ORDER } from './kudos-parts.js';
import type { ClaimFence } from './kudos-store.js';
import { ensureRecipientMapping, ensureRecipientMappings } from './recipients.js';
import { fail, fencedOut, interrupted, recordPart, recordPlaced, retryLater, type SendPass } from './settle-send.js';

/** Address-book recipients created at once for one send. */
export const MAPPING_CONCURRENCY = 16;
/** Sends of up to this many people are mapped one person at a time; bigger ones in batches. */
const MAP_ONE_BY_ONE = 10;

/** Places a claimed `pending` send, from its next part on; undefined when the claim was lost. */
export async function placeSend(pass: SendPass, row: KudosRow, fence: ClaimFence): Promise<KudosRow | undefined> {
  const { deps, signal, log } = pass;
  log.debug('placing order', {
    attempt: row.attempts,
    recipients: row.recipientCount,
    totalCents: row.totalCents,
    scheduled: Boolean(row.scheduledAt),
    partsPlaced: row.partsPlaced,
  });
  if (row.scheduledAt && row.scheduledAt.getTime() - Date.now() < MIN_SCHEDULE_LEAD_MS)
    return missedLead(pass, row, fence);
  try {
    // Stored with the order below: a resumed row finds the same mappings (stored by Slack user).
    const recipients = await mapRecipients(pass, row);
    row = { ...row, recipients };
    const rewards = await deps.rewards.for(row);
    const parts = partsOf(row.recipients);
    if (parts.length > 1 && row.partsPlaced === 0 && row.attempts > 1) {
      // An earlier attempt may have created the first part with its answer lost: the balance read
      // now would count that order against the send. Look it up by its key before judging anything.
      const first = await rewards.orders.findByClientOrderId(kudosPartKey(row, 0), { signal });
      if (signal.aborted) return interrupted(pass, row);
      if (first) {
        log.info('first part found by its key', { orderId: first.orderId, orderStatus: first.status });
        const recorded = await recordPart(pass, row, fence, 0, first);
        if (!recorded) return fencedOut(pass, undefined);
        return placeSend(pass, recorded.row, recorded.fence);
      }
    }
    if (parts.length > 1 && row.partsPlaced === 0) {
      // Before the first part: the whole send must fit the balance, so that a big send is not cut
      // short half-way for want of money (the known spending limits were checked when it was recorded).
      const balance = await rewards.balance.get({ signal });
      const available = toCents(balance.availableBalance.amount, { rounding: 'half-up' });
      if (available < row.totalCents) {
        log.warn('the balance does not cover the whole send; nothing placed', {
          availableCents: available,
          totalCents: row.totalCents,
        });
        return fail(
          pass,
          row,
          fence,
          'INSUFFICIENT_BALANCE',
          `the Rewards balance (${formatUsd(available)}) does not cover ${formatUsd(row.totalCents)} for ${row.recipientCount} people. Nothing was charged; ask an admin to top it up, then send again.`,
        );
      }
    }
    const firstIndex = row.partsPlaced;
    for (let index = row.partsPlaced; index < parts.length; index++) {
      const refusal = await brandedRefusal(pass, rewards, row, index, parts);
      if (refusal) {
        // An earlier claim may have created this part with its answer lost: never failed unseen.
        const found = row.attempts > 1 && index === firstIndex ? await findPart(pass, rewards, row, index) : undefined;
        if (!found) return fail(pass, row, fence, refusal.code, refusal.message);
        if (parts.length === 1) return recordPlaced(pass, row, fence, found);
        const recorded = await recordPart(pass, row, fence, index, found);
        if (!recorded) return fencedOut(pass, undefined);
        ({ row, fence } = recorded);
        continue;
      }
      const params = orderParams(row, parts[index]!);
      const options = { idempotencyKey: kudosPartKey(row, index), signal };
      const { order, recovered } =
        row.cardType === 'BRANDED_CARD'
          ? await rewards.orders.createBranded(params, options)
          : await rewards.orders.createChoice(params, options);
      if (signal.aborted) return interrupted(pass, row);
      log.info('order placed', {
        orderId: order.orderId,
        orderStatus: order.status,
        recovered,
        attempt: row.attempts,
        totalCents: row.totalCents,
        ...(parts.length > 1 ? { part: index + 1, parts: parts.length } : {}),
      });
      if (parts.length === 1) return recordPlaced(pass, row, fence, order);
      const recorded = await recordPart(pass, row, fence, index, order);
      if (!recorded) return fencedOut(pass, undefined);
      ({ row, fence } = recorded);
    }
    return recordPlaced(pass, row, fence, {
      orderId: orderIdsOf(row)[0]!,
      status: row.orderStatus ?? 'PENDING',
      totalCost: undefined,
    });
  } catch (error) {
    return afterFailedCall(pass, row, fence, error);
  }
}

/**
 * A call of the place step threw: a stop or a lost lease gives the row back; a passing failure is
 * retried later with the same key; a call that may have reached the API is looked up by its key;
 * anything else fails the send, in words the sender can act on.
 */
async function afterFailedCall(
  pass: SendPass,
  row: KudosRow,
  fence: ClaimFence,
  error: unknown,
): Promise<KudosRow | undefined> {
  const { log } = pass;
  if (pass.signal.aborted || stoppedWaiting(error)) return interrupted(pass, row);
  const verdict = classifyRewardsFailure(error);
  // Restarts, lost leases and stops are claims, not failures: only failed calls lengthen the wait.
  const failedCalls = row.failedCalls + 1;
  if (!verdict.permanent && failedCalls < pass.maxAttempts) {
    const delay = pass.backoffMs(failedCalls);
    log.warn('order attempt failed; will retry with the same key', {
      code: verdict.code,
      failedCalls,
      attempts: row.attempts,
      retryInMs: delay,
      partsPlaced: row.partsPlaced,
      error,
    });
    return retryLater(pass, row, fence, delay, { code: verdict.code, message: verdict.userMessage });
  }
  // Never called failed while the order may exist: look it up by its key first.
  if (mayHaveReachedApi(error)) return resolveUnknown(pass, row, fence);
  log.warn('order failed', {
    code: verdict.code,
    failedCalls,
    attempts: row.attempts,
    partsPlaced: row.partsPlaced,
    error,
  });
  const reason = verdict.permanent
    ? refusalOfPart(row, error, verdict.userMessage)
    : 'the Rewards API did not accept it after several tries.';
  return fail(pass, row, fence, verdict.code, reason);
}

/** The app is stopping and the call was still waiting for its turn (src/domain/pacing/rewards-rate-budget.ts): nothing was sent. */
function stoppedWaiting(error: unknown): boolean {
  return isRewardsError(error, 'ABORTED');
}

/** The card order of one part (all of a one-part send): a branded card's amount is its face value. */
function orderParams(row: KudosRow, recipients: KudosRow['recipients']) {
  const amountCents = row.cardType === 'BRANDED_CARD' ? (row.faceCents ?? row.amountCents) : row.amountCents;
  return {
    productId: row.productId,
    recipients: recipients.map((r) => ({
      email: r.email,
      amount: centsToDecimal(amountCents),
      ...(r.firstName ? { firstName: r.firstName } : {}),
      ...(r.lastName ? { lastName: r.lastName } : {}),
    })),
    emailSetting: {
      senderName: row.emailSenderName ?? row.senderName,
      subject: row.emailSubject ?? `${row.senderName} sent you kudos`,
      ...(row.message.trim() !== '' ? { message: row.message } : {}),
      ...(row.emailTemplateId ? { templateId: row.emailTemplateId } : {}),
    },
    ...(row.scheduledAt && row.scheduleLocal && row.scheduleTimezone
      ? { sendTiming: { type: 'SCHEDULED' as const, scheduledAt: row.scheduleLocal, timezone: row.scheduleTimezone } }
      : { sendTiming: { type: 'IMMEDIATE' as const } }),
    ...(row.refundOptionDays ? { refundOption: true, refundOptionDays: row.refundOptionDays as 30 | 60 | 90 } : {}),
  };
}

/**
 * A refusal, said exactly: a part after the first names what went out before it; a validation error
 * about the recipients of an order says plainly that the API refused an order of that size.
 */
function refusalOfPart(row: KudosRow, error: unknown, userMessage: string): string {
  const parts = partCount(row);
  const detail = error instanceof Error ? error.message : '';
  const aboutRecipients = isRewardsError(error, 'VALIDATION_ERROR') && /recipient/i.test(detail);
  if (parts === 1 && !aboutRecipients) return userMessage;
  const size = Math.min(RECIPIENTS_PER_ORDER, row.recipientCount - row.partsPlaced * RECIPIENTS_PER_ORDER);
  const why = aboutRecipients
    ? `the Rewards API refused an order of ${size} recipients (${detail.slice(0, 200)}); its largest order is not documented, and Kudos sends at most ${RECIPIENTS_PER_ORDER} people per order.`
    : userMessage;
  return parts === 1 ? why : `order ${row.partsPlaced + 1} of ${parts} was refused: ${why}`;
}

/**
 * The last attempt's answer was lost (or the row is `unknown` from an earlier pass): the order is
 * looked up by its clientOrderId. Found: placed. Certainly absent: failed (the sender may send
 * again). The lookup itself failing: `unknown`, visible to the sender, looked up again later.
 */
export async function resolveUnknown(pass: SendPass, row: KudosRow, fence: ClaimFence): Promise<KudosRow | undefined> {
  const { deps, signal, log } = pass;
  let order;
  try {
    order = await (
      await deps.rewards.for(row)
    ).orders.findByClientOrderId(kudosPartKey(row, row.partsPlaced), { signal });
  } catch (error) {
    if (signal.aborted || stoppedWaiting(error)) return interrupted(pass, row);
    const delay = pass.backoffMs(pass.maxAttempts);
    log.warn('order outcome unknown; will look it up again', { retryInMs: delay, error });
    return retryLater(
      pass,
      row,
      fence,
      delay,
      {
        code: 'OUTCOME_UNKNOWN',
        message: 'the Rewards API did not say whether the order was created; Kudos keeps checking.',
      },
      'unknown',
    );
  }
  if (signal.aborted) return interrupted(pass, row);
  if (order) {
    log.info('order found by its key after an unknown outcome', {
      orderId: order.orderId,
      orderStatus: order.status,
      part: row.partsPlaced + 1,
    });
    if (partCount(row) > 1) {
      // One part of several: recorded, then the send goes on with the next part under the same claim.
      const recorded = await recordPart(pass, row, fence, row.partsPlaced, order);
      if (!recorded) return fencedOut(pass, undefined);
      return placeSend(pass, recorded.row, recorded.fence);
    }
    return recordPlaced(
      pass,
      { ...row, recipients: row.status === 'unknown' ? row.recipients : await mapRecipients(pass, row) },
      fence,
      order,
    );
  }
  log.warn('no order was created with this key; the send failed', { attempts: row.attempts });
  return fail(
    pass,
    row,
    fence,
    row.errorCode ?? 'NOT_CREATED',
    'the Rewards API did not accept it after several tries.',
  );
}

/**
 * A scheduled send whose placing was delayed (retries, backoff) past the API's 10-minute lead: the
 * API would refuse it. An earlier attempt may have booked it, so look first; otherwise it was not
 * sent, and the sender is told why in plain words (not the API's validation error).
 */
async function missedLead(pass: SendPass, row: KudosRow, fence: ClaimFence): Promise<KudosRow | undefined> {
  const { deps, signal, log } = pass;
  if (row.attempts > 1) {
    const found = await deps.rewards
      .for(row)
      .then((rewards) => rewards.orders.findByClientOrderId(kudosPartKey(row, row.partsPlaced), { signal }))
      .catch(() => 'unknown' as const);
    if (found === 'unknown') return resolveUnknown(pass, row, fence);
    if (found && partCount(row) > 1) {
      const recorded = await recordPart(pass, row, fence, row.partsPlaced, found);
      if (!recorded) return fencedOut(pass, undefined);
      return missedLead(pass, recorded.row, recorded.fence);
    }
    if (found) return recordPlaced(pass, row, fence, found);
  }
  if (row.partsPlaced >= partCount(row))
    return recordPlaced(pass, row, fence, { orderId: orderIdsOf(row)[0]!, status: row.orderStatus ?? 'PENDING' });
  log.warn('scheduled send could not be booked before the 10-minute cutoff', {
    scheduledAt: row.scheduledAt,
    attempts: row.attempts,
  });
  return fail(
    pass,
    row,
    fence,
    'SCHEDULE_TOO_LATE',
    row.partsPlaced > 0
      ? `the Rewards API could not be reached until less than 10 minutes before the time you chose, and scheduled sends must be booked at least 10 minutes ahead: orders 1 to ${row.partsPlaced} of ${partCount(row)} are booked, the rest was not sent (nothing charged for it). Send it to the others again now.`
      : 'the Rewards API could not be reached until less than 10 minutes before the time you chose, and scheduled sends must be booked at least 10 minutes ahead. Nothing was charged: send it again now.',
  );
}

/**
 * Slack users get their address-book recipient id (found or created once, mapping stored) and the
 * mapping's address, which is a corrected one when a sender fixed a bounce for them.
 */
async function mapRecipients(pass: SendPass, row: KudosRow): Promise<KudosRow['recipients']> {
  const { deps, signal } = pass;
  if (row.recipients.every((r) => r.recipientId || !r.slackUserId)) return row.recipients;
  const rewards = await deps.rewards.for(row);
  const ws = { teamId: row.teamId, enterpriseId: row.enterpriseId };
  const people = row.recipients
    .filter((r) => !r.recipientId && r.slackUserId)
    .map((r) => ({ slackUserId: r.slackUserId!, email: r.email, firstName: r.firstName, lastName: r.lastName }));
  // A big group's first send creates hundreds of recipients: in batches, a few calls at a time, each
  // taking its slot of the account's rate budget; stored batch by batch, so a send resumed after a
  // crash goes on from there (recipients.ts).
  let mapped: Map<string, { recipientId: string; email: string }>;
  if (people.length > MAP_ONE_BY_ONE)
    mapped = await ensureRecipientMappings({ db: deps.db, rewards }, ws, people, {
      signal,
      concurrency: MAPPING_CONCURRENCY,
    });
  else {
    mapped = new Map();
    for (const p of people)
      mapped.set(p.slackUserId, await ensureRecipientMapping({ db: deps.db, rewards }, ws, p, { signal }));
  }
  return row.recipients.map((r) => {
    const m = r.recipientId || !r.slackUserId ? undefined : mapped.get(r.slackUserId);
    return m ? { ...r, recipientId: m.recipientId, email: m.email } : r;
  });
}

/**
 * A branded send judged on a learned rate: the rate learned since (from this send's earlier parts or
 * another order) may have risen beyond the safety margin, so that what is left would cost more than
 * was judged (and approved). Then nothing more is ordered, and the reason is returned in plain words.
 */
async function brandedRateMoved(
  pass: SendPass,
  row: KudosRow,
  partsLeft: ReadonlyArray<KudosRow['recipients']>,
): Promise<string | undefined> {
  if (row.cardType !== 'BRANDED_CARD' || row.usdBasis !== 'learned' || !row.faceCurrency || !row.faceCents)
    return undefined;
  const rate = await learnedRate(pass.deps.db, row, row.faceCurrency);
  if (!rate) return undefined;
  const people = partsLeft.reduce((sum, part) => sum + part.length, 0);
  const spent = row.partsPlaced > 0 ? (row.costCents ?? 0) : 0;
  const estimate = spent + costAtRate(row.faceCents * people, rate);
  if (estimate <= row.totalCents) return undefined;
  pass.log.warn('the exchange rate rose beyond the safety margin; nothing more ordered', {
    currency: row.faceCurrency,
    judgedCents: row.totalCents,
    estimateCents: estimate,
  });
  const now = `the ${row.faceCurrency} rate rose by more than the safety margin since the send was judged: it would cost about ${formatUsd(estimate)} in USD, not ${formatUsd(row.totalCents)}.`;
  return row.partsPlaced === 0
    ? `${now} Nothing was charged; send it again to judge it at today's rate.`
    : `${now} Orders 1 to ${row.partsPlaced} of ${partCount(row)} went out; the rest was not sent (nothing charged for it).`;
}

/**
 * Why a branded send must not order its part `index` now, nothing charged for it: its brand was
 * removed from the catalog (checked before the first part), or the rate rose beyond the margin.
 */
async function brandedRefusal(
  pass: SendPass,
  rewards: RewardsClient,
  row: KudosRow,
  index: number,
  parts: ReadonlyArray<KudosRow['recipients']>,
): Promise<{ code: 'BRAND_GONE' | 'RATE_MOVED'; message: string } | undefined> {
  if (row.cardType !== 'BRANDED_CARD') return undefined;
  if (index === 0 && !(await brandStillOffered(rewards, row, pass.signal)))
    return {
      code: 'BRAND_GONE',
      message: `${row.designName} is no longer in the Rewards catalog. Nothing was charged; pick another brand, or a choice card.`,
    };
  const rateMoved = await brandedRateMoved(pass, row, parts.slice(index));
  return rateMoved ? { code: 'RATE_MOVED', message: rateMoved } : undefined;
}

/** Part `index` of the send if an earlier claim created it (looked up by its key); a failed lookup throws. */
async function findPart(pass: SendPass, rewards: RewardsClient, row: KudosRow, index: number) {
  const found = await rewards.orders.findByClientOrderId(kudosPartKey(row, index), { signal: pass.signal });
  if (found) pass.log.info('part found by its key before refusing it', { orderId: found.orderId, part: index + 1 });
  return found ?? undefined;
}

/**
 * Whether the brand of a send is still in the catalog, read now: a send that waited (for approval, or
 * its time) may name a brand removed since. Only a certain 404 says no; any other failure is the
 * order call's to meet.
 */
async function brandStillOffered(rewards: RewardsClient, row: KudosRow, signal: AbortSignal): Promise<boolean> {
  try {
    await rewards.catalog.getBrandedCard(row.productId, { signal });
    return true;
  } catch (error) {
    if (error instanceof RewardsNotFoundError) return false;
    return true;
  }
}
