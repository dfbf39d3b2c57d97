import type { EnvName } from './auth.js';

/** Records kept per environment. Money fields end in `Cents`; timestamps are epoch ms. */

export type OrderStatus = 'PENDING' | 'IN_PROGRESS' | 'COMPLETE' | 'CANCELED';
export type OrderType = 'ONE_TIME' | 'SMART' | 'LINK' | 'CAMPAIGN' | 'REWARD';
export type CardType = 'BRANDED_CARD' | 'CHOICE_CARD';

export interface OrderRecipient {
  email: string | null;
  firstName?: string;
  lastName?: string;
  company?: string;
  department?: string;
  /** Face value in cents of the card's currency. */
  amountCents: number;
  rewardLink: string | null;
  delivery: 'PENDING' | 'SENT' | 'BOUNCED' | 'CANCELED';
}

export interface EmailSetting {
  senderName: string;
  subject: string;
  message?: string | undefined;
  templateId?: string | undefined;
}

export interface Order {
  orderId: string;
  orderType: OrderType;
  cardType: CardType;
  cardName: string;
  productId: string;
  /** Currency of the face values (branded non-USD products); cost is always USD. */
  faceCurrency: string;
  exchangeRateMicros: number;
  status: OrderStatus;
  totalCostCents: number;
  recipients: OrderRecipient[];
  sentCount: number;
  bouncedCount: number;
  createdAtMs: number;
  completedAtMs?: number;
  canceledAtMs?: number;
  refundOption: boolean;
  /** As given by the caller (null when not given). */
  refundOptionDays: number | null;
  idempotencyKey: string;
  scheduled?: { sendAtMs: number; scheduledAt: string; timezone: string };
  emailSetting?: EmailSetting;
  campaignId?: string;
  recipientGroupId?: string;
  /** True once the cards were handed to delivery (scheduled orders at their send time). */
  dispatched: boolean;
}

export interface Campaign {
  campaignId: string;
  name: string;
  cardType: 'CHOICE_CARD';
  productId: string;
  amountCents: number;
  subject: string;
  senderName: string;
  message?: string;
  templateId?: string;
  refundOption: boolean;
  refundOptionDays: number | null;
  createdAtMs: number;
  updatedAtMs: number;
  deletedAtMs?: number;
}

export interface Template {
  templateId: string;
  name: string;
  senderName: string;
  message?: string;
  imageAlignment: 'left' | 'center' | 'right';
  imageSize: number;
  borderColor?: string;
  buttonColor?: string;
  buttonFontColor?: string;
  isDefault: boolean;
  createdAtMs: number;
}

export interface Recipient {
  recipientId: string;
  email: string;
  firstName?: string | undefined;
  lastName?: string | undefined;
  company?: string | undefined;
  department?: string | undefined;
  createdAtMs: number;
  updatedAtMs: number;
}

export interface RecipientGroup {
  groupId: string;
  groupName: string;
  /** Member recipient ids in the order they were added. */
  memberIds: string[];
  createdAtMs: number;
}

export type FundingStatus = 'PENDING' | 'COMPLETED' | 'REJECTED' | 'CANCELED';

export interface Funding {
  fundingNo: string;
  amountCents: number;
  status: FundingStatus;
  company: Record<string, string>;
  createdAtMs: number;
  canceledAtMs?: number;
  ledgerId: string;
}

export type LedgerType = 'CHARGE' | 'USE' | 'REFUND' | 'TRANSFER' | 'REWARD';
export type LedgerSource = 'reward' | 'transfer' | 'funding' | 'branded' | 'choice';

export interface LedgerRow {
  ledgerId: string;
  seq: number;
  referenceNumber: string;
  type: LedgerType;
  source: LedgerSource;
  status: string;
  statusLabel: string;
  /** Always a magnitude; the sign comes from the row kind. */
  amountCents: number;
  occurredAtMs: number;
}

export interface LimitIncreaseRequest {
  requestId: string;
  requestedDailyCents: number;
  requestedMonthlyCents: number;
  createdAtMs: number;
}

export interface EnvState {
  name: EnvName;
  availableCents: number;
  orders: Map<string, Order>;
  /** Every idempotency key the environment has used for an order (order creation or campaign execute). */
  usedKeys: Map<string, string>;
  campaigns: Map<string, Campaign>;
  templates: Map<string, Template>;
  recipients: Map<string, Recipient>;
  groups: Map<string, RecipientGroup>;
  fundings: Map<string, Funding>;
  ledger: LedgerRow[];
  limits: { dailyCents: number; monthlyCents: number };
  limitRequests: LimitIncreaseRequest[];
  testEmailsPerDay: Map<string, number>;
}
