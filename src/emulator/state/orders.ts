import type { Clock } from '../clock.js';
import { ApiError, fail } from '../errors.js';
import { newId } from '../ids.js';
import type { JobQueue } from '../jobs.js';
import { centsFromNumber, decimalString, money, RATE_SCALE, toUsdCents } from '../money.js';
import { isoNoOffset, isoUtc, utcDay, utcPeriodBounds } from '../time.js';
import type { BalanceLedger } from './balance-ledger.js';
import type { Catalog } from './catalog.js';
import { CHOICE_RANGE_CENTS, isValidBrandedAmount, isValidChoiceAmount } from './catalog.js';
import type { BrandedProduct } from './catalog-seed.js';
import { DEFAULT_TEMPLATE_ID } from './env.js';
import type { ExchangeRates } from './exchange-rates.js';
import type { CardType, EmailSetting, EnvState, Order, OrderRecipient, OrderStatus, OrderType } from './model.js';
import type { Outbox } from './outbox.js';
import { bounces } from './outbox.js';
import { resolveSendAt } from './schedule.js';
import type { Webhooks } from './webhooks.js';

/** Timings of an order's life on the emulator clock (documented in docs/architecture/emulator.md). */
export const ORDER_TIMING_MS = {
  /** Immediate card order: PENDING -> IN_PROGRESS after this. */
  dispatchDelay: 1000,
  /** IN_PROGRESS -> COMPLETE (cards e-mailed, links issued) after this. */
  deliveryDuration: 2000,
  /** Reward links: PENDING -> COMPLETE after this. */
  linkGeneration: 2000,
} as const;

export const CANCEL_WINDOW_MS = 10 * 60 * 1000;
export const MAX_RECIPIENTS_PER_ORDER = 500;
export const MAX_LINKS_PER_REQUEST = 500;
export const TEST_EMAILS_PER_DAY = 10;

export interface RecipientInput {
  email: string;
  amount: number;
  firstName?: string | undefined;
  lastName?: string | undefined;
  company?: string | undefined;
  department?: string | undefined;
}

export interface CardOrderInput {
  idempotencyKey: string;
  productId: string;
  sendTiming?: { type: 'IMMEDIATE' } | { type: 'SCHEDULED'; scheduledAt: string; timezone: string } | undefined;
  emailSetting?: EmailSetting | undefined;
  recipients?: RecipientInput[] | undefined;
  /** Our choice: a saved group may be named instead of `recipients`, with one `amount` for all. */
  recipientGroupId?: string | undefined;
  amount?: number | undefined;
  refundOption?: boolean | undefined;
  refundOptionDays?: number | undefined;
}

export interface RewardLinkInput {
  idempotencyKey: string;
  cardType: CardType;
  productId: string;
  quantity: number;
  amountPerLink: number;
  refundOption?: boolean | undefined;
  refundOptionDays?: number | undefined;
}

export interface OrderListQuery {
  orderType?: OrderType | undefined;
  cardType?: CardType | undefined;
  status?: OrderStatus | undefined;
  startDate?: string | undefined;
  endDate?: string | undefined;
  searchKeyword?: string | undefined;
  clientOrderId?: string | undefined;
}

interface ResolvedProduct {
  cardType: CardType;
  productId: string;
  cardName: string;
  currency: string;
  rateMicros: number;
  branded?: BrandedProduct;
}

/** What orders read and change of the emulator's state (the core; outbox and webhooks are replaced on reset). */
export interface OrdersState {
  readonly clock: Clock;
  readonly jobs: JobQueue;
  readonly catalog: Catalog;
  readonly exchangeRates: ExchangeRates;
  readonly ledger: BalanceLedger;
  readonly outbox: Outbox;
  readonly webhooks: Webhooks;
}

export class OrdersService {
  constructor(private readonly core: OrdersState) {}

  /** Any reuse of a key by the environment is a 409, whatever the body (spec part 7). */
  assertKeyUnused(env: EnvState, key: unknown): void {
    if (typeof key === 'string' && env.usedKeys.has(key)) {
      throw new ApiError(
        'DUPLICATE_IDEMPOTENCY_KEY',
        'This idempotencyKey was already used; look the order up with clientOrderId',
        {
          clientOrderId: key,
        },
      );
    }
  }

  createCardOrder(
    env: EnvState,
    cardType: CardType,
    input: CardOrderInput,
    extra: { orderType?: OrderType; campaignId?: string } = {},
  ): Order {
    this.assertKeyUnused(env, input.idempotencyKey);
    const product = this.resolveProduct(cardType, input.productId);
    const people = this.resolveRecipients(env, input);
    people.forEach((p, i) => this.assertAmount(product, p.amountCents, `recipients.${i}.amount`));
    const refund = refundPolicy(input.refundOption, input.refundOptionDays);
    if (input.emailSetting?.templateId && !env.templates.has(input.emailSetting.templateId)) {
      throw fail.notFound(`Template ${input.emailSetting.templateId}`);
    }
    const now = this.core.clock.nowMs();
    let scheduled: Order['scheduled'];
    if (input.sendTiming?.type === 'SCHEDULED') {
      const sendAtMs = resolveSendAt(input.sendTiming.scheduledAt, input.sendTiming.timezone);
      if (sendAtMs <= now)
        throw fail.validation('sendTiming.scheduledAt must be in the future', { field: 'sendTiming.scheduledAt' });
      scheduled = { sendAtMs, scheduledAt: input.sendTiming.scheduledAt, timezone: input.sendTiming.timezone };
    }
    const faceCents = people.reduce((sum, p) => sum + p.amountCents, 0);
    const costCents = toUsdCents(faceCents, product.rateMicros);
    this.assertSpendable(env, costCents);

    const order: Order = {
      orderId: newId.cardOrder(),
      orderType: extra.orderType ?? 'ONE_TIME',
      cardType,
      cardName: product.cardName,
      productId: product.productId,
      faceCurrency: product.currency,
      exchangeRateMicros: product.rateMicros,
      status: 'PENDING',
      totalCostCents: costCents,
      recipients: people.map((p) => ({ ...p, rewardLink: null, delivery: 'PENDING' })),
      sentCount: 0,
      bouncedCount: 0,
      createdAtMs: now,
      refundOption: refund.refundOption,
      refundOptionDays: refund.refundOptionDays,
      idempotencyKey: input.idempotencyKey,
      ...(scheduled ? { scheduled } : {}),
      emailSetting: this.emailSettingWithDefaults(env, input.emailSetting),
      ...(extra.campaignId ? { campaignId: extra.campaignId } : {}),
      ...(input.recipientGroupId ? { recipientGroupId: input.recipientGroupId } : {}),
      dispatched: false,
    };
    this.commit(env, order);
    const dispatchAt = scheduled ? scheduled.sendAtMs : now + ORDER_TIMING_MS.dispatchDelay;
    this.core.jobs.schedule(dispatchAt, `dispatch ${order.orderId}`, () => this.dispatch(env, order));
    return order;
  }

  createRewardLinks(env: EnvState, input: RewardLinkInput): Order {
    this.assertKeyUnused(env, input.idempotencyKey);
    if (!Number.isInteger(input.quantity) || input.quantity < 1 || input.quantity > MAX_LINKS_PER_REQUEST) {
      throw fail.validation(`quantity must be between 1 and ${MAX_LINKS_PER_REQUEST}`, { field: 'quantity' });
    }
    const product = this.resolveProduct(input.cardType, input.productId);
    const amountCents = this.centsOf(input.amountPerLink, 'amountPerLink');
    this.assertAmount(product, amountCents, 'amountPerLink');
    const refund = refundPolicy(input.refundOption, input.refundOptionDays);
    const costCents = toUsdCents(amountCents * input.quantity, product.rateMicros);
    this.assertSpendable(env, costCents);
    const now = this.core.clock.nowMs();
    const recipients: OrderRecipient[] = Array.from({ length: input.quantity }, () => ({
      email: null,
      amountCents,
      rewardLink: null,
      delivery: 'PENDING',
    }));
    const order: Order = {
      orderId: newId.linkOrder(),
      orderType: 'LINK',
      cardType: input.cardType,
      cardName: product.cardName,
      productId: product.productId,
      faceCurrency: product.currency,
      exchangeRateMicros: product.rateMicros,
      status: 'PENDING',
      totalCostCents: costCents,
      recipients,
      sentCount: 0,
      bouncedCount: 0,
      createdAtMs: now,
      refundOption: refund.refundOption,
      refundOptionDays: refund.refundOptionDays,
      idempotencyKey: input.idempotencyKey,
      dispatched: true,
    };
    this.commit(env, order);
    this.core.jobs.schedule(now + ORDER_TIMING_MS.linkGeneration, `links ${order.orderId}`, () =>
      this.complete(env, order),
    );
    return order;
  }

  get(env: EnvState, orderId: string): Order {
    const order = env.orders.get(orderId);
    if (!order) throw fail.notFound(`Order ${orderId}`);
    return order;
  }

  list(env: EnvState, q: OrderListQuery): Order[] {
    const keyword = q.searchKeyword?.trim().toLowerCase();
    return [...env.orders.values()]
      .filter((o) => !q.orderType || o.orderType === q.orderType)
      .filter((o) => !q.cardType || o.cardType === q.cardType)
      .filter((o) => !q.status || o.status === q.status)
      .filter((o) => !q.clientOrderId || o.idempotencyKey === q.clientOrderId)
      .filter((o) => !q.startDate || utcDay(o.createdAtMs) >= q.startDate)
      .filter((o) => !q.endDate || utcDay(o.createdAtMs) <= q.endDate)
      .filter((o) => !keyword || searchText(o).includes(keyword))
      .reverse();
  }

  /** Cancel of a scheduled order at least 10 minutes before its send time; refunds at once. */
  cancel(env: EnvState, orderId: string): Order {
    const order = this.get(env, orderId);
    const now = this.core.clock.nowMs();
    if (!order.scheduled) throw notCancelable(order, 'it was not scheduled (immediate orders cannot be canceled)');
    if (order.status === 'CANCELED') throw notCancelable(order, 'it is already canceled');
    if (order.dispatched || order.status !== 'PENDING') throw notCancelable(order, 'it was already dispatched');
    if (now > order.scheduled.sendAtMs - CANCEL_WINDOW_MS)
      throw notCancelable(order, 'it is less than 10 minutes before its send time');
    order.status = 'CANCELED';
    order.canceledAtMs = now;
    for (const r of order.recipients) r.delivery = 'CANCELED';
    this.core.ledger.refundOrder(env, ledgerSource(order), order.orderId, order.totalCostCents);
    return order;
  }

  resend(
    env: EnvState,
    orderId: string,
    targets: Array<{ email: string; updatedEmail?: string | undefined }>,
  ): { order: Order; resentTo: string[] } {
    const order = this.get(env, orderId);
    if (order.orderType === 'LINK')
      throw new ApiError('ORDER_NOT_RESENDABLE', 'Reward-link orders have no e-mails to resend');
    if (order.status !== 'COMPLETE')
      throw new ApiError(
        'ORDER_NOT_RESENDABLE',
        `Order ${orderId} is ${order.status}; only COMPLETE orders can be resent`,
      );
    const matched = targets.map((t, i) => {
      const recipient = order.recipients.find((r) => r.email?.toLowerCase() === t.email.toLowerCase());
      if (!recipient)
        throw fail.validation(`recipients.${i}.email ${t.email} is not a recipient of order ${orderId}`, {
          field: `recipients.${i}.email`,
        });
      return { recipient, target: t };
    });
    const resentTo: string[] = [];
    for (const { recipient, target } of matched) {
      if (target.updatedEmail) recipient.email = target.updatedEmail;
      const to = recipient.email!;
      const bounced = bounces(to);
      recipient.delivery = bounced ? 'BOUNCED' : 'SENT';
      this.sendCardEmail(env, order, recipient, 'resend');
      resentTo.push(to);
    }
    return { order, resentTo };
  }

  sendTestEmail(
    env: EnvState,
    input: {
      email: string;
      productId: string;
      amount: number;
      emailSubject: string;
      senderName?: string | undefined;
      emailMessage?: string | undefined;
      templateId?: string | undefined;
    },
  ): { sentTo: string; remainingToday: number; sentAtMs: number } {
    if (!this.core.catalog.findChoice(input.productId)) {
      if (this.core.catalog.findBranded(input.productId))
        throw fail.validation('Test e-mails are available for choice cards only', { field: 'productId' });
      throw fail.notFound(`Product ${input.productId}`);
    }
    const cents = this.centsOf(input.amount, 'amount');
    if (!isValidChoiceAmount(cents)) throw invalidChoiceAmount('amount');
    const template = input.templateId ? env.templates.get(input.templateId) : undefined;
    if (input.templateId && !template) throw fail.notFound(`Template ${input.templateId}`);
    const now = this.core.clock.nowMs();
    const day = utcDay(now);
    const used = env.testEmailsPerDay.get(day) ?? 0;
    if (used >= TEST_EMAILS_PER_DAY) {
      throw new ApiError('TEST_EMAIL_LIMIT_EXCEEDED', `At most ${TEST_EMAILS_PER_DAY} test e-mails per day (UTC)`, {
        limit: TEST_EMAILS_PER_DAY,
      });
    }
    env.testEmailsPerDay.set(day, used + 1);
    const fallback = env.templates.get(DEFAULT_TEMPLATE_ID)!;
    const design = this.core.catalog.findChoice(input.productId)!;
    this.core.outbox.add({
      kind: 'test',
      environment: env.name,
      to: input.email,
      bounced: bounces(input.email),
      subject: input.emailSubject,
      senderName: input.senderName ?? template?.senderName ?? fallback.senderName,
      message: input.emailMessage ?? template?.message ?? fallback.message ?? null,
      templateId: template?.templateId ?? null,
      orderId: null,
      cardType: 'CHOICE_CARD',
      cardName: design.designName,
      amount: cents / 100,
      currency: 'USD',
      rewardLink: null,
      sentAt: isoUtc(now),
    });
    return { sentTo: input.email, remainingToday: TEST_EMAILS_PER_DAY - used - 1, sentAtMs: now };
  }

  requestLimitIncrease(
    env: EnvState,
    input: {
      currentDailyLimitUsd: number;
      currentMonthlyLimitUsd: number;
      requestedDailyLimitUsd: number;
      requestedMonthlyLimitUsd: number;
    },
  ) {
    const currentDaily = this.centsOf(input.currentDailyLimitUsd, 'currentDailyLimitUsd');
    const currentMonthly = this.centsOf(input.currentMonthlyLimitUsd, 'currentMonthlyLimitUsd');
    const requestedDaily = this.centsOf(input.requestedDailyLimitUsd, 'requestedDailyLimitUsd');
    const requestedMonthly = this.centsOf(input.requestedMonthlyLimitUsd, 'requestedMonthlyLimitUsd');
    if (requestedDaily <= 0 || requestedMonthly <= 0) throw fail.validation('Requested limits must be positive');
    if (currentDaily !== env.limits.dailyCents || currentMonthly !== env.limits.monthlyCents) {
      throw new ApiError('STALE_LIMIT_SNAPSHOT', 'The current limits given differ from the organization records', {
        currentDailyLimitUsd: env.limits.dailyCents / 100,
        currentMonthlyLimitUsd: env.limits.monthlyCents / 100,
      });
    }
    const request = {
      requestId: newId.limitRequest(),
      requestedDailyCents: requestedDaily,
      requestedMonthlyCents: requestedMonthly,
      createdAtMs: this.core.clock.nowMs(),
    };
    env.limitRequests.push(request);
    return request;
  }

  /** Whether an address-book e-mail is a recipient of a scheduled order that has not been sent yet. */
  hasActiveScheduledOrder(env: EnvState, email: string): boolean {
    const e = email.toLowerCase();
    for (const o of env.orders.values()) {
      if (
        o.scheduled &&
        o.status === 'PENDING' &&
        !o.dispatched &&
        o.recipients.some((r) => r.email?.toLowerCase() === e)
      )
        return true;
    }
    return false;
  }

  spentCents(env: EnvState, period: 'day' | 'month', atMs: number): number {
    // Compared as numbers: every new order asks this of every order, so no date formatting in the loop.
    const { fromMs, toMs } = utcPeriodBounds(atMs, period);
    let sum = 0;
    for (const o of env.orders.values())
      if (o.status !== 'CANCELED' && o.createdAtMs >= fromMs && o.createdAtMs < toMs) sum += o.totalCostCents;
    return sum;
  }

  // --- internals -------------------------------------------------------------------------------

  /** The organization's current rate for a currency (state/exchange-rates.ts): what an order is charged at. */
  private currentRate(currency: string): number {
    const micros = this.core.exchangeRates.microsFor(currency);
    if (micros === undefined) throw new ApiError('INTERNAL_ERROR', `No exchange rate for ${currency}`);
    return micros;
  }

  private resolveProduct(cardType: CardType, productId: string): ResolvedProduct {
    if (cardType === 'BRANDED_CARD') {
      const p = this.core.catalog.findBranded(productId);
      if (!p) throw fail.notFound(`Branded product ${productId}`);
      return {
        cardType,
        productId,
        cardName: p.name,
        currency: p.currencyCode,
        rateMicros: this.currentRate(p.currencyCode),
        branded: p,
      };
    }
    const d = this.core.catalog.findChoice(productId);
    if (!d) throw fail.notFound(`Choice product ${productId}`);
    return { cardType, productId, cardName: d.designName, currency: 'USD', rateMicros: RATE_SCALE };
  }

  private resolveRecipients(
    env: EnvState,
    input: CardOrderInput,
  ): Array<Omit<OrderRecipient, 'rewardLink' | 'delivery'>> {
    if (input.recipientGroupId !== undefined) {
      const group = env.groups.get(input.recipientGroupId);
      if (!group) throw fail.notFound(`Recipient group ${input.recipientGroupId}`);
      if (group.memberIds.length === 0)
        throw fail.validation('The recipient group has no members', { field: 'recipientGroupId' });
      if (group.memberIds.length > MAX_RECIPIENTS_PER_ORDER)
        throw fail.validation(`At most ${MAX_RECIPIENTS_PER_ORDER} recipients per order`);
      const amountCents = this.centsOf(input.amount ?? NaN, 'amount');
      return group.memberIds.map((id) => {
        const r = env.recipients.get(id)!;
        return { email: r.email, amountCents, ...names(r) };
      });
    }
    const list = input.recipients ?? [];
    if (list.length === 0) throw fail.validation('recipients must not be empty', { field: 'recipients' });
    if (list.length > MAX_RECIPIENTS_PER_ORDER)
      throw fail.validation(`At most ${MAX_RECIPIENTS_PER_ORDER} recipients per order`, { field: 'recipients' });
    return list.map((r, i) => ({
      email: r.email,
      amountCents: this.centsOf(r.amount, `recipients.${i}.amount`),
      ...names(r),
    }));
  }

  private centsOf(value: number, field: string): number {
    const cents = centsFromNumber(value);
    if (cents === undefined) throw fail.validation(`${field} must be a number with at most two decimals`, { field });
    return cents;
  }

  private assertAmount(product: ResolvedProduct, cents: number, field: string): void {
    if (product.branded) {
      if (!isValidBrandedAmount(product.branded, cents)) {
        const p = product.branded;
        const rule =
          p.priceType === 'FIXED'
            ? `one of ${p.pricesCents.map((c) => c / 100).join(', ')}`
            : `between ${p.pricesCents[0]! / 100} and ${p.pricesCents[1]! / 100} in steps of ${p.priceStepCents! / 100}`;
        throw fail.validation(
          `${field} ${cents / 100} is not a valid price for ${p.productId}: must be ${rule} ${p.currencyCode}`,
          { field },
        );
      }
    } else if (!isValidChoiceAmount(cents)) {
      throw invalidChoiceAmount(field);
    }
  }

  /** Spending limits (per UTC day and month), then the balance. */
  private assertSpendable(env: EnvState, costCents: number): void {
    const now = this.core.clock.nowMs();
    const today = this.spentCents(env, 'day', now);
    if (today + costCents > env.limits.dailyCents) {
      throw new ApiError('DAILY_LIMIT_EXCEEDED', 'This order would exceed the daily spending limit', {
        dailyLimit: money(env.limits.dailyCents),
        spentToday: money(today),
        orderCost: money(costCents),
      });
    }
    const month = this.spentCents(env, 'month', now);
    if (month + costCents > env.limits.monthlyCents) {
      throw new ApiError('MONTHLY_LIMIT_EXCEEDED', 'This order would exceed the monthly spending limit', {
        monthlyLimit: money(env.limits.monthlyCents),
        spentThisMonth: money(month),
        orderCost: money(costCents),
      });
    }
    this.core.ledger.ensureFunds(env, costCents);
  }

  private emailSettingWithDefaults(env: EnvState, given: EmailSetting | undefined): EmailSetting {
    const template =
      env.templates.get(given?.templateId ?? DEFAULT_TEMPLATE_ID) ?? env.templates.get(DEFAULT_TEMPLATE_ID)!;
    return {
      senderName: given?.senderName ?? template.senderName,
      subject: given?.subject ?? 'You received a gift card',
      ...((given?.message ?? template.message) ? { message: given?.message ?? template.message } : {}),
      templateId: template.templateId,
    };
  }

  /** All checks passed: record the key, the order, the charge; announce it. Nothing can fail after this. */
  private commit(env: EnvState, order: Order): void {
    env.usedKeys.set(order.idempotencyKey, order.orderId);
    env.orders.set(order.orderId, order);
    this.core.ledger.chargeOrder(env, ledgerSource(order), order.orderId, order.totalCostCents);
    this.core.webhooks.emit('order.created', {
      orderId: order.orderId,
      cardType: order.cardType,
      totalAmount: decimalString(order.totalCostCents),
      currency: 'USD',
      recipientCount: order.recipients.length,
    });
  }

  private dispatch(env: EnvState, order: Order): void {
    if (order.status !== 'PENDING') return;
    order.status = 'IN_PROGRESS';
    order.dispatched = true;
    this.core.jobs.schedule(
      this.core.clock.nowMs() + ORDER_TIMING_MS.deliveryDuration,
      `deliver ${order.orderId}`,
      () => this.complete(env, order),
    );
  }

  /** Issues every card's link; e-mails card orders (bounce.test addresses bounce); counts are final. */
  private complete(env: EnvState, order: Order): void {
    if (order.status === 'CANCELED' || order.status === 'COMPLETE') return;
    for (const r of order.recipients) {
      r.rewardLink = `https://rewards.emulator.test/redeem/${newId.redeemCode()}`;
      if (r.email === null) continue;
      r.delivery = bounces(r.email) ? 'BOUNCED' : 'SENT';
      this.sendCardEmail(env, order, r, 'card');
    }
    order.sentCount = order.recipients.filter((r) => r.delivery === 'SENT').length;
    order.bouncedCount = order.recipients.filter((r) => r.delivery === 'BOUNCED').length;
    order.status = 'COMPLETE';
    order.completedAtMs = this.core.clock.nowMs();
  }

  private sendCardEmail(env: EnvState, order: Order, r: OrderRecipient, kind: 'card' | 'resend'): void {
    const setting = order.emailSetting;
    this.core.outbox.add({
      kind,
      environment: env.name,
      to: r.email!,
      bounced: r.delivery === 'BOUNCED',
      subject: setting?.subject ?? 'You received a gift card',
      senderName: setting?.senderName ?? 'Kudos Rewards',
      message: setting?.message ?? null,
      templateId: setting?.templateId ?? null,
      orderId: order.orderId,
      cardType: order.cardType,
      cardName: order.cardName,
      amount: r.amountCents / 100,
      currency: order.faceCurrency,
      rewardLink: r.rewardLink,
      sentAt: isoUtc(this.core.clock.nowMs()),
    });
  }
}

function names(r: {
  firstName?: string | undefined;
  lastName?: string | undefined;
  company?: string | undefined;
  department?: string | undefined;
}) {
  return {
    ...(r.firstName !== undefined ? { firstName: r.firstName } : {}),
    ...(r.lastName !== undefined ? { lastName: r.lastName } : {}),
    ...(r.company !== undefined ? { company: r.company } : {}),
    ...(r.department !== undefined ? { department: r.department } : {}),
  };
}

function invalidChoiceAmount(field: string): ApiError {
  return fail.validation(
    `${field} must be a whole number of dollars between ${CHOICE_RANGE_CENTS.min / 100} and ${CHOICE_RANGE_CENTS.max / 100}`,
    { field },
  );
}

function notCancelable(order: Order, why: string): ApiError {
  return new ApiError('ORDER_NOT_CANCELABLE', `Order ${order.orderId} cannot be canceled: ${why}`);
}

/** Refund policy of spec 2.2: days only with refundOption true; 30/60/90. */
export function refundPolicy(
  refundOption: boolean | undefined,
  days: number | undefined,
): { refundOption: boolean; refundOptionDays: number | null } {
  if (days !== undefined && refundOption !== true) {
    throw fail.validation('refundOptionDays may only be given with refundOption true', { field: 'refundOptionDays' });
  }
  if (days !== undefined && ![30, 60, 90].includes(days))
    throw fail.validation('refundOptionDays must be 30, 60 or 90', { field: 'refundOptionDays' });
  return { refundOption: refundOption === true, refundOptionDays: days ?? null };
}

function ledgerSource(order: Order): 'branded' | 'choice' {
  return order.cardType === 'BRANDED_CARD' ? 'branded' : 'choice';
}

function searchText(o: Order): string {
  return [
    o.orderId,
    o.cardName,
    o.productId,
    o.idempotencyKey,
    ...o.recipients.flatMap((r) => [r.email ?? '', r.firstName ?? '', r.lastName ?? '']),
  ]
    .join(' ')
    .toLowerCase();
}

// --- serialization -------------------------------------------------------------------------------

function sendTimingJson(o: Order) {
  return o.scheduled
    ? {
        type: 'SCHEDULED',
        scheduledAt: o.scheduled.scheduledAt,
        timezone: o.scheduled.timezone,
        sendAt: isoUtc(o.scheduled.sendAtMs),
      }
    : { type: 'IMMEDIATE' };
}

export function serializeOrderSummary(o: Order) {
  return {
    orderId: o.orderId,
    orderType: o.orderType,
    cardType: o.cardType,
    cardName: o.cardName,
    productId: o.productId,
    status: o.status,
    totalCost: money(o.totalCostCents),
    recipientCount: o.recipients.length,
    sentCount: o.sentCount,
    bouncedCount: o.bouncedCount,
    createdAt: isoNoOffset(o.createdAtMs),
    refundOption: o.refundOption,
    refundOptionDays: o.refundOption ? (o.refundOptionDays ?? 30) : null,
    clientOrderId: o.idempotencyKey,
    sendTiming: sendTimingJson(o),
    ...(o.campaignId ? { campaignId: o.campaignId } : {}),
    ...(o.recipientGroupId ? { recipientGroupId: o.recipientGroupId } : {}),
  };
}

export function serializeOrderDetail(o: Order) {
  return {
    ...serializeOrderSummary(o),
    currency: o.faceCurrency,
    exchangeRate: o.exchangeRateMicros / RATE_SCALE,
    canceledAt: o.canceledAtMs !== undefined ? isoUtc(o.canceledAtMs) : null,
    completedAt: o.completedAtMs !== undefined ? isoUtc(o.completedAtMs) : null,
    emailSetting: o.emailSetting ?? null,
    recipients: o.recipients.map((r) => ({
      email: r.email,
      firstName: r.firstName ?? null,
      lastName: r.lastName ?? null,
      amount: r.amountCents / 100,
      currency: o.faceCurrency,
      status: r.delivery,
      // Non-null only when the order is COMPLETE (spec 2.1).
      rewardLink: o.status === 'COMPLETE' ? r.rewardLink : null,
    })),
  };
}

export function serializeCanceled(o: Order) {
  return {
    orderId: o.orderId,
    status: o.status,
    canceledAt: isoUtc(o.canceledAtMs!),
    refundOption: o.refundOption ? 1 : 0,
    refundOptionDays: o.refundOption ? o.refundOptionDays : null,
    refundedAmount: money(o.totalCostCents),
  };
}
