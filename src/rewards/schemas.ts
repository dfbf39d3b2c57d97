// zod schemas of the Rewards API (spec parts 2 and 4): responses are loose (unknown fields kept) and
// tolerant of plausible variations (numbers as strings, 0/1 for booleans, missing optional fields);
// they normalise money to exact decimal strings and timestamps to Dates (no offset = UTC).
import { z } from 'zod';

import { isDecimal, normalizeDecimal } from './money.js';
import { tryParseApiTimestamp } from './time.js';

// ---------------------------------------------------------------------------------------------------
// Building blocks

/** A decimal amount sent as a JSON number or a string; becomes an exact decimal string ("25.00"). */
export const decimalSchema = z
  .union([z.number(), z.string()])
  .refine((value) => isDecimal(value), { message: 'expected a decimal amount' })
  .transform((value) => normalizeDecimal(value));

/** An integer sent as a number or a numeric string. */
export const integerSchema = z.union([
  z.number().int(),
  z
    .string()
    .regex(/^-?\d+$/)
    .transform((value) => Number(value)),
]);

/** A boolean sent as true/false, 0/1, "true"/"false" or null (null = false). */
export const looseBooleanSchema = z
  .union([
    z.boolean(),
    z.literal(0),
    z.literal(1),
    z.literal('0'),
    z.literal('1'),
    z.literal('true'),
    z.literal('false'),
    z.null(),
  ])
  .transform((value) => value === true || value === 1 || value === '1' || value === 'true');

/** ISO-8601 timestamp; without offset it is UTC (see time.ts). */
export const timestampSchema = z
  .string()
  .refine((value) => tryParseApiTimestamp(value) !== undefined, { message: 'expected an ISO-8601 timestamp' })
  .transform((value) => tryParseApiTimestamp(value)!);

/** `{amount, currency}`; a bare number is read as USD (the API's only account currency). */
export const moneySchema = z.union([
  z
    .looseObject({ amount: decimalSchema, currency: z.string().default('USD') })
    .transform(({ amount, currency }) => ({ amount, currency })),
  decimalSchema.transform((amount) => ({ amount, currency: 'USD' })),
]);

const nullableString = z.string().nullable().optional();
/** A string-ish status or code that may come as a number ("03" or 3). */
const codeString = z.union([z.string(), z.number()]).transform((value) => String(value));

/** A list page `{data, page, pageSize, totalCount}`; missing counters are filled in by the caller. */
export function pageSchema<T extends z.ZodType>(item: T) {
  return z.looseObject({
    data: z.array(item),
    page: integerSchema.optional(),
    pageSize: integerSchema.optional(),
    totalCount: integerSchema.optional(),
  });
}

// ---------------------------------------------------------------------------------------------------
// 4.1 Token

export const tokenResponseSchema = z.looseObject({
  access_token: z.string().min(1),
  token_type: z.string().optional(),
  expires_in: z
    .union([
      z.number(),
      z
        .string()
        .regex(/^\d+(\.\d+)?$/)
        .transform(Number),
    ])
    .optional(),
  scope: z.string().optional(),
});
export type TokenResponse = z.output<typeof tokenResponseSchema>;

// ---------------------------------------------------------------------------------------------------
// 2.11 Catalog

export const brandedProductSchema = z.looseObject({
  productId: z.string(),
  brandName: z.string().optional(),
  description: z.string().optional(),
  terms: z.string().optional(),
  redemptionInstructions: nullableString,
  countryCode: nullableString,
  currencyCode: z.string().optional(),
  category: z.string().nullable().optional(),
  priceType: z.string(),
  prices: z.array(decimalSchema).default([]),
  priceStep: decimalSchema.nullable().optional(),
});
export type BrandedProduct = z.output<typeof brandedProductSchema>;

export const choiceProductSchema = z.looseObject({
  productId: z.string(),
  name: z.string().optional(),
  description: z.string().optional(),
  priceType: z.string().default('RANGE'),
  prices: z.array(decimalSchema).default([]),
  priceStep: decimalSchema.nullable().optional(),
});
export type ChoiceProduct = z.output<typeof choiceProductSchema>;

// ---------------------------------------------------------------------------------------------------
// 2.1 Orders

/**
 * An optional field that becomes undefined when malformed instead of failing the whole response.
 * Used in order summaries: failing the answer of a successful order creation would hide an order that
 * exists (the caller would retry, meet 409, look it up and fail again).
 */
function lenient<T extends z.ZodType>(schema: T) {
  return schema.optional().catch(undefined);
}

export const orderSummarySchema = z.looseObject({
  orderId: z.string(),
  orderType: lenient(z.string()),
  cardType: lenient(z.string()),
  cardName: lenient(z.string()),
  status: z.string(),
  totalCost: lenient(moneySchema),
  recipientCount: lenient(integerSchema),
  sentCount: lenient(integerSchema),
  bouncedCount: lenient(integerSchema),
  createdAt: lenient(timestampSchema),
  refundOption: lenient(looseBooleanSchema),
  refundOptionDays: lenient(integerSchema.nullable()),
  clientOrderId: lenient(z.string()),
  idempotencyKey: lenient(z.string()),
});
export type OrderSummary = z.output<typeof orderSummarySchema>;

export const orderRecipientSchema = z.looseObject({
  email: z.string().nullable().optional(),
  rewardLink: z.string().nullable().optional(),
  amount: decimalSchema.optional(),
  status: z.string().optional(),
});
export type OrderRecipient = z.output<typeof orderRecipientSchema>;

export const orderSchema = orderSummarySchema.extend({
  recipients: z.array(orderRecipientSchema).default([]),
});
export type Order = z.output<typeof orderSchema>;

/**
 * Cancel response. `refundOption` arrives as 0/1/null (spec 4.3) and becomes a boolean;
 * `refundOptionDays` null on a refundable order means the default window, 30 days (spec 4.3), so it is
 * filled in; on a non-refundable order it is null.
 */
export const canceledOrderSchema = z
  .looseObject({
    orderId: z.string(),
    status: z.string(),
    canceledAt: timestampSchema.optional(),
    refundOption: looseBooleanSchema.optional(),
    refundOptionDays: integerSchema.nullable().optional(),
  })
  .transform((order) => {
    const refundOption = order.refundOption ?? false;
    return { ...order, refundOption, refundOptionDays: refundOption ? (order.refundOptionDays ?? 30) : null };
  });
export type CanceledOrder = z.output<typeof canceledOrderSchema> & {
  /** True when the order had already been canceled (e.g. a double click, or a retried DELETE whose first answer was lost). */
  alreadyCanceled?: boolean;
};

export const resendResultSchema = z.looseObject({
  orderId: z.string().optional(),
  requeued: z.union([z.boolean(), z.number(), z.string()]).optional(),
  resentToEmails: z.array(z.string()).default([]),
});
export type ResendResult = z.output<typeof resendResultSchema>;

export const testEmailResultSchema = z.looseObject({
  sentTo: z.string().optional(),
  status: z.string(),
  remainingToday: integerSchema.optional(),
  sentAt: timestampSchema.optional(),
});
export type TestEmailResult = z.output<typeof testEmailResultSchema>;

export const limitIncreaseResultSchema = z.looseObject({
  status: z.string(),
  message: z.string().optional(),
});
export type LimitIncreaseResult = z.output<typeof limitIncreaseResultSchema>;

// ---------------------------------------------------------------------------------------------------
// 2.5 Campaigns, 2.4 templates, 2.6 recipients, 2.7 groups

export const campaignSchema = z.looseObject({
  campaignId: z.string(),
  name: z.string().optional(),
  cardType: z.string().optional(),
  productId: z.string().optional(),
  amount: decimalSchema.optional(),
  subject: z.string().optional(),
  senderName: z.string().optional(),
  message: z.string().nullable().optional(),
  templateId: z.string().nullable().optional(),
  refundOption: looseBooleanSchema.optional(),
  refundOptionDays: integerSchema.nullable().optional(),
});
export type Campaign = z.output<typeof campaignSchema>;

export const templateSchema = z.looseObject({
  templateId: z.string(),
  name: z.string().optional(),
  senderName: z.string().optional(),
  message: z.string().nullable().optional(),
  imageAlignment: z.string().optional(),
  imageSize: integerSchema.optional(),
  borderColor: z.string().nullable().optional(),
  buttonColor: z.string().nullable().optional(),
  buttonFontColor: z.string().nullable().optional(),
  isDefault: looseBooleanSchema.optional(),
});
export type Template = z.output<typeof templateSchema>;

export const recipientSchema = z.looseObject({
  recipientId: z.string(),
  email: z.string(),
  firstName: z.string().nullable().optional(),
  lastName: z.string().nullable().optional(),
  company: z.string().nullable().optional(),
  department: z.string().nullable().optional(),
});
export type Recipient = z.output<typeof recipientSchema>;

// The spec does not name the member-count field of a group; accept the plausible names.
const MEMBER_COUNT_FIELDS = ['memberCount', 'membersCount', 'recipientCount', 'totalMembers', 'count'] as const;

export const recipientGroupSchema = z
  .looseObject({
    groupId: z.string(),
    groupName: z.string(),
  })
  .transform((group) => {
    const record = group as Record<string, unknown>;
    let memberCount: number | undefined;
    for (const field of MEMBER_COUNT_FIELDS) {
      const value = record[field];
      if (typeof value === 'number' && Number.isInteger(value)) {
        memberCount = value;
        break;
      }
      if (typeof value === 'string' && /^\d+$/.test(value)) {
        memberCount = Number(value);
        break;
      }
    }
    return { ...group, memberCount };
  });
export type RecipientGroup = z.output<typeof recipientGroupSchema>;

/** A member row: a recipient record (the spec does not show its shape; at least `recipientId`). */
export const groupMemberSchema = z.looseObject({
  recipientId: z.string(),
  email: z.string().optional(),
  firstName: z.string().nullable().optional(),
  lastName: z.string().nullable().optional(),
});
export type GroupMember = z.output<typeof groupMemberSchema>;

// ---------------------------------------------------------------------------------------------------
// 2.8-2.10 Balance, funding, ledger

export const balanceSchema = z
  .looseObject({
    availableBalance: moneySchema,
    pendingBalance: moneySchema.optional(),
  })
  .transform((balance) => ({
    ...balance,
    pendingBalance: balance.pendingBalance ?? { amount: '0.00', currency: balance.availableBalance.currency },
  }));
export type Balance = z.output<typeof balanceSchema>;

export const fundingSchema = z.looseObject({
  fundingNo: z.string(),
  amount: moneySchema.optional(),
  status: z.string(),
  message: z.string().optional(),
  estimatedProcessingTime: z.string().optional(),
  createdAt: timestampSchema.optional(),
  canceledAt: timestampSchema.optional(),
});
export type Funding = z.output<typeof fundingSchema>;

export const ledgerRowSchema = z.looseObject({
  referenceNumber: z.string(),
  type: z.string(),
  source: z.string().optional(),
  status: codeString.optional(),
  statusLabel: z.string().optional(),
  amount: moneySchema,
  signedAmount: moneySchema.optional(),
  occurredAt: timestampSchema.optional(),
});
export type LedgerRow = z.output<typeof ledgerRowSchema>;

// ---------------------------------------------------------------------------------------------------
// Requests. Loose too: fields the spec does not name (e.g. the recipient-group field of an order)
// pass through unchanged. Amounts may be given as exact decimal strings or numbers.

const amountInput = z
  .union([z.string(), z.number()])
  .refine((value) => isDecimal(value), { message: 'expected a decimal amount' });
const refundDaysInput = z.union([z.literal(30), z.literal(60), z.literal(90)]);

export const emailSettingSchema = z.looseObject({
  senderName: z.string().min(1),
  subject: z.string().min(1),
  message: z.string().optional(),
  templateId: z.string().optional(),
});

export const sendTimingSchema = z.union([
  z.looseObject({ type: z.literal('IMMEDIATE') }),
  z.looseObject({
    type: z.literal('SCHEDULED'),
    /** A Date or an ISO string with offset is an instant; a string without offset is a wall time in `timezone`. */
    scheduledAt: z.union([z.string().min(1), z.date()]),
    timezone: z.string().min(1),
  }),
]);

export const orderRecipientInputSchema = z.looseObject({
  email: z.string().min(3),
  amount: amountInput,
  firstName: z.string().optional(),
  lastName: z.string().optional(),
  company: z.string().optional(),
  department: z.string().optional(),
});

export const cardOrderParamsSchema = z.looseObject({
  productId: z.string().min(1),
  recipients: z.array(orderRecipientInputSchema).optional(),
  emailSetting: emailSettingSchema,
  sendTiming: sendTimingSchema.optional(),
  refundOption: z.boolean().optional(),
  refundOptionDays: refundDaysInput.optional(),
});
export type CardOrderParams = z.input<typeof cardOrderParamsSchema>;

export const rewardLinkParamsSchema = z.looseObject({
  cardType: z.enum(['BRANDED_CARD', 'CHOICE_CARD']),
  productId: z.string().min(1),
  quantity: z.number().int().positive(),
  amountPerLink: amountInput,
  refundOption: z.boolean().optional(),
  refundOptionDays: refundDaysInput.optional(),
});
export type RewardLinkParams = z.input<typeof rewardLinkParamsSchema>;

export const resendParamsSchema = z.looseObject({
  recipients: z.array(z.looseObject({ email: z.string().min(3), updatedEmail: z.string().min(3).optional() })).min(1),
});
export type ResendParams = z.input<typeof resendParamsSchema>;

export const testEmailParamsSchema = z.looseObject({
  email: z.string().min(3),
  productId: z.string().min(1),
  amount: amountInput,
  emailSubject: z.string().optional(),
  senderName: z.string().optional(),
  emailMessage: z.string().optional(),
  templateId: z.string().optional(),
});
export type TestEmailParams = z.input<typeof testEmailParamsSchema>;

export const limitIncreaseParamsSchema = z.looseObject({
  currentDailyLimitUsd: amountInput,
  currentMonthlyLimitUsd: amountInput,
  requestedDailyLimitUsd: amountInput,
  requestedMonthlyLimitUsd: amountInput,
});
export type LimitIncreaseParams = z.input<typeof limitIncreaseParamsSchema>;

export const campaignParamsSchema = z.looseObject({
  name: z.string().min(1),
  cardType: z.literal('CHOICE_CARD').default('CHOICE_CARD'),
  productId: z.string().min(1),
  amount: amountInput,
  subject: z.string().min(1),
  senderName: z.string().min(1),
  message: z.string().optional(),
  templateId: z.string().optional(),
  refundOption: z.boolean().optional(),
  refundOptionDays: refundDaysInput.optional(),
});
export type CampaignParams = z.input<typeof campaignParamsSchema>;

export const executeCampaignParamsSchema = z
  .looseObject({
    recipients: z
      .array(
        z.looseObject({ email: z.string().min(3), firstName: z.string().optional(), lastName: z.string().optional() }),
      )
      .optional(),
    recipientGroupId: z.string().optional(),
    senderName: z.string().max(100).optional(),
    subject: z.string().max(200).optional(),
    message: z.string().max(2000).optional(),
  })
  .refine((params) => (params.recipients === undefined) !== (params.recipientGroupId === undefined), {
    message: 'exactly one of recipients or recipientGroupId must be given',
  });
export type ExecuteCampaignParams = z.input<typeof executeCampaignParamsSchema>;

export const templateParamsSchema = z.looseObject({
  name: z.string().min(1).max(100),
  senderName: z.string().min(1),
  message: z.string().optional(),
  imageAlignment: z.enum(['left', 'center', 'right']).optional(),
  imageSize: z.number().int().min(1).max(100).optional(),
  borderColor: z
    .string()
    .regex(/^#[0-9a-fA-F]{6}$/)
    .optional(),
  buttonColor: z
    .string()
    .regex(/^#[0-9a-fA-F]{6}$/)
    .optional(),
  buttonFontColor: z
    .string()
    .regex(/^#[0-9a-fA-F]{6}$/)
    .optional(),
});
export type TemplateParams = z.input<typeof templateParamsSchema>;

export const recipientParamsSchema = z.looseObject({
  email: z.string().min(3),
  firstName: z.string().optional(),
  lastName: z.string().optional(),
  company: z.string().optional(),
  department: z.string().optional(),
});
export type RecipientParams = z.input<typeof recipientParamsSchema>;

export const groupNameParamsSchema = z.looseObject({ groupName: z.string().min(1) });

export const topUpParamsSchema = z.looseObject({
  amount: amountInput,
  companyName: z.string().min(1),
  phoneNumber: z.string().min(1),
  billingAddress: z.string().min(1),
  city: z.string().min(1),
  state: z.string().min(1),
  country: z.string().min(1),
  zipCode: z.string().min(1),
  ein: z.string().min(1),
  companyWebsite: z.string().optional(),
});
export type TopUpParams = z.input<typeof topUpParamsSchema>;
