import type { Clock } from '../clock.js';
import { fail } from '../errors.js';
import { newId } from '../ids.js';
import { centsFromNumber, money } from '../money.js';
import { isoUtc } from '../time.js';
import type { Catalog } from './catalog.js';
import { CHOICE_RANGE_CENTS, isValidChoiceAmount } from './catalog.js';
import type { Campaign, EnvState, Order } from './model.js';
import { type OrdersService, type RecipientInput, refundPolicy } from './orders.js';

export interface CampaignInput {
  name: string;
  cardType: 'CHOICE_CARD';
  productId: string;
  amount: number;
  subject: string;
  senderName: string;
  message?: string | undefined;
  templateId?: string | undefined;
  refundOption?: boolean | undefined;
  refundOptionDays?: number | undefined;
}

export interface ExecuteInput {
  idempotencyKey: string;
  recipients?: Array<Pick<RecipientInput, 'email' | 'firstName' | 'lastName'>> | undefined;
  recipientGroupId?: string | undefined;
  senderName?: string | undefined;
  subject?: string | undefined;
  message?: string | undefined;
}

/** Campaigns (spec 2.5, 4.4): reusable choice-card sends, soft-deleted. */
/** What campaigns need of the emulator's state: a campaign send is an order. */
export interface CampaignsState {
  readonly clock: Clock;
  readonly catalog: Catalog;
  readonly orders: Pick<OrdersService, 'assertKeyUnused' | 'createCardOrder'>;
}

export class CampaignsService {
  constructor(private readonly core: CampaignsState) {}

  create(env: EnvState, input: CampaignInput): Campaign {
    const fields = this.checked(env, input);
    const now = this.core.clock.nowMs();
    const c: Campaign = { campaignId: newId.campaign(), ...fields, createdAtMs: now, updatedAtMs: now };
    env.campaigns.set(c.campaignId, c);
    return c;
  }

  get(env: EnvState, campaignId: string): Campaign {
    const c = env.campaigns.get(campaignId);
    if (!c || c.deletedAtMs !== undefined) throw fail.notFound(`Campaign ${campaignId}`);
    return c;
  }

  list(env: EnvState, search?: string): Campaign[] {
    const s = search?.trim().toLowerCase();
    return [...env.campaigns.values()].filter(
      (c) => c.deletedAtMs === undefined && (!s || c.name.toLowerCase().includes(s)),
    );
  }

  /** PUT replaces every field. */
  update(env: EnvState, campaignId: string, input: CampaignInput): Campaign {
    const existing = this.get(env, campaignId);
    const fields = this.checked(env, input);
    const updated: Campaign = {
      campaignId,
      ...fields,
      createdAtMs: existing.createdAtMs,
      updatedAtMs: this.core.clock.nowMs(),
    };
    env.campaigns.set(campaignId, updated);
    return updated;
  }

  delete(env: EnvState, campaignId: string): void {
    this.get(env, campaignId).deletedAtMs = this.core.clock.nowMs();
  }

  execute(env: EnvState, campaignId: string, input: ExecuteInput): Order {
    this.core.orders.assertKeyUnused(env, input.idempotencyKey);
    const c = this.get(env, campaignId);
    const amount = c.amountCents / 100;
    return this.core.orders.createCardOrder(
      env,
      'CHOICE_CARD',
      {
        idempotencyKey: input.idempotencyKey,
        productId: c.productId,
        ...(input.recipients ? { recipients: input.recipients.map((r) => ({ ...r, amount })) } : {}),
        ...(input.recipientGroupId !== undefined ? { recipientGroupId: input.recipientGroupId, amount } : {}),
        emailSetting: {
          senderName: input.senderName ?? c.senderName,
          subject: input.subject ?? c.subject,
          ...((input.message ?? c.message) !== undefined ? { message: input.message ?? c.message } : {}),
          ...(c.templateId && env.templates.has(c.templateId) ? { templateId: c.templateId } : {}),
        },
        refundOption: c.refundOption,
        ...(c.refundOption && c.refundOptionDays !== null ? { refundOptionDays: c.refundOptionDays } : {}),
      },
      { orderType: 'CAMPAIGN', campaignId },
    );
  }

  private checked(env: EnvState, input: CampaignInput): Omit<Campaign, 'campaignId' | 'createdAtMs' | 'updatedAtMs'> {
    if (!this.core.catalog.findChoice(input.productId)) throw fail.notFound(`Choice product ${input.productId}`);
    const cents = centsFromNumber(input.amount);
    if (cents === undefined || !isValidChoiceAmount(cents)) {
      throw fail.validation(
        `amount must be a whole number of dollars between ${CHOICE_RANGE_CENTS.min / 100} and ${CHOICE_RANGE_CENTS.max / 100}`,
        { field: 'amount' },
      );
    }
    if (input.templateId !== undefined && !env.templates.has(input.templateId))
      throw fail.notFound(`Template ${input.templateId}`);
    const refund = refundPolicy(input.refundOption, input.refundOptionDays);
    return {
      name: input.name,
      cardType: 'CHOICE_CARD',
      productId: input.productId,
      amountCents: cents,
      subject: input.subject,
      senderName: input.senderName,
      ...(input.message !== undefined ? { message: input.message } : {}),
      ...(input.templateId !== undefined ? { templateId: input.templateId } : {}),
      ...refund,
    };
  }
}

export function serializeCampaign(c: Campaign) {
  return {
    campaignId: c.campaignId,
    name: c.name,
    cardType: c.cardType,
    productId: c.productId,
    amount: money(c.amountCents).amount,
    currency: 'USD',
    subject: c.subject,
    senderName: c.senderName,
    message: c.message ?? null,
    templateId: c.templateId ?? null,
    refundOption: c.refundOption,
    refundOptionDays: c.refundOption ? (c.refundOptionDays ?? 30) : null,
    createdAt: isoUtc(c.createdAtMs),
    updatedAt: isoUtc(c.updatedAtMs),
  };
}
